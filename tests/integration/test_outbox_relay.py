"""The outbox relay against real Postgres and Kafka."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import AsyncIterator

import asyncpg
import pytest
from aiokafka import AIOKafkaProducer

from teenpatti.eventsourcing import (
    AsyncpgEventStore,
    GlobalPosition,
    KafkaOutboxRelay,
    kafka_producer,
)
from teenpatti.eventsourcing.topics import partition_for
from teenpatti.settings import InfrastructureSettings

from .sample_events import counted, read_topic, read_topic_to_end


@pytest.fixture
async def producer(infrastructure: InfrastructureSettings) -> AsyncIterator[AIOKafkaProducer]:
    started = kafka_producer(infrastructure.kafka_options(), client_id="tests")
    await started.start()
    yield started
    await started.stop()


async def test_events_reach_kafka_in_order_keyed_by_table(
    store: AsyncpgEventStore,
    producer: AIOKafkaProducer,
    topic: str,
    infrastructure: InfrastructureSettings,
) -> None:
    for round_number in range(4):
        for table in ("T1", "T2", "T3"):
            await store.append(
                f"{table}-round-{round_number}",
                0,
                [counted(round_number * 10 + i) for i in range(5)],
                table_id=table,
            )
    relay = KafkaOutboxRelay(store, producer, topic, name="main", batch_size=7)

    assert await relay.publish_pending() == 60
    assert await relay.publish_pending() == 0

    received = await read_topic_to_end(infrastructure.kafka_options(), topic)
    assert len(received) == 60
    for table in ("T1", "T2", "T3"):
        mine = [r for r in received if r.key == table.encode()]
        # the partition Kafka's own partitioner gives the key: table ownership relies on it
        partitions = len(await producer.partitions_for(topic))
        assert {r.partition for r in mine} == {partition_for(table, partitions)}
        assert [r.envelope["payload"]["chips"] for r in mine] == [
            n * 10 + i for n in range(4) for i in range(5)
        ]
        assert all(r.envelope["table_id"] == table for r in mine)
    # what each record is, for consumers that pass it over unread
    assert {r.headers for r in received} == {
        (("event_type", b"ChipCounted"), ("schema_version", b"2"))
    }
    last = (await store.read_all(limit=100))[-1].global_position
    assert await relay.checkpoint() == last


async def test_a_late_commit_is_published_after_the_earlier_commit(
    store: AsyncpgEventStore,
    pool: asyncpg.Pool,
    producer: AIOKafkaProducer,
    topic: str,
    infrastructure: InfrastructureSettings,
) -> None:
    relay = KafkaOutboxRelay(store, producer, topic, name="main")
    async with pool.acquire() as slow:
        slow_tx = slow.transaction()
        await slow_tx.start()
        await store.append("round-slow", 0, [counted(1)], table_id="T1", connection=slow)
        await store.append("round-fast", 0, [counted(2)], table_id="T1")

        assert await relay.publish_pending() == 0
        await slow_tx.commit()

    assert await relay.publish_pending() == 2
    received = await read_topic(infrastructure.kafka_options(), topic, expected=2)
    assert [r.envelope["stream_id"] for r in received] == ["round-slow", "round-fast"]


async def test_only_one_relay_of_a_store_publishes_at_a_time(
    store: AsyncpgEventStore,
    producer: AIOKafkaProducer,
    topic: str,
    infrastructure: InfrastructureSettings,
) -> None:
    stop = asyncio.Event()
    relays = [KafkaOutboxRelay(store, producer, topic, name="main") for _ in range(3)]
    tasks = [asyncio.create_task(relay.run(stop)) for relay in relays]
    try:
        for n in range(50):
            await store.append(f"round-{n}", 0, [counted(n)], table_id=f"T{n % 5}")
        await read_topic(infrastructure.kafka_options(), topic, expected=50)
    finally:
        stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=10)

    # every relay has stopped: the topic read to its end holds all any of them published
    received = await read_topic_to_end(infrastructure.kafka_options(), topic)
    streams = sorted(r.envelope["stream_id"] for r in received)
    assert streams == sorted(f"round-{n}" for n in range(50)), "each event published once"


async def test_a_stopping_relay_first_publishes_what_is_committed(
    store: AsyncpgEventStore,
    pool: asyncpg.Pool,
    producer: AIOKafkaProducer,
    topic: str,
    infrastructure: InfrastructureSettings,
) -> None:
    stop = asyncio.Event()
    relay = KafkaOutboxRelay(store, producer, topic, name="main")
    task = asyncio.create_task(relay.run(stop))
    async with asyncio.timeout(30):
        while not relay.leading:
            await asyncio.sleep(0.01)
    async with pool.acquire() as slow:
        # the open transaction holds the read barrier: nothing after it is visible yet
        slow_tx = slow.transaction()
        await slow_tx.start()
        await store.append("round-slow", 0, [counted(1)], table_id="T1", connection=slow)
        await store.append("round-fast", 0, [counted(2)], table_id="T2")
        stop.set()
        await asyncio.sleep(0.3)
        assert not task.done(), "the relay waits for the committed event behind the barrier"
        await slow_tx.commit()
    await asyncio.wait_for(task, timeout=30)

    assert await relay.publish_pending() == 0, "nothing was left for the next relay"
    received = await read_topic(infrastructure.kafka_options(), topic, expected=2)
    assert sorted(r.envelope["stream_id"] for r in received) == ["round-fast", "round-slow"]


async def test_relay_killed_mid_stream_resumes_and_loses_nothing(
    store: AsyncpgEventStore,
    pool: asyncpg.Pool,
    database: str,
    topic: str,
    infrastructure: InfrastructureSettings,
) -> None:
    appended: list[str] = []
    for stream in range(200):
        result = await store.append(
            f"round-{stream}", 0, [counted(i) for i in range(100)], table_id=f"T{stream % 10}"
        )
        appended.extend(str(event_id) for event_id in result.event_ids)
    last = await pool.fetchrow(
        "SELECT transaction_id, position FROM events ORDER BY transaction_id DESC, position DESC"
        " LIMIT 1"
    )
    end = GlobalPosition(last[0], last[1])

    def start_relay() -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.integration.workers",
                "relay",
                database,
                infrastructure.kafka_servers,
                topic,
            ]
        )

    async def checkpoint() -> GlobalPosition:
        row = await pool.fetchrow("SELECT transaction_id, position FROM outbox_checkpoints")
        return GlobalPosition(row[0], row[1]) if row else GlobalPosition()

    worker = start_relay()
    try:
        async with asyncio.timeout(60):
            while await checkpoint() == GlobalPosition():
                await asyncio.sleep(0.01)
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=10)
        at_kill = await checkpoint()
        assert GlobalPosition() < at_kill < end, "the relay was killed mid-stream"

        worker = start_relay()
        async with asyncio.timeout(120):
            while await checkpoint() != end:
                await asyncio.sleep(0.05)
    finally:
        worker.kill()
        worker.wait(timeout=10)

    received = await read_topic(infrastructure.kafka_options(), topic, expected=len(appended))
    counts = Counter(r.envelope["event_id"] for r in received)
    assert set(counts) == set(appended), "every stored event reached Kafka"
    # Per stream, Kafka holds the events in stream order (duplicates only repeat a suffix).
    by_stream: dict[str, list[int]] = {}
    for r in received:
        by_stream.setdefault(r.envelope["stream_id"], []).append(r.envelope["stream_version"])
    for versions in by_stream.values():
        first_seen = list(dict.fromkeys(versions))
        assert first_seen == sorted(first_seen)
