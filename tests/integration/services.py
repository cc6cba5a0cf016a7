"""Helpers for testing a service in-process against the real Postgres, Kafka and Redis.

A test runs the service's FastAPI app with its lifespan (store, relay, consumers), talks to
it over ASGI with httpx, feeds it events by publishing envelopes to its input topics, and
reads what it emitted from its output topic.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from uuid import UUID

import asyncpg
import httpx
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from fastapi import FastAPI

from teenpatti.events import Event, EventEnvelope, new_envelope
from teenpatti.events.catalog import (
    ALL_TOPICS,
    BetsPaid,
    BetsPlaced,
    PaidLine,
    PlacedLine,
    registry,
)
from teenpatti.eventsourcing import TopicConfigurationError, ensure_topics
from teenpatti.kernel.migrate import migrate_service
from teenpatti.settings import InfrastructureSettings


@asynccontextmanager
async def running(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """The app's database migrated, the app started (lifespan entered) and an HTTP client
    bound to it."""
    await migrate_service(app.state.service, app.state.settings)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://service", timeout=10
        ) as client,
    ):
        yield client


async def publish(
    settings: InfrastructureSettings,
    topic: str,
    event: Event,
    *,
    table_id: str,
    stream_id: str | None = None,
    stream_version: int = 1,
    producer: str = "tests",
) -> EventEnvelope:
    """Publish one event, as another service's relay would, to `topic` (prefix added)."""
    envelope = new_envelope(
        event,
        stream_id=stream_id or f"test-{table_id}",
        stream_version=stream_version,
        table_id=table_id,
        producer=producer,
    )
    kafka = AIOKafkaProducer(**settings.kafka_options(), acks="all")
    await kafka.start()
    try:
        await kafka.send_and_wait(
            settings.topic(topic), envelope.to_json_bytes(), key=table_id.encode()
        )
    finally:
        await kafka.stop()
    return envelope


async def collect(
    settings: InfrastructureSettings,
    topic: str,
    until: Callable[[list[EventEnvelope]], bool],
    *,
    timeout: float = 30.0,
) -> list[EventEnvelope]:
    """Every envelope on `topic` (prefix added) from the start, once `until(seen)` holds."""
    consumer = AIOKafkaConsumer(
        settings.topic(topic),
        **settings.kafka_options(),
        auto_offset_reset="earliest",
        enable_auto_commit=False,
    )
    await consumer.start()
    seen: list[EventEnvelope] = []
    try:
        async with asyncio.timeout(timeout):
            while not until(seen):
                batches = await consumer.getmany(timeout_ms=200)
                for records in batches.values():
                    seen.extend(EventEnvelope.from_json_bytes(r.value or b"") for r in records)
    except TimeoutError:
        types = [e.event_type for e in seen]
        raise AssertionError(f"timed out on {topic}; saw {types}") from None
    finally:
        await consumer.stop()
    return seen


async def read_to_end(
    settings: InfrastructureSettings, topic: str, *, timeout: float = 30.0
) -> list[EventEnvelope]:
    """Every envelope on `topic` (prefix added), from its start up to its end offsets as they
    are when called: read once the system is quiet, all it ever published and nothing else,
    so that a count proves "exactly once" instead of stopping at the N-th record."""
    consumer = AIOKafkaConsumer(
        settings.topic(topic),
        **settings.kafka_options(),
        group_id=None,  # no group: every partition is assigned to this reader
        enable_auto_commit=False,
        auto_offset_reset="earliest",
    )
    seen: list[EventEnvelope] = []
    try:
        async with asyncio.timeout(timeout):
            await consumer.start()
            while not consumer.assignment():  # aiokafka assigns them: no event to await
                await asyncio.sleep(0.05)
            partitions = list(consumer.assignment())
            await consumer.seek_to_beginning(*partitions)
            ends = await consumer.end_offsets(partitions)
            left = {tp for tp in partitions if ends[tp] > await consumer.position(tp)}
            while left:
                batches = await consumer.getmany(*left, timeout_ms=200)
                for tp, records in batches.items():
                    seen.extend(
                        EventEnvelope.from_json_bytes(r.value or b"")
                        for r in records
                        if r.offset < ends[tp]
                    )
                left = {tp for tp in left if await consumer.position(tp) < ends[tp]}
    except TimeoutError:
        raise AssertionError(f"timed out reading {topic} to its end") from None
    finally:
        await consumer.stop()
    return seen


async def outbox_published(connection: asyncpg.Connection) -> bool:
    """Whether the relay has published every event of the service's store (its checkpoint
    is at its last event): with its consumers idle, the service is quiet."""
    return bool(
        await connection.fetchval(
            # the store's order: (transaction id, position), as the relay reads it
            "SELECT NOT EXISTS (SELECT 1 FROM events e WHERE NOT EXISTS ("
            " SELECT 1 FROM outbox_checkpoints c"
            " WHERE (c.transaction_id, c.position) >= (e.transaction_id, e.position)))"
        )
    )


def of_type(envelopes: list[EventEnvelope], event_type: str) -> list[Event]:
    return [registry.decode_envelope(e) for e in envelopes if e.event_type == event_type]


def paid_bets(envelopes: list[EventEnvelope]) -> list[PaidLine]:
    """Every bet's payment the envelopes hold: the lines of each `BetsPaid`, in order."""
    return [
        paid
        for event in of_type(envelopes, "BetsPaid")
        if isinstance(event, BetsPaid)
        for paid in event.each()
    ]


def placed_bets(envelopes: list[EventEnvelope]) -> list[PlacedLine]:
    """Every bet the envelopes place: the lines of each `BetsPlaced`, in order."""
    return [
        placed
        for event in of_type(envelopes, "BetsPlaced")
        if isinstance(event, BetsPlaced)
        for placed in event.each()
    ]


def count_of(event_type: str, n: int) -> Callable[[list[EventEnvelope]], bool]:
    return lambda seen: sum(e.event_type == event_type for e in seen) >= n


def json_of(value: object) -> object:
    """A value as it looks after a JSON round trip (UUIDs and datetimes as strings)."""
    return json.loads(json.dumps(value, default=str))


__all__ = [
    "UUID",
    "collect",
    "count_of",
    "json_of",
    "of_type",
    "outbox_published",
    "paid_bets",
    "placed_bets",
    "publish",
    "read_to_end",
    "running",
]


async def topics_ready(settings: InfrastructureSettings) -> None:
    """Create the test's topics before its services start: right after creating a topic a
    busy broker may describe it with no partitions yet, which `ensure_topics` refuses."""
    async with asyncio.timeout(60):
        while True:
            try:
                await ensure_topics(
                    settings.kafka_options(),
                    [settings.topic(t) for t in ALL_TOPICS],
                    partitions=settings.kafka_partitions,
                )
                return
            except TopicConfigurationError:
                await asyncio.sleep(0.2)
