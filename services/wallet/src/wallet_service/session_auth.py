"""Who a request of the wallet acts for when a player may send it: the player's session
(`Authorization: Session <token>`), resolved on every request, or an operator's key
(docs/decisions/0068-player-sessions-and-launch.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated
from uuid import UUID

from fastapi import Depends, Header, Request

from teenpatti.access.holders import KeyHolder, refusal
from teenpatti.http import ProblemError
from teenpatti.kernel.dependencies import ApiKeyHeader, authenticate, provide

from .domain.sessions import PlayerSession, SessionMismatchError
from .handlers import Wallet
from .sessions import InvalidSessionError

WalletDep = Annotated[Wallet, Depends(provide(Wallet))]
AuthorizationHeader = Annotated[str | None, Header(alias="Authorization")]


async def player_session(
    request: Request, wallet: WalletDep, authorization: AuthorizationHeader = None
) -> PlayerSession:
    """The active session of the request's `Authorization: Session <token>`, else 401
    `invalid_session`, one answer for every reason (logged and counted with it)."""
    token = _session_token(authorization)
    if token is None:
        raise _invalid_session("missing", request.url.path)
    try:
        return await wallet.sessions.resolve(token)
    except InvalidSessionError as error:
        raise _invalid_session(error.reason, request.url.path, error.session_id) from None


Player = Annotated[PlayerSession, Depends(player_session)]


async def operator_or_player(
    request: Request,
    wallet: WalletDep,
    authorization: AuthorizationHeader = None,
    x_api_key: ApiKeyHeader = None,
) -> KeyHolder | PlayerSession:
    """Who places a slip: a player through its session, or an operator with its key."""
    if _session_token(authorization) is None:
        return await authenticate(request, x_api_key, "operator")
    if x_api_key:
        raise ProblemError(
            400,
            "ambiguous_credentials",
            "send either a session (Authorization: Session) or an API key (X-Api-Key), not both",
        )
    return await player_session(request, wallet, authorization)


OperatorOrPlayer = Annotated[KeyHolder | PlayerSession, Depends(operator_or_player)]


@dataclass(frozen=True, slots=True)
class Placement:
    """For whom a slip is placed, under which Idempotency-Key, with which operator token."""

    operator_id: str
    player_id: str
    currency: str
    idempotency_key: str
    # the operator's token for the player, which a seamless `bet` carries: the session's,
    # or the one an operator's own slip names in its body (None: none named)
    operator_token: str | None


def placement(
    caller: KeyHolder | PlayerSession,
    *,
    player_id: str | None,
    currency: str | None,
    round_id: str,
    idempotency_key: str,
    token: str | None = None,
) -> Placement:
    """A player's slip is its session's player, currency and table, its Idempotency-Key its
    own (no player can claim an operator's key, or another player's); an operator's slip
    names its player and currency (and its operator token, for a seamless operator)."""
    if isinstance(caller, PlayerSession):
        caller.check_slip(player_id, currency, round_id)
        if token is not None:  # the operator's token is the session's, never the player's
            raise SessionMismatchError("a slip through a session names no token")
        return Placement(
            operator_id=caller.operator_id,
            player_id=caller.player_id,
            currency=caller.currency,
            idempotency_key=f"session-player:{caller.player_id}:{idempotency_key}",
            operator_token=caller.operator_token,
        )
    if player_id is None or currency is None:
        field = "player_id" if player_id is None else "currency"
        message = "Field required (with an operator's key)"
        raise ProblemError(
            422,
            "invalid_request",
            f"body.{field}: {message}",
            errors=[{"field": f"body.{field}", "message": message}],
        )
    return Placement(caller.name, player_id, currency, idempotency_key, token)


def _session_token(authorization: str | None) -> str | None:
    scheme, _, token = (authorization or "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "session" and token else None


def _invalid_session(reason: str, path: str, session_id: UUID | None = None) -> ProblemError:
    problem = ProblemError(
        401, "invalid_session", "the session is not known, has expired or was ended"
    )
    if session_id is None:
        return refusal(f"session_{reason}", problem, path=path)
    return refusal(f"session_{reason}", problem, path=path, session=str(session_id))
