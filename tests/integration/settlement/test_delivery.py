"""Settling exactly once whatever the delivery: out of order, duplicated, several instances."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from contextlib import AsyncExitStack

import asyncpg

from settlement_service.app import SERVICE, create_app
from settlement_service.config import SettlementSettings
from settlement_service.handlers import Settlement
from settlement_service.streams import settlement_stream
from teenpatti.events.catalog import TABLE_EVENTS, WALLET_EVENTS, PlacedLine, RoundClosed
from teenpatti.eventsourcing import MIGRATIONS as STORE_MIGRATIONS
from teenpatti.eventsourcing import AsyncpgEventStore
from tests.conftest import migrated

from ..services import running
from .conftest import (
    OPERATOR_1,
    a_wins,
    alone,
    book,
    connect,
    eventually,
    feed_table,
    feed_wallet,
    opened,
    placed,
    received,
    republish,
    round_id,
    settlements,
)


async def stored_counts(settings: SettlementSettings) -> Counter[tuple[str, str]]:
    """(event_type, stream_id) -> how many times it is in the store (the outbox)."""
    connection = await connect(settings)
    try:
        rows = await connection.fetch("SELECT event_type, stream_id FROM events")
    finally:
        await connection.close()
    return Counter((row[0], row[1]) for row in rows)


async def test_the_book_and_the_result_before_the_bets_settle_once_the_last_bet_arrives(
    settlement_settings: SettlementSettings,
) -> None:
    bets = [placed("T1", "player_a", 100), placed("T1", "tie", 10), placed("T1", "player_b", 40)]
    async with running(create_app(settlement_settings)) as client:
        await feed_table(settlement_settings, opened("T1"))
        await feed_wallet(settlement_settings, book("T1", bets))
        await feed_table(settlement_settings, a_wins("T1"))
        for bet in bets[:2]:
            await feed_wallet(settlement_settings, bet)

        async def two_bets_recorded() -> bool:
            response = await client.get(f"/rounds/{round_id('T1')}/settlement", headers=OPERATOR_1)
            return response.status_code == 200 and len(response.json()["bets"]) == 2

        await eventually(two_bets_recorded, what="the first two bets")
        # the readiness check ran in the same transactions: 2 of 3 bets is not ready
        body = (await client.get(f"/rounds/{round_id('T1')}/settlement", headers=OPERATOR_1)).json()
        assert body["status"] == "pending"
        assert body["totals"] == {}
        assert {b["status"] for b in body["bets"]} == {"pending"}

        await feed_wallet(settlement_settings, bets[2])
        settled, rounds = await settlements(settlement_settings, 1)
        assert sorted((e.stake, e.returned) for e in settled) == [(10, 0), (40, 0), (100, 195)]
        assert len(rounds) == 1
        counts = await stored_counts(settlement_settings)
        assert counts[("RoundSettled", settlement_stream(round_id("T1")))] == 1


async def test_duplicated_inputs_settle_every_bet_exactly_once(
    settlement_settings: SettlementSettings,
) -> None:
    bets = [placed("T1", "player_a", 100), placed("T1", "pair_plus_a", 20)]
    later = [placed("T1", "tie", 5, number=2)]
    async with running(create_app(settlement_settings)):
        await feed_table(settlement_settings, opened("T1"))
        first = await feed_wallet(settlement_settings, bets[0])
        await republish(settlement_settings, WALLET_EVENTS, first)  # the same envelope twice
        await feed_wallet(settlement_settings, bets[0])  # the same bet under a new event id
        await feed_wallet(settlement_settings, bets[1])
        sealed = await feed_wallet(settlement_settings, book("T1", bets))
        await republish(settlement_settings, WALLET_EVENTS, sealed)
        result = await feed_table(settlement_settings, a_wins("T1"))
        await republish(settlement_settings, TABLE_EVENTS, result)
        await feed_table(settlement_settings, a_wins("T1"))  # again, under a new event id
        # after the settlement: the bet and the book once more
        await feed_wallet(settlement_settings, bets[1])
        await feed_wallet(settlement_settings, book("T1", bets))
        # the next round on the same table and topics comes after every duplicate above, so
        # once it is settled every duplicate has been handled
        await feed_table(settlement_settings, opened("T1", 2))
        await feed_wallet(settlement_settings, later[0])
        await feed_wallet(settlement_settings, book("T1", later, number=2))
        await feed_table(settlement_settings, a_wins("T1", 2))

        settled, rounds = await settlements(settlement_settings, 2)
        assert sorted(r.round_id for r in rounds) == [round_id("T1", 1), round_id("T1", 2)]
        assert Counter(str(e.bet_id) for e in settled) == {str(b.bet_id): 1 for b in bets + later}
        assert sorted((e.stake, e.returned) for e in settled) == [(5, 0), (20, 40), (100, 195)]
        counts = await stored_counts(settlement_settings)
        assert counts[("RoundSettled", settlement_stream(round_id("T1", 1)))] == 1
        assert counts[("BetsSettled", settlement_stream(round_id("T1", 1)))] == 1  # both bets

        connection = await connect(settlement_settings)
        try:
            problems = await connection.fetch("SELECT kind FROM settlement_problems")
        finally:
            await connection.close()
        assert problems == []  # identical duplicates are not problems


async def test_two_instances_on_one_database_settle_each_round_once(
    settlement_settings: SettlementSettings,
) -> None:
    tables = [f"T{n}" for n in range(1, 7)]
    bets = {t: [placed(t, "player_a", 100), placed(t, "six_card_bonus", 10)] for t in tables}
    async with AsyncExitStack() as stack:
        for _ in range(2):
            await stack.enter_async_context(running(create_app(settlement_settings)))
        for table_id in tables:
            await feed_table(settlement_settings, opened(table_id))
            await feed_table(settlement_settings, a_wins(table_id))
            await feed_wallet(settlement_settings, book(table_id, bets[table_id]))
        for table_id in tables:
            for bet in bets[table_id]:
                await feed_wallet(settlement_settings, bet)
        settled, rounds = await settlements(settlement_settings, len(tables))
        assert sorted(r.round_id for r in rounds) == sorted(round_id(t) for t in tables)
        assert len(settled) == 2 * len(tables)
        counts = await stored_counts(settlement_settings)
        assert sum(n for (kind, _), n in counts.items() if kind == "RoundSettled") == len(tables)


async def _ready_but_for_the_result_and_last_bet(
    settlement: Settlement, pool: asyncpg.Pool, table_id: str
) -> tuple[RoundClosed, PlacedLine]:
    bets = [placed(table_id, "player_a", 100), placed(table_id, "tie", 10)]
    async with pool.acquire() as connection, connection.transaction():
        await settlement.bets_placed(connection, alone(bets[:1]))
        await settlement.book_closed(connection, received(book(table_id, bets)))
    return a_wins(table_id), bets[1]


async def test_the_last_two_events_of_a_round_racing_in_two_transactions_settle_it_once(
    store: AsyncpgEventStore, pool: asyncpg.Pool
) -> None:
    # The table consumer and the wallet consumer (or two instances) each hold one of the
    # round's last two events. Without the round lock, each could miss the other's
    # uncommitted row and neither would settle; or both would try.
    await migrated(pool, STORE_MIGRATIONS, SERVICE.migrations)
    settlement = Settlement(store)
    tables = [f"R{n}" for n in range(20)]
    finals = [await _ready_but_for_the_result_and_last_bet(settlement, pool, t) for t in tables]

    async def handle(event: RoundClosed | PlacedLine) -> None:
        async with pool.acquire() as connection, connection.transaction():
            if isinstance(event, RoundClosed):
                await settlement.round_closed(connection, received(event))
            else:
                await settlement.bets_placed(connection, alone([event]))

    async with asyncio.timeout(60):
        # either event may come first: half the rounds each way
        await asyncio.gather(
            *(handle(e) for i, pair in enumerate(finals) for e in pair[:: 1 if i % 2 else -1])
        )
    rows = await pool.fetch(
        "SELECT stream_id, count(*) FROM events WHERE event_type = 'RoundSettled'"
        " GROUP BY stream_id"
    )
    assert {row[0]: row[1] for row in rows} == {settlement_stream(round_id(t)): 1 for t in tables}
    assert await pool.fetchval("SELECT count(*) FROM rounds WHERE NOT settled") == 0
    assert await pool.fetchval("SELECT count(*) FROM bets WHERE outcome IS NULL") == 0


async def test_a_round_another_instance_already_settled_is_adopted_not_settled_again(
    store: AsyncpgEventStore, pool: asyncpg.Pool
) -> None:
    await migrated(pool, STORE_MIGRATIONS, SERVICE.migrations)
    settlement = Settlement(store)
    result, last_bet = await _ready_but_for_the_result_and_last_bet(settlement, pool, "T9")
    async with pool.acquire() as connection, connection.transaction():
        await settlement.bets_placed(connection, alone([last_bet]))
    # another instance got there first: its settlement stream exists, our projection does
    # not know (as if its projection rows were lost, or it ran on another copy)
    async with pool.acquire() as connection, connection.transaction():
        await settlement.round_closed(connection, received(result))
        stored = [dict(r) for r in await connection.fetch("SELECT * FROM bets")]
        await connection.execute(
            "UPDATE rounds SET settled = false, decided_at = NULL, totals = NULL;"
            " UPDATE bets SET outcome = NULL,"
            " returned = NULL, fraction_kept = NULL, odds = NULL, settled_at = NULL"
        )
    version_before = await store.stream_version(settlement_stream(round_id("T9")))
    assert version_before == 2  # the two bets' BetsSettled, the RoundSettled

    async with pool.acquire() as connection, connection.transaction():
        await settlement.round_closed(connection, received(a_wins("T9")))

    assert await store.stream_version(settlement_stream(round_id("T9"))) == 2  # nothing new
    assert await pool.fetchval("SELECT settled FROM rounds WHERE round_id = $1", round_id("T9"))
    adopted = [dict(r) for r in await pool.fetch("SELECT * FROM bets")]
    assert sorted(adopted, key=str) == sorted(stored, key=str)


async def test_two_versions_of_the_same_fact_hold_the_round(
    store: AsyncpgEventStore, pool: asyncpg.Pool
) -> None:
    await migrated(pool, STORE_MIGRATIONS, SERVICE.migrations)
    settlement = Settlement(store)
    bets = [placed("T8", "player_a", 100)]
    sealed, resealed = book("T8", bets), book("T8", [*bets, placed("T8", "tie", 5)])
    changed = bets[0].model_copy(update={"stake": 1000})
    result = a_wins("T8")
    async with pool.acquire() as connection, connection.transaction():
        await settlement.book_closed(connection, received(sealed))
        await settlement.book_closed(connection, received(resealed))
        await settlement.bets_placed(connection, alone([bets[0]]))
        await settlement.bets_placed(connection, alone([changed]))
        await settlement.round_closed(connection, received(result))
    kinds = [row[0] for row in await pool.fetch("SELECT kind FROM settlement_problems")]
    assert set(kinds) == {"conflicting_book", f"conflicting_bet:{bets[0].bet_id}"}
    assert await pool.fetchval("SELECT count(*) FROM events") == 0
    assert not await pool.fetchval("SELECT settled FROM rounds WHERE round_id = $1", "T8-000001")
    # the first version of each stays on record
    assert await pool.fetchval("SELECT stake FROM bets") == 100
    assert await pool.fetchval("SELECT book_bet_count FROM rounds") == 1


async def test_bets_read_by_a_transaction_that_rolled_back_are_read_again(
    store: AsyncpgEventStore, pool: asyncpg.Pool
) -> None:
    # The bets are read once the book is whole and kept for the result; a read whose
    # transaction rolled back says nothing of what is stored.
    await migrated(pool, STORE_MIGRATIONS, SERVICE.migrations)
    settlement = Settlement(store)
    first = [placed("T7", "player_a", 100), placed("T7", "tie", 10)]
    with contextlib.suppress(RuntimeError):
        async with pool.acquire() as connection, connection.transaction():
            await settlement.bets_placed(connection, alone(first))
            await settlement.book_closed(connection, received(book("T7", first)))
            raise RuntimeError("rolled back")
    then = [placed("T7", "player_b", 100), placed("T7", "tie", 20)]
    async with pool.acquire() as connection, connection.transaction():
        await settlement.bets_placed(connection, alone(then))
        await settlement.book_closed(connection, received(book("T7", then)))
        await settlement.round_closed(connection, received(a_wins("T7")))
    assert await pool.fetchval("SELECT count(*) FROM settlement_problems") == 0
    settled = await pool.fetch("SELECT bet_id FROM bets WHERE outcome IS NOT NULL")
    assert sorted(row[0] for row in settled) == sorted(bet.bet_id for bet in then)
