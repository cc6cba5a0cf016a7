"""HTTP routes of the transactions API and the daily report (transactions.py): operator key
only, every answer scoped to the key's operator."""

from __future__ import annotations

from typing import Annotated, Literal

import asyncpg
from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from teenpatti.http import ProblemError
from teenpatti.kernel.dependencies import Operator

from .transactions import MAX_PAGE, daily_report, transactions_page

router = APIRouter()


async def _pool(request: Request) -> asyncpg.Pool:
    kernel = request.app.state.kernel
    if kernel is None:
        raise ProblemError(503, "service_unavailable", "the service is starting or stopping")
    pool: asyncpg.Pool = kernel.pool
    return pool


PoolDep = Annotated[asyncpg.Pool, Depends(_pool)]


class OperatorAnswerPublic(BaseModel):
    """The operator's last answer to a call: its `status`, the body as received, when."""

    status: str | None
    body: str | None
    at: str | None


class TransactionPublic(BaseModel):
    """One money movement (docs/operators.md, "Transactions and reconciliation")."""

    id: str
    kind: Literal["deposit", "withdrawal", "slip", "bet", "win", "rollback", "refund", "correction"]
    wallet: Literal["transfer", "seamless"]
    player_id: str
    round_id: str | None
    table_id: str | None
    slip_id: str | None
    transaction_uuid: str
    reference_transaction_uuid: str | None
    amount: int | None
    currency: str
    # a correction: `shortfall` (a balance could not cover it) or `listed` (a seamless
    # operator's to settle) until a person records it settled
    status: Literal["ok", "accepted", "pending", "refused", "failed", "shortfall", "listed"]
    attempts: int | None
    round_closed: bool | None
    at: str
    finished_at: str | None
    operator_answer: OperatorAnswerPublic | None
    error: str | None
    applied: int | None = None  # a correction: what moved on the player's balance here
    shortfall: int | None = None  # a correction: what the balance could not cover


class TransactionPagePublic(BaseModel):
    """Movements oldest first; `next_cursor` continues the page (null on the last)."""

    items: list[TransactionPublic]
    next_cursor: str | None


class DailyCorrectionsPublic(BaseModel):
    """The corrections made that day of rounds voided after their result: bets corrected,
    their net to players (refunds less returns taken back), what moved, the shortfall, and
    the net listed for a seamless operator."""

    bets: int
    net: int
    applied: int
    shortfall: int
    listed: int


class DailyCurrencyPublic(BaseModel):
    currency: str
    bets: int
    stakes: int
    returns: int
    ggr: int
    refunded_bets: int
    refunded: int
    corrections: DailyCorrectionsPublic | None = None


class DailyReportPublic(BaseModel):
    """The bets settled on one UTC day, per currency."""

    model_config = ConfigDict(populate_by_name=True)

    operator_id: str
    date: str
    from_: str = Field(alias="from")
    to: str
    currencies: list[DailyCurrencyPublic]


@router.get("/transactions")
async def transactions(
    operator: Operator,
    pool: PoolDep,
    since: Annotated[str | None, Query(alias="from", max_length=64)] = None,
    until: Annotated[str | None, Query(alias="to", max_length=64)] = None,
    round_id: Annotated[str | None, Query(min_length=1, max_length=100)] = None,
    cursor: Annotated[str | None, Query(max_length=400)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
) -> TransactionPagePublic:
    return TransactionPagePublic.model_validate(
        await transactions_page(
            pool,
            operator.name,
            since=since,
            until=until,
            round_id=round_id,
            cursor=cursor,
            limit=limit,
        )
    )


@router.get("/reports/daily")
async def daily(
    operator: Operator,
    pool: PoolDep,
    date: Annotated[str, Query(min_length=1, max_length=32)],
) -> DailyReportPublic:
    return DailyReportPublic.model_validate(await daily_report(pool, operator.name, date))
