"""Batches in flight (`KafkaEventConsumer(in_flight=...)`): offsets move in poll order, a
poll's only once it and every poll before it are done, whatever order they finish in."""

from __future__ import annotations

import asyncio
from collections import deque

from aiokafka import TopicPartition

from teenpatti.eventsourcing import KafkaEventConsumer

A, B = TopicPartition("t", 0), TopicPartition("t", 1)


def consumer() -> KafkaEventConsumer:
    async def handle(*_: object) -> None:
        return None

    return KafkaEventConsumer(
        None,  # type: ignore[arg-type]  # no database: only the offsets' bookkeeping runs
        name="unit",
        topics=["t"],
        bootstrap_servers="localhost:1",
        handler=handle,
        batch_handler=handle,
        in_flight=2,
    )


async def test_a_later_poll_done_first_waits_for_the_one_before() -> None:
    runtime = consumer()
    first_done = asyncio.Event()
    first = asyncio.create_task(first_done.wait())
    second = asyncio.create_task(asyncio.sleep(0))
    pipeline = deque([(first, {A: 10}), (second, {A: 20, B: 5})])
    await asyncio.sleep(0.01)
    assert second.done() and not first.done()

    # two may stay in flight and the oldest is not done: nothing moves
    await asyncio.wait_for(runtime._finish_batches(pipeline, leave=2), timeout=5)
    assert len(pipeline) == 2 and runtime._pending_offsets == {}

    first_done.set()
    await asyncio.wait_for(runtime._finish_batches(pipeline, leave=2), timeout=5)
    # both done: both taken, in order
    assert not pipeline
    assert runtime._pending_offsets == {A: 20, B: 5}


async def test_leaving_none_waits_for_every_batch() -> None:
    runtime = consumer()
    release = asyncio.Event()
    pipeline = deque([(asyncio.create_task(release.wait()), {A: 3})])
    waiting = asyncio.create_task(runtime._finish_batches(pipeline, leave=0))
    await asyncio.sleep(0.01)
    assert not waiting.done() and runtime._pending_offsets == {}
    release.set()
    await asyncio.wait_for(waiting, timeout=5)
    assert runtime._pending_offsets == {A: 3}


def test_in_flight_needs_a_batch_handler_and_a_count() -> None:
    for in_flight, batches in ((2, False), (0, True)):
        try:
            KafkaEventConsumer(
                None,  # type: ignore[arg-type]
                name="unit",
                topics=["t"],
                bootstrap_servers="localhost:1",
                handler=consumer()._handler,
                batch_handler=consumer()._handler if batches else None,
                in_flight=in_flight,
            )
        except ValueError as error:
            assert f"in_flight {in_flight}" in str(error)
        else:
            raise AssertionError(f"in_flight={in_flight} accepted")
