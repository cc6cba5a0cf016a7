"""A round of more than one part: decided with its first part, the rest appended by a
`Settler` a transaction each, exactly once whoever goes on with it; voided meanwhile, its
reversal appended with its summary."""

from __future__ import annotations

import asyncio

import asyncpg

from settlement_service.adapters.postgres import stalled_settlements
from settlement_service.app import SERVICE, create_app
from settlement_service.config import SettlementSettings
from settlement_service.handlers import Settlement
from settlement_service.settler import Settler
from settlement_service.streams import settlement_stream
from teenpatti.events.catalog import (
    SETTLEMENT_PART,
    BetSettled,
    BetsReversed,
    BetsSettled,
    PlacedLine,
    ReversalTotals,
    RoundReversed,
    RoundSettled,
    registry,
)
from teenpatti.eventsourcing import MIGRATIONS as STORE_MIGRATIONS
from teenpatti.eventsourcing import AsyncpgEventStore
from tests.conftest import migrated

from ..services import running
from .conftest import (
    PUBLISHED,
    a_wins,
    alone,
    book,
    connect,
    feed_table,
    feed_wallet,
    opened,
    placed,
    received,
    round_id,
    settlements,
    slip,
    voided,
)

BETS = 2 * SETTLEMENT_PART + 500  # three parts
EVENTS = 4  # and the summary


def the_bets(table_id: str, count: int = BETS) -> list[PlacedLine]:
    """Player A for 100 (pays 0.95:1: 195 back) and Tie for 10 (lost), in turn: each
    player's two bets side by side, as one slip."""
    return [
        placed(table_id, "player_a", 100, player=f"p-{n // 2 % 7}")
        if n % 2 == 0
        else placed(table_id, "tie", 10, player=f"p-{n // 2 % 7}")
        for n in range(count)
    ]


async def decided(pool: asyncpg.Pool, store: AsyncpgEventStore, table_id: str) -> list[PlacedLine]:
    """A round of BETS bets settled by a consumer's transaction with no settler told: its
    settlement is decided and only its first part is appended."""
    await migrated(pool, STORE_MIGRATIONS, SERVICE.migrations)
    settlement = Settlement(store)
    bets = the_bets(table_id)
    async with pool.acquire() as connection, connection.transaction():
        await settlement.bets_placed(connection, alone(bets))
        await settlement.book_closed(connection, received(book(table_id, bets)))
        await settlement.round_closed(connection, received(a_wins(table_id)))
    return bets


async def stored(pool: asyncpg.Pool, table_id: str) -> list[asyncpg.Record]:
    return list(
        await pool.fetch(
            "SELECT stream_version, event_type, schema_version, payload::text AS payload,"
            " transaction_id FROM events WHERE stream_id = $1 ORDER BY stream_version",
            settlement_stream(round_id(table_id)),
        )
    )


def lines(rows: list[asyncpg.Record]) -> list[BetSettled]:
    parts = [registry.decode_json(r["event_type"], r["schema_version"], r["payload"]) for r in rows]
    return [line for part in parts if isinstance(part, BetsSettled) for line in part.bets]


def assert_settled_once(rows: list[asyncpg.Record], bets: list[PlacedLine]) -> None:
    assert [r["stream_version"] for r in rows] == list(range(1, EVENTS + 1))
    assert [r["event_type"] for r in rows] == ["BetsSettled"] * (EVENTS - 1) + ["RoundSettled"]
    settled = lines(rows)
    # each once, in the round's order: each player's bets together, as placed
    in_order = sorted(bets, key=lambda b: (b.operator_id, b.player_id, b.placed_at, b.bet_id))
    assert [line.bet_id for line in settled] == [bet.bet_id for bet in in_order]
    assert {(line.bet_type, line.outcome, line.returned) for line in settled} == {
        ("player_a", "won", 195),
        ("tie", "lost", 0),
    }
    summary = registry.decode_json("RoundSettled", 1, rows[-1]["payload"])
    assert isinstance(summary, RoundSettled)
    assert summary.bet_count == BETS
    half = BETS // 2
    assert summary.totals["INR"].model_dump() == {
        "stake": half * 100 + half * 10,
        "returned": half * 195,
        "house_result": half * 110 - half * 195,
    }


async def test_a_large_round_is_decided_with_its_first_part_and_the_rest_follow_one_by_one(
    store: AsyncpgEventStore, pool: asyncpg.Pool
) -> None:
    bets = await decided(pool, store, "S1")
    rows = await stored(pool, "S1")
    assert [r["event_type"] for r in rows] == ["BetsSettled"]
    round_ = await pool.fetchrow("SELECT decided_at, settled FROM rounds")
    assert round_["decided_at"] is not None and not round_["settled"]
    assert await pool.fetchval("SELECT count(*) FROM bets WHERE outcome IS NOT NULL") == (
        SETTLEMENT_PART
    )

    await Settler(pool, store).settle(round_id("S1"))

    rows = await stored(pool, "S1")
    assert_settled_once(rows, bets)
    # the decision's transaction, then one transaction per event: each part is on its way
    # to the wallet as soon as it is appended
    assert len({r["transaction_id"] for r in rows}) == EVENTS
    assert await pool.fetchval("SELECT count(*) FROM bets WHERE outcome IS NULL") == 0
    assert await pool.fetchval("SELECT settled_at = decided_at AND settled FROM rounds")
    # again: nothing more
    await Settler(pool, store).settle(round_id("S1"))
    assert len(await stored(pool, "S1")) == EVENTS


async def test_two_settlers_going_on_with_one_round_append_each_event_once(
    store: AsyncpgEventStore, pool: asyncpg.Pool
) -> None:
    bets = await decided(pool, store, "S2")
    async with asyncio.timeout(60):
        await asyncio.gather(
            Settler(pool, store).settle(round_id("S2")),
            Settler(pool, store).settle(round_id("S2")),
        )
    assert_settled_once(await stored(pool, "S2"), bets)


async def test_a_stalled_settlement_is_taken_up_with_the_parts_it_was_decided_with(
    store: AsyncpgEventStore, pool: asyncpg.Pool
) -> None:
    # The instance that decided the round died after its first part. Meanwhile a bet the
    # book does not name and the round's RoundOpened (another pay table: Player A 1:1) came.
    bets = await decided(pool, store, "S3")
    settlement = Settlement(store)
    late = placed("S3", "player_a", 100)
    other_table = {**PUBLISHED, "name": "house", "player_a": "1"}
    async with pool.acquire() as connection, connection.transaction():
        await settlement.bets_placed(connection, alone([late]))
        await settlement.round_opened(connection, received(opened("S3", paytable=other_table)))
    problems = {row[0] for row in await pool.fetch("SELECT kind FROM settlement_problems")}
    assert problems == {f"bet_after_settlement:{late.bet_id}", "paytable_after_settlement"}
    assert await stalled_settlements(pool, 0) == [round_id("S3")]

    stop = asyncio.Event()
    settler = Settler(pool, store, stalled_seconds=0.1)
    running_settler = asyncio.create_task(settler.run(stop))
    try:
        async with asyncio.timeout(30):
            while not await pool.fetchval("SELECT settled FROM rounds"):
                await asyncio.sleep(0.05)
    finally:
        stop.set()
        await running_settler

    # the same parts as if it had gone on where it was decided: the book's bets only, paid
    # by the published table the decision took
    assert_settled_once(await stored(pool, "S3"), bets)
    assert await pool.fetchval(
        "SELECT late AND outcome IS NULL FROM bets WHERE bet_id = $1", late.bet_id
    )
    assert await stalled_settlements(pool, 0) == []


async def test_a_settler_that_would_build_other_parts_than_those_stored_appends_nothing(
    store: AsyncpgEventStore, pool: asyncpg.Pool
) -> None:
    # The database changed under the decision (or another build orders the lines
    # otherwise): a bet of the first part is now a player's that sorts last.
    bets = await decided(pool, store, "S5")
    first = min(bets, key=lambda b: (b.operator_id, b.player_id, b.placed_at, b.bet_id))
    await pool.execute("UPDATE bets SET player_id = 'zz-last' WHERE bet_id = $1", first.bet_id)

    await Settler(pool, store).settle(round_id("S5"))

    assert [r["event_type"] for r in await stored(pool, "S5")] == ["BetsSettled"]
    problems = await pool.fetch(
        "SELECT kind, detail FROM settlement_problems WHERE round_id = $1", round_id("S5")
    )
    assert [(p["kind"], p["detail"]) for p in problems] == [
        ("settlement_parts_mismatch", "stored part 1 holds other bets than the plan's part 1")
    ]
    assert not await pool.fetchval("SELECT settled FROM rounds")


async def test_the_service_settles_a_large_round_a_part_per_transaction(
    settlement_settings: SettlementSettings,
) -> None:
    bets = the_bets("S4", SETTLEMENT_PART + 200)
    slips = [slip(bets[start : start + 2]) for start in range(0, len(bets), 2)]
    async with running(create_app(settlement_settings)):
        await feed_table(settlement_settings, opened("S4"))
        for one in slips:
            await feed_wallet(settlement_settings, one)
        await feed_wallet(settlement_settings, book("S4", bets))
        await feed_table(settlement_settings, a_wins("S4"))
        settled, rounds = await settlements(settlement_settings, 1)
        connection = await connect(settlement_settings)
        try:
            transactions = await connection.fetch(
                "SELECT DISTINCT transaction_id FROM events WHERE stream_id = $1",
                settlement_stream(round_id("S4")),
            )
        finally:
            await connection.close()
    # a slip's bets share its time: the round's order puts them by id
    assert sorted(line.bet_id for line in settled) == sorted(bet.bet_id for bet in bets)
    assert rounds[0].bet_count == len(bets)
    assert len(transactions) == 3  # the first part where decided, the second, the summary


async def test_a_large_round_voided_while_its_parts_are_appended_is_reversed_with_its_summary(
    store: AsyncpgEventStore, pool: asyncpg.Pool
) -> None:
    bets = await decided(pool, store, "S6")
    async with pool.acquire() as connection, connection.transaction():
        await Settlement(store).round_voided(connection, received(voided(a_wins("S6"))))
    assert [r["event_type"] for r in await stored(pool, "S6")] == ["BetsSettled"]  # not yet

    await Settler(pool, store).settle(round_id("S6"))

    rows = await stored(pool, "S6")
    assert_settled_once(rows[:EVENTS], bets)
    reversal = rows[EVENTS:]
    assert [r["event_type"] for r in reversal] == ["BetsReversed"] * (EVENTS - 1) + [
        "RoundReversed"
    ]
    # appended in the transaction that appends the summary
    assert {r["transaction_id"] for r in reversal} == {rows[EVENTS - 1]["transaction_id"]}
    events = [
        registry.decode_json(r["event_type"], r["schema_version"], r["payload"]) for r in reversal
    ]
    reversed_lines = [line for e in events if isinstance(e, BetsReversed) for line in e.bets]
    assert [(b.bet_id, b.outcome, b.returned) for b in reversed_lines] == [
        (b.bet_id, b.outcome, b.returned) for b in lines(rows)
    ]
    assert all(b.refunded == b.stake for b in reversed_lines)
    summary = events[-1]
    assert isinstance(summary, RoundReversed)
    half = BETS // 2
    assert (summary.bet_count, summary.totals) == (
        BETS,
        {"INR": ReversalTotals(refunded=half * 110, reversed=half * 195)},
    )
    assert await pool.fetchval("SELECT count(*) FROM bets WHERE reversed_at IS NULL") == 0
    assert await pool.fetchval("SELECT reversed_at = $1 FROM rounds", summary.reversed_at)
    # again: nothing more
    await Settler(pool, store).settle(round_id("S6"))
    async with pool.acquire() as connection, connection.transaction():
        await Settlement(store).round_voided(connection, received(voided(a_wins("S6"))))
    assert len(await stored(pool, "S6")) == 2 * EVENTS


async def test_a_large_round_voided_once_settled_is_reversed_in_the_voids_transaction(
    store: AsyncpgEventStore, pool: asyncpg.Pool
) -> None:
    await decided(pool, store, "S7")
    await Settler(pool, store).settle(round_id("S7"))
    async with pool.acquire() as connection, connection.transaction():
        await Settlement(store).round_voided(connection, received(voided(a_wins("S7"))))

    rows = await stored(pool, "S7")
    assert [r["event_type"] for r in rows[EVENTS:]] == ["BetsReversed"] * (EVENTS - 1) + [
        "RoundReversed"
    ]
    assert len({r["transaction_id"] for r in rows[EVENTS:]}) == 1
    assert await pool.fetchval("SELECT count(*) FROM bets WHERE reversed_at IS NULL") == 0
