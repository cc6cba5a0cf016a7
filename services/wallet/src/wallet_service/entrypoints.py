"""HTTP routes of the wallet: thin, every one scoped by the operator holding the API key
(the key holder's name is the operator id); the kernel serves the supervisor's `/problems`."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal
from uuid import UUID

from fastapi import APIRouter, Depends, Header, Path, Query
from fastapi.responses import JSONResponse
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    RootModel,
    StrictInt,
    WithJsonSchema,
)

from teenpatti.currencies import CurrencyCode
from teenpatti.events.catalog import BetTypeName, Outcome
from teenpatti.http import ProblemError, required_header
from teenpatti.kernel.dependencies import Operator, provide

from . import examples
from .domain.betting import SlipLine
from .handlers import Wallet
from .session_auth import OperatorOrPlayer, placement
from .slips import Slip

# letters, digits and . _ @ - ; no ":" (it separates operator and player in stream ids)
PLAYER_ID_PATTERN = r"^[A-Za-z0-9._@-]+$"

router = APIRouter()

WalletDep = Annotated[Wallet, Depends(provide(Wallet))]
PlayerId = Annotated[str, Path(min_length=1, max_length=100, pattern=PLAYER_ID_PATTERN)]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TransferCreate(_Request):
    model_config = ConfigDict(
        use_attribute_docstrings=True, json_schema_extra={"examples": examples.TRANSFER_CREATE}
    )

    transfer_id: Annotated[str, Field(min_length=1, max_length=100)]
    """The operator's own id of the transfer (1 to 100 characters), one id per transfer: a
    retry of the same transfer answers the first one's answer and moves nothing twice; the same
    id for another transfer (deposit or withdrawal, player, currency or amount) is refused 422
    `transfer_id_reused`."""
    currency: CurrencyCode  # one of the platform's currencies (teenpatti.currencies)
    # below 2**53 so that every JSON client reads it exactly
    amount: Annotated[StrictInt, Field(gt=0, le=9_007_199_254_740_991)]
    """How much, in integer minor units of the currency: above 0, at most 2^53 - 1 (so that every
    JSON client reads it exactly)."""


class BetLine(_Request):
    model_config = ConfigDict(use_attribute_docstrings=True)

    bet_type: Annotated[str, Field(min_length=1, max_length=50)]
    stake: StrictInt
    """The stake, in integer minor units of the slip's currency, within the table's limits for the
    bet type (422 `stake_out_of_limits` otherwise)."""


class SlipCreate(_Request):
    model_config = ConfigDict(
        use_attribute_docstrings=True, json_schema_extra={"examples": examples.SLIP_CREATE}
    )

    # required with an operator's key; with a player's session, its own (or left out)
    player_id: (
        Annotated[str, Field(min_length=1, max_length=100, pattern=PLAYER_ID_PATTERN)] | None
    ) = None
    """The player: required with an operator's key; with a player's session, its own (or left out).
    """
    round_id: Annotated[str, Field(min_length=1, max_length=100)]
    """The round bet on: it must be open for bets (409 `betting_closed` otherwise)."""
    currency: Annotated[str, Field(min_length=1, max_length=10)] | None = None
    """The slip's currency: required with an operator's key; with a player's session, the session's
    (or left out)."""
    bets: Annotated[list[BetLine], Field(max_length=50)]
    """The bets, 1 to 50: taken together or refused together."""
    # a seamless operator's session token of the player (its `bet` calls carry it)
    token: Annotated[str | None, Field(min_length=1, max_length=500)] = None
    """A seamless operator's own session token for the player, which the wallet's `bet` call
    carries; not with a player's session (it has its own)."""


# ------------------------------------------------------------------------ responses
# a time as the wallet answers it: ISO 8601 in UTC, "+00:00"
Timestamp = Annotated[
    datetime,
    PlainSerializer(lambda value: value.isoformat(), return_type=str, when_used="json"),
    WithJsonSchema({"type": "string", "format": "date-time"}),
]


class TransferPublic(BaseModel):
    """A deposit or withdrawal taken (or taken before, under the same transfer id)."""

    model_config = ConfigDict(
        use_attribute_docstrings=True, json_schema_extra={"examples": examples.TRANSFER_PUBLIC}
    )

    transfer_id: str
    """The operator's id of the transfer, as sent."""
    currency: str
    balance: int  # right after the transfer


class BalancesPublic(RootModel[dict[str, int]]):
    """The player's balance in each currency it has an account in ({} for none)."""

    model_config = ConfigDict(json_schema_extra={"examples": examples.BALANCES_PUBLIC})


class SlipBetPublic(BaseModel):
    bet_id: UUID
    bet_type: BetTypeName
    stake: int


class SlipPublic(BaseModel):
    """A slip taken: its bets, and the balance right after their stakes."""

    model_config = ConfigDict(
        use_attribute_docstrings=True, json_schema_extra={"examples": examples.SLIP_PUBLIC}
    )

    slip_id: UUID
    round_id: str
    table_id: str
    player_id: str
    currency: str
    placed_at: Timestamp
    bets: list[SlipBetPublic]
    """The bets taken, each with its id."""
    balance: int


class BetRoundPublic(BaseModel):
    """The round of a bet: its status and, once closed, its cards and result."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    status: Literal["open", "sealed", "closed", "cancelled"]
    """`open` (taking bets), `sealed` (betting closed, dealing), `closed` (its result known) or
    `cancelled`."""
    cards: list[str] | None
    winner: str | None
    player_a_hand: str | None
    player_b_hand: str | None
    six_card_bonus_hand: str | None


class BetPublic(BaseModel):
    model_config = ConfigDict(
        use_attribute_docstrings=True, json_schema_extra={"examples": examples.BET_PUBLIC}
    )

    bet_id: UUID
    slip_id: UUID
    player_id: str
    round_id: str
    table_id: str
    bet_type: BetTypeName
    stake: int
    currency: str
    placed_at: Timestamp
    status: Literal["placed", "paid"]
    """`placed` until the wallet pays it, then `paid`."""
    outcome: Outcome | None  # once paid
    returned: int | None  # once paid
    paid_at: Timestamp | None
    round: BetRoundPublic
    """Its round: status and, once closed, cards and result."""


class BetPagePublic(BaseModel):
    """A page of a player's bets, newest first; `next_cursor` continues it (null at the end)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    items: list[BetPublic]
    """The player's bets, newest first."""
    next_cursor: str | None


class RoundBookPublic(BaseModel):
    """A round as the wallet knows it, with the asking operator's bets in it."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    round_id: str
    table_id: str
    status: Literal["open", "sealed", "closed", "cancelled"]
    """`open` (taking bets), `sealed` (betting closed), `closed` (its result known) or `cancelled`.
    """
    paused: bool
    """Whether the table paused the round (no bet taken meanwhile)."""
    opened_at: Timestamp | None
    """When the round opened (ISO 8601, UTC); null for a round the wallet never saw open."""
    betting_closes_at: Timestamp
    sealed_at: Timestamp | None
    cards: list[str] | None
    winner: str | None
    player_a_hand: str | None
    player_b_hand: str | None
    six_card_bonus_hand: str | None
    bet_count: int
    """How many bets this operator's players placed on it."""
    total_stake: dict[str, int]
    """Per currency, the stakes of this operator's bets, in integer minor units."""
    bets: list[BetPublic]
    """This operator's bets on the round."""


# --------------------------------------------------------------------------- routes
@router.post("/players/{player_id}/deposits")
async def deposit(
    player_id: PlayerId, body: TransferCreate, operator: Operator, wallet: WalletDep
) -> TransferPublic:
    """Credit a transfer operator's player: the amount is added to its balance in the currency (an
    account opens with the first deposit). Idempotent by `transfer_id`. An operator's key;
    refused for a seamless operator (409 `seamless_operator`), above the balance limit (422
    `balance_limit_exceeded`), or with a `transfer_id` already used otherwise (422
    `transfer_id_reused`)."""
    return TransferPublic.model_validate(
        await wallet.deposit(operator.name, player_id, body.transfer_id, body.currency, body.amount)
    )


@router.post("/players/{player_id}/withdrawals")
async def withdraw(
    player_id: PlayerId, body: TransferCreate, operator: Operator, wallet: WalletDep
) -> TransferPublic:
    """Debit a player's balance in the currency. Idempotent by `transfer_id`. An operator's key;
    refused when the balance does not cover it (409 `insufficient_funds`) or with a `transfer_id`
    already used otherwise (422 `transfer_id_reused`)."""
    return TransferPublic.model_validate(
        await wallet.withdraw(
            operator.name, player_id, body.transfer_id, body.currency, body.amount
        )
    )


@router.get("/players/{player_id}/balances")
async def balances(player_id: PlayerId, operator: Operator, wallet: WalletDep) -> BalancesPublic:
    """What the wallet holds for the player, per currency, in integer minor units (`{}` for none).
    An operator's key: its own players only. For a seamless operator's player, what is left from
    transfer days, not its money at the operator."""
    return BalancesPublic(await wallet.balances(operator.name, player_id))


@router.get("/players/{player_id}/bets")
async def player_bets(
    player_id: PlayerId,
    operator: Operator,
    wallet: WalletDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(max_length=40)] = None,
) -> BetPagePublic:
    """The player's bets, newest first, a page at a time (`next_cursor`). An operator's key: its own
    players only."""
    return BetPagePublic.model_validate(
        await wallet.player_bets(operator.name, player_id, limit=limit, cursor=cursor)
    )


# The answer is sent as stored under the slip's Idempotency-Key, for the first request and
# every retry alike, so that retries answer byte for byte what the first one did.
# documented as required; read here, so that a missing one is its own 400
IDEMPOTENCY_KEY = required_header(
    "Idempotency-Key",
    "The caller's own id of this slip (1 to 200 characters, e.g. a UUID): a retry with the"
    " same key and body answers the first slip's answer, byte for byte, and places nothing"
    " twice; the same key with another body is refused 422 `idempotency_key_reused`. A"
    " player's keys are its own: no player can claim an operator's key or another player's."
    " Missing or longer: 400 `idempotency_key_required`.",
    max_length=200,
    example="3f9c2a4e-7d1b-4c55-9a0e-1b2c3d4e5f60",
)


@router.post("/bets", status_code=201, response_model=SlipPublic, openapi_extra=IDEMPOTENCY_KEY)
async def place_bets(
    body: SlipCreate,
    caller: OperatorOrPlayer,
    wallet: WalletDep,
    idempotency_key: Annotated[
        str | None, Header(alias="Idempotency-Key", include_in_schema=False)
    ] = None,
) -> JSONResponse:
    """Place a slip: one to fifty bets on an open round, in one currency, taken together or refused
    together. With a player's session (its own player, currency and table) or an operator's key
    (naming `player_id` and `currency`); both at once: 400 `ambiguous_credentials`. The
    `Idempotency-Key` header is required: a retry answers the first answer byte for byte. For a
    transfer operator the stakes are taken from the wallet's balance (409 `insufficient_funds`);
    for a seamless one the wallet calls the operator's `bet` first (409 `operator_refused`, 503
    `operator_unavailable`: retry with the same key). Also refused: 404 `unknown_round`, 409
    `betting_closed`, 422 `below_minimum`, `above_maximum`, `exposure_limit`,
    `currency_not_accepted`, `invalid_bet`."""
    if not idempotency_key or len(idempotency_key) > 200:
        raise ProblemError(
            400,
            "idempotency_key_required",
            "send an Idempotency-Key header (1 to 200 characters) with every slip",
        )
    placed = placement(
        caller,
        player_id=body.player_id,
        currency=body.currency,
        round_id=body.round_id,
        idempotency_key=idempotency_key,
        token=body.token,
    )
    slip = Slip(
        player_id=placed.player_id,
        round_id=body.round_id,
        currency=placed.currency,
        lines=tuple(SlipLine(line.bet_type, line.stake) for line in body.bets),
        token=placed.operator_token,
    )
    return JSONResponse(
        await wallet.place_slip(placed.operator_id, placed.idempotency_key, slip), 201
    )


@router.get("/bets/{bet_id}")
async def bet(bet_id: UUID, operator: Operator, wallet: WalletDep) -> BetPublic:
    """One bet with its round's status and result. An operator's key: another operator's bet answers
    as one that does not exist (404 `unknown_bet`)."""
    return BetPublic.model_validate(await wallet.bet(operator.name, bet_id))


@router.get("/rounds/{round_id}/book")
async def round_book(
    round_id: Annotated[str, Path(min_length=1, max_length=100)],
    operator: Operator,
    wallet: WalletDep,
) -> RoundBookPublic:
    """A round as the wallet knows it (status, timings, cards and result) with the asking operator's
    bets on it and their stakes per currency. An operator's key; a round the wallet never heard
    of: 404 `unknown_round`."""
    return RoundBookPublic.model_validate(await wallet.round_book(operator.name, round_id))
