"""Relaying a table's WebSocket feed to a page, for the player's and the console's feeds.

The page opens the web front's socket and says who it is in its first text frame (never in
the URL, which proxies and browsers keep); the web front then opens the table service's feed
with the right key in a header and passes every message on, through a filter, in order. The
table's positions are kept as they are, so a page that reconnects with the last position it
saw (`after`) misses nothing and sees nothing twice. The close codes a page acts on:
4400 a bad first frame, 4401/4403 refused, 4404 an unknown table, 1011 the upstream feed was
lost (reconnect with `after`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from fastapi import WebSocket
from pydantic import BaseModel, ValidationError
from starlette.websockets import WebSocketState
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from .callers import passed_on

log = logging.getLogger(__name__)

BAD_FIRST_FRAME = 4400
UNAUTHORIZED = 4401
FORBIDDEN = 4403
UNKNOWN_TABLE = 4404
UPSTREAM_LOST = 1011
# how long a page may take to send its first frame before the socket is closed
FIRST_FRAME_SECONDS = 10.0
OPEN_UPSTREAM_SECONDS = 10.0

Frame = TypeVar("Frame", bound=BaseModel)
# a feed message as the page gets it, or None: not for this page
Filter = Callable[[dict[str, Any]], dict[str, Any] | None]


@dataclass(frozen=True)
class Closing:
    """How the page's socket is closed."""

    code: int
    reason: str


async def first_frame(websocket: WebSocket, shape: type[Frame]) -> Frame | None:
    """The page's first text frame as `shape`; else the socket is closed (4400) and None."""
    await websocket.accept()
    try:
        async with asyncio.timeout(FIRST_FRAME_SECONDS):
            text = await websocket.receive_text()
        return shape.model_validate_json(text)
    except (TimeoutError, ValidationError, KeyError, RuntimeError) as error:
        reason = (
            "send the first frame within seconds"
            if isinstance(error, TimeoutError)
            else f"the first frame must be a JSON object: {', '.join(shape.model_fields)}"
        )
        await close(websocket, Closing(BAD_FIRST_FRAME, reason))
        return None
    except Exception:  # the page left before saying anything
        return None


async def relay(
    websocket: WebSocket,
    url: str,
    headers: Mapping[str, str],
    keep: Filter,
    *,
    upstream_closings: Mapping[int, Closing],
    watch: Callable[[], Coroutine[Any, Any, Closing]] | None = None,
) -> None:
    """Pass the feed at `url` (opened with `headers`, and the page's client address) to the
    page through `keep`, until one side leaves or `watch` returns a reason to stop. A close
    code of the table's in `upstream_closings` is passed on as it says (the table closes a
    feed whose key is revoked or expires: 4401); any other end of the upstream feed is
    1011."""
    try:
        upstream = await connect(
            url,
            additional_headers={**headers, **passed_on()},
            open_timeout=OPEN_UPSTREAM_SECONDS,
        )
    except (OSError, InvalidHandshake, TimeoutError) as error:
        log.warning("feed %s: cannot open the upstream feed: %r", websocket.url.path, error)
        await close(websocket, Closing(UPSTREAM_LOST, "the live feed is unavailable; retry"))
        return
    tasks: list[asyncio.Task[Closing | None]] = [
        asyncio.create_task(_pump(upstream, websocket, keep, upstream_closings)),
        asyncio.create_task(_page_left(websocket)),
    ]
    if watch is not None:
        tasks.append(asyncio.create_task(watch()))
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        closing = next(iter(done)).result()
    except Exception as error:  # the page left while a message was sent, or a check failed
        log.info("feed %s ended: %r", websocket.url.path, error)
        closing = Closing(UPSTREAM_LOST, "the live feed was interrupted; reconnect with after")
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await upstream.close()
    if closing is not None:
        await close(websocket, closing)


async def _pump(
    upstream: ClientConnection,
    websocket: WebSocket,
    keep: Filter,
    closings: Mapping[int, Closing],
) -> Closing:
    try:
        async for raw in upstream:
            message = keep(json.loads(raw))
            if message is not None:
                await websocket.send_text(json.dumps(message, separators=(",", ":")))
    except ConnectionClosed:
        pass
    lost = Closing(UPSTREAM_LOST, "the live feed was interrupted; reconnect with after")
    code = upstream.close_code
    return lost if code is None else closings.get(code, lost)


async def _page_left(websocket: WebSocket) -> None:
    with contextlib.suppress(Exception):
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return


async def close(websocket: WebSocket, closing: Closing) -> None:
    if websocket.client_state is WebSocketState.CONNECTED:
        with contextlib.suppress(Exception):
            await websocket.close(code=closing.code, reason=closing.reason[:120])
