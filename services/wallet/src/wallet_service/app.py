"""The wallet service: `create_app(settings)` wires the runtime, the tables and the routes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from teenpatti.events.catalog import ALL_TOPICS, SETTLEMENT_EVENTS, TABLE_EVENTS, WALLET_EVENTS
from teenpatti.eventsourcing import TopicConfigurationError, each_in_order, ensure_topics
from teenpatti.http import ApiKeys, install_problem_handlers
from teenpatti.runtime import ServiceRuntime

from .adapters.postgres import migrate
from .config import WalletSettings
from .consumers import SETTLEMENT_EVENT_TYPES, TABLE_EVENT_TYPES, WalletConsumers
from .entrypoints import SERVICE_NAME, install_refusal_handler, router
from .handlers import Wallet

log = logging.getLogger(__name__)


async def settle_topics(settings: WalletSettings, attempts: int = 20) -> None:
    """Create the topics and wait until Kafka describes them whole. Right after creating a
    topic, Kafka may describe it with no partitions yet, which `ensure_topics` (run again by
    the runtime) takes for a wrong partition count; a real mismatch still fails, later."""
    for attempt in range(1, attempts + 1):
        try:
            await ensure_topics(
                settings.kafka_servers,
                [settings.topic(t) for t in ALL_TOPICS],
                partitions=settings.kafka_partitions,
                replication_factor=settings.kafka_replication_factor,
            )
            return
        except TopicConfigurationError as error:
            if attempt == attempts:
                raise
            log.info("topics not settled yet (%s); retrying", error)
            await asyncio.sleep(0.25)


def create_app(settings: WalletSettings | None = None) -> FastAPI:
    settings = settings or WalletSettings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runtime = ServiceRuntime(
            service=SERVICE_NAME,
            database=settings.wallet_database,
            emits=WALLET_EVENTS,
            settings=settings,
            pool_size=settings.wallet_pool_size,
        )
        try:
            await settle_topics(settings)
            await runtime.start()
            await migrate(runtime.pool)
            app.state.wallet = Wallet(runtime.pool, runtime.store, settings)
            consumers = WalletConsumers(runtime.store)
            runtime.consume(
                "table",
                [TABLE_EVENTS],
                consumers.on_table_event,
                batch_handler=each_in_order(consumers.on_table_event),
                handles=TABLE_EVENT_TYPES,
            )
            runtime.consume(
                "settlement",
                [SETTLEMENT_EVENTS],
                consumers.on_settlement_event,
                batch_handler=consumers.on_settlement_events,
                handles=SETTLEMENT_EVENT_TYPES,
                # a round's settlements come in bursts: the bigger the batch, the more bets
                # each player lock and each player's append covers
                max_records=5_000,
            )
            app.state.runtime = runtime
            yield
        finally:
            await runtime.stop()

    app = FastAPI(title=f"Teen Patti {SERVICE_NAME}", lifespan=lifespan)
    app.state.api_keys = ApiKeys(settings.api_keys.get_secret_value())
    install_problem_handlers(app)
    install_refusal_handler(app)
    app.include_router(router)
    return app


app = create_app()
