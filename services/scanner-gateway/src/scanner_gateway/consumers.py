"""The `verdicts` consumer of `table.events`: the table's verdict on each scan, kept in the
`scans` table and announced through Redis to whichever instance holds the device's request.
"""

from __future__ import annotations

from datetime import datetime

import asyncpg

from scanner_gateway.adapters import postgres as db
from scanner_gateway.adapters.verdicts import VerdictBroker
from scanner_gateway.domain import ScanAnswer, verdict_of
from teenpatti.events import EventEnvelope
from teenpatti.events.catalog import CardDealt, CardRefused, registry
from teenpatti.eventsourcing import BatchHandler

VERDICT_EVENTS = frozenset({CardDealt.event_type, CardRefused.event_type})


def verdict_recorder(broker: VerdictBroker) -> BatchHandler:
    """A poll's verdicts: recorded in one statement, then announced in one Redis round trip.
    Both happen before the commit, so a waiter may hear a verdict first; it is the same
    verdict the commit makes durable, and a redelivery after a failed commit announces it
    again (which changes nothing: the same verdicts)."""

    async def record(connection: asyncpg.Connection, envelopes: list[EventEnvelope]) -> None:
        verdicts: list[tuple[ScanAnswer, datetime]] = []
        for envelope in envelopes:
            if envelope.event_type in VERDICT_EVENTS:
                event = registry.decode_envelope(envelope)
                assert isinstance(event, CardDealt | CardRefused)
                verdicts.append((verdict_of(event), envelope.occurred_at))
        decided = await db.record_verdicts(connection, verdicts)
        await broker.announce_all([v for v, _ in verdicts if v.scan_id in decided])

    return record
