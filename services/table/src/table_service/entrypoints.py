"""HTTP routes (thin: a key check, then a use case) and the WebSocket feed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request, Response, WebSocket
from pydantic import BaseModel, ConfigDict, Field
from redis.asyncio.client import PubSub
from redis.exceptions import RedisError
from starlette.websockets import WebSocketDisconnect, WebSocketState

from teenpatti.http import ApiKeys, KeyHolder, ProblemError

from .adapters.redis_feed import RedisTableFeed, feed_message
from .adapters.tables import list_tables, read_table_stream, table_exists
from .clock import ClockManager
from .domain import OpenTable, TableState, TableStatus, state_view
from .handlers import TableService

log = logging.getLogger(__name__)

router = APIRouter()

MAX_EVENTS_PAGE = 1000
# stream versions are Postgres `integer`: a position beyond it is refused, not sent to SQL
MAX_POSITION = 2**31 - 1
# with no live message for this long the feed checks the store itself (a lost publish, or
# a feed consumer that is behind, must not leave a client waiting forever)
FEED_RESYNC_SECONDS = 2.0


@dataclass
class Components:
    """What the routes need, set up by the app's lifespan."""

    service: TableService
    feed: RedisTableFeed
    keys: ApiKeys
    clocks: ClockManager | None = None


# async, though they never wait: FastAPI runs a plain `def` dependency in its thread pool,
# two thread hand-offs per request (the gateway spent ~12% of its CPU on them at 1,000 tables)
async def components(request: Request) -> Components:
    found: Components | None = getattr(request.app.state, "components", None)
    if found is None:
        raise ProblemError(503, "starting", "the service is starting")
    return found


Parts = Annotated[Components, Depends(components)]
ApiKeyHeader = Annotated[str | None, Header(alias="X-Api-Key")]


async def any_key(parts: Parts, x_api_key: ApiKeyHeader = None) -> KeyHolder:
    return parts.keys.holder(x_api_key)


async def supervisor_key(parts: Parts, x_api_key: ApiKeyHeader = None) -> KeyHolder:
    return parts.keys.holder(x_api_key, "supervisor")


Reader = Annotated[KeyHolder, Depends(any_key)]
Supervisor = Annotated[KeyHolder, Depends(supervisor_key)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TableOpen(_Body):
    table_id: str = Field(min_length=1, max_length=200)  # the domain checks the format
    name: str = Field(min_length=1, max_length=100)
    betting_seconds: float
    result_pause_seconds: float
    # checked by the domain, which names the exact problem (unpriced bet type, min > max...)
    limits: dict[str, Any]
    paytable: dict[str, Any] | None = None


class Reason(_Body):
    reason: str = Field(min_length=1, max_length=500)


class OptionalReason(_Body):
    reason: str | None = Field(default=None, max_length=500)


@router.get("/health")
async def health() -> dict[str, str]:
    return {"service": "table", "status": "ok"}


@router.get("/clocks")
async def get_clocks(_: Reader, parts: Parts) -> dict[str, Any]:
    """This instance's share of the work: the partitions of `table-scans` it owns and the
    tables whose clocks it runs (operations, and the takeover test)."""
    clocks = parts.clocks
    return {
        "partitions": [] if clocks is None else sorted(clocks.owned_partitions),
        "tables": [] if clocks is None else sorted(clocks.running_tables),
    }


@router.post("/tables", status_code=201)
async def open_table(
    body: TableOpen, holder: Supervisor, parts: Parts, response: Response
) -> dict[str, Any]:
    command = OpenTable(
        table_id=body.table_id,
        name=body.name,
        betting_seconds=body.betting_seconds,
        result_pause_seconds=body.result_pause_seconds,
        limits=body.limits,
        paytable=body.paytable,
    )
    state, created = await parts.service.open_table(command, holder.name)
    if not created:
        response.status_code = 200
    return state_view(state)


@router.get("/tables")
async def get_tables(_: Reader, parts: Parts) -> dict[str, Any]:
    return {"tables": await list_tables(parts.service.store.pool)}


@router.get("/tables/{table_id}")
async def get_table(table_id: str, _: Reader, parts: Parts) -> dict[str, Any]:
    try:
        live = await parts.feed.live_state(table_id)
    except RedisError as error:  # Redis is a cache here: the store still answers
        log.warning("live state of %s unavailable from Redis: %s", table_id, error)
        live = None
    if live is not None:
        return live
    state = await parts.service.load(table_id)
    _require_known(state)
    view = state_view(state)
    with contextlib.suppress(RedisError):
        await parts.feed.store_state(table_id, view)
    return view


@router.get("/tables/{table_id}/events")
async def get_events(
    table_id: str,
    _: Reader,
    parts: Parts,
    after: Annotated[int, Query(ge=0, le=MAX_POSITION)] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_EVENTS_PAGE)] = MAX_EVENTS_PAGE,
) -> dict[str, Any]:
    rows = await read_table_stream(parts.service.store.pool, table_id, after, limit)
    if not rows and not await table_exists(parts.service.store.pool, table_id):
        raise ProblemError(404, "unknown_table", f"table {table_id} was never opened")
    events = [
        feed_message(row.stream_version, row.event_type, row.payload, row.occurred_at.isoformat())
        for row in rows
    ]
    return {"table_id": table_id, "after": after, "events": events}


@router.post("/tables/{table_id}/close")
async def close_table(table_id: str, body: Reason, holder: Supervisor, parts: Parts) -> Any:
    return state_view(await parts.service.close_table(table_id, holder.name, body.reason))


@router.post("/tables/{table_id}/pause")
async def pause_round(table_id: str, body: Reason, holder: Supervisor, parts: Parts) -> Any:
    return state_view(await parts.service.pause(table_id, holder.name, body.reason))


@router.post("/tables/{table_id}/resume")
async def resume_round(
    table_id: str, holder: Supervisor, parts: Parts, body: OptionalReason | None = None
) -> Any:
    return state_view(await parts.service.resume(table_id, holder.name))


@router.post("/tables/{table_id}/cancel")
async def cancel_round(table_id: str, body: Reason, holder: Supervisor, parts: Parts) -> Any:
    return state_view(await parts.service.cancel(table_id, holder.name, body.reason))


def _require_known(state: TableState) -> None:
    if state.status is TableStatus.UNKNOWN:
        raise ProblemError(404, "unknown_table", f"table {state.table_id} was never opened")


# ---------------------------------------------------------------------------- WebSocket
@router.websocket("/tables/{table_id}/feed")
async def table_feed(
    websocket: WebSocket,
    table_id: str,
    after: Annotated[int, Query(ge=0, le=MAX_POSITION)] = 0,
    key: str | None = None,
) -> None:
    """Every event after `after`, then live ones, in stream order with no gap or repeat."""
    parts: Components | None = getattr(websocket.app.state, "components", None)
    if parts is None:
        await websocket.accept()
        await websocket.close(code=1013, reason="the service is starting or stopping")
        return
    try:
        parts.keys.holder(key or websocket.headers.get("x-api-key"))
    except ProblemError as error:
        await websocket.accept()
        await websocket.close(code=4401 if error.status == 401 else 4403, reason=error.detail)
        return
    if not await table_exists(parts.service.store.pool, table_id):
        await websocket.accept()
        await websocket.close(code=4404, reason=f"table {table_id} was never opened")
        return
    pubsub = parts.feed.redis.pubsub()
    await websocket.accept()
    try:
        # subscribe before reading the catch-up: an event appended meanwhile is then either
        # in the catch-up or on the channel (and skipped if in both)
        await pubsub.subscribe(parts.feed.channel(table_id))
    except RedisError as error:
        log.warning("feed of %s: Redis unavailable: %s", table_id, error)
        await websocket.close(code=1011, reason="the live feed is unavailable; retry")
        return
    disconnected = asyncio.create_task(_wait_disconnect(websocket))
    try:
        await _stream(websocket, pubsub, parts, table_id, after, disconnected)
    except (WebSocketDisconnect, RuntimeError, ConnectionError):
        pass  # the client left
    except RedisError as error:
        # the client reconnects with the last position it received and misses nothing
        log.warning("feed of %s: Redis failed: %s", table_id, error)
        with contextlib.suppress(Exception):
            await websocket.close(code=1011, reason="the live feed was interrupted; reconnect")
    finally:
        disconnected.cancel()
        with contextlib.suppress(Exception):
            await pubsub.unsubscribe()
            await pubsub.aclose()  # type: ignore[no-untyped-call]
        if websocket.client_state is WebSocketState.CONNECTED:
            with contextlib.suppress(Exception):
                await websocket.close()


async def _stream(
    websocket: WebSocket,
    pubsub: PubSub,
    parts: Components,
    table_id: str,
    after: int,
    disconnected: asyncio.Task[None],
) -> None:
    sent = after
    sent = await _catch_up(websocket, parts, table_id, sent)
    idle = 0.0
    while not disconnected.done():
        message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.5)
        if message is None:
            idle += 0.5
            if idle >= FEED_RESYNC_SECONDS:
                sent, idle = await _catch_up(websocket, parts, table_id, sent), 0.0
            continue
        idle = 0.0
        event = json.loads(message["data"])
        position = int(event["position"])
        if position <= sent:
            continue  # already sent (from the catch-up, or a repeated publish)
        if position > sent + 1:
            sent = await _catch_up(websocket, parts, table_id, sent)  # fill a gap from the store
            if position <= sent:
                continue
        await websocket.send_json(event)
        sent = position


async def _catch_up(websocket: WebSocket, parts: Components, table_id: str, sent: int) -> int:
    """Send what the store holds after `sent`; the new last position sent."""
    while True:
        rows = await read_table_stream(parts.service.store.pool, table_id, sent, MAX_EVENTS_PAGE)
        for row in rows:
            await websocket.send_json(
                feed_message(
                    row.stream_version, row.event_type, row.payload, row.occurred_at.isoformat()
                )
            )
            sent = row.stream_version
        if len(rows) < MAX_EVENTS_PAGE:
            return sent


async def _wait_disconnect(websocket: WebSocket) -> None:
    with contextlib.suppress(Exception):
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
