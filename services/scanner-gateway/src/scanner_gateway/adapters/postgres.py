"""The gateway's projection tables, beside its event store in the same database.

`devices`: one row per registered scanner: its table, its credential's hash, whether it is
its table's active device, the last sequence number it used, and the last card it read (the
bounce filter's state, read and written under the row's lock, so every gateway instance sees
the same window). `scans`: one row per read of a known device with its verdict once the
table gives one; `GET /scans/{id}` reads it. `table_rounds`: each table's latest round as
heard on `table.events`, and whether it is in play (stamped on each `CardScanned`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import asyncpg

from scanner_gateway.domain import Device, ScanAnswer


async def clock(connection: asyncpg.Connection) -> datetime:
    """The database's clock: one clock for every instance's bounce windows."""
    now: datetime = await connection.fetchval("SELECT clock_timestamp()")
    return now


# -------------------------------------------------------------------------------- devices
async def lock_device(
    connection: asyncpg.Connection, device_id: str | None
) -> tuple[Device | None, str | None, datetime]:
    """The device (None for `device_id` None or unknown), its row locked until the transaction
    ends, the round in play at its table (as last heard), and the database's clock read once
    the lock is held."""
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
            active=row["d_active"],
            last_sequence=row["d_last_sequence"],
        )
    read_at: datetime = row["read_at"]
    return device, row["d_round_id"], read_at


async def load_device(
    connection: asyncpg.Connection, device_id: str, *, lock: bool = True
) -> Device | None:
    """The device; with `lock`, its row stays locked until the transaction ends."""
    row = await connection.fetchrow(
        "SELECT d.device_id, d.table_id, d.credential_hash, d.last_card, d.last_scan_id,"
        "       d.last_read_at, s.status AS last_status, d.active, d.last_sequence"
        " FROM devices d LEFT JOIN scans s ON s.scan_id = d.last_scan_id"
        " WHERE d.device_id = $1" + (" FOR UPDATE OF d" if lock else ""),
        device_id,
    )
    return _device(row)


async def lock_active_device(connection: asyncpg.Connection, table_id: str) -> Device | None:
    """The table's active device, its row locked until the transaction ends."""
    row = await connection.fetchrow(
        "SELECT d.device_id, d.table_id, d.credential_hash, d.last_card, d.last_scan_id,"
        "       d.last_read_at, NULL AS last_status, d.active, d.last_sequence"
        " FROM devices d WHERE d.table_id = $1 AND d.active FOR UPDATE",
        table_id,
    )
    return _device(row)


def _device(row: asyncpg.Record | None) -> Device | None:
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
        active=row["active"],
        last_sequence=row["last_sequence"],
    )


async def save_registration(
    connection: asyncpg.Connection, device: Device, *, actor: str, at: datetime
) -> None:
    """A device with a new credential (registered or rotated): active, its bounce state and
    sequence forgotten."""
    await connection.execute(
        "INSERT INTO devices (device_id, table_id, credential_hash, registered_at, registered_by)"
        " VALUES ($1, $2, $3, $4, $5)"
        " ON CONFLICT (device_id) DO UPDATE SET table_id = EXCLUDED.table_id,"
        "   credential_hash = EXCLUDED.credential_hash, registered_at = EXCLUDED.registered_at,"
        "   registered_by = EXCLUDED.registered_by,"
        "   last_card = NULL, last_scan_id = NULL, last_read_at = NULL,"
        "   active = true, last_sequence = 0, retired_at = NULL, retired_reason = NULL",
        device.device_id,
        device.table_id,
        device.credential_hash,
        at,
        actor,
    )


async def save_retirement(
    connection: asyncpg.Connection, device_id: str, *, reason: str, at: datetime
) -> None:
    await connection.execute(
        "UPDATE devices SET active = false, retired_at = $2, retired_reason = $3"
        " WHERE device_id = $1",
        device_id,
        at,
        reason,
    )


@dataclass(frozen=True)
class DeviceRow:
    device_id: str
    table_id: str
    registered_at: datetime
    registered_by: str
    last_card: str | None
    last_read_at: datetime | None
    active: bool
    last_sequence: int
    retired_at: datetime | None
    retired_reason: str | None


async def list_devices(pool: asyncpg.Pool) -> list[DeviceRow]:
    rows = await pool.fetch(
        "SELECT device_id, table_id, registered_at, registered_by, last_card, last_read_at,"
        " active, last_sequence, retired_at, retired_reason"
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
    sequence: int | None = None
    raw: str | None = None  # what arrived, bounded (null for a read stored before it was kept)


_INSERT_SCAN = (
    "INSERT INTO scans (scan_id, device_id, table_id, card, status, reason, detail,"
    " position, duplicate_of, received_at, sequence, raw)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
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
        row.sequence,
        row.raw,
    )
    if last_read is None:
        await connection.execute(_INSERT_SCAN, *values)
        return
    await connection.execute(
        "WITH last_read AS (UPDATE devices SET last_card = $14, last_scan_id = $15,"
        " last_read_at = $16, last_sequence = $17 WHERE device_id = $13) " + _INSERT_SCAN,
        *values,
        last_read.device_id,
        last_read.last_card,
        last_read.last_scan_id,
        last_read.last_read_at,
        last_read.last_sequence,
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
        " duplicate_of, received_at, sequence, raw FROM scans WHERE scan_id = $1",
        scan_id,
    )
    return None if row is None else ScanRow(**dict(row))


# --------------------------------------------------------------------- a table's reads
@dataclass(frozen=True)
class TableDevice:
    """A device registered to the table (active or retired), and when it last sent a read."""

    device_id: str
    active: bool
    registered_at: datetime
    last_card: str | None
    last_sequence: int
    last_seen_at: datetime | None
    retired_at: datetime | None
    retired_reason: str | None


async def table_devices(pool: asyncpg.Pool, table_id: str) -> list[TableDevice]:
    """The table's devices, the active one first."""
    rows = await pool.fetch(
        "SELECT d.device_id, d.active, d.registered_at, d.last_card, d.last_sequence,"
        " (SELECT max(s.received_at) FROM scans s WHERE s.device_id = d.device_id)"
        " AS last_seen_at, d.retired_at, d.retired_reason"
        " FROM devices d WHERE d.table_id = $1 ORDER BY d.active DESC, d.device_id",
        table_id,
    )
    return [TableDevice(**dict(row)) for row in rows]


async def table_scans(pool: asyncpg.Pool, table_id: str, limit: int) -> list[asyncpg.Record]:
    """The table's last `limit` reads, newest first, with their verdicts."""
    rows: list[asyncpg.Record] = await pool.fetch(
        "SELECT scan_id, device_id, raw, card, status, reason, detail, position, sequence,"
        " received_at, decided_at FROM scans WHERE table_id = $1"
        " ORDER BY received_at DESC, scan_id LIMIT $2",
        table_id,
        limit,
    )
    return rows


async def table_known(pool: asyncpg.Pool, table_id: str) -> bool:
    """Whether the gateway has heard of the table: a device, a read or a round of it."""
    known: bool = await pool.fetchval(
        "SELECT EXISTS (SELECT 1 FROM devices WHERE table_id = $1)"
        " OR EXISTS (SELECT 1 FROM scans WHERE table_id = $1)"
        " OR EXISTS (SELECT 1 FROM table_rounds WHERE table_id = $1)",
        table_id,
    )
    return known


# --------------------------------------------------------------------------- table rounds
async def record_rounds(
    connection: asyncpg.Connection, rounds: Sequence[tuple[str, str, int, bool]]
) -> None:
    """Each `(table_id, round_id, number, in_play)` as heard, in order: a round opened
    replaces an older one; a round's end clears only that round."""
    for table_id, round_id, number, in_play in rounds:
        await connection.execute(
            "INSERT INTO table_rounds (table_id, round_id, number, in_play)"
            " VALUES ($1, $2, $3, $4)"
            " ON CONFLICT (table_id) DO UPDATE SET round_id = EXCLUDED.round_id,"
            "   number = EXCLUDED.number, in_play = EXCLUDED.in_play"
            " WHERE table_rounds.number < EXCLUDED.number"
            "   OR (table_rounds.round_id = EXCLUDED.round_id AND NOT EXCLUDED.in_play)",
            table_id,
            round_id,
            number,
            in_play,
        )
