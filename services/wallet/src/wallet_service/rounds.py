"""The wallet's rounds, as the table and settlement state them: each round opened, paused and
resumed, its book sealed when its betting closes (`BetBookClosed`, decision 0036), its result
or cancellation, its dealt cards, and its void, after its result by the table or at
settlement by two supervisors. The payment (`payment.py`) and the corrections
(`corrections.py`) check what settlement says against these rows.

Each handler runs inside the consumer's Postgres transaction (which also records the events
as processed), so its rows and events commit once, together. Duplicates with a new event id
(a republished event) are absorbed by the rows' own state: a sealed round is not sealed
again, the first result stands."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime

import asyncpg

from teenpatti.events import EventEnvelope
from teenpatti.events.catalog import (
    BetBookClosed,
    BettingClosed,
    CardDealt,
    CardsWithdrawn,
    RoundCancelled,
    RoundClosed,
    RoundOpened,
    RoundPaused,
    RoundResumed,
    RoundVoided,
    SettlementResolved,
)
from teenpatti.eventsourcing import AsyncpgEventStore
from teenpatti.kernel import Received

from .adapters import corrections as corrections_db
from .adapters import postgres as db
from .domain.betting import CANCELLED, CLOSED, OPEN, SEALED, seal_book

log = logging.getLogger(__name__)


class RoundRecorder:
    """A handler per fact about a round, each taking a batch of its events in the order they
    came."""

    def __init__(
        self, store: AsyncpgEventStore, clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    ) -> None:
        self._store = store
        self._clock = clock

    # ------------------------------------------------------------------ table.events
    async def round_opened(
        self, connection: asyncpg.Connection, received: list[Received[RoundOpened]]
    ) -> None:
        """Each round opened: its row, open for slips, with its limits and pay table."""
        for event in (r.event for r in received):
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
                paytable=event.model_dump(mode="json")["paytable"],
            )

    async def betting_closed(
        self, connection: asyncpg.Connection, received: list[Received[BettingClosed]]
    ) -> None:
        """Each round's betting closed: its book sealed (`BetBookClosed`, decision 0036)."""
        for r in received:
            event, envelope = r.event, r.envelope
            await self._seal(connection, envelope, event.round_id, event.table_id, event.closed_at)

    async def round_cancelled(
        self, connection: asyncpg.Connection, received: list[Received[RoundCancelled]]
    ) -> None:
        """Each round cancelled: its book sealed if still open, the round marked cancelled
        with its reason."""
        for r in received:
            event, envelope = r.event, r.envelope
            status = await self._seal(
                connection, envelope, event.round_id, event.table_id, envelope.occurred_at
            )
            if status in (OPEN, SEALED):
                await db.update_round(
                    connection,
                    event.round_id,
                    status=CANCELLED,
                    cancel_reason=event.reason,
                    ended_at=envelope.occurred_at,
                )

    async def round_closed(
        self, connection: asyncpg.Connection, received: list[Received[RoundClosed]]
    ) -> None:
        """Each round's result: its book sealed if still open (a round closed before its
        betting closed), its cards, winner and hands on the row; the first result stands."""
        for r in received:
            event, envelope = r.event, r.envelope
            status = await self._seal(
                connection, envelope, event.round_id, event.table_id, envelope.occurred_at
            )
            if status == CLOSED:
                # the first result stands, as in settlement (which holds the round on a
                # second, other one): the wallet pays by the same cards it settles by
                log.warning("round %s: RoundClosed again; the first stands", event.round_id)
                continue
            await db.update_round(
                connection,
                event.round_id,
                status=CANCELLED if status == CANCELLED else CLOSED,
                cards=list(event.cards),
                winner=event.winner,
                player_a_hand=event.player_a_hand,
                player_b_hand=event.player_b_hand,
                six_card_bonus_hand=event.six_card_bonus_hand,
                closed_at=envelope.occurred_at,
                ended_at=envelope.occurred_at,
            )

    async def card_dealt(
        self, connection: asyncpg.Connection, received: list[Received[CardDealt]]
    ) -> None:
        """Each card as dealt: a round cancelled before its sixth shows the cards it had in a
        player's last games (RoundClosed brings all six otherwise)."""
        await db.record_dealt(
            connection, [(r.event.round_id, r.event.position, r.event.card) for r in received]
        )

    async def cards_withdrawn(
        self, connection: asyncpg.Connection, received: list[Received[CardsWithdrawn]]
    ) -> None:
        """Cards taken back by two supervisors: dealt again, so out of the round's cards."""
        for event in (r.event for r in received):
            await db.withdraw_dealt(connection, event.round_id, event.positions)

    async def round_voided(
        self, connection: asyncpg.Connection, received: list[Received[RoundVoided]]
    ) -> None:
        """A round voided after its result by two supervisors: recorded on the round, so that
        settlement's reversal of it (`BetsReversed`) can be checked, and its players' last
        games show both the result and the void."""
        for r in received:
            event = r.event
            reason = f"{event.reason} (asked by {event.requested_by}, confirmed by {event.actor})"
            if not await corrections_db.record_void(
                connection, event.round_id, reason, r.envelope.occurred_at
            ):
                log.info("round %s voided after its result: nothing new here", event.round_id)

    async def round_paused(
        self, connection: asyncpg.Connection, received: list[Received[RoundPaused]]
    ) -> None:
        """Each round paused: it takes no slips until resumed."""
        for r in received:
            await db.update_round(connection, r.event.round_id, paused=True)

    async def round_resumed(
        self, connection: asyncpg.Connection, received: list[Received[RoundResumed]]
    ) -> None:
        """Each round resumed: it takes slips again, until its new close when it has one."""
        for event in (r.event for r in received):
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
    async def settlement_resolved(
        self, connection: asyncpg.Connection, received: list[Received[SettlementResolved]]
    ) -> None:
        """A held round voided by two supervisors at the settlement: the wallet settles its
        bets as for a cancelled round (every stake refunded, never more), so the refunds that
        follow it on `settlement.events` are what it computes. A release changes nothing
        here: the round is settled on the facts the wallet holds too."""
        for r in received:
            event = r.event
            if event.action != "void":
                continue
            voided = await db.void_round(
                connection,
                event.round_id,
                f"voided by {event.requested_by} and {event.confirmed_by}: {event.reason}",
                r.envelope.occurred_at,
            )
            log.warning(
                "round %s voided at settlement (%s): %s",
                event.round_id,
                event.resolution_id,
                "its bets are refunded" if voided else "the wallet holds no book of it",
            )
