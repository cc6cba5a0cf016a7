"""HTTP routes (thin): an operator's view of settlements (an operator sees only its own bets,
and a round's totals only over its own bets); two supervisors' resolution of a held round."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal
from uuid import UUID

import asyncpg
from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field

from teenpatti.access.holders import KeyHolder
from teenpatti.events.catalog import CurrencyTotals, ResolutionAction, ReversalTotals
from teenpatti.http import ProblemError
from teenpatti.kernel.dependencies import Operator, Pool, Supervisor, provide

from .adapters.postgres import (
    BetView,
    Resolution,
    RoundRow,
    find_bet,
    find_round,
    operator_bets_of_round,
)
from .domain import currency_totals
from .handlers import Settlement

SettlementStatus = Literal["pending", "settled"]


class ResultPublic(BaseModel):
    cards: list[str]  # dealing order A1 B1 A2 B2 A3 B3
    winner: str
    player_a_hand: str
    player_b_hand: str
    six_card_bonus_hand: str | None


class RoundSummaryPublic(BaseModel):
    round_id: str
    table_id: str
    status: SettlementStatus
    cancelled: bool
    cancel_reason: str | None
    result: ResultPublic | None
    settled_at: datetime | None
    voided: bool  # voided after its result: its settlement is reversed once settled
    void_reason: str | None  # why, who asked and who confirmed
    reversed_at: datetime | None


class BetSettlementPublic(BaseModel):
    bet_id: UUID
    round_id: str
    table_id: str
    slip_id: UUID
    player_id: str
    bet_type: str
    stake: int
    currency: str
    placed_at: datetime
    status: SettlementStatus
    outcome: str | None
    returned: int | None
    fraction_kept: str | None
    odds: str | None
    settled_at: datetime | None
    reversed: bool  # its round voided after its result: stake refunded, returned taken back
    reversed_at: datetime | None


class RoundSettlementPublic(RoundSummaryPublic):
    totals: dict[str, CurrencyTotals]  # this operator's settled bets only
    reversal_totals: dict[str, ReversalTotals]  # this operator's reversed bets only
    bets: list[BetSettlementPublic]  # this operator's bets only


class BetWithRoundPublic(BetSettlementPublic):
    round: RoundSummaryPublic


class ResolutionCreate(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    action: ResolutionAction  # release: settle on the facts on record; void: refund all
    reason: Annotated[str, Field(min_length=1, max_length=500)]


class ResolutionPublic(BaseModel):
    resolution_id: UUID
    round_id: str
    action: ResolutionAction
    reason: str
    problems: list[str]  # the kinds that held the round when it was asked for
    requested_by: str
    requested_at: datetime
    status: Literal["pending", "confirmed", "superseded"]
    confirmed_by: str | None
    confirmed_at: datetime | None
    outcome: Literal["settled", "waiting", "held"] | None  # once confirmed


SettlementDep = Annotated[Settlement, Depends(provide(Settlement))]

router = APIRouter()


@router.get("/rounds/{round_id}/settlement", response_model=RoundSettlementPublic)
async def round_settlement(round_id: str, operator: Operator, pool: Pool) -> RoundSettlementPublic:
    round_ = await find_round(pool, round_id)
    if round_ is None:
        raise ProblemError(404, "unknown_round", f"no round {round_id!r} is known to settlement")
    bets = await operator_bets_of_round(pool, round_id, operator.name)
    totals = currency_totals(
        (bet.currency, bet.stake, bet.returned) for bet in bets if bet.returned is not None
    )
    # a reversed bet's stake refunded, what it returned taken back
    reversal = currency_totals(
        (bet.currency, bet.stake, bet.returned)
        for bet in bets
        if bet.reversed_at is not None and bet.returned is not None
    )
    return RoundSettlementPublic(
        **_summary(round_).model_dump(),
        totals=totals if round_.settled else {},
        reversal_totals={
            currency: ReversalTotals(refunded=sums.stake, reversed=sums.returned)
            for currency, sums in reversal.items()
        },
        bets=[_bet(bet) for bet in bets],
    )


@router.get("/bets/{bet_id}/settlement", response_model=BetWithRoundPublic)
async def bet_settlement(bet_id: UUID, operator: Operator, pool: Pool) -> BetWithRoundPublic:
    bet = await find_bet(pool, bet_id)
    # Another operator's bet gets the same answer as a bet that does not exist.
    if bet is None or bet.operator_id != operator.name:
        raise ProblemError(404, "unknown_bet", f"no bet {bet_id} of yours is known to settlement")
    round_ = await find_round(pool, bet.round_id)
    if round_ is None:  # the bet's transaction created the round's row
        raise ProblemError(404, "unknown_round", f"no round {bet.round_id!r} is known")
    return BetWithRoundPublic(**_bet(bet).model_dump(), round=_summary(round_))


def _summary(round_: RoundRow) -> RoundSummaryPublic:
    result = None
    if round_.result is not None:
        result = ResultPublic(**{k: round_.result[k] for k in ResultPublic.model_fields})
    return RoundSummaryPublic(
        round_id=round_.round_id,
        table_id=round_.table_id,
        status="settled" if round_.settled else "pending",
        cancelled=round_.cancelled,
        cancel_reason=round_.cancel_reason,
        result=result,
        settled_at=round_.settled_at,
        voided=round_.voided,
        void_reason=round_.void_reason,
        reversed_at=round_.reversed_at,
    )


def _bet(bet: BetView) -> BetSettlementPublic:
    return BetSettlementPublic(
        bet_id=bet.bet_id,
        round_id=bet.round_id,
        table_id=bet.table_id,
        slip_id=bet.slip_id,
        player_id=bet.player_id,
        bet_type=bet.bet_type,
        stake=bet.stake,
        currency=bet.currency,
        placed_at=bet.placed_at,
        status="settled" if bet.outcome is not None else "pending",
        outcome=bet.outcome,
        returned=bet.returned,
        fraction_kept=bet.fraction_kept,
        odds=bet.odds,
        settled_at=bet.settled_at,
        reversed=bet.reversed_at is not None,
        reversed_at=bet.reversed_at,
    )


@router.post(
    "/rounds/{round_id}/settlement/resolutions",
    response_model=ResolutionPublic,
    status_code=201,
)
async def request_resolution(
    round_id: str,
    body: ResolutionCreate,
    supervisor: Supervisor,
    settlement: SettlementDep,
    pool: Pool,
) -> ResolutionPublic:
    """Ask to release or void a held round; a second supervisor confirms it."""
    await _require_scope(pool, round_id, supervisor)
    async with pool.acquire() as connection, connection.transaction():
        resolution = await settlement.request_resolution(
            connection, round_id, body.action, body.reason, supervisor.name
        )
    return _resolution(resolution)


@router.post(
    "/rounds/{round_id}/settlement/resolutions/{resolution_id}/confirm",
    response_model=ResolutionPublic,
)
async def confirm_resolution(
    round_id: str,
    resolution_id: UUID,
    supervisor: Supervisor,
    settlement: SettlementDep,
    pool: Pool,
) -> ResolutionPublic:
    """Confirm another supervisor's request: it is carried out at once."""
    await _require_scope(pool, round_id, supervisor)
    async with pool.acquire() as connection, connection.transaction():
        resolution = await settlement.confirm_resolution(
            connection, round_id, resolution_id, supervisor.name
        )
    return _resolution(resolution)


async def _require_scope(pool: asyncpg.Pool, round_id: str, supervisor: KeyHolder) -> None:
    """The key may act on the round's own table, as recorded (the kernel checked the table
    its id names)."""
    round_ = await find_round(pool, round_id)
    if round_ is not None:
        supervisor.require_table(round_.table_id)


def _resolution(resolution: Resolution) -> ResolutionPublic:
    return ResolutionPublic.model_validate(
        {**resolution.__dict__, "problems": list(resolution.problems)}
    )
