"""The reference operator's HTTP server: the wallet API the game side calls (`POST
/user/balance`, `/transaction/bet`, `/transaction/win`, `/transaction/rollback`, each
answered HTTP 200 with a signed body unless a fault switch says otherwise) and its admin API
under `/admin` (the `X-Admin-Token` header): players, deposits, tokens, its transactions,
the money check and the fault switches."""

from __future__ import annotations

import asyncio
import hmac
import json
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Annotated, Any

import asyncpg
from fastapi import APIRouter, Depends, FastAPI, Header, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from teenpatti.http import ProblemError, install_problem_handlers
from teenpatti.migrations import apply
from teenpatti.seamless.signing import SIGNATURE_HEADER, PrivateKey, PublicKey, sign
from teenpatti_tools.operator import wallet
from teenpatti_tools.operator.faults import Call, FaultKind, FaultPlan, FaultSwitches

ADMIN_TOKEN_HEADER = "X-Admin-Token"


@dataclass(frozen=True)
class OperatorServerConfig:
    dsn: str
    private_key: PrivateKey  # signs its answers
    game_public_keys: Sequence[PublicKey]  # the game side's, any of which may sign a request
    admin_token: str
    faults: FaultPlan = field(default_factory=FaultPlan)


class _State:
    def __init__(self, config: OperatorServerConfig) -> None:
        self.config = config
        self.faults = FaultSwitches.of(config.faults)
        self.pool: asyncpg.Pool | None = None
        self.wallet: wallet.OperatorWallet | None = None
        # calls still being applied after their caller gave up (a hold): kept until done
        self.detached: set[asyncio.Task[Any]] = set()


def create_app(config: OperatorServerConfig) -> FastAPI:
    state = _State(config)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        state.pool = await asyncpg.create_pool(config.dsn, min_size=1, max_size=16)
        try:
            async with state.pool.acquire() as connection:
                await apply(connection, [wallet.MIGRATIONS])
            state.wallet = wallet.OperatorWallet(state.pool, config.game_public_keys)
            yield
        finally:
            # a call still held when the server stops never arrived, as on a crash
            for task in state.detached:
                task.cancel()
            await asyncio.gather(*state.detached, return_exceptions=True)
            await state.pool.close()

    app = FastAPI(title="Reference operator wallet", lifespan=lifespan)
    install_problem_handlers(app)
    app.state.operator = state
    for call, path in WALLET_PATHS.items():
        app.add_api_route(path, _wallet_route(state, call), methods=["POST"], name=call)
    app.include_router(_admin_router(state))

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app


WALLET_PATHS: dict[Call, str] = {
    "balance": "/user/balance",
    "bet": "/transaction/bet",
    "win": "/transaction/win",
    "rollback": "/transaction/rollback",
}


def _wallet_route(state: _State, call: Call) -> Any:
    async def route(request: Request) -> Response:
        assert state.wallet is not None
        body = await request.body()
        signature = request.headers.get(SIGNATURE_HEADER)
        fate = state.faults.draw(call)
        fault = fate.fault
        if fate.delay:
            await asyncio.sleep(fate.delay)
        if fault is not None and fault.kind is FaultKind.ERROR:
            return Response(b"operator fault: error", status_code=fault.http_status)
        refusal = fault.status if fault is not None and fault.kind is FaultKind.REFUSE else None
        timeout = fault if fault is not None and fault.kind is FaultKind.TIMEOUT else None
        hold = timeout.seconds if timeout is not None and not timeout.applied_first else 0.0
        # applied to the end even when the caller hangs up, as a real server would
        work = partial(state.wallet.answer, call, body, signature, refusal=refusal)
        task = asyncio.create_task(_held(hold, work))
        state.detached.add(task)
        task.add_done_callback(state.detached.discard)
        result = await asyncio.shield(task)
        if timeout is not None and timeout.applied_first:
            await asyncio.sleep(timeout.seconds)
        if fault is not None and fault.kind is FaultKind.LOST:
            return Response(b"operator fault: answer lost", status_code=fault.http_status)
        content = json.dumps(result).encode()
        signed = sign(state.config.private_key, content)
        if fault is not None and fault.kind is FaultKind.BAD_SIGNATURE:
            signed = sign(state.config.private_key, content + b" ")
        return Response(content, media_type="application/json", headers={SIGNATURE_HEADER: signed})

    return route


async def _held(seconds: float, work: Callable[[], Awaitable[dict[str, Any]]]) -> dict[str, Any]:
    if seconds:
        await asyncio.sleep(seconds)
    return await work()


# ------------------------------------------------------------------------------- admin
class UserPut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    disabled: bool | None = None
    bet_limit: int | None = Field(default=None, ge=0, description="protocol units; null: none")
    clear_bet_limit: bool = False


class DepositCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    currency: str = Field(pattern=r"^[A-Z]{3}$")
    amount: int = Field(gt=0, description="protocol units: the currency amount x 100,000")


class TokenCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user: str = Field(min_length=1)
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    ttl_seconds: float = Field(default=3600, ge=0, description="0: already expired")
    token: str | None = Field(default=None, min_length=8, description="none: a random one")


def _admin_router(state: _State) -> APIRouter:
    def admin(token: Annotated[str | None, Header(alias=ADMIN_TOKEN_HEADER)] = None) -> None:
        if token is None or not hmac.compare_digest(token, state.config.admin_token):
            raise ProblemError(401, "admin_token_required", f"send the {ADMIN_TOKEN_HEADER} header")

    router = APIRouter(prefix="/admin", dependencies=[Depends(admin)])

    def pool() -> asyncpg.Pool:
        assert state.pool is not None
        return state.pool

    @router.put("/users/{user}")
    async def put_user(user: str, body: UserPut) -> dict[str, Any]:
        await wallet.put_user(
            pool(),
            user,
            disabled=body.disabled,
            bet_limit=body.bet_limit,
            clear_limit=body.clear_bet_limit,
        )
        view = await wallet.user_view(pool(), user)
        assert view is not None
        return view

    @router.get("/users/{user}")
    async def get_user(user: str) -> dict[str, Any]:
        view = await wallet.user_view(pool(), user)
        if view is None:
            raise ProblemError(404, "unknown_user", f"no player {user!r}")
        return view

    @router.post("/users/{user}/deposits", status_code=201)
    async def deposit(user: str, body: DepositCreate) -> dict[str, Any]:
        try:
            balance = await wallet.deposit(pool(), user, body.currency, body.amount)
        except wallet.AdminError as error:
            raise ProblemError(404, "unknown_user", str(error)) from None
        return {"user": user, "currency": body.currency, "balance": balance}

    @router.post("/tokens", status_code=201)
    async def issue_token(body: TokenCreate) -> dict[str, Any]:
        token = body.token or secrets.token_urlsafe(24)
        try:
            expires = await wallet.issue_token(
                pool(), token, body.user, body.currency, body.ttl_seconds
            )
        except wallet.AdminError as error:
            raise ProblemError(409, "token_refused", str(error)) from None
        return {
            "token": token,
            "user": body.user,
            "currency": body.currency,
            "expires_at": expires.isoformat(),
        }

    @router.get("/transactions")
    async def transactions(
        since: Annotated[datetime | None, Query(alias="from")] = None,
        until: Annotated[datetime | None, Query(alias="to")] = None,
        round_id: Annotated[str | None, Query(alias="round")] = None,
        user: str | None = None,
        cursor: Annotated[int, Query(ge=0)] = 0,
        limit: Annotated[int, Query(ge=1, le=10_000)] = 1_000,
    ) -> dict[str, Any]:
        page, next_cursor = await wallet.transactions(
            pool(),
            since=since,
            until=until,
            round_id=round_id,
            user=user,
            after=cursor,
            limit=limit,
        )
        return {"transactions": page, "next_cursor": next_cursor}

    @router.get("/check")
    async def check() -> dict[str, Any]:
        balances = await wallet.money_check(pool())
        return {"ok": all(row["ok"] for row in balances), "balances": balances}

    @router.get("/faults")
    async def get_faults() -> dict[str, Any]:
        return state.faults.describe()

    @router.put("/faults")
    async def put_faults(plan: FaultPlan) -> dict[str, Any]:
        state.faults = FaultSwitches.of(plan)
        return state.faults.describe()

    @router.delete("/faults")
    async def clear_faults() -> dict[str, Any]:
        state.faults = FaultSwitches.of(FaultPlan())
        return state.faults.describe()

    return router
