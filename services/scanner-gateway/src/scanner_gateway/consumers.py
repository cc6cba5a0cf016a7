"""The gateway's subscription to `table.events`: the table's verdict on each scan, kept in
the `scans` table and announced through Redis to whichever instance holds the device's
request."""

from __future__ import annotations

from datetime import datetime

import asyncpg

from scanner_gateway.adapters import postgres as db
from scanner_gateway.adapters.verdicts import VerdictBroker
from scanner_gateway.domain import ScanAnswer, verdict_of
from teenpatti.events.catalog import CardDealt, CardRefused
from teenpatti.eventsourcing import AfterCommit
from teenpatti.kernel import Received


class VerdictRecorder:
    """A run of verdicts (`CardDealt`, `CardRefused`): recorded in one statement, then, once
    that has committed, announced in one Redis round trip. A device told its card was
    refused may read it again at once, and the read must find the refusal in Postgres (a
    refused card read again is passed on, not absorbed as a bounce). A lost announcement is
    not retried: waiters fall back to Postgres when none comes."""

    def __init__(self, broker: VerdictBroker) -> None:
        self._broker = broker

    async def __call__(
        self, connection: asyncpg.Connection, verdicts: list[Received[CardDealt | CardRefused]]
    ) -> AfterCommit | None:
        answers: list[tuple[ScanAnswer, datetime]] = [
            (verdict_of(received.event), received.envelope.occurred_at) for received in verdicts
        ]
        decided = await db.record_verdicts(connection, answers)
        announced = [answer for answer, _ in answers if answer.scan_id in decided]
        if not announced:
            return None

        async def announce() -> None:
            await self._broker.announce_all(announced)

        return announce
