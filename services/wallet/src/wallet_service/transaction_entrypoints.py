"""HTTP routes of the transactions API and the daily report (transactions.py): operator key
only, every answer scoped to the key's operator."""

from __future__ import annotations

from typing import Annotated, Literal

import asyncpg
from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from teenpatti.http import ProblemError
from teenpatti.kernel.dependencies import Operator

from . import examples
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

    model_config = ConfigDict(use_attribute_docstrings=True)

    status: str | None
    """The operator's `status` in its answer (e.g. `RS_OK`); null when it had none."""
    body: str | None
    """The answer's body, exactly as received; null when there was none."""
    at: str | None
    """When it was received (ISO 8601, UTC)."""


class TransactionPublic(BaseModel):
    """One money movement (docs/operators.md, "Transactions and reconciliation")."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    id: str
    """Unique among the operator's movements: `transfer:<transfer id>`, `slip:<slip id>`,
    `payment:<slip id>`, `call:<call id>` or `correction:<reversal part>:<player>:<currency>`."""
    kind: Literal["deposit", "withdrawal", "slip", "bet", "win", "rollback", "refund", "correction"]
    """`deposit`, `withdrawal` (a transfer); `slip` (a slip taken); `bet`, `win`, `rollback` (a call
    to a seamless operator's wallet); `win`, `refund` (a transfer slip paid, or its stake back
    from a void round); `correction` (a round voided after its result, per player and currency)."""
    wallet: Literal["transfer", "seamless"]
    """`transfer` or `seamless`: where the player's money is."""
    player_id: str
    """The player it is about."""
    round_id: str | None
    """Its round; null for a transfer."""
    table_id: str | None
    """Its round's table; null for a transfer."""
    slip_id: str | None
    """Its slip; null for a transfer."""
    transaction_uuid: str
    """A call's idempotency key as the operator saw it (a bet's is the slip id; a win's or
    rollback's its own); a transfer's id; a slip's id."""
    reference_transaction_uuid: str | None
    """The bet (slip id) a win, rollback or payment settles; null otherwise."""
    amount: int | None
    """In integer minor units: a rollback's is its bet's; a correction's is its net (the stakes
    refunded less the returns taken back: negative when the player owes)."""
    currency: str
    # a correction: `shortfall` (a balance could not cover it) or `listed` (a seamless
    # operator's to settle) until a person records it settled
    status: Literal["ok", "accepted", "pending", "refused", "failed", "shortfall", "listed"]
    """`ok`; `accepted` (a slip); a call's `pending` (still being sent), `ok`, `refused` or
    `failed`; a correction's `shortfall` (a balance could not cover it) or `listed` (a seamless
    operator's to apply) until recorded settled, then `ok`."""
    attempts: int | None
    """A call's attempts so far; null for other movements."""
    round_closed: bool | None
    """A call's `round_closed` flag; null for other movements."""
    at: str
    """When it was recorded (ISO 8601, UTC)."""
    finished_at: str | None
    """When it ended (a call: its last answer or its giving up) (ISO 8601, UTC); null while pending.
    """
    operator_answer: OperatorAnswerPublic | None
    """A call's last answer; null before any and for other movements."""
    error: str | None
    """Why a call was refused or failed, as our side names it; a settled correction's reason; null
    otherwise."""
    applied: int | None = None
    """A correction's: what moved on the player's transfer balance here, in integer minor units;
    null for other movements."""
    shortfall: int | None = None
    """A correction's: what the balance could not cover (owed by the player), in integer minor
    units; null for other movements."""


class TransactionPagePublic(BaseModel):
    """Movements oldest first; `next_cursor` continues the page (null on the last)."""

    model_config = ConfigDict(
        use_attribute_docstrings=True,
        json_schema_extra={"examples": examples.TRANSACTION_PAGE_PUBLIC},
    )

    items: list[TransactionPublic]
    """The movements, oldest first, by (`at`, `id`)."""
    next_cursor: str | None


class DailyCorrectionsPublic(BaseModel):
    """The corrections made that day of rounds voided after their result: bets corrected,
    their net to players (refunds less returns taken back), what moved, the shortfall, and
    the net listed for a seamless operator."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    bets: int
    """How many bets were corrected."""
    net: int
    """Their net to players (refunds less returns taken back), in integer minor units."""
    applied: int
    """What moved on transfer balances, in integer minor units."""
    shortfall: int
    """What the balances could not cover, in integer minor units."""
    listed: int
    """The net listed for a seamless operator to apply, in integer minor units."""


class DailyCurrencyPublic(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    currency: str
    bets: int
    """How many bets of rounds with a result were settled that day."""
    stakes: int
    """Their stakes, in integer minor units."""
    returns: int
    """What they returned, stakes included, in integer minor units."""
    ggr: int
    """Gross gaming revenue: `stakes` - `returns`, in integer minor units."""
    refunded_bets: int
    """How many bets of void rounds were refunded that day."""
    refunded: int
    """Their stakes, given back, in integer minor units."""
    corrections: DailyCorrectionsPublic | None = None
    """The corrections made that day of rounds voided after their result, whatever day they were
    played; null on a day with none."""


class DailyReportPublic(BaseModel):
    """The bets settled on one UTC day, per currency."""

    model_config = ConfigDict(populate_by_name=True, use_attribute_docstrings=True)

    operator_id: str
    """The operator: the key's holder."""
    date: str
    """The UTC day, as asked (`YYYY-MM-DD`)."""
    from_: str = Field(alias="from")
    """The day's start (ISO 8601, UTC), inclusive."""
    to: str
    """The next day's start (ISO 8601, UTC), exclusive."""
    currencies: list[DailyCurrencyPublic]
    """Per currency the operator's players bet in that day."""


@router.get("/transactions")
async def transactions(
    operator: Operator,
    pool: PoolDep,
    since: Annotated[
        str | None,
        Query(
            alias="from",
            max_length=64,
            description="The first time, inclusive: ISO 8601 with its offset (`Z` or"
            " `+hh:mm`); left out: from the first movement.",
        ),
    ] = None,
    until: Annotated[
        str | None,
        Query(
            alias="to",
            max_length=64,
            description="The time the range ends before, exclusive, in the same form; left"
            " out: to the last movement.",
        ),
    ] = None,
    round_id: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=100,
            description="Only this round's movements (no deposits or withdrawals).",
        ),
    ] = None,
    cursor: Annotated[str | None, Query(max_length=400)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
) -> TransactionPagePublic:
    """Every money movement of the asking operator's players, oldest first, a page at a time:
    transfers, slips, payments, the calls to a seamless operator's wallet with their answers, and
    corrections (docs/operators.md, "Transactions and reconciliation"). An operator's key;
    refused: 400 `invalid_time`, `invalid_range`, `invalid_cursor`."""
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
    date: Annotated[
        str,
        Query(min_length=1, max_length=32, description="The UTC day, ISO 8601: `YYYY-MM-DD`."),
    ],
) -> DailyReportPublic:
    """The bets settled on one UTC day, per currency: stakes, returns, GGR, the refunds of void
    rounds and the day's corrections. An operator's key, its own players only; a date that is not
    one: 400 `invalid_date`."""
    return DailyReportPublic.model_validate(await daily_report(pool, operator.name, date))
