"""A poll of wallet events handled in one transaction leaves exactly what handling each event
in a transaction of its own leaves: rounds, bets, problems and the settlement events."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime

import asyncpg
import pytest

from settlement_service.app import SERVICE
from settlement_service.handlers import Settlement
from teenpatti.events import Event, EventEnvelope, new_envelope
from teenpatti.events.catalog import (
    BetBookClosed,
    BetsPlaced,
    PlacedLine,
    RoundCancelled,
    RoundClosed,
    RoundOpened,
)
from teenpatti.eventsourcing import MIGRATIONS as STORE_MIGRATIONS
from teenpatti.eventsourcing import AsyncpgEventStore
from teenpatti.kernel.subscriptions import dispatcher
from teenpatti.settings import InfrastructureSettings
from tests.conftest import migrated

from .conftest import book, closed, opened, placed, round_id, slip

pytestmark = pytest.mark.integration
FIXED_CLOCK = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
PROJECTION = {
    "rounds": "SELECT round_id, table_id, paytable, result, cancelled, book_closed,"
    " book_bet_count, book_digest, book_total_stake, settled FROM rounds ORDER BY round_id",
    "bets": "SELECT bet_id, round_id, slip_id, player_id, bet_type, stake, currency, placed_at,"
    " outcome, returned FROM bets ORDER BY bet_id",
    "problems": "SELECT round_id, kind, detail FROM settlement_problems ORDER BY round_id, kind",
    "events": "SELECT stream_id, stream_version, event_type, payload FROM events"
    " ORDER BY stream_id, stream_version",
}


def envelope(event: Event | PlacedLine) -> EventEnvelope:
    """The event's envelope; a bet alone, its slip's."""
    if isinstance(event, PlacedLine):
        event = slip([event])
    stream = f"table-{event.table_id}" if "Round" in event.event_type else "wallet"  # type: ignore[attr-defined]
    return new_envelope(
        event,
        stream_id=stream,
        stream_version=1,
        table_id=event.table_id,  # type: ignore[attr-defined]
        producer="tests",
    )


def same_bet(bet: PlacedLine, **changes: object) -> PlacedLine:
    return bet.model_copy(update=changes)


def a_day_of_deliveries() -> list[list[EventEnvelope]]:
    """Polls of events, in order: table events alone, wallet events as a consumer's polls.
    A bet delivered twice (once in the same poll), a bet redelivered with another stake,
    bets for a round whose book is sealed (one of them its last), rounds that settle and
    one held."""
    t1 = [placed("T1", "player_a", 100), placed("T1", "tie", 10)]
    t2 = [placed("T2", "player_b", 40, player="p-2"), placed("T2", "pair_plus_a", 20)]
    t3 = [placed("T3", "tie", 50, player="p-3")]
    late = placed("T1", "player_b", 30)
    a_wins = dict(winner="player_a", a="pair", b="high_card", bonus="straight")
    cards = ["9S", "10C", "9H", "7D", "8C", "6S"]
    return [
        [envelope(opened(table)) for table in ("T1", "T2", "T3")],
        [envelope(closed("T3", cards, **a_wins))],
        [envelope(book("T3", t3))],
        [envelope(e) for e in (t1[0], t2[0], t1[0], t1[1], same_bet(t1[1], stake=11))],
        [envelope(e) for e in (book("T1", t1), late, t2[1], t2[0], t3[0])],
        [envelope(closed("T1", cards, **a_wins)), envelope(closed("T2", cards, **a_wins))],
        [envelope(book("T2", t2)), envelope(t2[1])],
    ]


@asynccontextmanager
async def settlement_database(
    infrastructure: InfrastructureSettings, name: str
) -> AsyncIterator[tuple[asyncpg.Pool, Settlement]]:
    admin = await asyncpg.connect(infrastructure.postgres_dsn("postgres"))
    await admin.execute(f"CREATE DATABASE {name}")
    try:
        async with asyncpg.create_pool(
            infrastructure.postgres_dsn(name), min_size=1, max_size=2
        ) as pool:
            await migrated(pool, STORE_MIGRATIONS, SERVICE.migrations)
            store = AsyncpgEventStore(pool, producer="settlement")
            yield pool, Settlement(store, clock=lambda: FIXED_CLOCK)
    finally:
        await admin.execute(f"DROP DATABASE {name} WITH (FORCE)")
        await admin.close()


async def projection(pool: asyncpg.Pool) -> dict[str, list[tuple[object, ...]]]:
    return {
        table: [tuple(row) for row in await pool.fetch(query)]
        for table, query in PROJECTION.items()
    }


async def handle(
    pool: asyncpg.Pool, settlement: Settlement, polls: Sequence[list[EventEnvelope]], batched: bool
) -> None:
    # the service's subscriptions (app.py), as the kernel's consumers run them
    on_table = dispatcher(
        {
            RoundOpened: settlement.round_opened,
            RoundClosed: settlement.round_closed,
            RoundCancelled: settlement.round_cancelled,
        }
    )
    on_wallet = dispatcher(
        {BetsPlaced: settlement.bets_placed, BetBookClosed: settlement.book_closed}
    )
    for poll in polls:
        if "Round" in poll[0].event_type:
            for one in poll:
                async with pool.acquire() as connection, connection.transaction():
                    await on_table(connection, [one])
        elif batched:
            async with pool.acquire() as connection, connection.transaction():
                await on_wallet(connection, poll)
        else:
            for one in poll:
                async with pool.acquire() as connection, connection.transaction():
                    await on_wallet(connection, [one])


async def test_a_poll_in_one_transaction_leaves_what_one_event_at_a_time_leaves(
    infrastructure: InfrastructureSettings, database_name: str
) -> None:
    polls = a_day_of_deliveries()
    seen: dict[bool, dict[str, list[tuple[object, ...]]]] = {}
    for batched in (False, True):
        async with settlement_database(infrastructure, f"{database_name}_{batched:d}") as (
            pool,
            settlement,
        ):
            await handle(pool, settlement, polls, batched)
            seen[batched] = await projection(pool)

    assert seen[True] == seen[False]
    rounds = {row[0]: row for row in seen[True]["rounds"]}
    assert rounds[round_id("T2")][-1] is True  # settled: the book and all its bets are there
    assert rounds[round_id("T3")][-1] is True  # settled by its last bet, after its book
    assert rounds[round_id("T1")][-1] is False  # held: a bet came again with another stake
    kinds = {row[1] for row in seen[True]["problems"]}
    assert any(kind.startswith("conflicting_bet:") for kind in kinds)
    assert len(seen[True]["bets"]) == 6
    parts = [row for row in seen[True]["events"] if row[2] == "BetsSettled"]
    assert sum(len(json.loads(row[3])["bets"]) for row in parts) == 3  # the bets of T2 and T3
