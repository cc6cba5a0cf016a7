"""The Redis verdict broker against the real Redis: heard live, or found when it came first;
and the `verdicts` consumer's batch against the real Postgres and Redis."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from uuid import UUID, uuid4

import asyncpg
import pytest
from redis.asyncio import Redis

from scanner_gateway.adapters import postgres as db
from scanner_gateway.adapters.verdicts import VerdictBroker
from scanner_gateway.app import SERVICE
from scanner_gateway.consumers import VerdictRecorder
from scanner_gateway.domain import ScanAnswer
from teenpatti.events import Event, EventEnvelope, new_envelope
from teenpatti.events.catalog import BettingClosed, CardDealt, CardRefused
from teenpatti.eventsourcing import MIGRATIONS as STORE_MIGRATIONS
from teenpatti.kernel.subscriptions import dispatcher
from teenpatti.settings import InfrastructureSettings
from tests.conftest import migrated


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


def scan_row(scan_id: UUID, status: str) -> db.ScanRow:
    return db.ScanRow(
        scan_id=scan_id,
        device_id="D1",
        table_id="V1",
        card="9C",
        status=status,
        reason=None,
        detail=None,
        position=None,
        duplicate_of=None,
        received_at=datetime.now(UTC),
    )


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


async def test_a_polls_verdicts_are_recorded_in_one_go_and_the_first_verdict_stands(
    pool: asyncpg.Pool, brokers: tuple[VerdictBroker, VerdictBroker]
) -> None:
    """The `verdicts` consumer's batch: each pending scan takes its table's verdict once
    (a later verdict for the same scan changes nothing), scans that are not ours are left
    alone, other events are ignored, and only what was decided is announced, once the
    transaction has committed."""
    consumer_side, request_side = brokers
    await migrated(pool, STORE_MIGRATIONS, SERVICE.migrations)
    dealt, refused, decided_before = uuid4(), uuid4(), uuid4()
    async with pool.acquire() as connection:
        for scan_id, status in (
            (dealt, "pending"),
            (refused, "pending"),
            (decided_before, "registered"),
        ):
            await db.insert_scan(connection, scan_row(scan_id, status))

    def envelope(event: Event, version: int) -> EventEnvelope:
        return new_envelope(
            event, stream_id="table-V1", stream_version=version, table_id="V1", producer="tests"
        )

    def card_dealt(scan_id: UUID, card: str, position: str) -> CardDealt:
        return CardDealt(
            round_id="R1", table_id="V1", position=position, card=card, scan_id=scan_id
        )

    stranger = uuid4()
    poll = [
        envelope(BettingClosed(round_id="R1", table_id="V1", closed_at=datetime.now(UTC)), 1),
        envelope(card_dealt(dealt, "9C", "A1"), 2),
        envelope(card_dealt(stranger, "8C", "B1"), 3),  # not a scan of this gateway
        envelope(card_dealt(decided_before, "7C", "A2"), 4),  # decided already
        envelope(
            CardRefused(
                table_id="V1",
                round_id="R1",
                scan_id=refused,
                card="9C",
                reason="duplicate_card",
                detail="9C is already dealt at A1",
            ),
            5,
        ),
        envelope(card_dealt(dealt, "2C", "B2"), 6),  # a second verdict on the same scan
    ]
    waiters = [
        asyncio.create_task(request_side.wait(scan_id, seconds))
        for scan_id, seconds in ((dealt, 10), (refused, 10), (stranger, 1), (decided_before, 1))
    ]
    await asyncio.sleep(0.05)
    async with pool.acquire() as connection, connection.transaction():
        record = VerdictRecorder(consumer_side)
        subscription = dispatcher({CardDealt: record, CardRefused: record})
        announce = await subscription(connection, poll)
    await asyncio.sleep(0.05)
    assert not any(waiter.done() for waiter in waiters[:2]), "nothing heard before the commit"
    assert announce is not None
    await announce()  # what the consumer runs once the transaction has committed

    rows = {
        scan_id: await db.load_scan(pool, scan_id) for scan_id in (dealt, refused, decided_before)
    }
    assert rows[dealt] is not None and (rows[dealt].status, rows[dealt].position) == (
        "registered",
        "A1",
    )
    assert rows[refused] is not None
    assert (rows[refused].status, rows[refused].reason) == ("refused", "duplicate_card")
    assert rows[decided_before] is not None and rows[decided_before].position is None
    assert await db.load_scan(pool, stranger) is None

    heard = await asyncio.gather(*waiters)
    assert heard[0] == ScanAnswer(scan_id=dealt, status="registered", position="A1", card="9C")
    assert heard[1] is not None and heard[1].reason == "duplicate_card"
    assert heard[2:] == [None, None], "only the verdicts that decided a scan are announced"
