"""The Redis verdict broker against the real Redis: heard live, or found when it came first."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from uuid import uuid4

import pytest
from redis.asyncio import Redis

from scanner_gateway.adapters.verdicts import VerdictBroker
from scanner_gateway.domain import ScanAnswer
from teenpatti.settings import InfrastructureSettings


@pytest.fixture
async def brokers(
    settings: InfrastructureSettings,
) -> AsyncIterator[tuple[VerdictBroker, VerdictBroker]]:
    """Two instances' brokers on one Redis (the test's prefix), both listening."""
    redis = Redis.from_url(settings.redis_url, socket_timeout=5)
    stop = asyncio.Event()
    pair = tuple(VerdictBroker(redis, prefix=settings.topic_prefix, ttl_seconds=5) for _ in "ab")
    tasks = [asyncio.create_task(b.listen(stop)) for b in pair]
    try:
        async with asyncio.timeout(10):
            for broker in pair:
                await broker.listening.wait()
        yield pair[0], pair[1]
    finally:
        stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks), 10)
        await redis.aclose()


def registered() -> ScanAnswer:
    return ScanAnswer(scan_id=uuid4(), status="registered", position="A3", card="9C")


async def test_a_verdict_announced_by_one_instance_reaches_a_waiter_on_another(
    brokers: tuple[VerdictBroker, VerdictBroker],
) -> None:
    consumer_side, request_side = brokers
    verdict = registered()
    waiter = asyncio.create_task(request_side.wait(verdict.scan_id, 30))
    await asyncio.sleep(0.05)
    await consumer_side.announce(verdict)
    assert await asyncio.wait_for(waiter, 30) == verdict


async def test_a_waiter_hears_the_channel_without_the_key(
    settings: InfrastructureSettings, brokers: tuple[VerdictBroker, VerdictBroker]
) -> None:
    _, request_side = brokers
    verdict = registered()
    waiter = asyncio.create_task(request_side.wait(verdict.scan_id, 30))
    await asyncio.sleep(0)  # the waiter registers before its first await
    redis = Redis.from_url(settings.redis_url, socket_timeout=5)
    try:
        # published only (no key), as if the key had expired: only the subscription hears it
        await redis.publish(request_side.channel(verdict.scan_id), verdict.model_dump_json())
        assert await asyncio.wait_for(waiter, 30) == verdict
    finally:
        await redis.aclose()


async def test_a_verdict_that_came_first_is_found_in_its_key(
    brokers: tuple[VerdictBroker, VerdictBroker],
) -> None:
    consumer_side, request_side = brokers
    verdict = registered()
    await consumer_side.announce(verdict)
    assert await request_side.wait(verdict.scan_id, 0.01) == verdict
    assert await request_side.lookup(verdict.scan_id) == verdict


async def test_no_verdict_is_none_after_the_wait_and_others_are_not_mixed_up(
    brokers: tuple[VerdictBroker, VerdictBroker],
) -> None:
    consumer_side, request_side = brokers
    await consumer_side.announce(registered())  # someone else's verdict
    assert await request_side.wait(uuid4(), 0.2) is None
