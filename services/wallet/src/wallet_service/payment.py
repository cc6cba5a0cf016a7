"""The payment of settled bets: settlement's parts (`BetsSettled`) received, every payout
verified, the transfer wallet's players credited, and a seamless operator's wins handed to
the sender (`sender.py`), a batch of parts in one transaction.

The checks and what paying writes are pure (`domain/payment.py`): the wallet pays what it
computes with the rules engine, never merely what it is told. Here they run inside the
consumer's Postgres transaction (which also records the parts as processed), so balances,
ledger, bets, the wins owed and the `BetsPaid` events commit once, together, or not at all.
A part republished under a new event id finds its bets paid already and passes them over.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from uuid import UUID

import asyncpg

from teenpatti.events.catalog import BetsSettled
from teenpatti.eventsourcing import AsyncpgEventStore, StreamAppend
from teenpatti.eventsourcing.consumer import AfterCommit, NotYetError, all_of
from teenpatti.kernel import Received
from teenpatti.observability.metrics import ROUND_CLOSED_TO_PAID, seconds_between

from .adapters import games as games_db
from .adapters import postgres as db
from .adapters import seamless as seamless_db
from .domain.betting import CANCELLED
from .domain.games import balances_after
from .domain.payment import (
    HeldBet,
    HeldRound,
    PaidRun,
    PaymentPlan,
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


class SettlementPayer:
    """The handler of settlement's parts, taking a batch of them in the order they came."""

    def __init__(
        self,
        store: AsyncpgEventStore,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        on_owed: Callable[[], None] = lambda: None,
    ) -> None:
        self._store = store
        self._clock = clock
        # told once a payment that owes operators wins or rollbacks has committed
        self._on_owed = on_owed

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
        seamless = await _seamless_bets(connection, held, plan)
        unheld = {(bet.operator_id, bet.player_id, bet.currency) for bet, _ in seamless}
        # the transfer wallet's players: credited, each account in one statement
        credits = {a: amount for a, amount in plan.credits.items() if a not in unheld}
        credited = await db.credit_balances(connection, credits)
        before = {a: credited[a] - amount for a, amount in credits.items()}
        payment = pay(plan, before, unheld)
        await db.record_ledger(connection, payment.ledger)
        await db.mark_paid_many(connection, payment.paid, self._clock())
        owed = await _owe_wins(connection, seamless, rounds) if seamless else 0
        await self._append(connection, payment.runs, versions)
        # a transfer player's balance after its round's payment, for its last games
        await games_db.record_balances_after(connection, balances_after(payment.runs))
        paid_rounds = [parts[place].round_id for place in sorted({p for p, _ in plan.paying})]
        closed_at = await db.rounds_closed_at(connection, set(paid_rounds))
        timed = self._time_payment([closed_at[r] for r in paid_rounds if r in closed_at])
        return all_of([self._tell_owed() if owed else None, timed])

    def _tell_owed(self) -> AfterCommit:
        """Tell the sender, once the payment committed, that it owes operators calls."""

        async def tell() -> None:
            self._on_owed()

        return tell

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


async def _seamless_bets(
    connection: asyncpg.Connection, held: Mapping[UUID, HeldBet], plan: PaymentPlan
) -> list[tuple[HeldBet, str]]:
    """The bets paid of slips taken from a seamless operator, each with how its slip's
    returns are owed ('round' or 'slip')."""
    bets = [held[line.bet_id] for _, line in plan.paying]
    win_per = await seamless_db.seamless_slips(connection, {bet.slip_id for bet in bets})
    if not win_per:
        return []  # a transfer wallet's batch: nothing owed to an operator
    return [(bet, win_per[bet.slip_id]) for bet in bets if bet.slip_id in win_per]


async def _owe_wins(
    connection: asyncpg.Connection,
    seamless: Sequence[tuple[HeldBet, str]],
    rounds: Mapping[str, HeldRound],
) -> int:
    """The seamless hand-off: the wins (or a cancelled round's rollbacks) owed to the
    operators for the bets paid, recorded for the sender (`sender.py`). Owed in the
    payment's transaction: committed with it, or neither. The number of calls owed."""
    by_slip: set[UUID] = set()
    by_round: set[seamless_db.PlayerRound] = set()
    for bet, win_per in seamless:
        # a slip taken as 'round' in a round not cancelled: its player's round's win
        if win_per == "round" and rounds[bet.round_id].status != CANCELLED:
            by_round.add((bet.operator_id, bet.player_id, bet.round_id))
        else:
            by_slip.add(bet.slip_id)
    return await seamless_db.owe_settlement(connection, by_slip, by_round)
