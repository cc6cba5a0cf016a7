"""HTTP routes of player sessions: the operator opens, shows and ends a session (its key);
the player view exchanges the launch ticket for the session token; the player then acts
with `Authorization: Session <token>`, on its own bets and balance only, never with the
operator's key (docs/decisions/0068-player-sessions-and-launch.md)."""

from __future__ import annotations

from typing import Annotated, Literal
from uuid import UUID

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from teenpatti.access.holders import refusal
from teenpatti.currencies import CurrencyCode
from teenpatti.http import ProblemError
from teenpatti.kernel.dependencies import Operator
from teenpatti.seamless import BalanceCall

from .domain.betting import UnknownBetError
from .domain.sessions import operator_balance
from .entrypoints import PLAYER_ID_PATTERN, BetPagePublic, BetPublic, Timestamp
from .session_auth import Player, WalletDep
from .sessions import InvalidTicketError

router = APIRouter(tags=["sessions"])

# domain/sessions.py LANGUAGES
Language = Literal["en", "th", "fa", "ja", "ru"]


# ----------------------------------------------------------------------------- bodies
class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SessionCreate(_Request):
    # the operator's own token for the player, bound to one player and currency
    token: Annotated[str, Field(min_length=1, max_length=512)]
    player_id: Annotated[str, Field(min_length=1, max_length=100, pattern=PLAYER_ID_PATTERN)]
    currency: CurrencyCode  # one of the platform's currencies (teenpatti.currencies)
    language: Language = "en"
    # the table service's rule for a table id (teenpatti.access.keys.TABLE_ID_PATTERN)
    table_id: Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")]


class SessionLaunch(_Request):
    ticket: Annotated[str, Field(min_length=1, max_length=100)]


class SessionOpenedPublic(BaseModel):
    """A session just opened: the launch URL carries a single-use ticket, valid until
    `launch_expires_at`, and no secret."""

    session_id: UUID
    expires_at: Timestamp
    launch_url: str
    launch_expires_at: Timestamp


class SessionPublic(BaseModel):
    """A session as its operator sees it; `status`: not_launched, active, expired, ended."""

    session_id: UUID
    status: Literal["not_launched", "active", "expired", "ended"]
    player_id: str
    currency: str
    language: Language
    table_id: str
    created_at: Timestamp
    expires_at: Timestamp
    launched_at: Timestamp | None
    ended_at: Timestamp | None


class SessionLaunchedPublic(BaseModel):
    """The session token, answered once: send it as `Authorization: Session <token>`."""

    session_id: UUID
    session_token: str
    token_type: Literal["Session"]
    expires_at: Timestamp
    player_id: str
    currency: str
    language: Language
    table_id: str


class PlayerPublic(BaseModel):
    """The player's own session."""

    session_id: UUID
    player_id: str
    currency: str
    language: Language
    table_id: str
    expires_at: Timestamp


class PlayerBalancePublic(BaseModel):
    """The player's balance in the session's currency."""

    currency: str
    balance: int


# ----------------------------------------------------------------------- the operator's
@router.post("/sessions", status_code=201)
async def open_session(
    body: SessionCreate, operator: Operator, wallet: WalletDep
) -> SessionOpenedPublic:
    return SessionOpenedPublic.model_validate(
        await wallet.sessions.open(
            operator.name,
            opened_by=operator.key_id or operator.name,
            player_id=body.player_id,
            currency=body.currency,
            language=body.language,
            table_id=body.table_id,
            operator_token=body.token,
        )
    )


@router.get("/sessions/{session_id}")
async def show_session(session_id: UUID, operator: Operator, wallet: WalletDep) -> SessionPublic:
    return SessionPublic.model_validate(await wallet.sessions.show(operator.name, session_id))


@router.delete("/sessions/{session_id}")
async def end_session(session_id: UUID, operator: Operator, wallet: WalletDep) -> SessionPublic:
    return SessionPublic.model_validate(
        await wallet.sessions.end(operator.name, session_id, operator.key_id or operator.name)
    )


# ------------------------------------------------------------------------- the player's
@router.post("/sessions/launch")
async def launch_session(
    body: SessionLaunch, request: Request, wallet: WalletDep
) -> SessionLaunchedPublic:
    """The player view's first request: the launch URL's ticket for the session token."""
    try:
        launched = await wallet.sessions.launch(body.ticket)
    except InvalidTicketError as error:
        raise refusal(
            "invalid_ticket",
            ProblemError(
                401, "invalid_ticket", "the launch ticket is not known, was used or has expired"
            ),
            path=request.url.path,
            why=error.reason,
        ) from None
    return SessionLaunchedPublic.model_validate(launched)


@router.get("/me")
async def me(player: Player) -> PlayerPublic:
    return PlayerPublic(
        session_id=player.session_id,
        player_id=player.player_id,
        currency=player.currency,
        language=player.language,
        table_id=player.table_id,
        expires_at=player.expires_at,
    )


@router.get("/me/balance")
async def my_balance(player: Player, wallet: WalletDep) -> PlayerBalancePublic:
    """A transfer operator's player: the wallet's balance; a seamless operator's: the
    operator's, asked with the session's token (`/user/balance`), at most once every
    `TP_SESSION_BALANCE_CACHE_SECONDS` per session (the last answer in between)."""
    config = await wallet.operators.configs.get(player.operator_id)
    if config.seamless:
        call = BalanceCall(player.player_id, player.operator_token, player.currency)
        outcome = await wallet.sessions.balances.of(
            player.session_id, lambda: wallet.operators.balance(config, call)
        )
        return PlayerBalancePublic(currency=player.currency, balance=operator_balance(outcome))
    balances = await wallet.balances(player.operator_id, player.player_id)
    return PlayerBalancePublic(currency=player.currency, balance=balances.get(player.currency, 0))


@router.get("/me/bets")
async def my_bets(
    player: Player,
    wallet: WalletDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(max_length=40)] = None,
) -> BetPagePublic:
    return BetPagePublic.model_validate(
        await wallet.player_bets(player.operator_id, player.player_id, limit=limit, cursor=cursor)
    )


@router.get("/me/bets/{bet_id}")
async def my_bet(bet_id: UUID, player: Player, wallet: WalletDep) -> BetPublic:
    found = await wallet.bet(player.operator_id, bet_id)
    if found["player_id"] != player.player_id:  # another player's: as unknown as none
        raise UnknownBetError(f"bet {bet_id} is not known")
    return BetPublic.model_validate(found)
