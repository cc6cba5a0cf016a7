"""The gateway's projection tables, beside its event store in the same database.

`devices`: one row per registered scanner: its table, its credential's hash, whether it is
its table's active device, the last sequence number it used, and the last card it read (the
bounce filter's state, read and written under the row's lock, so every gateway instance sees
the same window). `device_changes`: registrations and rotations proposed, and what became of
them (the proposed credential's hash until then). `scans`: one row per read of a known device
with its verdict once the table gives one, and whether that verdict showed the read's value;
`GET /scans/{id}` reads it. `table_rounds`: each table's latest round as heard on
`table.events`, whether it is in play (stamped on each `CardScanned`) and whether its betting
has closed (no device change applies then).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import asyncpg

from scanner_gateway.domain import Device, DeviceChange, ScanAnswer, stream_of_reads


async def clock(connection: asyncpg.Connection) -> datetime:
    """The database's clock: one clock for every instance's bounce windows."""
    now: datetime = await connection.fetchval("SELECT clock_timestamp()")
    return now


# -------------------------------------------------------------------------------- devices
@dataclass(frozen=True)
class DeviceLock:
    """A read's device, its row and its reads stream held until the transaction ends."""

    device: Device | None  # None for an id that is None or unknown
    round_id: str | None  # the round in play at its table, as last heard
    read_at: datetime  # the database's clock, read once the locks are held
    reads_version: int  # its reads stream's version (0 without a device)


async def lock_device(connection: asyncpg.Connection, device_id: str | None) -> DeviceLock:
    """The device's row and its reads stream (`stream_of_reads`) locked, in one round trip."""
    row = await connection.fetchrow(
        "SELECT * FROM gateway_lock_device($1, $2)",
        device_id,
        stream_of_reads(device_id) if device_id is not None else None,
    )
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
    return DeviceLock(device, row["d_round_id"], row["read_at"], row["d_reads_version"] or 0)


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
    connection: asyncpg.Connection,
    device: Device,
    *,
    actor: str,
    approved_by: str | None,
    at: datetime,
) -> None:
    """A device with a new credential (registered or rotated): active, its bounce state and
    sequence forgotten."""
    await connection.execute(
        "INSERT INTO devices (device_id, table_id, credential_hash, registered_at, registered_by,"
        " approved_by) VALUES ($1, $2, $3, $4, $5, $6)"
        " ON CONFLICT (device_id) DO UPDATE SET table_id = EXCLUDED.table_id,"
        "   credential_hash = EXCLUDED.credential_hash, registered_at = EXCLUDED.registered_at,"
        "   registered_by = EXCLUDED.registered_by, approved_by = EXCLUDED.approved_by,"
        "   last_card = NULL, last_scan_id = NULL, last_read_at = NULL,"
        "   active = true, last_sequence = 0, retired_at = NULL, retired_reason = NULL",
        device.device_id,
        device.table_id,
        device.credential_hash,
        at,
        actor,
        approved_by,
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
    registered_by: str  # who proposed its credential
    approved_by: str | None  # who approved it
    last_card: str | None
    last_card_revealed: bool  # the table's verdict on its last card showed the value
    last_read_at: datetime | None
    active: bool
    last_sequence: int
    retired_at: datetime | None
    retired_reason: str | None


async def list_devices(pool: asyncpg.Pool) -> list[DeviceRow]:
    rows = await pool.fetch(
        "SELECT d.device_id, d.table_id, d.registered_at, d.registered_by, d.approved_by,"
        " d.last_card, coalesce(s.revealed, false) AS last_card_revealed, d.last_read_at,"
        " d.active, d.last_sequence, d.retired_at, d.retired_reason"
        " FROM devices d LEFT JOIN scans s ON s.scan_id = d.last_scan_id"
        " ORDER BY d.device_id"
    )
    return [DeviceRow(**dict(row)) for row in rows]


# ------------------------------------------------------------------------- device changes
@dataclass(frozen=True)
class ChangeRow:
    change_id: UUID
    device_id: str
    table_id: str
    kind: str
    status: str  # pending, approved, rejected
    proposed_by: str
    proposed_at: datetime
    decided_by: str | None
    decided_at: datetime | None


_CHANGE_COLUMNS = (
    "change_id, device_id, table_id, kind, status, proposed_by, proposed_at, decided_by, decided_at"
)


async def insert_change(connection: asyncpg.Connection, change: DeviceChange, at: datetime) -> None:
    await connection.execute(
        "INSERT INTO device_changes (change_id, device_id, table_id, kind, credential_hash,"
        " proposed_by, proposed_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        change.change_id,
        change.device_id,
        change.table_id,
        change.kind,
        change.credential_hash,
        change.proposed_by,
        at,
    )


async def pending_change_of(connection: asyncpg.Connection, device_id: str) -> DeviceChange | None:
    """The change waiting for the device, if any."""
    row = await connection.fetchrow(
        "SELECT change_id, device_id, table_id, kind, credential_hash, proposed_by"
        " FROM device_changes WHERE device_id = $1 AND status = 'pending'",
        device_id,
    )
    return None if row is None else DeviceChange(**dict(row))


async def find_change(
    executor: asyncpg.Pool | asyncpg.Connection, change_id: UUID
) -> ChangeRow | None:
    row = await executor.fetchrow(
        f"SELECT {_CHANGE_COLUMNS} FROM device_changes WHERE change_id = $1", change_id
    )
    return None if row is None else ChangeRow(**dict(row))


async def lock_pending_change(
    connection: asyncpg.Connection, change_id: UUID
) -> DeviceChange | None:
    """The change if it still waits, its row locked until the transaction ends."""
    row = await connection.fetchrow(
        "SELECT change_id, device_id, table_id, kind, credential_hash, proposed_by"
        " FROM device_changes WHERE change_id = $1 AND status = 'pending' FOR UPDATE",
        change_id,
    )
    return None if row is None else DeviceChange(**dict(row))


async def decide_change(
    connection: asyncpg.Connection, change_id: UUID, status: str, by: str, at: datetime
) -> ChangeRow:
    """The change approved or rejected; the proposed credential's hash is dropped."""
    row = await connection.fetchrow(
        "UPDATE device_changes SET status = $2, decided_by = $3, decided_at = $4,"
        f" credential_hash = NULL WHERE change_id = $1 RETURNING {_CHANGE_COLUMNS}",
        change_id,
        status,
        by,
        at,
    )
    assert row is not None
    return ChangeRow(**dict(row))


async def pending_changes(pool: asyncpg.Pool) -> list[ChangeRow]:
    rows = await pool.fetch(
        f"SELECT {_CHANGE_COLUMNS} FROM device_changes WHERE status = 'pending'"
        " ORDER BY proposed_at, change_id"
    )
    return [ChangeRow(**dict(row)) for row in rows]


async def round_dealing(connection: asyncpg.Connection, table_ids: Sequence[str]) -> str | None:
    """A round of one of the tables between its betting closed and its result, as last
    heard (its id), if any."""
    found: str | None = await connection.fetchval(
        "SELECT round_id FROM table_rounds WHERE table_id = ANY($1::text[])"
        " AND in_play AND betting_closed ORDER BY round_id LIMIT 1",
        list(table_ids),
    )
    return found


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
    # the value is shown once the table's verdict shows it (decision 0058)
    rows = await connection.fetch(
        "UPDATE scans SET status = v.status, reason = v.reason, detail = v.detail,"
        " position = v.position, decided_at = v.decided_at, revealed = v.revealed"
        " FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[],"
        " $6::timestamptz[], $7::boolean[])"
        " AS v(scan_id, status, reason, detail, position, decided_at, revealed)"
        " WHERE scans.scan_id = v.scan_id AND scans.status = 'pending'"
        " RETURNING scans.scan_id",
        [verdict.scan_id for verdict, _ in verdicts],
        [verdict.status for verdict, _ in verdicts],
        [verdict.reason for verdict, _ in verdicts],
        [verdict.detail for verdict, _ in verdicts],
        [verdict.position for verdict, _ in verdicts],
        [at for _, at in verdicts],
        [verdict.card is not None for verdict, _ in verdicts],
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
    last_card_revealed: bool
    last_sequence: int
    last_seen_at: datetime | None
    retired_at: datetime | None
    retired_reason: str | None


async def table_devices(pool: asyncpg.Pool, table_id: str) -> list[TableDevice]:
    """The table's devices, the active one first."""
    rows = await pool.fetch(
        "SELECT d.device_id, d.active, d.registered_at, d.last_card,"
        " coalesce(l.revealed, false) AS last_card_revealed, d.last_sequence,"
        " (SELECT max(s.received_at) FROM scans s WHERE s.device_id = d.device_id)"
        " AS last_seen_at, d.retired_at, d.retired_reason"
        " FROM devices d LEFT JOIN scans l ON l.scan_id = d.last_scan_id"
        " WHERE d.table_id = $1 ORDER BY d.active DESC, d.device_id",
        table_id,
    )
    return [TableDevice(**dict(row)) for row in rows]


async def table_scans(pool: asyncpg.Pool, table_id: str, limit: int) -> list[asyncpg.Record]:
    """The table's last `limit` reads, newest first, with their verdicts."""
    rows: list[asyncpg.Record] = await pool.fetch(
        "SELECT scan_id, device_id, raw, card, status, reason, detail, position, sequence,"
        " received_at, decided_at, revealed FROM scans WHERE table_id = $1"
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
# (table_id, round_id, number, what): what is `opened`, `betting_closed` or `ended`
RoundHeard = tuple[str, str, int, str]


async def record_rounds(connection: asyncpg.Connection, rounds: Sequence[RoundHeard]) -> None:
    """Each round event as heard, in order: a round opened replaces an older one; its betting
    closed marks it dealt; its end clears only that round."""
    for table_id, round_id, number, what in rounds:
        if what == "opened":
            await connection.execute(
                "INSERT INTO table_rounds (table_id, round_id, number, in_play)"
                " VALUES ($1, $2, $3, true)"
                " ON CONFLICT (table_id) DO UPDATE SET round_id = EXCLUDED.round_id,"
                "   number = EXCLUDED.number, in_play = true, betting_closed = false"
                " WHERE table_rounds.number < EXCLUDED.number",
                table_id,
                round_id,
                number,
            )
        elif what == "betting_closed":
            await connection.execute(
                "UPDATE table_rounds SET betting_closed = true"
                " WHERE table_id = $1 AND round_id = $2 AND in_play",
                table_id,
                round_id,
            )
        else:  # its number is not needed: it ends only the round of the same id
            await connection.execute(
                "INSERT INTO table_rounds (table_id, round_id, number, in_play)"
                " VALUES ($1, $2, 0, false)"
                " ON CONFLICT (table_id) DO UPDATE SET in_play = false, betting_closed = false"
                " WHERE table_rounds.round_id = EXCLUDED.round_id",
                table_id,
                round_id,
            )
