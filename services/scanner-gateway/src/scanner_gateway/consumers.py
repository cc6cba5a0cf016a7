"""The `verdicts` consumer of `table.events`: the table's verdict on each scan, kept in the
`scans` table and announced through Redis to whichever instance holds the device's request.
"""

from __future__ import annotations

import asyncpg

from scanner_gateway.adapters import postgres as db
from scanner_gateway.adapters.verdicts import VerdictBroker
from scanner_gateway.domain import verdict_of
from teenpatti.events import EventEnvelope
from teenpatti.events.catalog import CardDealt, CardRefused, registry
from teenpatti.eventsourcing import Handler

VERDICT_EVENTS = frozenset({CardDealt.event_type, CardRefused.event_type})


def verdict_recorder(broker: VerdictBroker) -> Handler:
    async def record(connection: asyncpg.Connection, envelope: EventEnvelope) -> None:
        if envelope.event_type not in VERDICT_EVENTS:
            return
        event = registry.decode_envelope(envelope)
        assert isinstance(event, CardDealt | CardRefused)
        verdict = verdict_of(event)
        if await db.record_verdict(connection, verdict, at=envelope.occurred_at):
            # before the commit, so a waiter may hear it first; it is the same verdict the
            # commit makes durable, and a redelivery after a failed commit announces it again
            await broker.announce(verdict)

    return record
