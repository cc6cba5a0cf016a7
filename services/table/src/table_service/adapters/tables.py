"""The table service's own tables, and its tables' streams read back through the store: the
cached `TableRepository` (snapshot + tail), and the `tables` projection (one row per table)
written in the same transaction as each append."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from teenpatti.events import Event
from teenpatti.events.catalog import registry
from teenpatti.eventsourcing import AsyncpgEventStore, ReplayedEvent

from ..domain.attention import needs_person
from ..domain.clock import needs_clock
from ..domain.state import TABLE_ID_PATTERN, TableState, fold, stream_id_for
from . import snapshots
from .views import ConfigView, config_view

log = logging.getLogger(__name__)

TABLE_CHANGED_CHANNEL = "table_changed"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def parse_table_changed(payload: str) -> tuple[str, int, datetime | None] | None:
    """A `table_changed` notification's table id, version and clock due time (None if it
    is not one)."""
    table_id, _, rest = payload.partition(":")
    version, _, due = rest.partition(":")
    try:
        return (
            table_id,
            int(version),
            None if due == "" else _EPOCH + timedelta(milliseconds=int(due)),
        )
    except (ValueError, OverflowError):
        return None


def decoded(state: TableState, rows: Sequence[ReplayedEvent]) -> Iterator[tuple[Event, datetime]]:
    """The rows' events with the times they were recorded, checking that they follow `state`
    without a gap (they always do: stream versions are dense)."""
    decode = registry.decode_json
    version = state.version
    for _, stream_version, _, event_type, schema_version, occurred_at, payload in rows:
        version += 1
        if stream_version != version:
            raise RuntimeError(f"table {state.table_id}: gap before version {stream_version}")
        yield decode(event_type, schema_version, payload), occurred_at


class TableRepository:
    """Loads a table's state from its stream. States already built are kept and only the
    newer events are read, so a long-running table is not replayed from the start each time;
    a cached state only ever holds committed events, which never change. A table not in the
    cache starts from its snapshot (if usable) and reads only the events after it."""

    def __init__(self, store: AsyncpgEventStore, max_cached: int = 10_000) -> None:
        self._store = store
        self._cache: dict[str, TableState] = {}
        self._max_cached = max_cached

    async def load(self, table_id: str, connection: asyncpg.Connection | None = None) -> TableState:
        """The table as its committed events say. With `connection`, call it before the
        transaction writes anything: what it reads then is committed, and may be kept."""
        return (await self.load_many([table_id], connection))[table_id]

    async def load_many(
        self, table_ids: Sequence[str], connection: asyncpg.Connection | None = None
    ) -> dict[str, TableState]:
        """`load` of several tables: the newer events of those already built here in one
        query, the others each from its snapshot."""
        states: dict[str, TableState] = {}
        cached: dict[str, TableState] = {}
        for table_id in table_ids:
            if not TABLE_ID_PATTERN.match(table_id):
                states[table_id] = TableState(table_id=table_id)  # never a table; nothing to read
            elif (state := self._cache.get(table_id)) is not None:
                cached[stream_id_for(table_id)] = state
            else:
                state, rows = await self._from_snapshot(table_id, connection)
                states[table_id] = self._fold(state, rows)
        if cached:
            newer: dict[str, list[ReplayedEvent]] = {stream_id: [] for stream_id in cached}
            known = {stream_id: state.version for stream_id, state in cached.items()}
            for row in await self._store.replay_streams(known, connection=connection):
                newer[row.stream_id].append(row)
            for stream_id, state in cached.items():
                states[state.table_id] = self._fold(state, newer[stream_id])
        return states

    def _fold(self, state: TableState, rows: Sequence[ReplayedEvent]) -> TableState:
        state = fold(state, decoded(state, rows))
        if rows:
            self._remember(state)
        return state

    async def _from_snapshot(
        self, table_id: str, connection: asyncpg.Connection | None
    ) -> tuple[TableState, list[ReplayedEvent]]:
        """The snapshot's state and the events after it; or, without a usable snapshot, the
        empty state and the whole stream."""
        stream_id = stream_id_for(table_id)
        executor = connection if connection is not None else self._store.pool
        snapshot = await snapshots.load_snapshot(executor, table_id)
        if snapshot is not None:
            # read from the snapshot's own last event, to check the stream still holds it
            after = snapshot.state.version - 1
            rows = await self._store.replay_stream(stream_id, after, connection=connection)
            if (
                rows
                and rows[0].stream_version == snapshot.state.version
                and rows[0].event_id == snapshot.event_id
            ):
                return snapshot.state, rows[1:]
            log.warning(
                "table %s: snapshot at version %d does not match the stream; replaying",
                table_id,
                snapshot.state.version,
            )
        return TableState(table_id=table_id), await self._store.replay_stream(
            stream_id, connection=connection
        )

    def cached(self, table_id: str) -> TableState | None:
        """The newest state built here (committed events only), without reading anything."""
        return self._cache.get(table_id)

    def remember(self, state: TableState) -> None:
        """Keep a state read from committed events (never one built from an open transaction)."""
        self._remember(state)

    def _remember(self, state: TableState) -> None:
        if state.version == 0:
            return
        if len(self._cache) >= self._max_cached and state.table_id not in self._cache:
            self._cache.pop(next(iter(self._cache)))
        current = self._cache.get(state.table_id)
        if current is None or current.version < state.version:
            self._cache[state.table_id] = state


async def save_tables(
    connection: asyncpg.Connection,
    tables: Sequence[tuple[TableState, int, datetime | None]],
) -> None:
    """Upsert the projection rows of several tables (state, Kafka partition, clock due) in
    one statement; called in the transaction of their appends."""
    columns: tuple[list[Any], ...] = ([], [], [], [], [], [], [], [], [], [], [])
    for state, kafka_partition, clock_due_at in tables:
        in_play = state.round_in_play
        values = (
            state.table_id,
            kafka_partition,
            state.status.value,
            state.phase,
            state.round.round_id if state.round is not None else None,
            needs_clock(state),
            json.dumps(None if state.config is None else config_view(state.config)),
            state.version,
            clock_due_at,
            in_play.paused_at if in_play is not None and in_play.paused else None,
            needs_person(state),
        )
        for column, value in zip(columns, values, strict=True):
            column.append(value)
    await connection.execute(
        "INSERT INTO tables (table_id, kafka_partition, status, phase, round_id, needs_clock,"
        " config, version, updated_at, clock_due_at, paused_at, needs_person)"
        " SELECT table_id, kafka_partition, status, phase, round_id, needs_clock,"
        " config::jsonb, version, now(), clock_due_at, paused_at, needs_person"
        " FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::bool[],"
        " $7::text[], $8::int[], $9::timestamptz[], $10::timestamptz[], $11::bool[])"
        " AS t(table_id, kafka_partition, status, phase, round_id, needs_clock, config,"
        " version, clock_due_at, paused_at, needs_person)"
        " ON CONFLICT (table_id) DO UPDATE SET kafka_partition = EXCLUDED.kafka_partition,"
        " status = EXCLUDED.status, phase = EXCLUDED.phase, round_id = EXCLUDED.round_id,"
        " needs_clock = EXCLUDED.needs_clock, config = EXCLUDED.config,"
        " version = EXCLUDED.version, updated_at = now(), clock_due_at = EXCLUDED.clock_due_at,"
        " paused_at = EXCLUDED.paused_at, needs_person = EXCLUDED.needs_person"
        " WHERE tables.version < EXCLUDED.version",
        *columns,
    )


@with_config(ConfigDict(use_attribute_docstrings=True))
class TableSummary(TypedDict):
    """A table as the listing shows it, from its projection row."""

    table_id: str
    name: str
    status: str
    """`open` or `closed`."""
    phase: str
    """`open` (no round yet), or the current or last round's: `betting`, `dealing`, `closed`,
    `cancelled`."""
    round_id: str | None
    """The current or last round's id; null before the first."""
    version: int
    """The table's stream version when it was listed."""
    config: ConfigView
    """The configuration in force."""
    updated_at: str
    """When the listing last changed (ISO 8601, UTC)."""


async def list_tables(pool: asyncpg.Pool) -> list[TableSummary]:
    rows = await pool.fetch(
        "SELECT table_id, status, phase, round_id, config, version, updated_at FROM tables"
        " WHERE status <> 'unknown' ORDER BY table_id"  # unknown: only a change proposed
    )
    summaries: list[TableSummary] = []
    for row in rows:
        config: ConfigView = json.loads(row["config"])
        summaries.append(
            {
                "table_id": row["table_id"],
                "name": config["name"],
                "status": row["status"],
                "phase": row["phase"],
                "round_id": row["round_id"],
                "version": row["version"],
                "config": config,
                "updated_at": row["updated_at"].isoformat(),
            }
        )
    return summaries


async def tables_needing_clock(pool: asyncpg.Pool, partitions: Sequence[int]) -> list[str]:
    """Tables in these partitions that time can still change (open, or a round in play)."""
    rows = await pool.fetch(
        "SELECT table_id FROM tables WHERE needs_clock AND kafka_partition = ANY($1::int[])",
        list(partitions),
    )
    return [row["table_id"] for row in rows]


async def table_exists(pool: asyncpg.Pool, table_id: str) -> bool:
    if not TABLE_ID_PATTERN.match(table_id):
        return False
    return bool(
        await pool.fetchval(
            "SELECT EXISTS (SELECT 1 FROM tables WHERE table_id = $1 AND status <> 'unknown')",
            table_id,
        )
    )


# the states of `teenpatti_table_rounds`: every one is reported, 0 included
ROUND_STATES = ("open", "betting", "dealing", "paused", "closed", "cancelled")


async def rounds_by_state(pool: asyncpg.Pool) -> dict[tuple[str, ...], float]:
    """Open tables (and any table with a round still in play) by their current round's
    state: `open` before its first round, `paused` for a round in play that is paused, else
    the round's phase."""
    rows = await pool.fetch(
        "SELECT CASE WHEN paused_at IS NOT NULL THEN 'paused' ELSE phase END, count(*)"
        " FROM tables WHERE status = 'open' OR phase IN ('betting', 'dealing') GROUP BY 1"
    )
    counts: dict[tuple[str, ...], float] = {(state,): 0.0 for state in ROUND_STATES}
    counts.update(((row[0],), float(row[1])) for row in rows)
    return counts


async def round_stalls(pool: asyncpg.Pool) -> dict[tuple[str, ...], float]:
    """The longest a round in play has been dealing without a card (no event of its table
    since: a card dealt or refused, betting closed, a resume) and has been paused, in
    seconds (0 when no round is)."""
    row = await pool.fetchrow(
        "SELECT coalesce(extract(epoch FROM now() - min(updated_at)"
        "         FILTER (WHERE phase = 'dealing' AND paused_at IS NULL)), 0),"
        " coalesce(extract(epoch FROM now() - min(paused_at)), 0)"
        " FROM tables WHERE phase IN ('betting', 'dealing')"
    )
    return {("dealing",): float(row[0]), ("paused",): float(row[1])}


async def tables_needing_person(pool: asyncpg.Pool, limit: int) -> list[str]:
    """Tables holding something for a person (`domain.attention.needs_person`)."""
    rows = await pool.fetch(
        "SELECT table_id FROM tables WHERE needs_person ORDER BY updated_at LIMIT $1", limit
    )
    return [row["table_id"] for row in rows]
