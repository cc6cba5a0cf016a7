"""The wallet's subscription handlers (`app.py` maps the events to them). Each runs inside
the consumer's Postgres transaction (which also records the events as processed), so its
rows and events commit once, together. Duplicates with a new event id (a republished event)
are absorbed by the rows' own state: a sealed round is not sealed again, a paid bet is not
paid again."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from uuid import UUID

import asyncpg

from teenpatti.events import EventEnvelope
from teenpatti.events.catalog import (
    BetBookClosed,
    BetsCorrected,
    BetsReversed,
    BetsSettled,
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
from teenpatti.eventsourcing import AsyncpgEventStore, StreamAppend
from teenpatti.eventsourcing.consumer import AfterCommit, NotYetError
from teenpatti.kernel import Received
from teenpatti.observability.metrics import ROUND_CLOSED_TO_PAID, seconds_between

from .adapters import corrections as corrections_db
from .adapters import games as games_db
from .adapters import postgres as db
from .adapters import seamless as seamless_db
from .domain.betting import CANCELLED, CLOSED, OPEN, SEALED, LedgerEntry, seal_book
from .domain.correction import (
    Group,
    ReversalPart,
    RoundNotVoidedError,
    apply_to_balance,
    corrections_by_player,
    plan_correction,
)
from .domain.games import balances_after
from .domain.payment import (
    PaidRun,
    Player,
    RoundNotSettledError,
    SettlementPart,
    pay,
    plan_payment,
)

log = logging.getLogger(__name__)


class RoundResultAwaitedError(NotYetError):
    """A settlement for a round whose RoundClosed (or RoundCancelled) the wallet has not taken
    in yet (`table.events` is another topic): tried again once it has, never parked."""


class WalletConsumers:
    """The wallet's subscriptions: a handler per fact, each taking a batch of its events in
    the order they came."""

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

    async def bets_reversed(
        self, connection: asyncpg.Connection, received: list[Received[BetsReversed]]
    ) -> None:
        """Put right the bets of a round voided after its result, a reversal part at a time
        (`domain.correction`): every line checked against the bet the wallet took and what it
        paid, each player's net applied to its balance (a transfer wallet: never below zero,
        the rest a shortfall) or listed for the operator (seamless), the bets marked
        corrected, and a `BetsCorrected` per player and currency appended, in this one
        transaction. A line that does not hold parks the part; a part early for its round's
        void waits for it."""
        for r in received:
            part = ReversalPart(
                event_id=r.envelope.event_id,
                correlation_id=r.envelope.correlation_id,
                round_id=r.event.round_id,
                table_id=r.event.table_id,
                lines=r.event.bets,
            )
            held = await corrections_db.bets_for_correction(
                connection, [line.bet_id for line in part.lines]
            )
            voided = await corrections_db.voided_rounds(
                connection, {bet.round_id for bet in held.values()}
            )
            try:
                plan = plan_correction(held, voided, part)
            except RoundNotVoidedError as error:
                raise RoundResultAwaitedError(str(error)) from None
            if plan.passed_over:
                log.info(
                    "%d bet(s) of %s %s corrected before; passed over",
                    len(plan.passed_over),
                    BetsReversed.event_type,
                    part.event_id,
                )
            if plan.groups:
                await self._correct(connection, part, plan.groups)

    async def _correct(
        self,
        connection: asyncpg.Connection,
        part: ReversalPart,
        groups: Sequence[Group],
    ) -> None:
        by_player = corrections_by_player(groups)
        versions = await db.lock_players(connection, self._store, list(by_player))
        reference = f"correction:{part.event_id}"
        ledger: list[LedgerEntry] = []
        rows: list[corrections_db.CorrectionRow] = []
        appends: list[StreamAppend] = []
        for player, player_groups in by_player.items():
            events = []
            for g in player_groups:
                if g.seamless:
                    applied, shortfall, after = 0, 0, 0
                else:
                    balance = await corrections_db.balance_for_update(
                        connection, *player, g.currency
                    )
                    applied, shortfall, after = apply_to_balance(g.net, balance)
                    if applied:
                        await corrections_db.set_balance(connection, *player, g.currency, after)
                        ledger += [
                            LedgerEntry(
                                "player", *player, g.currency, applied, "correction", reference
                            ),
                            LedgerEntry(
                                "house",
                                player[0],
                                None,
                                g.currency,
                                -applied,
                                "correction",
                                reference,
                            ),
                        ]
                    if shortfall:
                        log.error(
                            "round %s voided after its result: %s/%s owes %d %s its balance"
                            " could not cover",
                            part.round_id,
                            *player,
                            shortfall,
                            g.currency,
                        )
                wallet = "seamless" if g.seamless else "transfer"
                events.append(
                    BetsCorrected(
                        round_id=part.round_id,
                        table_id=part.table_id,
                        operator_id=player[0],
                        player_id=player[1],
                        currency=g.currency,
                        wallet=wallet,
                        net=g.net,
                        applied=applied,
                        shortfall=shortfall,
                        balance_after=after,
                        bets=[
                            {
                                "bet_id": line.bet_id,
                                "refunded": line.refunded,
                                "reversed": line.returned,
                            }
                            for line in g.bets
                        ],
                    )
                )
                rows.append(
                    corrections_db.CorrectionRow(
                        reference=part.event_id,
                        operator_id=player[0],
                        player_id=player[1],
                        currency=g.currency,
                        round_id=part.round_id,
                        table_id=part.table_id,
                        wallet=wallet,
                        bet_count=len(g.bets),
                        refunded=g.refunded,
                        reversed=g.reversed,
                        net=g.net,
                        applied=applied,
                        shortfall=shortfall,
                        balance_after=after,
                    )
                )
            appends.append(
                StreamAppend(
                    db.player_stream(*player),
                    versions[player],
                    events,
                    table_id=part.table_id,
                    correlation_id=part.correlation_id,
                    causation_ids=(part.event_id,) * len(events),
                )
            )
        await db.record_ledger(connection, ledger)
        await corrections_db.mark_corrected(
            connection, [line.bet_id for g in groups for line in g.bets]
        )
        await corrections_db.record_corrections(connection, rows)
        await self._store.append_many(appends, connection=connection)

    async def bets_settled(
        self, connection: asyncpg.Connection, received: list[Received[BetsSettled]]
    ) -> AfterCommit | None:
        """Pay the bets that a batch of settlement parts settles, in its one transaction:
        the bets locked and checked together, each player locked once, balances, ledger and
        bets written with one statement each, and each player's `BetsPaid` appended
        together (`domain.payment`). A part is paid whole or not at all: one line in it that
        the wallet does not hold as told, or whose outcome or return is not what the wallet
        computes with the rules engine, fails the batch, and the part is parked. A part for
        a round whose result the wallet does not hold yet waits for it (the consumer rolls
        back and tries again), then is checked like any other. Once the
        payment has committed, each part paid is timed from its round's RoundClosed
        (`teenpatti_wallet_round_closed_to_paid_seconds`)."""
        parts = [
            SettlementPart(
                event_id=r.envelope.event_id,
                correlation_id=r.envelope.correlation_id,
                round_id=r.event.round_id,
                table_id=r.event.table_id,
                # the lines as they are, not `each()`'s models (docs/decisions/0042)
                lines=r.event.bets,
            )
            for r in received
        ]
        held = await db.bets_for_payment(
            connection, [line.bet_id for part in parts for line in part.lines]
        )
        rounds = await db.rounds_for_payment(connection, {bet.round_id for bet in held.values()})
        plan = plan_payment(held, rounds, parts)
        if plan.refused:
            # a forgery is parked at once; a part early for its round's result waits for it
            final = [r for r in plan.refused if r.reason is not RoundNotSettledError]
            if final:
                raise final[0].error()
            raise RoundResultAwaitedError(plan.refused[0].detail)
        for place, bet_id in plan.already_paid:
            log.info(
                "bet %s is already paid; %s %s ignored",
                bet_id,
                BetsSettled.event_type,
                parts[place].event_id,
            )
        if not plan.paying:
            return None
        versions = await db.lock_players(connection, self._store, plan.players)
        # a seamless operator's players are paid by wins owed to it, not by a credit here
        win_per = await seamless_db.seamless_slips(
            connection, {held[line.bet_id].slip_id for _, line in plan.paying}
        )
        seamless = [
            held[line.bet_id] for _, line in plan.paying if held[line.bet_id].slip_id in win_per
        ]
        unheld = {(bet.operator_id, bet.player_id, bet.currency) for bet in seamless}
        credits = {a: amount for a, amount in plan.credits.items() if a not in unheld}
        credited = await db.credit_balances(connection, credits)
        before = {a: credited[a] - amount for a, amount in credits.items()}
        payment = pay(plan, before, unheld)
        await db.record_ledger(connection, payment.ledger)
        await db.mark_paid_many(connection, payment.paid, self._clock())
        if seamless:
            # owed in the payment's transaction: committed with it, or neither
            by_slip: set[UUID] = set()
            by_round: set[seamless_db.PlayerRound] = set()
            for bet in seamless:
                # a slip taken as 'round' in a round not cancelled: its player's round's win
                if win_per[bet.slip_id] == "round" and rounds[bet.round_id].status != CANCELLED:
                    by_round.add((bet.operator_id, bet.player_id, bet.round_id))
                else:
                    by_slip.add(bet.slip_id)
            await seamless_db.owe_settlement(connection, by_slip, by_round)
        await self._append(connection, payment.runs, versions)
        # a transfer player's balance after its round's payment, for its last games
        await games_db.record_balances_after(connection, balances_after(payment.runs))
        paid_rounds = [parts[place].round_id for place in sorted({p for p, _ in plan.paying})]
        closed_at = await db.rounds_closed_at(connection, set(paid_rounds))
        return self._time_payment([closed_at[r] for r in paid_rounds if r in closed_at])

    def _time_payment(self, closed_at: list[datetime]) -> AfterCommit | None:
        """Time each part paid from its round's RoundClosed, once the payment committed."""
        if not closed_at:
            return None

        async def observe() -> None:
            now = self._clock()
            for at in closed_at:
                ROUND_CLOSED_TO_PAID.observe(seconds_between(at, now))

        return observe

    async def _append(
        self,
        connection: asyncpg.Connection,
        runs: Mapping[Player, Sequence[PaidRun]],
        versions: dict[Player, int],
    ) -> None:
        """Each player's runs in order; the next run of every player in one statement."""
        pending = {player: list(player_runs) for player, player_runs in runs.items()}
        while pending:
            appends = []
            for player, queue in list(pending.items()):
                run = queue.pop(0)
                appends.append(
                    StreamAppend(
                        db.player_stream(*player),
                        versions[player],
                        run.events,
                        table_id=run.table_id,
                        correlation_id=run.correlation_id,
                        causation_ids=run.causation_ids,
                    )
                )
                versions[player] += len(run.events)
                if not queue:
                    del pending[player]
            await self._store.append_many(appends, connection=connection)
