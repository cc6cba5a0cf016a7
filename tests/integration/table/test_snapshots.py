"""Snapshots in Postgres: written every `snapshot_every` events in the append's transaction,
used by a process that has not seen the table yet, and ignored (full replay) whenever they
are missing, old, damaged, of another schema or do not match the stream."""

from __future__ import annotations

import json
from uuid import uuid4

from table_service.adapters.snapshots import SNAPSHOT_SCHEMA_VERSION
from table_service.adapters.tables import TableRepository
from table_service.domain.state import RoundPhase
from table_service.handlers import TableService
from teenpatti.eventsourcing import AsyncpgEventStore
from teenpatti.settings import InfrastructureSettings

from .helpers import (
    FakeClock,
    card_scanned,
    clocked_service,
    full_replay,
    open_table_directly,
    snapshot_row,
)

EVERY = 5
ROUNDS = [
    ["QS", "7H", "QH", "7D", "2C", "9S"],
    ["AC", "KC", "QC", "JC", "10C", "9C"],
    ["2H", "3H", "4H", "5H", "6H", "8H"],
    ["AS", "AH", "AD", "KS", "KH", "KD"],
]


async def play_rounds(
    service: TableService, clock: FakeClock, table_id: str, rounds: list[list[str]]
) -> None:
    """Rounds run by the clock (ticks) with six scans each, as the consumer handles them."""
    for cards in rounds:
        clock.advance(1.0)
        state, _ = await service.tick(table_id)
        assert state.round_in_play is not None
        assert state.round_in_play.phase is RoundPhase.BETTING
        clock.advance(2.0)
        _, closed = await service.tick(table_id)
        assert closed
        for card in cards:
            clock.advance(0.37)
            scan = await card_scanned(service, clock, table_id, card)
            async with service.store.pool.acquire() as connection, connection.transaction():
                await service.handle_scans(connection, [scan])
    # the pause after the last round's result, then an unfinished round in betting
    clock.advance(1.0)
    await service.tick(table_id)


async def test_snapshots_are_written_and_used_and_a_bad_one_means_a_full_replay(
    infrastructure: InfrastructureSettings, store: AsyncpgEventStore
) -> None:
    pool = store.pool
    service, clock = await clocked_service(store, infrastructure, EVERY)
    settings = service.settings
    table_id = "S1"
    await open_table_directly(service, table_id, "Snapshots", 1.5, 0.5)
    await play_rounds(service, clock, table_id, ROUNDS[:2])
    truth = await full_replay(pool, table_id)
    # the terms proposed and approved, two rounds of 9 events, RoundOpened
    assert truth.version == 2 + 2 * 9 + 1

    # written at the last multiple of EVERY passed (an append of two events may pass it
    # with its second event), in the append's transaction
    row = await snapshot_row(pool, table_id)
    assert row is not None
    assert row["schema_version"] == SNAPSHOT_SCHEMA_VERSION
    assert truth.version - EVERY < row["version"] <= truth.version
    events = await store.read_stream(f"table-{table_id}")
    assert row["event_id"] == events[row["version"] - 1].event_id

    # a process that never saw the table starts from the snapshot, plus the events after it
    assert await TableRepository(store).load(table_id) == truth

    # ... really from the snapshot: a mark put into the snapshot shows up in what is loaded
    marked = json.loads(row["state"])
    marked["config"]["name"] = "from the snapshot"
    await pool.execute(
        "UPDATE table_snapshots SET state = $2::jsonb WHERE stream_id = $1",
        f"table-{table_id}",
        json.dumps(marked),
    )
    loaded = await TableRepository(store).load(table_id)
    assert loaded.config is not None and loaded.config.name == "from the snapshot"
    assert loaded.version == truth.version and loaded.round == truth.round

    async def falls_back_to_full_replay(change: str, *args: object) -> None:
        """The marked snapshot, spoilt by `change`, is ignored: the state is the truth."""
        await pool.execute(
            "UPDATE table_snapshots SET state = $2::jsonb, version = $3, event_id = $4,"
            " schema_version = $5 WHERE stream_id = $1",
            f"table-{table_id}",
            json.dumps(marked),
            row["version"],
            row["event_id"],
            SNAPSHOT_SCHEMA_VERSION,
        )
        await pool.execute(change, f"table-{table_id}", *args)
        assert await TableRepository(store).load(table_id) == truth, change

    # another schema
    await falls_back_to_full_replay(
        "UPDATE table_snapshots SET schema_version = $2 WHERE stream_id = $1",
        SNAPSHOT_SCHEMA_VERSION + 1,
    )
    # damaged
    await falls_back_to_full_replay(
        "UPDATE table_snapshots SET state = '{\"config\": 1}' WHERE stream_id = $1"
    )
    await falls_back_to_full_replay(
        "UPDATE table_snapshots SET state = '[1, 2]' WHERE stream_id = $1"
    )
    # its version column disagrees with the state it holds
    await falls_back_to_full_replay(
        "UPDATE table_snapshots SET version = version - 1 WHERE stream_id = $1"
    )
    # the stream does not hold the event the snapshot was taken at (e.g. a restored database)
    await falls_back_to_full_replay(
        "UPDATE table_snapshots SET event_id = $2 WHERE stream_id = $1", uuid4()
    )
    # beyond the end of the stream
    marked_beyond = {**marked, "version": truth.version + 50}
    await falls_back_to_full_replay(
        "UPDATE table_snapshots SET state = $2::jsonb, version = $3 WHERE stream_id = $1",
        json.dumps(marked_beyond),
        truth.version + 50,
    )
    # missing
    await falls_back_to_full_replay("DELETE FROM table_snapshots WHERE stream_id = $1")

    # an old snapshot (true, but far behind) is used with the longer tail after it
    await pool.execute(
        "INSERT INTO table_snapshots (stream_id, version, event_id, schema_version, state)"
        " VALUES ($1, $2, $3, $4, $5::jsonb)",
        f"table-{table_id}",
        row["version"],
        row["event_id"],
        SNAPSHOT_SCHEMA_VERSION,
        row["state"],
    )
    await play_rounds(service, clock, table_id, ROUNDS[2:])
    truth = await full_replay(pool, table_id)
    newer = await snapshot_row(pool, table_id)
    assert newer is not None and newer["version"] > row["version"]  # replaced by a newer one
    assert await TableRepository(store).load(table_id) == truth
    await pool.execute(
        "UPDATE table_snapshots SET state = $2::jsonb, version = $3, event_id = $4"
        " WHERE stream_id = $1",
        f"table-{table_id}",
        row["state"],
        row["version"],
        row["event_id"],
    )
    assert await TableRepository(store).load(table_id) == truth

    # and a table opened on a repository that loads from the old snapshot acts on it
    # correctly: the next decision appends at the right version
    fresh = TableService(store, settings, clock=clock)
    clock.advance(10.0)
    state, acted = await fresh.tick(table_id)
    assert acted and state.version == truth.version + 1
    assert state == await full_replay(pool, table_id)
