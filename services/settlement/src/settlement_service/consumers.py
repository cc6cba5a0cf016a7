"""Kafka event handlers: `settlement-table` on table.events, `settlement-wallet` on
wallet.events. Each runs in the consumer's transaction; other event types are ignored."""

from __future__ import annotations

import asyncpg

from teenpatti.events import EventEnvelope
from teenpatti.events.catalog import (
    CONSUMED_TYPES,
    BetBookClosed,
    BetPlaced,
    BetsPlaced,
    RoundCancelled,
    RoundClosed,
    RoundOpened,
    registry,
)
from teenpatti.eventsourcing import BatchHandler, Handler

from .handlers import Settlement

TABLE_EVENT_TYPES = CONSUMED_TYPES[("settlement", "table")]
WALLET_EVENT_TYPES = CONSUMED_TYPES[("settlement", "wallet")]


def table_events_handler(settlement: Settlement) -> Handler:
    async def handle(connection: asyncpg.Connection, envelope: EventEnvelope) -> None:
        if envelope.event_type not in TABLE_EVENT_TYPES:
            return
        event = registry.decode_envelope(envelope)
        if isinstance(event, RoundOpened):
            await settlement.round_opened(connection, event, envelope)
        elif isinstance(event, RoundClosed):
            await settlement.round_closed(connection, event, envelope)
        elif isinstance(event, RoundCancelled):
            await settlement.round_cancelled(connection, event, envelope)

    return handle


def wallet_events_handler(settlement: Settlement) -> Handler:
    async def handle(connection: asyncpg.Connection, envelope: EventEnvelope) -> None:
        if envelope.event_type not in WALLET_EVENT_TYPES:
            return
        event = registry.decode_envelope(envelope)
        if isinstance(event, BetsPlaced):
            await settlement.bets_placed(connection, [(bet, envelope) for bet in event.each()])
        elif isinstance(event, BetPlaced):
            await settlement.bet_placed(connection, event, envelope)
        elif isinstance(event, BetBookClosed):
            await settlement.book_closed(connection, event, envelope)

    return handle


def wallet_events_batch_handler(settlement: Settlement) -> BatchHandler:
    """`wallet_events_handler` for a poll in its one transaction, in order, each run of
    slips (`BetsPlaced`, and `BetPlaced` of older history) recorded together
    (`Settlement.bets_placed`)."""
    one = wallet_events_handler(settlement)

    async def handle(connection: asyncpg.Connection, envelopes: list[EventEnvelope]) -> None:
        run: list[tuple[BetPlaced, EventEnvelope]] = []
        for envelope in envelopes:
            if envelope.event_type in ("BetsPlaced", "BetPlaced"):
                event = registry.decode_envelope(envelope)
                if isinstance(event, BetsPlaced):
                    run += [(bet, envelope) for bet in event.each()]
                else:
                    assert isinstance(event, BetPlaced)
                    run.append((event, envelope))
                continue
            if run:
                await settlement.bets_placed(connection, run)
                run = []
            await one(connection, envelope)
        if run:
            await settlement.bets_placed(connection, run)

    return handle
