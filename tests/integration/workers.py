"""Relay and consumer processes that the crash tests kill with SIGKILL.

    python -m tests.integration.workers relay DSN BOOTSTRAP TOPIC
    python -m tests.integration.workers consumer DSN BOOTSTRAP TOPIC GROUP \
        [--die-before-offset-commit]

The consumer's handler counts, per event, how many times its effect was applied
(`effects.times`); with `--die-before-offset-commit` the process kills itself right after
its first batch committed in Postgres and before the Kafka offset commit.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from typing import Any

import asyncpg

from teenpatti.events import EventEnvelope
from teenpatti.eventsourcing import (
    AsyncpgEventStore,
    KafkaEventConsumer,
    KafkaOutboxRelay,
    kafka_producer,
)
from teenpatti.settings import ADMIN, InfrastructureSettings

EFFECTS = """
CREATE TABLE IF NOT EXISTS effects (
    event_id uuid PRIMARY KEY,
    times    integer NOT NULL
)
"""


async def record_effect(
    connection: asyncpg.Connection,
    envelopes: list[EventEnvelope],
) -> None:
    for envelope in envelopes:
        await connection.execute(
            "INSERT INTO effects (event_id, times) VALUES ($1, 1)"
            " ON CONFLICT (event_id) DO UPDATE SET times = effects.times + 1",
            envelope.event_id,
        )


class DyingConsumer(KafkaEventConsumer):
    async def _commit_offsets(self) -> None:
        if self.stats.handled:
            os.kill(os.getpid(), signal.SIGKILL)
        await super()._commit_offsets()


def _kafka(bootstrap: str) -> dict[str, Any]:
    """The tests' connection options (their principal's, from the inherited environment)."""
    return InfrastructureSettings(kafka_bootstrap=bootstrap).as_principal(ADMIN).kafka_options()


async def relay(dsn: str, bootstrap: str, topic: str) -> None:
    async with asyncpg.create_pool(dsn, min_size=1, max_size=4) as pool:
        producer = kafka_producer(_kafka(bootstrap), client_id="relay-worker")
        await producer.start()
        try:
            store = AsyncpgEventStore(pool, producer="tests")
            await KafkaOutboxRelay(store, producer, topic, name="main", batch_size=100).run(
                asyncio.Event()
            )
        finally:
            await producer.stop()


async def consumer(dsn: str, bootstrap: str, topic: str, group: str, die: bool) -> None:
    async with asyncpg.create_pool(dsn, min_size=1, max_size=4) as pool:
        await pool.execute(EFFECTS)
        kind = DyingConsumer if die else KafkaEventConsumer
        runtime = kind(
            pool,
            name=group,
            topics=[topic],
            bootstrap_servers=_kafka(bootstrap),
            handler=record_effect,
            max_records=50 if die else 500,
            # the dying one tries to commit after its first poll, so it dies mid-stream
            commit_interval_seconds=0 if die else 0.5,
        )
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        await runtime.run(stop)


def main(argv: list[str]) -> None:
    match argv:
        case ["relay", dsn, bootstrap, topic]:
            asyncio.run(relay(dsn, bootstrap, topic))
        case ["consumer", dsn, bootstrap, topic, group, *flags]:
            asyncio.run(
                consumer(dsn, bootstrap, topic, group, "--die-before-offset-commit" in flags)
            )
        case _:
            sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
