"""Event types used by the event-sourcing tests, and the small helpers they share."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any, ClassVar

from aiokafka import AIOKafkaConsumer

from teenpatti.events import Event, EventRegistry
from teenpatti.settings import KafkaConnection, kafka_client_options

registry = EventRegistry()


@registry.register
class ChipCounted(Event):
    event_type: ClassVar[str] = "ChipCounted"
    schema_version: ClassVar[int] = 2
    chips: int
    colour: str


@registry.upcaster("ChipCounted", from_version=1)
def _chip_counted_v1_to_v2(payload: dict[str, object]) -> dict[str, object]:
    return {**payload, "colour": "unknown"}


def counted(chips: int, colour: str = "red") -> ChipCounted:
    return ChipCounted(chips=chips, colour=colour)


@dataclass(frozen=True)
class Received:
    key: bytes | None
    partition: int
    envelope: dict[str, Any]
    headers: tuple[tuple[str, bytes], ...] = ()


async def read_topic(
    kafka: KafkaConnection, topic: str, *, expected: int, timeout: float = 60.0
) -> list[Received]:
    """Every record of `topic` from the beginning, once at least `expected` have arrived."""
    consumer = AIOKafkaConsumer(
        topic,
        **kafka_client_options(kafka),
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        group_id=None,
    )
    await consumer.start()
    received: list[Received] = []
    try:
        async with asyncio.timeout(timeout):
            while len(received) < expected:
                batches = await consumer.getmany(timeout_ms=500)
                for records in batches.values():
                    received.extend(
                        Received(
                            record.key,
                            record.partition,
                            json.loads(record.value or b""),
                            tuple(record.headers),
                        )
                        for record in records
                    )
    finally:
        await consumer.stop()
    return received


async def read_topic_to_end(
    kafka: KafkaConnection, topic: str, *, timeout: float = 60.0
) -> list[Received]:
    """Every record of `topic` from its start up to its end offsets as they are when called:
    all it ever held, so a count proves each record is there once, not that the N-th came."""
    consumer = AIOKafkaConsumer(
        topic,
        **kafka_client_options(kafka),
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        group_id=None,
    )
    received: list[Received] = []
    try:
        async with asyncio.timeout(timeout):
            await consumer.start()
            while not consumer.assignment():
                await asyncio.sleep(0.05)
            partitions = list(consumer.assignment())
            await consumer.seek_to_beginning(*partitions)
            ends = await consumer.end_offsets(partitions)
            left = {tp for tp in partitions if ends[tp] > await consumer.position(tp)}
            while left:
                batches = await consumer.getmany(*left, timeout_ms=200)
                for tp, records in batches.items():
                    received.extend(
                        Received(
                            record.key,
                            record.partition,
                            json.loads(record.value or b""),
                            tuple(record.headers),
                        )
                        for record in records
                        if record.offset < ends[tp]
                    )
                left = {tp for tp in left if await consumer.position(tp) < ends[tp]}
    finally:
        await consumer.stop()
    return received
