"""The gateway's subscriptions to `table.events`: the table's verdict on each scan, kept in
the `scans` table and announced through Redis to whichever instance holds the device's
request; and each table's round in play, stamped on the scans passed on, and whether it is
being dealt (no device change applies then)."""

from __future__ import annotations

from datetime import datetime

import asyncpg

from scanner_gateway.adapters import postgres as db
from scanner_gateway.adapters.verdicts import VerdictBroker
from scanner_gateway.domain import ScanAnswer, verdict_of
from teenpatti.events.catalog import (
    BettingClosed,
    CardDealt,
    CardRefused,
    RoundCancelled,
    RoundClosed,
    RoundOpened,
)
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


class RoundTracker:
    """A run of round events: each table's round in play as the table announced it, so
    that a read is stamped with the round it was made in (the table refuses it for any
    other: decision 0055), and whether its betting has closed (a device change waits for
    its result: decision 0085)."""

    async def __call__(
        self,
        connection: asyncpg.Connection,
        received: list[Received[RoundOpened | BettingClosed | RoundClosed | RoundCancelled]],
    ) -> None:
        rounds: list[db.RoundHeard] = []
        for one in received:
            event = one.event
            if isinstance(event, RoundOpened):
                rounds.append((event.table_id, event.round_id, event.number, "opened"))
            elif isinstance(event, BettingClosed):
                rounds.append((event.table_id, event.round_id, 0, "betting_closed"))
            else:
                rounds.append((event.table_id, event.round_id, 0, "ended"))
        await db.record_rounds(connection, rounds)
