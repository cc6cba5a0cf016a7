"""Request-scoped dependencies every service's routes use: its wired components, its pool,
the caller's API key and the tables it may act on. All `async`: FastAPI runs a plain `def`
dependency in its thread pool, two thread hand-offs per request."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, TypeVar

import asyncpg
from fastapi import Depends, Header, Request, WebSocket

from teenpatti.access.authenticator import Authenticator
from teenpatti.access.holders import KeyHolder
from teenpatti.http import ProblemError

T = TypeVar("T")

ApiKeyHeader = Annotated[str | None, Header(alias="X-Api-Key")]


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


def holder_of(*roles: str) -> Callable[[Request, str | None], Awaitable[KeyHolder]]:
    """A dependency on the holder of the request's `X-Api-Key`, which must have one of
    `roles` (401 without a valid key, 403 with another role or, on a route whose path names
    a `{table_id}`, a key scoped to other tables: `authenticate`)."""

    async def holder(request: Request, x_api_key: ApiKeyHeader = None) -> KeyHolder:
        return await authenticate(request, x_api_key, *roles)

    return holder


Operator = Annotated[KeyHolder, Depends(holder_of("operator"))]
Supervisor = Annotated[KeyHolder, Depends(holder_of("supervisor"))]
Dealer = Annotated[KeyHolder, Depends(holder_of("dealer"))]
SupervisorOrDealer = Annotated[KeyHolder, Depends(holder_of("supervisor", "dealer"))]
