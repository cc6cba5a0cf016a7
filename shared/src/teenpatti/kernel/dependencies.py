"""Request-scoped dependencies every service's routes use: its wired components, its pool,
the caller's API key. All `async`: FastAPI runs a plain `def` dependency in its thread pool,
two thread hand-offs per request."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, TypeVar

import asyncpg
from fastapi import Depends, Header, Request, WebSocket

from teenpatti.http import ApiKeys, KeyHolder, ProblemError

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


def api_keys(connection: Request | WebSocket) -> ApiKeys:
    keys: ApiKeys = connection.app.state.api_keys
    return keys


def holder_of(*roles: str) -> Callable[[Request, str | None], Awaitable[KeyHolder]]:
    """A dependency on the holder of the request's `X-Api-Key`, which must have one of
    `roles` (401 without a known key, 403 with another role)."""

    async def holder(request: Request, x_api_key: ApiKeyHeader = None) -> KeyHolder:
        return api_keys(request).holder(x_api_key, *roles)

    return holder


Operator = Annotated[KeyHolder, Depends(holder_of("operator"))]
Supervisor = Annotated[KeyHolder, Depends(holder_of("supervisor"))]
Dealer = Annotated[KeyHolder, Depends(holder_of("dealer"))]
SupervisorOrDealer = Annotated[KeyHolder, Depends(holder_of("supervisor", "dealer"))]
