"""The consumer runtime against real Postgres and Kafka."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from uuid import uuid4

import asyncpg
import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from teenpatti.events import EventEnvelope
from teenpatti.eventsourcing import (
    AfterCommit,
    AsyncpgEventStore,
    KafkaEventConsumer,
    KafkaOutboxRelay,
    kafka_producer,
    partition_for,
)
from teenpatti.eventsourcing.consumer import BatchHandler, NotYetError, parked_events
from teenpatti.settings import InfrastructureSettings

from .sample_events import counted, registry
from .workers import EFFECTS, record_effect


@pytest.fixture
async def producer(infrastructure: InfrastructureSettings) -> AsyncIterator[AIOKafkaProducer]:
    started = kafka_producer(infrastructure.kafka_options(), client_id="tests")
    await started.start()
    yield started
    await started.stop()


async def publish_events(
    store: AsyncpgEventStore, producer: AIOKafkaProducer, topic: str, count: int
) -> None:
    for n in range(count):
        await store.append(f"round-{n}", 0, [counted(n)], table_id=f"T{n % 7}")
    assert await KafkaOutboxRelay(store, producer, topic, name="main").publish_pending() == count


async def eventually(condition: Callable[[], Awaitable[bool]], timeout: float = 60) -> None:
    async with asyncio.timeout(timeout):
        while not await condition():
            await asyncio.sleep(0.05)


async def effects(pool: asyncpg.Pool) -> dict[str, int]:
    rows = await pool.fetch("SELECT event_id, times FROM effects")
    return {str(row[0]): row[1] for row in rows}


async def run_until_handled(
    runtime: KafkaEventConsumer,
    pool: asyncpg.Pool,
    infrastructure: InfrastructureSettings,
    topic: str,
    count: int,
    records: int | None = None,
) -> None:
    """Run the consumer until `count` effects are recorded and its offsets are committed past
    `records` records (default: `count`, one effect per record)."""
    total = count if records is None else records
    options = infrastructure.kafka_options()

    async def handled() -> bool:
        return await _count_is(pool, count) and await _offsets_reach(
            options, topic, runtime.name, total
        )

    await run_until(runtime, handled)


def consumer(
    pool: asyncpg.Pool,
    infrastructure: InfrastructureSettings,
    topic: str,
    name: str,
    handler: BatchHandler,
    **options: Any,
) -> KafkaEventConsumer:
    """A consumer of `topic` in the group `name`."""
    return KafkaEventConsumer(
        pool,
        name=name,
        topics=[topic],
        bootstrap_servers=infrastructure.kafka_options(),
        handler=handler,
        **options,
    )


async def run_until(runtime: KafkaEventConsumer, condition: Callable[[], Awaitable[bool]]) -> None:
    """Run the consumer until `condition` holds, then stop it."""
    stop = asyncio.Event()
    task = asyncio.create_task(runtime.run(stop))
    try:
        await eventually(condition)
    finally:
        stop.set()
        await asyncio.wait_for(task, timeout=30)


async def committed_offsets(kafka: dict[str, Any], topic: str, group: str) -> list[int | None]:
    consumer = AIOKafkaConsumer(**kafka, group_id=group)
    await consumer.start()
    try:
        partitions = consumer.partitions_for_topic(topic) or set()
        if not partitions:
            await consumer._client.force_metadata_update()
            partitions = consumer.partitions_for_topic(topic) or set()
        return [await consumer.committed(TopicPartition(topic, p)) for p in sorted(partitions)]
    finally:
        await consumer.stop()


async def test_consumer_killed_after_db_commit_before_offset_commit_applies_once(
    store: AsyncpgEventStore,
    pool: asyncpg.Pool,
    database: str,
    producer: AIOKafkaProducer,
    topic: str,
    infrastructure: InfrastructureSettings,
) -> None:
    await publish_events(store, producer, topic, 300)
    await pool.execute(EFFECTS)
    group = f"group-{uuid4().hex[:8]}"
    command = [
        sys.executable,
        "-m",
        "tests.integration.workers",
        "consumer",
        database,
        infrastructure.kafka_servers,
        topic,
        group,
    ]

    dying = subprocess.Popen([*command, "--die-before-offset-commit"])
    assert await asyncio.to_thread(dying.wait, 60) == -9
    applied_before_crash = await effects(pool)
    assert 0 < len(applied_before_crash) < 300, "killed after its first batch, mid-stream"
    assert set(await committed_offsets(infrastructure.kafka_options(), topic, group)) == {None}

    worker = subprocess.Popen(command)
    try:
        await eventually(lambda: _count_is(pool, 300))
        await eventually(lambda: _offsets_reach(infrastructure.kafka_options(), topic, group, 300))
    finally:
        worker.terminate()
        assert await asyncio.to_thread(worker.wait, 30) == 0, "graceful shutdown"

    applied = await effects(pool)
    assert len(applied) == 300
    assert set(applied.values()) == {1}, "no event applied twice"
    assert await pool.fetchval("SELECT count(*) FROM processed_events") == 300


async def _offsets_reach(kafka: dict[str, Any], topic: str, group: str, total: int) -> bool:
    return sum(o or 0 for o in await committed_offsets(kafka, topic, group)) == total


async def _count_is(pool: asyncpg.Pool, expected: int) -> bool:
    return bool(await pool.fetchval("SELECT count(*) FROM effects") == expected)


async def strict_handler(
    connection: asyncpg.Connection,
    envelopes: list[EventEnvelope],
) -> None:
    for envelope in envelopes:
        event = registry.decode_envelope(envelope)
        if getattr(event, "chips", 0) < 0:
            raise ValueError("a negative chip count cannot be applied")
    await record_effect(connection, envelopes)


async def test_poison_events_are_parked_and_the_partition_moves_on(
    store: AsyncpgEventStore,
    pool: asyncpg.Pool,
    producer: AIOKafkaProducer,
    topic: str,
    infrastructure: InfrastructureSettings,
) -> None:
    await pool.execute(EFFECTS)
    good = json.loads((await _envelope(store, counted(5))).to_json_bytes())
    bad_records = [
        b"not json at all",
        json.dumps({**good, "event_id": "not-a-uuid"}).encode(),
        json.dumps({**good, "event_id": str(uuid4()), "event_type": "ChipsStolen"}).encode(),
        json.dumps({**good, "event_id": str(uuid4()), "schema_version": 9}).encode(),
        json.dumps({**good, "event_id": str(uuid4()), "payload": {"chips": "many"}}).encode(),
        json.dumps(
            {**good, "event_id": str(uuid4()), "payload": {"chips": -1, "colour": "red"}}
        ).encode(),
    ]
    for value in [*bad_records, json.dumps(good).encode()]:
        await producer.send_and_wait(topic, value, key=b"T1")

    runtime = consumer(
        pool, infrastructure, topic, "poison-test", strict_handler, retry_backoff_seconds=0.01
    )
    await run_until(runtime, lambda: _count_is(pool, 1))

    parked = await pool.fetch("SELECT error FROM parked_events ORDER BY kafka_offset")
    errors = [row[0] for row in parked]
    assert len(errors) == 6
    assert errors[0].startswith("malformed event envelope: (root): Invalid JSON")
    assert errors[1].startswith("malformed event envelope: event_id:")
    assert errors[2] == "UnknownEventTypeError: unknown event type 'ChipsStolen'"
    assert (
        "ChipCounted schema version 9 is not supported (this build reads versions 1 to 2)"
        in (errors[3])
    )
    assert "invalid ChipCounted v2 payload: chips: Input should be a valid integer" in errors[4]
    assert errors[5] == "ValueError: a negative chip count cannot be applied"
    assert (runtime.stats.handled, runtime.stats.parked) == (1, 6)
    assert list(await effects(pool)) == [good["event_id"]]
    # as a person reads them: newest first, the type and id of those that are envelopes
    shown = await parked_events(pool, limit=4)
    assert [p.error for p in shown] == errors[:1:-1]
    assert [p.offset for p in shown] == [5, 4, 3, 2]
    assert [(p.event_type, p.consumer) for p in shown] == [
        ("ChipCounted", "poison-test"),
        ("ChipCounted", "poison-test"),
        ("ChipCounted", "poison-test"),
        ("ChipsStolen", "poison-test"),
    ]
    assert (await parked_events(pool, limit=10))[-2].event_id is None  # "not-a-uuid"
    assert (await parked_events(pool, limit=10))[-1].event_type is None  # not JSON


async def test_an_event_before_what_it_depends_on_is_tried_again_never_parked(
    store: AsyncpgEventStore,
    pool: asyncpg.Pool,
    producer: AIOKafkaProducer,
    topic: str,
    infrastructure: InfrastructureSettings,
) -> None:
    await pool.execute(EFFECTS)
    await publish_events(store, producer, topic, 3)
    calls = 0

    async def early(connection: asyncpg.Connection, envelopes: list[EventEnvelope]) -> None:
        nonlocal calls
        calls += 1
        if calls <= 4:  # more times than a failing handler is tried before it is parked
            raise NotYetError("what this event depends on is not there yet")
        await record_effect(connection, envelopes)

    runtime = consumer(
        pool, infrastructure, topic, "not-yet-test", early, retry_backoff_seconds=0.01
    )
    await run_until_handled(runtime, pool, infrastructure, topic, 3)

    assert calls > 4
    assert runtime.stats.parked == 0
    assert await pool.fetchval("SELECT count(*) FROM parked_events") == 0
    assert set((await effects(pool)).values()) == {1}


async def test_an_event_that_waits_in_vain_is_parked_and_the_others_go_on(
    store: AsyncpgEventStore,
    pool: asyncpg.Pool,
    producer: AIOKafkaProducer,
    topic: str,
    infrastructure: InfrastructureSettings,
) -> None:
    """A forgery naming a fact that never comes (a round that never closes) must not hold
    its partition: past `wait_seconds` it is parked, and the events after it are handled."""
    await pool.execute(EFFECTS)
    await publish_events(store, producer, topic, 3)
    waiting_for = {str(e.event_id) for e in await store.read_all() if e.stream_id == "round-1"}

    async def never_for_one(connection: asyncpg.Connection, envelopes: list[EventEnvelope]) -> None:
        if any(str(e.event_id) in waiting_for for e in envelopes):
            raise NotYetError("round-1 never comes")
        await record_effect(connection, envelopes)

    runtime = consumer(
        pool, infrastructure, topic, "waits-in-vain", never_for_one, wait_seconds=1.5
    )
    await run_until_handled(runtime, pool, infrastructure, topic, 2, records=3)

    assert runtime.stats.parked == 1
    (parked,) = await parked_events(pool, limit=10)
    assert "NotYetError after" in parked.error and "round-1 never comes" in parked.error
    assert set(await effects(pool)) == {
        str(e.event_id) for e in await store.read_all() if e.stream_id != "round-1"
    }


async def test_a_redelivered_event_is_applied_once(
    store: AsyncpgEventStore,
    pool: asyncpg.Pool,
    producer: AIOKafkaProducer,
    topic: str,
    infrastructure: InfrastructureSettings,
) -> None:
    await pool.execute(EFFECTS)
    envelope = await _envelope(store, counted(3))
    for _ in range(3):
        await producer.send_and_wait(topic, envelope.to_json_bytes(), key=b"T1")
    runtime = consumer(pool, infrastructure, topic, "dedup", strict_handler)
    await run_until(runtime, lambda: _seen(runtime, 3))

    assert (runtime.stats.handled, runtime.stats.duplicates) == (1, 2)
    assert await effects(pool) == {str(envelope.event_id): 1}


async def _seen(runtime: KafkaEventConsumer, count: int) -> bool:
    return runtime.stats.handled + runtime.stats.duplicates + runtime.stats.parked >= count


async def test_an_older_schema_version_is_upcast(
    store: AsyncpgEventStore,
    pool: asyncpg.Pool,
    producer: AIOKafkaProducer,
    topic: str,
    infrastructure: InfrastructureSettings,
) -> None:
    await pool.execute("CREATE TABLE colours (colour text NOT NULL)")
    current = json.loads((await _envelope(store, counted(3))).to_json_bytes())
    v1 = {**current, "schema_version": 1, "payload": {"chips": 3}}
    await producer.send_and_wait(topic, json.dumps(v1).encode(), key=b"T1")

    async def remember_colour(
        connection: asyncpg.Connection,
        envelopes: list[EventEnvelope],
    ) -> None:
        for envelope in envelopes:
            event = registry.decode_envelope(envelope)
            await connection.execute("INSERT INTO colours VALUES ($1)", event.colour)  # type: ignore[attr-defined]

    runtime = consumer(pool, infrastructure, topic, "upcast", remember_colour)
    await run_until(runtime, lambda: _seen(runtime, 1))

    assert await pool.fetchval("SELECT colour FROM colours") == "unknown"


async def _envelope(store: AsyncpgEventStore, event: object) -> EventEnvelope:
    result = await store.append(f"round-{uuid4().hex[:6]}", 0, [event], table_id="T1")  # type: ignore[list-item]
    (stored,) = [e for e in await store.read_all(limit=1000) if e.event_id == result.event_ids[0]]
    return stored.envelope()


async def test_a_poll_over_several_partitions_is_one_transaction_in_partition_order(
    store: AsyncpgEventStore,
    pool: asyncpg.Pool,
    producer: AIOKafkaProducer,
    topic: str,
    infrastructure: InfrastructureSettings,
) -> None:
    await pool.execute(EFFECTS)
    await publish_events(store, producer, topic, 140)  # 7 tables: several partitions
    batches: list[tuple[int, list[EventEnvelope]]] = []

    async def batch(connection: asyncpg.Connection, envelopes: list[EventEnvelope]) -> None:
        batches.append((await connection.fetchval("SELECT txid_current()"), envelopes))
        await record_effect(connection, envelopes)

    runtime = consumer(pool, infrastructure, topic, "batch-test", batch, max_records=1000)
    await run_until_handled(runtime, pool, infrastructure, topic, 140)

    assert set((await effects(pool)).values()) == {1}
    assert len({txid for txid, _ in batches}) == len(batches), "one transaction per poll"
    partitions = infrastructure.kafka_partitions
    spans = [len({partition_for(e.table_id, partitions) for e in b}) for _, b in batches]
    assert max(spans) > 1, f"no poll spanned partitions: {spans}"
    # each table's events (one partition's) come in the order they were published
    for _, envelopes in batches:
        for table in {e.table_id for e in envelopes}:
            counts = [e.payload["chips"] for e in envelopes if e.table_id == table]
            assert counts == sorted(counts)


async def test_an_action_after_commit_runs_once_each_transaction_has_committed(
    store: AsyncpgEventStore,
    pool: asyncpg.Pool,
    producer: AIOKafkaProducer,
    topic: str,
    infrastructure: InfrastructureSettings,
) -> None:
    await pool.execute(EFFECTS)
    await publish_events(store, producer, topic, 140)
    seen_committed: list[int] = []  # per action: how many of its events another session saw

    def after(envelopes: list[EventEnvelope]) -> AfterCommit:
        async def check() -> None:
            ids = [envelope.event_id for envelope in envelopes]
            seen_committed.append(
                await pool.fetchval(
                    "SELECT count(*) FROM effects WHERE event_id = ANY($1::uuid[])", ids
                )
            )
            if len(seen_committed) == 1:
                raise RuntimeError("an announcement that fails")  # logged; nothing redone

        return check

    async def batch(connection: asyncpg.Connection, envelopes: list[EventEnvelope]) -> AfterCommit:
        await record_effect(connection, envelopes)
        return after(envelopes)

    runtime = consumer(pool, infrastructure, topic, "after-commit-test", batch)
    await run_until_handled(runtime, pool, infrastructure, topic, 140)

    assert sum(seen_committed) == 140, "each action saw all of its events committed"
    assert set((await effects(pool)).values()) == {1}, "a failed action redoes nothing"
    assert runtime.stats.handled == 140


async def test_records_it_may_pass_over_take_no_transaction_and_their_offsets_move_on(
    store: AsyncpgEventStore,
    pool: asyncpg.Pool,
    producer: AIOKafkaProducer,
    topic: str,
    infrastructure: InfrastructureSettings,
) -> None:
    await pool.execute(EFFECTS)
    await publish_events(store, producer, topic, 140)
    odd = {
        str(e.event_id)
        for e in await store.read_all(limit=1000)
        if e.envelope().payload["chips"] % 2
    }
    transactions: list[int] = []

    async def batch(connection: asyncpg.Connection, envelopes: list[EventEnvelope]) -> None:
        transactions.append(await connection.fetchval("SELECT txid_current()"))
        await record_effect(connection, envelopes)

    def even(envelope: EventEnvelope) -> bool:
        return bool(envelope.payload["chips"] % 2 == 0)

    for name, batches in (("skips-batch", True), ("skips-single", False)):
        await pool.execute("TRUNCATE effects")
        runtime = consumer(pool, infrastructure, topic, name, batch, batches=batches, skips=even)
        await run_until_handled(runtime, pool, infrastructure, topic, 70, records=140)
        handled = await effects(pool)
        assert set(handled) == odd and set(handled.values()) == {1}, name
        processed = await pool.fetch(
            "SELECT event_id FROM processed_events WHERE consumer = $1", name
        )
        assert {str(row[0]) for row in processed} == odd, name  # the skipped left no row
        assert (runtime.stats.handled, runtime.stats.skipped) == (70, 70), name
    assert transactions, "the batch consumer handled its polls in transactions"


async def test_records_whose_headers_name_a_type_to_pass_over_are_not_read(
    store: AsyncpgEventStore,
    pool: asyncpg.Pool,
    producer: AIOKafkaProducer,
    topic: str,
    infrastructure: InfrastructureSettings,
) -> None:
    await pool.execute(EFFECTS)
    await publish_events(store, producer, topic, 10)  # the relay names each one's type
    # two records no relay wrote, whose values are not envelopes: passed over unread if the
    # headers say it may be, parked if nothing does
    headers = [("event_type", b"ChipCounted"), ("schema_version", b"2")]
    await producer.send_and_wait(topic, b"not json", key=b"T1", headers=headers)
    await producer.send_and_wait(topic, b"not json either", key=b"T1")
    # headers that are not the relay's (no version a build could have) say nothing: read
    garbled = [("event_type", b"ChipCounted"), ("schema_version", b"two")]
    await producer.send_and_wait(topic, b"nor this", key=b"T1", headers=garbled)

    runtime = consumer(
        pool,
        infrastructure,
        topic,
        "skips-unread",
        record_effect,
        skips_type=lambda event_type, version: (event_type, version) == ("ChipCounted", 2),
    )
    await run_until_handled(runtime, pool, infrastructure, topic, 0, records=13)
    assert await effects(pool) == {}
    parked = await pool.fetch("SELECT record_value FROM parked_events ORDER BY kafka_offset")
    assert [row[0] for row in parked] == [b"not json either", b"nor this"]
    assert (runtime.stats.skipped, runtime.stats.parked) == (11, 2)
