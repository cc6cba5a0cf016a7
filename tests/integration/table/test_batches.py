"""Several tables at once: a poll's scans for many tables are dealt with one append and
one projection statement in the consumer's transaction, and a repository loads many tables
(the newer events of those it has built in one query) exactly as a full replay does."""

from __future__ import annotations

import asyncpg

from table_service.adapters.tables import TableRepository
from table_service.app import SERVICE
from table_service.config import TableSettings
from table_service.domain.state import RoundPhase, TableState, TableStatus
from table_service.handlers import TableService
from teenpatti.events.catalog import CardScanned
from teenpatti.eventsourcing import MIGRATIONS as STORE_MIGRATIONS
from teenpatti.eventsourcing import AsyncpgEventStore
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.databases import migrated

from .helpers import (
    FakeClock,
    card_scanned,
    clocked_service,
    full_replay,
    open_table_directly,
    snapshot_row,
)

EVERY = 4  # each table passes version 4 in the first poll below
TABLES = ["B1", "B2", "B3"]
CARDS = ["QS", "7H", "QH", "7D", "2C", "9S"]


async def open_table(service: TableService, table_id: str) -> None:
    """A table with 1 s of betting and a 5 s result pause."""
    await open_table_directly(service, table_id, "Batches", 1.0, 5.0)


async def deal_poll(service: TableService, scans: list[CardScanned]) -> None:
    async with service.store.pool.acquire() as connection, connection.transaction():
        await service.handle_scans(connection, scans)


async def projection(pool: asyncpg.Pool) -> dict[str, tuple[int, str]]:
    rows = await pool.fetch("SELECT table_id, version, phase FROM tables")
    return {row["table_id"]: (row["version"], row["phase"]) for row in rows}


async def test_a_poll_for_many_tables_is_dealt_in_one_transaction_and_loaded_back_exactly(
    infrastructure: InfrastructureSettings, store: AsyncpgEventStore
) -> None:
    pool = store.pool
    service, clock = await clocked_service(store, infrastructure, EVERY)
    for table_id in TABLES:
        await open_table(service, table_id)
        clock.advance(0.1)
        await service.tick(table_id)  # RoundOpened
    clock.advance(1.5)
    for table_id in TABLES:
        _, closed = await service.tick(table_id)  # BettingClosed
        assert closed

    # a repository that never saw the tables (each from its stream), and a never-opened one
    other = TableRepository(store)
    loaded = await other.load_many([*TABLES, "NEVER1", "not a table!"])
    for table_id in TABLES:
        assert loaded[table_id] == await full_replay(pool, table_id)
    assert loaded["NEVER1"].status is TableStatus.UNKNOWN and loaded["NEVER1"].version == 0
    assert loaded["not a table!"].version == 0

    # one poll: two cards for B1 and B3, one for B2, interleaved; and a card for a table
    # that was never opened
    clock.advance(0.3)
    poll = [
        await card_scanned(service, clock, "B1", CARDS[0]),
        await card_scanned(service, clock, "B3", CARDS[0]),
        await card_scanned(service, clock, "B2", CARDS[0]),
        await card_scanned(service, clock, "NEVER1", "AS"),
        await card_scanned(service, clock, "B1", CARDS[1]),
        await card_scanned(service, clock, "B3", CARDS[1]),
    ]
    await deal_poll(service, poll)
    dealt = await pool.fetch(
        "SELECT table_id, payload->>'card' AS card, transaction_id FROM events"
        " WHERE event_type = 'CardDealt' ORDER BY table_id, stream_version"
    )
    assert [(row["table_id"], row["card"]) for row in dealt] == [
        ("B1", CARDS[0]),
        ("B1", CARDS[1]),
        ("B2", CARDS[0]),
        ("B3", CARDS[0]),
        ("B3", CARDS[1]),
    ]
    assert len({row["transaction_id"] for row in dealt}) == 1, "one poll, one transaction"
    refused = await pool.fetchval(
        "SELECT payload->>'reason' FROM events WHERE stream_id = 'unknown-table-NEVER1'"
    )
    assert refused == "unknown_table"

    # the projection and the snapshots follow every table of the batch
    truths = {table_id: await full_replay(pool, table_id) for table_id in TABLES}
    rows = await projection(pool)
    for table_id, truth in truths.items():
        assert rows[table_id] == (truth.version, truth.phase)
        snapshot = await snapshot_row(pool, table_id)
        assert snapshot is not None and truth.version - EVERY < snapshot["version"]

    # the other repository, which has built the tables, reads only what is newer
    again = await other.load_many(TABLES)
    assert again == truths

    # the rest of the cards, one poll: every round closes
    clock.advance(0.3)
    await deal_poll(
        service,
        [await card_scanned(service, clock, "B2", card) for card in CARDS[1:]]
        + [
            await card_scanned(service, clock, table_id, card)
            for table_id in ("B1", "B3")
            for card in CARDS[2:]
        ],
    )
    final = await other.load_many(TABLES)
    for table_id in TABLES:
        truth = await full_replay(pool, table_id)
        assert final[table_id] == truth
        assert truth.round is not None and truth.round.phase is RoundPhase.CLOSED
        assert [card for _, card in truth.round.cards] == CARDS
    rows = await projection(pool)
    assert {table_id: rows[table_id] for table_id in TABLES} == {
        table_id: (state.version, state.phase) for table_id, state in final.items()
    }


async def test_a_clock_that_heard_every_change_decides_unread_and_a_stale_state_is_refused(
    infrastructure: InfrastructureSettings, store: AsyncpgEventStore
) -> None:
    """`tick(known_version=...)`: a state kept at the version the clock heard of is decided
    on at once; if the table moved on unheard (another instance paused the round), the
    append refuses the stale state and the clock decides again on what the stream says."""
    pool = store.pool
    await migrated(pool, STORE_MIGRATIONS, SERVICE.migrations)
    settings = TableSettings(**infrastructure.model_dump())
    clock = FakeClock()
    service = TableService(store, settings, clock=clock)
    other = TableService(store, settings, clock=clock)  # another instance
    await open_table(service, "K1")
    clock.advance(0.1)
    opened, acted = await service.tick("K1")
    assert acted and opened.round_in_play is not None

    reads: list[str] = []
    load = service.repository.load

    async def counted_load(
        table_id: str, connection: asyncpg.Connection | None = None
    ) -> TableState:
        reads.append(table_id)
        return await load(table_id, connection)

    service.repository.load = counted_load  # type: ignore[method-assign]

    # heard of every change: nothing due yet, decided on the kept state, nothing read
    state, acted = await service.tick("K1", known_version=opened.version)
    assert (state, acted, reads) == (opened, False, [])

    # another instance pauses the round; this clock has not heard of it yet
    paused = await other.pause("K1", "supervisor-1", "camera")
    clock.advance(1.5)  # the deadline passes
    state, acted = await service.tick("K1", known_version=opened.version)
    assert reads == ["K1"], "the stale state was refused and the stream read"
    assert not acted and state == paused == await full_replay(pool, "K1")
    assert state.round_in_play is not None and state.round_in_play.paused
    events = await pool.fetchval("SELECT count(*) FROM events WHERE event_type = 'BettingClosed'")
    assert events == 0, "betting of a paused round does not close"
