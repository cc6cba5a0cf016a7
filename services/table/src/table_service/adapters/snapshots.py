"""Snapshots of table states (`table_snapshots`, one row per stream): only an optimisation.
A snapshot that is missing, damaged, of an unknown schema or not matching the stream any
more is ignored, and the table is replayed from its first event."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from uuid import UUID

import asyncpg

from ..domain import (
    SNAPSHOT_SCHEMA_VERSION,
    SnapshotError,
    TableState,
    snapshot_of,
    state_from_snapshot,
    stream_id_for,
)

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS table_snapshots (
    stream_id      text PRIMARY KEY,
    version        integer NOT NULL,
    event_id       uuid NOT NULL,
    schema_version integer NOT NULL,
    state          jsonb NOT NULL,
    taken_at       timestamptz NOT NULL DEFAULT now()
);
"""


@dataclass(frozen=True)
class Snapshot:
    state: TableState
    # the id of the stream's event at `state.version`: a snapshot is only used while the
    # stream still holds that very event there
    event_id: UUID


async def save_snapshot(connection: asyncpg.Connection, state: TableState, event_id: UUID) -> None:
    """Keep `state` (committed with the append in this transaction) as the table's snapshot,
    unless a newer one is there. In a savepoint: a failure here never undoes the append."""
    try:
        async with connection.transaction():
            await connection.execute(
                "INSERT INTO table_snapshots (stream_id, version, event_id, schema_version,"
                " state, taken_at) VALUES ($1, $2, $3, $4, $5::jsonb, now())"
                " ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version,"
                " event_id = EXCLUDED.event_id, schema_version = EXCLUDED.schema_version,"
                " state = EXCLUDED.state, taken_at = EXCLUDED.taken_at"
                " WHERE table_snapshots.version < EXCLUDED.version"
                " OR table_snapshots.schema_version <> EXCLUDED.schema_version",
                stream_id_for(state.table_id),
                state.version,
                event_id,
                SNAPSHOT_SCHEMA_VERSION,
                json.dumps(snapshot_of(state)),
            )
    except (asyncpg.PostgresError, ValueError) as error:
        log.warning(
            "table %s: no snapshot at version %d (%s)", state.table_id, state.version, error
        )


async def load_snapshot(
    executor: asyncpg.Connection | asyncpg.Pool, table_id: str
) -> Snapshot | None:
    """The table's latest snapshot if this code can read it, else None (replay)."""
    row = await executor.fetchrow(
        "SELECT version, event_id, schema_version, state::text AS state FROM table_snapshots"
        " WHERE stream_id = $1",
        stream_id_for(table_id),
    )
    if row is None:
        return None
    try:
        state = state_from_snapshot(json.loads(row["state"]), row["schema_version"])
    except (SnapshotError, ValueError) as error:
        log.warning("table %s: snapshot ignored (%s); replaying the stream", table_id, error)
        return None
    if state.table_id != table_id or state.version != row["version"] or state.version < 1:
        log.warning("table %s: snapshot ignored (it is not this table's); replaying", table_id)
        return None
    return Snapshot(state=state, event_id=row["event_id"])
