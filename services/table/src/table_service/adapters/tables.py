"""SQL of the table service's own tables: the table streams read back, and the `tables`
projection (one row per table) written in the same transaction as each append."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg

from teenpatti.events.catalog import registry
from teenpatti.eventsourcing import StoredEvent
from teenpatti.eventsourcing.store import add_column_sql

from ..domain import TABLE_ID_PATTERN, TableState, evolve, needs_clock, state_view, stream_id_for
from . import snapshots

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    table_id        text PRIMARY KEY,
    kafka_partition integer NOT NULL,
    status          text NOT NULL,
    phase           text NOT NULL,
    round_id        text,
    needs_clock     boolean NOT NULL,
    config          jsonb NOT NULL,
    version         integer NOT NULL,
    updated_at      timestamptz NOT NULL DEFAULT now(),
    clock_due_at    timestamptz
);
CREATE INDEX IF NOT EXISTS tables_needing_clock ON tables (kafka_partition) WHERE needs_clock;
{add_clock_due_at}
-- Every change of a table, on any instance, as '<table_id>:<version>:<clock due, epoch ms>'
-- (due empty when nothing is timed), delivered at commit to the instances' table clocks.
CREATE OR REPLACE FUNCTION notify_table_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('table_changed', NEW.table_id || ':' || NEW.version || ':'
        || CASE WHEN NEW.clock_due_at IS NULL THEN ''  -- "now" is stored as -infinity
           ELSE (extract(epoch FROM greatest(NEW.clock_due_at, 'epoch')) * 1000)::bigint::text
           END);
    RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER table_changed AFTER INSERT OR UPDATE ON tables
    FOR EACH ROW EXECUTE FUNCTION notify_table_changed();
"""
SCHEMA = _SCHEMA.replace(
    "{add_clock_due_at}", add_column_sql("tables", "clock_due_at", "timestamptz")
)


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


_COLUMNS = (
    "position, transaction_id, stream_id, stream_version, event_id, event_type, schema_version,"
    " table_id, occurred_at, correlation_id, causation_id, producer, payload::text AS payload"
)


async def migrate(pool: asyncpg.Pool) -> None:
    async with pool.acquire() as connection, connection.transaction():
        await connection.execute("SELECT pg_advisory_xact_lock(7411101)")
        await connection.execute(SCHEMA)
        await connection.execute(snapshots.SCHEMA)


async def read_table_stream(
    executor: asyncpg.Connection | asyncpg.Pool,
    table_id: str,
    after_version: int = 0,
    limit: int | None = None,
) -> list[StoredEvent]:
    """The table's events after `after_version`, in stream order (on the caller's
    connection when given, so a consumer reads inside its own transaction)."""
    if not TABLE_ID_PATTERN.match(table_id):
        return []  # never a table (and text such as NUL must not reach Postgres)
    rows = await executor.fetch(
        f"SELECT {_COLUMNS} FROM events WHERE stream_id = $1 AND stream_version > $2"
        " ORDER BY stream_version LIMIT $3",
        stream_id_for(table_id),
        after_version,
        limit,
        record_class=StoredEvent,
    )
    return rows  # type: ignore[no-any-return]


class TableRepository:
    """Loads a table's state from its stream. States already built are kept and only the
    newer events are read, so a long-running table is not replayed from the start each time;
    a cached state only ever holds committed events, which never change. A table not in the
    cache starts from its snapshot (if usable) and reads only the events after it."""

    def __init__(self, pool: asyncpg.Pool, max_cached: int = 10_000) -> None:
        self._pool = pool
        self._cache: dict[str, TableState] = {}
        self._max_cached = max_cached

    async def load(self, table_id: str, connection: asyncpg.Connection | None = None) -> TableState:
        """The table as its committed events say. With `connection`, call it before the
        transaction writes anything: what it reads then is committed, and may be kept."""
        if not TABLE_ID_PATTERN.match(table_id):
            return TableState(table_id=table_id)  # never a table; nothing to read
        executor = connection or self._pool
        cached = self._cache.get(table_id)
        if cached is not None:
            state = cached
            rows = await read_table_stream(executor, table_id, state.version)
        else:
            state, rows = await self._from_snapshot(executor, table_id)
        for row in rows:
            if row.stream_version != state.version + 1:  # never: stream versions are dense
                raise RuntimeError(f"table {table_id}: gap before version {row.stream_version}")
            event = registry.decode_json(row.event_type, row.schema_version, row.payload_json)
            state = evolve(state, event, row.occurred_at)
        if rows:
            self._remember(state)
        return state

    async def _from_snapshot(
        self, executor: asyncpg.Connection | asyncpg.Pool, table_id: str
    ) -> tuple[TableState, list[StoredEvent]]:
        """The snapshot's state and the events after it; or, without a usable snapshot, the
        empty state and the whole stream."""
        snapshot = await snapshots.load_snapshot(executor, table_id)
        if snapshot is not None:
            # read from the snapshot's own last event, to check the stream still holds it
            rows = await read_table_stream(executor, table_id, snapshot.state.version - 1)
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
        return TableState(table_id=table_id), await read_table_stream(executor, table_id)

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


async def save_table(
    connection: asyncpg.Connection,
    state: TableState,
    kafka_partition: int,
    clock_due_at: datetime | None,
) -> None:
    """Upsert the table's projection row; called in the transaction of the append."""
    view = state_view(state)
    round_id = state.round.round_id if state.round is not None else None
    await connection.execute(
        "INSERT INTO tables (table_id, kafka_partition, status, phase, round_id, needs_clock,"
        " config, version, updated_at, clock_due_at)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, now(), $9)"
        " ON CONFLICT (table_id) DO UPDATE SET kafka_partition = EXCLUDED.kafka_partition,"
        " status = EXCLUDED.status, phase = EXCLUDED.phase, round_id = EXCLUDED.round_id,"
        " needs_clock = EXCLUDED.needs_clock, config = EXCLUDED.config,"
        " version = EXCLUDED.version, updated_at = now(), clock_due_at = EXCLUDED.clock_due_at"
        " WHERE tables.version < EXCLUDED.version",
        state.table_id,
        kafka_partition,
        state.status.value,
        state.phase,
        round_id,
        needs_clock(state),
        json.dumps(view["config"]),
        state.version,
        clock_due_at,
    )


async def list_tables(pool: asyncpg.Pool) -> list[dict[str, Any]]:
    rows = await pool.fetch(
        "SELECT table_id, status, phase, round_id, config, version, updated_at FROM tables"
        " ORDER BY table_id"
    )
    return [
        {
            "table_id": row["table_id"],
            "name": json.loads(row["config"]).get("name"),
            "status": row["status"],
            "phase": row["phase"],
            "round_id": row["round_id"],
            "version": row["version"],
            "config": json.loads(row["config"]),
            "updated_at": row["updated_at"].isoformat(),
        }
        for row in rows
    ]


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
        await pool.fetchval("SELECT EXISTS (SELECT 1 FROM tables WHERE table_id = $1)", table_id)
    )
