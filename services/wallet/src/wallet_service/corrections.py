"""The corrections of a round voided after its result: settlement's reversal of it
(`BetsReversed`) checked against the bets the wallet took and what it paid, then put right,
a reversal part per transaction (`domain.correction`).

Each runs inside the consumer's Postgres transaction (which also records the events as
processed), so balances, ledger, bets and `BetsCorrected` events commit once, together. A
part republished under a new event id finds its bets corrected already and passes them over.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import asyncpg

from teenpatti.events.catalog import BetsCorrected, BetsReversed
from teenpatti.eventsourcing import AsyncpgEventStore, StreamAppend
from teenpatti.kernel import Received

from .adapters import corrections as corrections_db
from .adapters import postgres as db
from .domain.betting import LedgerEntry
from .domain.correction import (
    Group,
    ReversalPart,
    RoundNotVoidedError,
    apply_to_balance,
    corrections_by_player,
    plan_correction,
)
from .payment import RoundResultAwaitedError

log = logging.getLogger(__name__)


class ReversalCorrector:
    """The handler of settlement's reversals, each taking a batch of its parts in the order
    they came."""

    def __init__(self, store: AsyncpgEventStore) -> None:
        self._store = store

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
