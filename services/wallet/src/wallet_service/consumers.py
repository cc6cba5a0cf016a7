"""The wallet's Kafka handlers. Each runs inside the consumer's Postgres transaction (which
also records the event as processed), so its rows and events commit once, together.
Duplicates with a new event id (a republished event) are absorbed by the rows' own state:
a sealed round is not sealed again, a paid bet is not paid again."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import groupby
from typing import cast
from uuid import UUID

import asyncpg

from teenpatti.events import EventEnvelope
from teenpatti.events.catalog import (
    CONSUMED_TYPES,
    BetBookClosed,
    BetSettled,
    BetsPaid,
    BetsSettled,
    BettingClosed,
    RoundCancelled,
    RoundClosed,
    RoundOpened,
    RoundPaused,
    RoundResumed,
    SettledBet,
    registry,
)
from teenpatti.eventsourcing import AsyncpgEventStore, StreamAppend

from .adapters import postgres as db
from .domain import CANCELLED, CLOSED, OPEN, SEALED, UnknownBetError, seal_book

log = logging.getLogger(__name__)

SETTLEMENT_EVENT_TYPES = CONSUMED_TYPES[("wallet", "settlement")]
TABLE_EVENT_TYPES = CONSUMED_TYPES[("wallet", "table")]


class BetMismatchError(ValueError):
    """A BetSettled that does not describe the bet the wallet holds: parked, never paid."""


class WalletConsumers:
    def __init__(
        self, store: AsyncpgEventStore, clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    ) -> None:
        self._store = store
        self._clock = clock

    # ------------------------------------------------------------------ table.events
    async def on_table_event(self, connection: asyncpg.Connection, envelope: EventEnvelope) -> None:
        if envelope.event_type not in TABLE_EVENT_TYPES:
            return
        event = registry.decode_envelope(envelope)
        if isinstance(event, RoundOpened):
            await db.insert_round(
                connection,
                round_id=event.round_id,
                table_id=event.table_id,
                status=OPEN,
                opened_at=event.opened_at,
                betting_closes_at=event.betting_closes_at,
                limits={
                    currency: {bt: limit.model_dump() for bt, limit in by_type.items()}
                    for currency, by_type in event.limits.items()
                },
            )
        elif isinstance(event, BettingClosed):
            await self._seal(connection, envelope, event.round_id, event.table_id, event.closed_at)
        elif isinstance(event, RoundCancelled):
            status = await self._seal(
                connection, envelope, event.round_id, event.table_id, envelope.occurred_at
            )
            if status in (OPEN, SEALED):
                await db.update_round(
                    connection, event.round_id, status=CANCELLED, cancel_reason=event.reason
                )
        elif isinstance(event, RoundClosed):
            status = await self._seal(
                connection, envelope, event.round_id, event.table_id, envelope.occurred_at
            )
            await db.update_round(
                connection,
                event.round_id,
                status=CANCELLED if status == CANCELLED else CLOSED,
                cards=list(event.cards),
                winner=event.winner,
                player_a_hand=event.player_a_hand,
                player_b_hand=event.player_b_hand,
                six_card_bonus_hand=event.six_card_bonus_hand,
            )
        elif isinstance(event, RoundPaused):
            await db.update_round(connection, event.round_id, paused=True)
        elif isinstance(event, RoundResumed):
            if event.betting_closes_at is not None:
                await db.update_round(
                    connection,
                    event.round_id,
                    paused=False,
                    betting_closes_at=event.betting_closes_at,
                )
            else:
                await db.update_round(connection, event.round_id, paused=False)

    async def _seal(
        self,
        connection: asyncpg.Connection,
        envelope: EventEnvelope,
        round_id: str,
        table_id: str,
        at: datetime,
    ) -> str:
        """Seal the round's book if still open; the round's status before this event.

        The round row is locked FOR UPDATE: this waits for every slip holding it FOR SHARE to
        commit, and the book read afterwards (a new snapshot) holds all of them."""
        status = await db.round_status_for_update(connection, round_id)
        if status is None:
            # RoundOpened never reached the wallet, so no bet can exist: seal an empty book
            # so that settlement is not left waiting for it
            log.warning("sealing round %s that the wallet never saw open", round_id)
            await db.insert_round(
                connection,
                round_id=round_id,
                table_id=table_id,
                status=OPEN,
                opened_at=None,
                betting_closes_at=at,
                limits={},
            )
            status = await db.round_status_for_update(connection, round_id)
        if status != OPEN:
            return status or OPEN
        # the wallet's clock once it holds the lock: after every bet of the book was placed
        sealed_at = self._clock()
        seal = seal_book(await db.round_book(connection, round_id))
        await db.mark_sealed(connection, round_id, seal, sealed_at)
        await self._store.append(
            db.book_stream(round_id),
            0,
            [
                BetBookClosed(
                    round_id=round_id,
                    table_id=table_id,
                    bet_count=seal.bet_count,
                    total_stake=seal.total_stake,
                    digest=seal.digest,
                )
            ],
            table_id=table_id,
            correlation_id=envelope.correlation_id,
            causation_id=envelope.event_id,
            connection=connection,
        )
        return OPEN

    # ------------------------------------------------------------- settlement.events
    async def on_settlement_event(
        self, connection: asyncpg.Connection, envelope: EventEnvelope
    ) -> None:
        await self.on_settlement_events(connection, [envelope])

    async def on_settlement_events(
        self, connection: asyncpg.Connection, envelopes: list[EventEnvelope]
    ) -> None:
        """Pay the bets that a batch of settlement events settles, in its one transaction:
        the bets locked and checked together, each player locked once, balances, ledger and
        bets written with one statement each, and one `BetsPaid` per player and settlement
        event appended together. A `BetsSettled` (a part of a round) is paid whole or not at
        all: one bet in it that the wallet does not hold as told fails the batch, and the part
        is parked."""
        settled: list[Settled] = []
        for index, envelope in enumerate(envelopes):
            if envelope.event_type in SETTLEMENT_EVENT_TYPES:
                event = registry.decode_envelope(envelope)
                if isinstance(event, BetsSettled):
                    # the lines as they are: a BetSettled model for each costs more than paying
                    settled += [
                        Settled(envelope, index, event.round_id, event.table_id, line)
                        for line in event.bets
                    ]
                else:
                    assert isinstance(event, BetSettled)
                    settled.append(Settled(envelope, index, event.round_id, event.table_id, event))
        if not settled:
            return
        bets = await db.bets_for_payment(connection, [s.line.bet_id for s in settled])
        payments: list[tuple[Settled, asyncpg.Record]] = []
        paying: set[UUID] = set()
        for settlement in settled:
            bet_id = settlement.line.bet_id
            bet = bets.get(bet_id)
            if _payable(bet, settlement) and bet_id not in paying:
                assert bet is not None
                paying.add(bet_id)
                payments.append((settlement, bet))
        if not payments:
            return
        versions = await db.lock_players(
            connection, [(bet["operator_id"], bet["player_id"]) for _, bet in payments]
        )
        credits: dict[tuple[str, str, str], int] = defaultdict(int)
        for settlement, bet in payments:
            line = settlement.line
            credits[(bet["operator_id"], bet["player_id"], line.currency)] += line.returned
        balances = await db.credit_balances(connection, credits)
        running = {key: balances[key] - credits[key] for key in credits}
        # One BetsPaid per player and settlement event, its lines in the event's order; the
        # balances run in the order the settlements came (a player's lines of one event are
        # contiguous in it, as `payments` keeps that order).
        # a group: a player's lines of one settlement event, keyed by the event's place in the
        # batch (an int hashes faster than its id)
        groups: dict[tuple[str, str, int], list[dict[str, object]]] = defaultdict(list)
        causes: dict[int, Settled] = {}
        for settlement, bet in payments:
            line = settlement.line
            key = (bet["operator_id"], bet["player_id"], line.currency)
            running[key] += line.returned
            causes.setdefault(settlement.place, settlement)
            groups[(key[0], key[1], settlement.place)].append(
                {
                    "bet_id": line.bet_id,
                    "currency": line.currency,
                    "amount": line.returned,
                    "outcome": line.outcome,
                    "balance_after": running[key],
                }
            )
        paid: dict[tuple[str, str], list[tuple[EventEnvelope, BetsPaid]]] = defaultdict(list)
        for (operator_id, player_id, place), bets_paid in groups.items():
            settlement = causes[place]
            paid[(operator_id, player_id)].append(
                (
                    settlement.envelope,
                    BetsPaid.model_validate(
                        {
                            "round_id": settlement.round_id,
                            "table_id": settlement.table_id,
                            "operator_id": operator_id,
                            "player_id": player_id,
                            "bets": bets_paid,
                        }
                    ),
                )
            )
        await db.record_ledger(connection, _return_entries(groups, causes))
        await db.mark_paid_many(
            connection,
            [(s.line.bet_id, s.line.outcome, s.line.returned) for s, _ in payments],
            self._clock(),
        )
        # Each player's events go in runs with the same table and correlation (an append takes
        # one of each), in the order the balances ran; the next run of every player is
        # appended in one statement.
        runs = {
            player: [
                list(run)
                for _, run in groupby(
                    events, key=lambda item: (item[1].table_id, item[0].correlation_id)
                )
            ]
            for player, events in paid.items()
        }
        while runs:
            appends = []
            for (operator_id, player_id), pending in list(runs.items()):
                items = pending.pop(0)
                appends.append(
                    StreamAppend(
                        db.player_stream(operator_id, player_id),
                        versions[(operator_id, player_id)],
                        [bets_paid for _, bets_paid in items],
                        table_id=items[0][1].table_id,
                        correlation_id=items[0][0].correlation_id,
                        causation_ids=[envelope.event_id for envelope, _ in items],
                    )
                )
                versions[(operator_id, player_id)] += len(items)
                if not pending:
                    del runs[(operator_id, player_id)]
            await self._store.append_many(appends, connection=connection)


@dataclass(frozen=True, slots=True)
class Settled:
    """One bet's settlement as a batch pays it: the line (of a `BetsSettled` part, or an
    older `BetSettled`), the round it is of and the event that brought it."""

    envelope: EventEnvelope
    place: int  # the event's place in the batch
    round_id: str
    table_id: str
    line: SettledBet | BetSettled


def _payable(bet: asyncpg.Record | None, settlement: Settled) -> bool:
    """Whether the wallet pays this settlement: not when the bet is paid already (a
    republished settlement); an unknown bet, or one it does not describe (paid or not: a
    forgery is parked for a person to see), is an error."""
    line, envelope = settlement.line, settlement.envelope
    if bet is None:
        raise UnknownBetError(
            f"{envelope.event_type} for bet {line.bet_id}, which the wallet never took"
        )
    expected = (
        bet["operator_id"],
        bet["player_id"],
        bet["round_id"],
        bet["bet_type"],
        bet["currency"],
        int(bet["stake"]),
    )
    told = (
        line.operator_id,
        line.player_id,
        settlement.round_id,
        line.bet_type,
        line.currency,
        line.stake,
    )
    if expected != told:
        raise BetMismatchError(
            f"{envelope.event_type} for bet {line.bet_id} says {told}, the bet is {expected}"
        )
    if bet["status"] == "paid":
        log.info(
            "bet %s is already paid; %s %s ignored",
            line.bet_id,
            envelope.event_type,
            envelope.event_id,
        )
        return False
    return True


def _return_entries(
    groups: dict[tuple[str, str, int], list[dict[str, object]]], causes: dict[int, Settled]
) -> list[db.LedgerEntry]:
    """The ledger's two sides of a batch's payments (each group a player's lines of one
    settlement event), per settlement event: out of the house, one entry per operator and
    currency; into each player's account, one per currency. Each names the event as
    `settlement:<event id>`, which is also the cause of the player's `BetsPaid` that lists
    the bets. Zero amounts are left out by `record_ledger`."""
    house: dict[tuple[int, str, str], int] = defaultdict(int)
    player: dict[tuple[int, str, str, str], int] = defaultdict(int)
    for (operator_id, player_id, place), lines in groups.items():
        for line in lines:
            amount = cast(int, line["amount"])
            currency = cast(str, line["currency"])
            house[(place, operator_id, currency)] += amount
            player[(place, operator_id, player_id, currency)] += amount

    def reference(place: int) -> str:
        return f"settlement:{causes[place].envelope.event_id}"

    return [
        db.LedgerEntry("house", operator_id, None, currency, -amount, "return", reference(place))
        for (place, operator_id, currency), amount in house.items()
    ] + [
        db.LedgerEntry(
            "player", operator_id, player_id, currency, amount, "return", reference(place)
        )
        for (place, operator_id, player_id, currency), amount in player.items()
    ]
