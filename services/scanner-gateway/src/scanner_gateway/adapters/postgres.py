"""The gateway's projection tables, beside its event store in the same database.

`devices`: one row per registered scanner: its table, its credential's hash, and the last
card it read (the bounce filter's state, read and written under the row's lock, so every
gateway instance sees the same window). `scans`: one row per read of a known device with
its verdict once the table gives one; `GET /scans/{id}` reads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import asyncpg

from scanner_gateway.domain import Device, ScanAnswer

SCHEMA = """
CREATE TABLE IF NOT EXISTS devices (
    device_id        text PRIMARY KEY,
    table_id         text NOT NULL,
    credential_hash  text NOT NULL,
    registered_at    timestamptz NOT NULL,
    registered_by    text NOT NULL,
    last_card        text,
    last_scan_id     uuid,
    last_read_at     timestamptz
);
CREATE TABLE IF NOT EXISTS scans (
    scan_id       uuid PRIMARY KEY,
    device_id     text NOT NULL,
    table_id      text NOT NULL,
    card          text,
    -- pending, registered, refused (the table's verdict); rescan, duplicate, rejected
    status        text NOT NULL,
    reason        text,
    detail        text,
    position      text,
    duplicate_of  uuid,
    received_at   timestamptz NOT NULL,
    decided_at    timestamptz
);
CREATE INDEX IF NOT EXISTS scans_by_device ON scans (device_id, received_at);
-- Both functions take a lock, then read in a statement of their own: a VOLATILE function's
-- statements each take a fresh snapshot, so what they read is what the lock's previous
-- holder committed. One round trip each.
CREATE OR REPLACE FUNCTION gateway_lock_stream(p_stream text) RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(p_stream, 0));
    RETURN coalesce((SELECT version FROM streams WHERE stream_id = p_stream), 0);
END $$;
CREATE OR REPLACE FUNCTION gateway_lock_device(
    p_device text,
    OUT d_device_id text, OUT d_table_id text, OUT d_credential_hash text,
    OUT d_last_card text, OUT d_last_scan_id uuid, OUT d_last_read_at timestamptz,
    OUT d_last_status text, OUT read_at timestamptz
) LANGUAGE plpgsql AS $$
BEGIN
    SELECT device_id, table_id, credential_hash, last_card, last_scan_id, last_read_at
      INTO d_device_id, d_table_id, d_credential_hash, d_last_card, d_last_scan_id,
           d_last_read_at
      FROM devices WHERE device_id = p_device FOR UPDATE;
    IF FOUND THEN
        SELECT status INTO d_last_status FROM scans WHERE scan_id = d_last_scan_id;
    END IF;
    read_at := clock_timestamp();
END $$;
"""

_MIGRATION_LOCK = 7411102


async def migrate(pool: asyncpg.Pool) -> None:
    async with pool.acquire() as connection, connection.transaction():
        await connection.execute("SELECT pg_advisory_xact_lock($1)", _MIGRATION_LOCK)
        await connection.execute(SCHEMA)


async def lock_stream(connection: asyncpg.Connection, stream_id: str) -> int:
    """Hold `stream_id` for this transaction and return its version: appends to it from
    any instance queue up here instead of failing on the expected version."""
    version: int = await connection.fetchval("SELECT gateway_lock_stream($1)", stream_id)
    return version


async def clock(connection: asyncpg.Connection) -> datetime:
    """The database's clock: one clock for every instance's bounce windows."""
    now: datetime = await connection.fetchval("SELECT clock_timestamp()")
    return now


# -------------------------------------------------------------------------------- devices
async def lock_device(
    connection: asyncpg.Connection, device_id: str | None
) -> tuple[Device | None, datetime]:
    """The device (None for `device_id` None or unknown), its row locked until the transaction
    ends, and the database's clock read once the lock is held."""
    row = await connection.fetchrow("SELECT * FROM gateway_lock_device($1)", device_id)
    assert row is not None
    device = None
    if row["d_device_id"] is not None:
        device = Device(
            device_id=row["d_device_id"],
            table_id=row["d_table_id"],
            credential_hash=row["d_credential_hash"],
            last_card=row["d_last_card"],
            last_scan_id=row["d_last_scan_id"],
            last_status=row["d_last_status"],
            last_read_at=row["d_last_read_at"],
        )
    read_at: datetime = row["read_at"]
    return device, read_at


async def load_device(
    connection: asyncpg.Connection, device_id: str, *, lock: bool = True
) -> Device | None:
    """The device; with `lock`, its row stays locked until the transaction ends."""
    row = await connection.fetchrow(
        "SELECT d.device_id, d.table_id, d.credential_hash, d.last_card, d.last_scan_id,"
        "       d.last_read_at, s.status AS last_status"
        " FROM devices d LEFT JOIN scans s ON s.scan_id = d.last_scan_id"
        " WHERE d.device_id = $1" + (" FOR UPDATE OF d" if lock else ""),
        device_id,
    )
    if row is None:
        return None
    return Device(
        device_id=row["device_id"],
        table_id=row["table_id"],
        credential_hash=row["credential_hash"],
        last_card=row["last_card"],
        last_scan_id=row["last_scan_id"],
        last_status=row["last_status"],
        last_read_at=row["last_read_at"],
    )


async def save_registration(
    connection: asyncpg.Connection, device: Device, *, actor: str, at: datetime
) -> None:
    await connection.execute(
        "INSERT INTO devices (device_id, table_id, credential_hash, registered_at, registered_by)"
        " VALUES ($1, $2, $3, $4, $5)"
        " ON CONFLICT (device_id) DO UPDATE SET table_id = EXCLUDED.table_id,"
        "   credential_hash = EXCLUDED.credential_hash, registered_at = EXCLUDED.registered_at,"
        "   registered_by = EXCLUDED.registered_by,"
        "   last_card = NULL, last_scan_id = NULL, last_read_at = NULL",
        device.device_id,
        device.table_id,
        device.credential_hash,
        at,
        actor,
    )


@dataclass(frozen=True)
class DeviceRow:
    device_id: str
    table_id: str
    registered_at: datetime
    registered_by: str
    last_card: str | None
    last_read_at: datetime | None


async def list_devices(pool: asyncpg.Pool) -> list[DeviceRow]:
    rows = await pool.fetch(
        "SELECT device_id, table_id, registered_at, registered_by, last_card, last_read_at"
        " FROM devices ORDER BY device_id"
    )
    return [DeviceRow(**dict(row)) for row in rows]


# ---------------------------------------------------------------------------------- scans
@dataclass(frozen=True)
class ScanRow:
    scan_id: UUID
    device_id: str
    table_id: str
    card: str | None
    status: str
    reason: str | None
    detail: str | None
    position: str | None
    duplicate_of: UUID | None
    received_at: datetime


_INSERT_SCAN = (
    "INSERT INTO scans (scan_id, device_id, table_id, card, status, reason, detail,"
    " position, duplicate_of, received_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
)


async def insert_scan(
    connection: asyncpg.Connection, row: ScanRow, *, last_read: Device | None = None
) -> None:
    """Store a read; with `last_read`, also the device's new bounce state (one statement)."""
    values = (
        row.scan_id,
        row.device_id,
        row.table_id,
        row.card,
        row.status,
        row.reason,
        row.detail,
        row.position,
        row.duplicate_of,
        row.received_at,
    )
    if last_read is None:
        await connection.execute(_INSERT_SCAN, *values)
        return
    await connection.execute(
        "WITH last_read AS (UPDATE devices SET last_card = $12, last_scan_id = $13,"
        " last_read_at = $14 WHERE device_id = $11) " + _INSERT_SCAN,
        *values,
        last_read.device_id,
        last_read.last_card,
        last_read.last_scan_id,
        last_read.last_read_at,
    )


async def record_verdicts(
    connection: asyncpg.Connection, verdicts: Sequence[tuple[ScanAnswer, datetime]]
) -> set[UUID]:
    """The table's verdicts on pending scans (each with when it was given), in one
    statement; the ids of the scans they decided. A scan that is not ours or not pending
    any more is left as it is (the first verdict stands)."""
    first: dict[UUID, tuple[ScanAnswer, datetime]] = {}
    for verdict, at in verdicts:
        first.setdefault(verdict.scan_id, (verdict, at))  # one row may be updated once
    if not first:
        return set()
    verdicts = list(first.values())
    rows = await connection.fetch(
        "UPDATE scans SET status = v.status, reason = v.reason, detail = v.detail,"
        " position = v.position, decided_at = v.decided_at"
        " FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[],"
        " $6::timestamptz[]) AS v(scan_id, status, reason, detail, position, decided_at)"
        " WHERE scans.scan_id = v.scan_id AND scans.status = 'pending'"
        " RETURNING scans.scan_id",
        [verdict.scan_id for verdict, _ in verdicts],
        [verdict.status for verdict, _ in verdicts],
        [verdict.reason for verdict, _ in verdicts],
        [verdict.detail for verdict, _ in verdicts],
        [verdict.position for verdict, _ in verdicts],
        [at for _, at in verdicts],
    )
    return {row[0] for row in rows}


async def load_scan(executor: asyncpg.Pool | asyncpg.Connection, scan_id: UUID) -> ScanRow | None:
    row = await executor.fetchrow(
        "SELECT scan_id, device_id, table_id, card, status, reason, detail, position,"
        " duplicate_of, received_at FROM scans WHERE scan_id = $1",
        scan_id,
    )
    return None if row is None else ScanRow(**dict(row))
