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
from teenpatti.eventsourcing import AfterCommit, BatchHandler

VERDICT_EVENTS = frozenset({CardDealt.event_type, CardRefused.event_type})


def verdict_recorder(broker: VerdictBroker) -> BatchHandler:
    """A poll's verdicts: recorded in one statement, then, once that has committed, announced
    in one Redis round trip. A device told its card was refused may read it again at once,
    and the read must find the refusal in Postgres (a refused card read again is passed on,
    not absorbed as a bounce). A lost announcement is not retried: waiters fall back to
    Postgres when none comes."""

    async def record(
        connection: asyncpg.Connection, envelopes: list[EventEnvelope]
    ) -> AfterCommit | None:
        verdicts: list[tuple[ScanAnswer, datetime]] = []
        for envelope in envelopes:
            if envelope.event_type in VERDICT_EVENTS:
                event = registry.decode_envelope(envelope)
                assert isinstance(event, CardDealt | CardRefused)
                verdicts.append((verdict_of(event), envelope.occurred_at))
        decided = await db.record_verdicts(connection, verdicts)
        announced = [v for v, _ in verdicts if v.scan_id in decided]
        if not announced:
            return None

        async def announce() -> None:
            await broker.announce_all(announced)

        return announce

    return record
