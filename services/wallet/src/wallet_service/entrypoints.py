"""HTTP routes of the wallet: thin, every one scoped by the operator holding the API key."""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Depends, FastAPI, Header, Path, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictInt

from teenpatti.http import ApiKeys, ProblemError, problem_response

from .domain import SlipLine, WalletError
from .handlers import REFUSAL_STATUS, Slip, Wallet

SERVICE_NAME = "wallet"

# letters, digits and . _ @ - ; no ":" (it separates operator and player in stream ids)
PLAYER_ID_PATTERN = r"^[A-Za-z0-9._@-]+$"

router = APIRouter()


# async, though they never wait: FastAPI runs a plain `def` dependency in its thread pool,
# two thread hand-offs per request (measured: ~7% of the wallet's CPU under load)
async def _wallet(request: Request) -> Wallet:
    wallet: Wallet = request.app.state.wallet
    return wallet


async def _operator(
    request: Request, x_api_key: Annotated[str | None, Header(alias="X-Api-Key")] = None
) -> str:
    keys: ApiKeys = request.app.state.api_keys
    return keys.holder(x_api_key, "operator").name


WalletDep = Annotated[Wallet, Depends(_wallet)]
OperatorId = Annotated[str, Depends(_operator)]
PlayerId = Annotated[str, Path(min_length=1, max_length=100, pattern=PLAYER_ID_PATTERN)]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TransferCreate(_Request):
    transfer_id: Annotated[str, Field(min_length=1, max_length=100)]
    currency: Annotated[str, Field(pattern=r"^[A-Z]{3}$")]
    # below 2**53 so that every JSON client reads it exactly
    amount: Annotated[StrictInt, Field(gt=0, le=9_007_199_254_740_991)]


class BetLine(_Request):
    bet_type: Annotated[str, Field(min_length=1, max_length=50)]
    stake: StrictInt


class SlipCreate(_Request):
    player_id: Annotated[str, Field(min_length=1, max_length=100, pattern=PLAYER_ID_PATTERN)]
    round_id: Annotated[str, Field(min_length=1, max_length=100)]
    currency: Annotated[str, Field(min_length=1, max_length=10)]
    bets: Annotated[list[BetLine], Field(max_length=50)]


@router.get("/health")
async def health() -> dict[str, str]:
    return {"service": SERVICE_NAME, "status": "ok"}


@router.post("/players/{player_id}/deposits")
async def deposit(
    player_id: PlayerId, body: TransferCreate, operator_id: OperatorId, wallet: WalletDep
) -> dict[str, Any]:
    return await wallet.deposit(
        operator_id, player_id, body.transfer_id, body.currency, body.amount
    )


@router.post("/players/{player_id}/withdrawals")
async def withdraw(
    player_id: PlayerId, body: TransferCreate, operator_id: OperatorId, wallet: WalletDep
) -> dict[str, Any]:
    return await wallet.withdraw(
        operator_id, player_id, body.transfer_id, body.currency, body.amount
    )


@router.get("/players/{player_id}/balances")
async def balances(
    player_id: PlayerId, operator_id: OperatorId, wallet: WalletDep
) -> dict[str, int]:
    return await wallet.balances(operator_id, player_id)


@router.get("/players/{player_id}/bets")
async def player_bets(
    player_id: PlayerId,
    operator_id: OperatorId,
    wallet: WalletDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(max_length=40)] = None,
) -> dict[str, Any]:
    return await wallet.player_bets(operator_id, player_id, limit=limit, cursor=cursor)


@router.post("/bets", status_code=201)
async def place_bets(
    body: SlipCreate,
    operator_id: OperatorId,
    wallet: WalletDep,
    idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key")] = None,
) -> dict[str, Any]:
    if not idempotency_key or len(idempotency_key) > 200:
        raise ProblemError(
            400,
            "idempotency_key_required",
            "send an Idempotency-Key header (1 to 200 characters) with every slip",
        )
    slip = Slip(
        player_id=body.player_id,
        round_id=body.round_id,
        currency=body.currency,
        lines=tuple(SlipLine(line.bet_type, line.stake) for line in body.bets),
    )
    return await wallet.place_slip(operator_id, idempotency_key, slip)


@router.get("/bets/{bet_id}")
async def bet(bet_id: UUID, operator_id: OperatorId, wallet: WalletDep) -> dict[str, Any]:
    return await wallet.bet(operator_id, bet_id)


@router.get("/rounds/{round_id}/book")
async def round_book(
    round_id: Annotated[str, Path(min_length=1, max_length=100)],
    operator_id: OperatorId,
    wallet: WalletDep,
) -> dict[str, Any]:
    return await wallet.round_book(operator_id, round_id)


def install_refusal_handler(app: FastAPI) -> None:
    """A domain refusal becomes a problem with its code and the status of docs/services.md."""

    @app.exception_handler(WalletError)
    async def _refused(request: Request, error: WalletError) -> JSONResponse:
        return problem_response(
            REFUSAL_STATUS.get(error.code, 422), error.code, error.detail, request.url.path
        )
