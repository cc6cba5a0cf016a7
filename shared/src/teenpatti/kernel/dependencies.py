"""Request-scoped dependencies every service's routes use: its wired components, its pool,
the caller's API key and the tables it may act on. All `async`: FastAPI runs a plain `def`
dependency in its thread pool, two thread hand-offs per request.

The key is read through FastAPI's security classes, one scheme per role (`KEY_SCHEMES`), so
that each operation's OpenAPI names the roles it takes; they refuse nothing themselves
(`auto_error=False`): `authenticate` does, with its own problem details."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Annotated, TypeVar

import asyncpg
from fastapi import Depends, Request, Security, WebSocket
from fastapi.security import APIKeyHeader
from fastapi.security.http import HTTPBase

from teenpatti.access.authenticator import Authenticator
from teenpatti.access.holders import KeyHolder
from teenpatti.access.keys import ROLES
from teenpatti.http import ProblemError

T = TypeVar("T")

API_KEY_HEADER = "X-Api-Key"

_KEY_RULES = (
    " Keys are issued by `teenpatti access` (docs/access.md) or configured (`TP_API_KEYS`)"
    " and expire or are revoked (401 `invalid_api_key`). Without a key: 401"
    " `missing_api_key`; a key of a role the operation does not list: 403 `forbidden`."
)

# the same header for every role: the scheme an operation lists says which roles it takes
KEY_SCHEMES: dict[str, APIKeyHeader] = {
    "operator": APIKeyHeader(
        name=API_KEY_HEADER,
        scheme_name="operatorKey",
        auto_error=False,
        description="An operator's API key (role `operator`); its holder's name is the"
        " operator id, which scopes every player, bet and report the key reads." + _KEY_RULES,
    ),
    "supervisor": APIKeyHeader(
        name=API_KEY_HEADER,
        scheme_name="supervisorKey",
        auto_error=False,
        description="A studio supervisor's API key (role `supervisor`): opens and runs"
        " tables, approves a second supervisor's proposals, reads what the services hold for"
        " a person (`/problems`). It may be scoped to some tables: 403 `table_not_in_scope`"
        " on another's." + _KEY_RULES,
    ),
    "dealer": APIKeyHeader(
        name=API_KEY_HEADER,
        scheme_name="dealerKey",
        auto_error=False,
        description="A dealer's API key (role `dealer`): reports what happens at its table"
        " (a pause, the video lost or back) and reads it. It may be scoped to some tables:"
        " 403 `table_not_in_scope` on another's." + _KEY_RULES,
    ),
    "viewer": APIKeyHeader(
        name=API_KEY_HEADER,
        scheme_name="viewerKey",
        auto_error=False,
        description="A viewer's API key (role `viewer`, the web front's own): reads tables,"
        " results and feeds, and acts on nothing." + _KEY_RULES,
    ),
}

# the wallet's and the web front's: `wallet_service.session_auth.player_session` refuses
PLAYER_SESSION = HTTPBase(
    scheme="Session",
    scheme_name="playerSession",
    auto_error=False,
    description="A player's session: `Authorization: Session <token>`, the token the player"
    " view got once from `POST /sessions/launch`. It acts for one player, in one currency, at"
    " one table, until the session expires or its operator ends it; a missing, unknown,"
    " expired or ended session: 401 `invalid_session`.",
)


def provide(kind: type[T]) -> Callable[[Request], Awaitable[T]]:
    """A dependency on the service's wired components (`Wiring.components`) of type `kind`."""

    async def component(request: Request) -> T:
        return _component(request, kind)

    return component


def provide_ws(kind: type[T]) -> Callable[[WebSocket], Awaitable[T]]:
    """`provide` for a WebSocket route."""

    async def component(websocket: WebSocket) -> T:
        return _component(websocket, kind)

    return component


def _component(connection: Request | WebSocket, kind: type[T]) -> T:
    components = connection.app.state.components
    if not isinstance(components, kind):
        raise ProblemError(503, "service_unavailable", "the service is starting or stopping")
    return components


async def _pool(request: Request) -> asyncpg.Pool:
    kernel = request.app.state.kernel
    if kernel is None:
        raise ProblemError(503, "service_unavailable", "the service is starting or stopping")
    pool: asyncpg.Pool = kernel.pool
    return pool


Pool = Annotated[asyncpg.Pool, Depends(_pool)]


def authenticator(connection: Request | WebSocket) -> Authenticator:
    found: Authenticator = connection.app.state.authenticator
    return found


async def authenticate(connection: Request | WebSocket, key: str | None, *roles: str) -> KeyHolder:
    """The holder of `key`, which must have one of `roles` (any role when none is named) and,
    when the route's path names a `{table_id}` (or a `{round_id}`, whose table it names), may
    act on that table: else a 401 or 403 problem, the refusal logged and counted
    (docs/access.md)."""
    path = connection.url.path
    holder = await authenticator(connection).holder(key, roles, path)
    table_id = connection.path_params.get("table_id")
    round_id = connection.path_params.get("round_id")
    if not isinstance(table_id, str) and isinstance(round_id, str):
        # a round's id is `<table id>-<number>` (table_service.domain.state.round_id_for)
        table_id = round_id.rpartition("-")[0]
    if isinstance(table_id, str):
        holder.require_table(table_id, path)
    return holder


def holder_of(*roles: str) -> Callable[..., Awaitable[KeyHolder]]:
    """A dependency on the holder of the request's `X-Api-Key`, which must have one of
    `roles` (401 without a valid key, 403 with another role or, on a route whose path names
    a `{table_id}`, a key scoped to other tables: `authenticate`)."""

    schemes = roles or ROLES  # no role named: any key, whatever its role

    async def holder(request: Request, **keys: str | None) -> KeyHolder:
        # every scheme reads the same header: the first given is the key
        return await authenticate(request, next(filter(None, keys.values()), None), *roles)

    # one parameter per role's scheme: FastAPI lists each as an alternative (`security`)
    holder.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter(
                "request", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Request
            ),
            *(
                inspect.Parameter(
                    f"{role}_key",
                    inspect.Parameter.KEYWORD_ONLY,
                    annotation=Annotated[str | None, Security(KEY_SCHEMES[role])],
                    default=None,
                )
                for role in schemes
            ),
        ],
        return_annotation=KeyHolder,
    )
    return holder


Operator = Annotated[KeyHolder, Depends(holder_of("operator"))]
Supervisor = Annotated[KeyHolder, Depends(holder_of("supervisor"))]
Dealer = Annotated[KeyHolder, Depends(holder_of("dealer"))]
SupervisorOrDealer = Annotated[KeyHolder, Depends(holder_of("supervisor", "dealer"))]
