"""Snapshots of table states (`table_snapshots`, one row per stream): only an optimisation.
A snapshot that is missing, damaged, of an unknown schema or not matching the stream any
more is ignored, and the table is replayed from its first event."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from uuid import UUID

import asyncpg
from pydantic import TypeAdapter, ValidationError

from ..domain.state import TableState, stream_id_for

log = logging.getLogger(__name__)

# The whole TableState in the JSON form pydantic gives its dataclasses. Change
# SNAPSHOT_SCHEMA_VERSION whenever TableState changes: snapshots of another schema are ignored.
SNAPSHOT_SCHEMA_VERSION = 5
_STATE = TypeAdapter(TableState)


class SnapshotError(ValueError):
    """A snapshot that cannot be read back (another schema, damaged): replay instead."""


def snapshot_of(state: TableState) -> str:
    """The state as JSON text; `state_from_snapshot` gives back an equal state."""
    return _STATE.dump_json(state).decode()


def state_from_snapshot(text: str | bytes, schema_version: int) -> TableState:
    """The state a snapshot holds; raises SnapshotError if it cannot be read exactly."""
    if schema_version != SNAPSHOT_SCHEMA_VERSION:
        raise SnapshotError(
            f"snapshot schema {schema_version}, this code reads {SNAPSHOT_SCHEMA_VERSION}"
        )
    try:
        # strict: every value must already have its field's JSON type (no "7" for 7)
        return _STATE.validate_json(text, strict=True)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "state"
        raise SnapshotError(f"damaged snapshot: {where}: {first['msg']}") from None


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
                snapshot_of(state),
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
        state = state_from_snapshot(row["state"], row["schema_version"])
    except SnapshotError as error:
        log.warning("table %s: snapshot ignored (%s); replaying the stream", table_id, error)
        return None
    if state.table_id != table_id or state.version != row["version"] or state.version < 1:
        log.warning("table %s: snapshot ignored (it is not this table's); replaying", table_id)
        return None
    return Snapshot(state=state, event_id=row["event_id"])
