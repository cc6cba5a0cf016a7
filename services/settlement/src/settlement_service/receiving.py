"""The facts settlement receives, recorded in its projection: each round's pay table
(`RoundOpened`), result (`RoundClosed`), cancellation (`RoundCancelled`) and void after its
result (`RoundVoided`) from the table; its bets (`BetsPlaced`) and sealed book
(`BetBookClosed`) from the wallet.

Each is a subscription handler (`app.py`): it takes a run of events of its type, in order, as
the kernel hands them, inside the consumer's Postgres transaction (the one that also records
the events as processed), and locks each event's round row before applying it: so a round's
events are applied one at a time across consumers and instances. Each fact then settles its
round if that makes it ready, in the same transaction (`settling.py`).

An identical repeat of a fact (a redelivery under a new event id) changes nothing. A second,
different version of a fact (another book, result, pay table or bet under the same id) is
recorded as a `conflicting_*` problem: the first version stays on record and the round is
held, unsettled (`holding.py`), until two supervisors release it (settled on the facts on
record) or void it (every stake refunded) from the API (`resolving.py`,
docs/decisions/0060-two-supervisors-resolve-a-held-settlement.md).

A round voided after its result (`RoundVoided`) has its settlement reversed at once if it is
settled, else once it is (`reversing.py`).
"""

from __future__ import annotations

import logging
from typing import Any

import asyncpg

from teenpatti.events import EventEnvelope
from teenpatti.events.catalog import (
    BetBookClosed,
    BetsPlaced,
    PlacedLine,
    RoundCancelled,
    RoundClosed,
    RoundOpened,
    RoundVoided,
)
from teenpatti.kernel import Received

from .adapters.postgres import SettlementProjection
from .domain import PlacedBet, SealedBook, void_reason
from .holding import VOIDED_OTHER_RESULT, hold, show_voided_waits
from .settling import Settling

log = logging.getLogger(__name__)


class Receiving:
    """A handler per fact received, each settling the rounds it makes ready through one
    `Settling`."""

    def __init__(self, settling: Settling) -> None:
        self._settling = settling

    async def round_opened(
        self, connection: asyncpg.Connection, received: list[Received[RoundOpened]]
    ) -> None:
        """Each round's pay table."""
        projection = SettlementProjection(connection)
        for one in received:
            event = one.event
            round_ = await projection.lock_round(event.round_id, event.table_id)
            paytable = event.model_dump(mode="json")["paytable"]
            if round_.paytable is None:
                await projection.set_paytable(event.round_id, paytable, event.opened_at)
                if round_.paytable_source == "published_fallback":
                    # Only if RoundOpened came after the round's end, against the table's own
                    # order: the round was paid by the published table; a person must compare.
                    await hold(
                        projection,
                        event.round_id,
                        "paytable_after_settlement",
                        "RoundOpened arrived after the round was settled with the published table",
                    )
            elif round_.paytable != paytable:
                await hold(
                    projection,
                    event.round_id,
                    "conflicting_paytable",
                    "a second RoundOpened with another pay table",
                )
            await self._settling.settle_if_ready(
                projection, event.round_id, event.table_id, one.envelope
            )

    async def round_closed(
        self, connection: asyncpg.Connection, received: list[Received[RoundClosed]]
    ) -> None:
        """Each round's result."""
        projection = SettlementProjection(connection)
        for one in received:
            event = one.event
            round_ = await projection.lock_round(event.round_id, event.table_id)
            result = event.model_dump(mode="json")
            if round_.cancelled:
                await hold(
                    projection,
                    event.round_id,
                    "conflicting_outcome",
                    "RoundClosed for a round already cancelled",
                )
            elif round_.result is None:
                await projection.set_result(event.round_id, result)
            elif round_.result != result:
                await hold(
                    projection,
                    event.round_id,
                    "conflicting_result",
                    f"a second RoundClosed with other cards {event.cards}",
                )
            await self._settling.settle_if_ready(
                projection, event.round_id, event.table_id, one.envelope
            )

    async def round_cancelled(
        self, connection: asyncpg.Connection, received: list[Received[RoundCancelled]]
    ) -> None:
        """Each round's cancellation: its bets are settled as returned."""
        projection = SettlementProjection(connection)
        for one in received:
            event = one.event
            round_ = await projection.lock_round(event.round_id, event.table_id)
            if round_.result is not None:
                await hold(
                    projection,
                    event.round_id,
                    "conflicting_outcome",
                    "RoundCancelled for a round already closed with a result",
                )
            elif not round_.cancelled:
                await projection.set_cancelled(event.round_id, event.reason)
            await self._settling.settle_if_ready(
                projection, event.round_id, event.table_id, one.envelope
            )

    async def round_voided(
        self, connection: asyncpg.Connection, received: list[Received[RoundVoided]]
    ) -> None:
        """Each round voided after its result: its settlement reversed at once if it is
        settled, else once it is; the first void stands, a repeat changes nothing."""
        projection = SettlementProjection(connection)
        for one in received:
            event = one.event
            round_ = await projection.lock_round(event.round_id, event.table_id)
            reason = void_reason(event.reason, event.requested_by, event.actor)
            if round_.voided:
                if round_.void_reason != reason:
                    log.warning("round %s: a second void ignored: %s", event.round_id, reason)
                continue
            log.warning("round %s voided after its result: %s", event.round_id, reason)
            await projection.set_voided(event.round_id, reason, one.envelope.occurred_at)
            voided = _voided_result(event)
            if round_.result is None and not round_.cancelled:
                # its RoundClosed never came (lost, or parked): the void carries the result
                await projection.set_result(event.round_id, voided)
            elif round_.result != voided:
                await projection.record_problem(
                    event.round_id,
                    VOIDED_OTHER_RESULT,
                    f"RoundVoided voids cards {event.cards}, settlement holds"
                    f" {'a cancellation' if round_.result is None else round_.result['cards']};"
                    " the settlement is reversed as it was stated",
                )
            if round_.settled:
                await self._settling.reverse(projection, event.round_id, one.envelope)
            else:
                await self._settling.settle_if_ready(
                    projection, event.round_id, event.table_id, one.envelope
                )
                await show_voided_waits(projection, event.round_id)

    async def bets_placed(
        self, connection: asyncpg.Connection, received: list[Received[BetsPlaced]]
    ) -> None:
        """A run of slips, their bets in order, with a few statements for all: while a
        round's book is open (every bet during betting) a bet only has to be recorded, since
        no settlement can be ready before the book is sealed. The rest (a bet held already,
        or one for a round with a book or settled) goes through `_bet_placed` one by one.
        The slips are recorded as they came, validated: no bet of theirs is built whole
        (`PlacedLine`) unless it goes the long way."""
        projection = SettlementProjection(connection)
        rounds = await projection.lock_rounds(
            {one.event.round_id: one.event.table_id for one in received}
        )

        def book_open(slip: BetsPlaced) -> bool:
            round_ = rounds[slip.round_id]
            return round_.book is None and not round_.settled

        new = await projection.add_slips([one.event for one in received if book_open(one.event)])
        for one in received:
            slip, open_ = one.event, book_open(one.event)
            lines: list[PlacedLine] | None = None
            for index, bet in enumerate(slip.bets):
                if open_ and bet.bet_id in new:
                    new.discard(bet.bet_id)  # recorded; a later copy in this batch is not new
                    continue
                if lines is None:
                    lines = slip.each()
                await self._bet_placed(projection, lines[index], one.envelope)

    async def _bet_placed(
        self, projection: SettlementProjection, placed: PlacedLine, cause: EventEnvelope
    ) -> None:
        """One bet of a slip."""
        round_ = await projection.lock_round(placed.round_id, placed.table_id)
        bet = _placed(placed)
        held = await projection.add_bet(bet, placed.slip_id, late=round_.decided)
        if held is not None:
            # The same bet again (a redelivery under a new event id): nothing to do, unless
            # it says something else, which only a person can sort out.
            if _essentials(held) != _essentials(bet):
                await hold(
                    projection,
                    placed.round_id,
                    f"conflicting_bet:{placed.bet_id}",
                    f"bet {placed.bet_id} placed again with other values",
                )
            return
        if round_.decided:
            await hold(
                projection,
                placed.round_id,
                f"bet_after_settlement:{placed.bet_id}",
                f"bet {placed.bet_id} placed after the round was settled; not settled",
            )
            return
        await self._settling.settle_if_ready(projection, placed.round_id, placed.table_id, cause)

    async def book_closed(
        self, connection: asyncpg.Connection, received: list[Received[BetBookClosed]]
    ) -> None:
        """Each round's sealed bet book."""
        projection = SettlementProjection(connection)
        for one in received:
            event = one.event
            round_ = await projection.lock_round(event.round_id, event.table_id)
            book = SealedBook(event.bet_count, event.digest, dict(event.total_stake))
            if round_.book is None:
                await projection.set_book(event.round_id, book)
            elif round_.book != book:
                await hold(
                    projection,
                    event.round_id,
                    "conflicting_book",
                    f"a second BetBookClosed with {event.bet_count} bets, digest {event.digest}",
                )
            await self._settling.settle_if_ready(
                projection, event.round_id, event.table_id, one.envelope
            )


def _voided_result(voided: RoundVoided) -> dict[str, Any]:
    """The result a void carries, as its RoundClosed is recorded (`rounds.result`)."""
    closed = RoundClosed(
        round_id=voided.round_id,
        table_id=voided.table_id,
        cards=voided.cards,
        player_a_hand=voided.player_a_hand,
        player_b_hand=voided.player_b_hand,
        winner=voided.winner,
        six_card_bonus_hand=voided.six_card_bonus_hand,
    )
    return closed.model_dump(mode="json")


def _essentials(bet: PlacedBet) -> tuple[object, ...]:
    return (
        bet.round_id,
        bet.operator_id,
        bet.player_id,
        bet.bet_type,
        bet.stake,
        bet.currency,
    )


def _placed(line: PlacedLine) -> PlacedBet:
    return PlacedBet(
        bet_id=line.bet_id,
        round_id=line.round_id,
        table_id=line.table_id,
        operator_id=line.operator_id,
        player_id=line.player_id,
        bet_type=line.bet_type,
        stake=line.stake,
        currency=line.currency,
        placed_at=line.placed_at,
    )
