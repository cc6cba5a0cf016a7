"""The `scanner_devices` projection: the gateway's devices as heard on `scanner.events`
(`DeviceRegistered`, `DeviceCredentialRotated`, `DeviceRevoked`), and each one's last
sequence number, read and written inside the scan consumer's transaction."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import asyncpg

from teenpatti.events.catalog import DeviceCredentialRotated, DeviceRegistered, DeviceRevoked

from ..domain.scanners import Scanner

DeviceEvent = DeviceRegistered | DeviceCredentialRotated | DeviceRevoked


async def apply_device_events(
    connection: asyncpg.Connection, events: Sequence[tuple[DeviceEvent, int]]
) -> None:
    """Each `(event, its version in the device's stream)`, in order; one older than what
    was applied for the device already is skipped."""
    for event, version in events:
        if isinstance(event, DeviceRegistered):
            # the table's one active device (the gateway retires the other one first; this
            # keeps it so should that retirement be heard late)
            await connection.execute(
                "UPDATE scanner_devices SET active = false, updated_at = now()"
                " WHERE table_id = $1 AND active AND device_id <> $2",
                event.table_id,
                event.device_id,
            )
        active = not isinstance(event, DeviceRevoked)
        # a registration or rotation starts the sequence again; a revocation keeps it
        await connection.execute(
            "INSERT INTO scanner_devices (device_id, table_id, active, device_version)"
            " VALUES ($1, $2, $3, $4)"
            " ON CONFLICT (device_id) DO UPDATE SET"
            "   table_id = CASE WHEN $3 THEN EXCLUDED.table_id ELSE scanner_devices.table_id END,"
            "   active = CASE WHEN $3 THEN true"
            "     ELSE scanner_devices.active AND scanner_devices.table_id <> EXCLUDED.table_id"
            "   END,"
            "   last_sequence = CASE WHEN $3 THEN 0 ELSE scanner_devices.last_sequence END,"
            "   device_version = EXCLUDED.device_version, updated_at = now()"
            " WHERE scanner_devices.device_version < EXCLUDED.device_version",
            event.device_id,
            event.table_id,
            active,
            version,
        )


async def load_scanners(
    connection: asyncpg.Connection, device_ids: Iterable[str]
) -> dict[str, Scanner]:
    rows = await connection.fetch(
        "SELECT device_id, table_id, active, last_sequence FROM scanner_devices"
        " WHERE device_id = ANY($1::text[])",
        list(set(device_ids)),
    )
    return {
        row["device_id"]: Scanner(
            row["device_id"], row["table_id"], row["active"], row["last_sequence"]
        )
        for row in rows
    }


async def save_sequences(connection: asyncpg.Connection, scanners: Iterable[Scanner]) -> None:
    """The devices' last sequence numbers, in one statement."""
    changed = list(scanners)
    if not changed:
        return
    await connection.execute(
        "UPDATE scanner_devices SET last_sequence = v.last_sequence, updated_at = now()"
        " FROM unnest($1::text[], $2::bigint[]) AS v(device_id, last_sequence)"
        " WHERE scanner_devices.device_id = v.device_id",
        [scanner.device_id for scanner in changed],
        [scanner.last_sequence for scanner in changed],
    )
