"""The values of cards read before betting closed (`sealed_cards`): written in the
transaction that records their refusal, read only by people investigating (the table's
database), never by an event, the feed or an HTTP read (docs/decisions/0058)."""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg

from teenpatti.events.catalog import CardRefused, CardScanned


async def seal_cards(
    connection: asyncpg.Connection, sealed: Sequence[tuple[CardScanned, CardRefused]]
) -> None:
    """Keep each scan's card beside its refusal (a redelivered scan is kept once)."""
    if not sealed:
        return
    await connection.executemany(
        "INSERT INTO sealed_cards (scan_id, table_id, round_id, device_id, card, reason,"
        " scanned_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (scan_id) DO NOTHING",
        [
            (
                scan.scan_id,
                refused.table_id,
                refused.round_id,
                scan.device_id,
                scan.card,
                refused.reason,
                scan.scanned_at,
            )
            for scan, refused in sealed
        ],
    )
