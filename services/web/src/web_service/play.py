"""The player view's read-only window on its own table.

A player holds a session (`Authorization: Session <token>`), no API key, and the table
service answers only keys. So for the table of the session, and for it only, the web front
reads with its own key (role `viewer`): the table's state, its results and its live feed,
with what a player need not see taken out (who paused or voided a round and why, the
scanner's ids, changes and voids waiting for approval). The session is checked with the wallet's
`GET /me` on every call and, on the feed, at its start and every `SESSION_CHECK_SECONDS`.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Annotated, Any

import httpx
from fastapi import APIRouter, Depends, Query, Response, Security, WebSocket
from fastapi.security import HTTPAuthorizationCredentials
from pydantic import BaseModel, ConfigDict, Field

from teenpatti.http import PROBLEM_JSON, ProblemError
from teenpatti.kernel.dependencies import PLAYER_SESSION

from .relay import (
    UNAUTHORIZED,
    UNKNOWN_TABLE,
    UPSTREAM_LOST,
    Closing,
    close,
    first_frame,
    relay,
)
from .upstream import Upstreams, UpstreamUnavailableError, upstreams

log = logging.getLogger(__name__)

router = APIRouter(tags=["player view"])

# the table events a player's view is made of; the others (proposed changes, refused
# cards, exposed cards, voids waiting for a second supervisor) are the studio's business
PLAYER_EVENTS = frozenset(
    {
        "TableOpened",
        "TableClosed",
        "RoundOpened",
        "BettingClosed",
        "CardDealt",
        "CardsWithdrawn",
        "RoundPaused",
        "RoundResumed",
        "RoundCancelled",
        "RoundClosed",
        "RoundVoided",
    }
)
# who did it and why (people's names, studio notes) and the scanner's ids
HIDDEN_PAYLOAD_FIELDS = frozenset(
    {"actor", "approved_by", "marked_by", "requested_by", "reason", "scan_id"}
)
HIDDEN_TABLE_FIELDS = frozenset({"closed_reason", "pending_change", "result_voids"})
# a round voided after its result: why is the studio's note
HIDDEN_RESULT_FIELDS = frozenset({"void_reason"})
HIDDEN_ROUND_FIELDS = frozenset(
    {
        "pause_reason",
        "paused_by",
        "cancelled_by",
        "cancel_reason",
        "void_requested_by",
        "card_marked_wrong",
        "card_marked_wrong_by",
    }
)
SESSION_CHECK_SECONDS = 30.0
MAX_POSITION = 2**31 - 1

UpstreamsDep = Annotated[Upstreams, Depends(upstreams)]


class PlayerSession(BaseModel):
    """The wallet's `GET /me` answer: whose session, at which table."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    session_id: str
    player_id: str
    currency: str
    language: str
    table_id: str


class PlayerFeedStart(BaseModel):
    """The player feed's first frame."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    session: str = Field(min_length=1, max_length=512)
    after: int = Field(default=0, ge=0, le=MAX_POSITION)


class SessionRefusedError(ProblemError):
    """The wallet refused the session: its status, code and detail are answered."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        code = str(body.get("code", "invalid_session"))
        super().__init__(status, code, str(body.get("detail", "the session was refused")))


async def session_of(parts: Upstreams, authorization: str) -> PlayerSession:
    """The session of `Authorization: Session <token>` as the wallet knows it; else the
    wallet's refusal (SessionRefusedError), or UpstreamUnavailableError."""
    answer = await parts.request("wallet", "GET", "/me", headers={"Authorization": authorization})
    if answer.status_code == 200:
        return PlayerSession.model_validate(answer.json())
    if answer.status_code in (401, 403):
        body = answer.json() if answer.headers.get("content-type") == PROBLEM_JSON else {}
        raise SessionRefusedError(answer.status_code, body)
    raise UpstreamUnavailableError("wallet")


async def player_session(
    parts: UpstreamsDep,
    authorization: Annotated[HTTPAuthorizationCredentials | None, Security(PLAYER_SESSION)] = None,
) -> PlayerSession:
    if authorization is None or authorization.scheme != "Session":
        raise ProblemError(
            401, "invalid_session", "send the player's session: Authorization: Session <token>"
        )
    return await session_of(parts, f"Session {authorization.credentials}")


Player = Annotated[PlayerSession, Depends(player_session)]


@router.get("/api/play/table")
async def play_table(player: Player, parts: UpstreamsDep) -> Response:
    """The session's table as the table service answers `GET /tables/{id}`, without the
    supervisors' names and notes."""
    answer = _from_table(
        await parts.request("table", "GET", f"/tables/{player.table_id}", headers=parts.viewer)
    )
    if answer.status_code != 200:
        return _as_is(answer)
    return Response(json.dumps(player_table(answer.json())), media_type="application/json")


@router.get("/api/play/results")
async def play_results(
    player: Player,
    parts: UpstreamsDep,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    before: Annotated[
        str | None,
        Query(
            max_length=200,
            description="The `next` of the page before (a round id of the session's table):"
            " the rounds older than it; left out for the newest.",
        ),
    ] = None,
) -> Response:
    """The session's table's last results, newest first (`GET /tables/{id}/results`),
    without why a round was voided."""
    params: dict[str, str | int] = {"limit": limit}
    if before is not None:
        params["before"] = before
    answer = _from_table(
        await parts.request(
            "table",
            "GET",
            f"/tables/{player.table_id}/results",
            headers=parts.viewer,
            params=params,
        )
    )
    if answer.status_code != 200:
        return _as_is(answer)
    return Response(json.dumps(player_results(answer.json())), media_type="application/json")


@router.websocket("/api/play/feed")
async def play_feed(websocket: WebSocket) -> None:
    """The session's table's feed for a player: first frame `{"session", "after"}`."""
    start = await first_frame(websocket, PlayerFeedStart)
    if start is None:
        return
    parts = upstreams(websocket)
    authorization = f"Session {start.session}"
    try:
        player = await session_of(parts, authorization)
    except SessionRefusedError:
        await close(websocket, Closing(UNAUTHORIZED, "the session is unknown, ended or expired"))
        return
    except ProblemError:
        await close(websocket, Closing(UPSTREAM_LOST, "the wallet cannot be reached; retry"))
        return

    async def session_ends() -> Closing:
        while True:
            await asyncio.sleep(SESSION_CHECK_SECONDS)
            try:
                await session_of(parts, authorization)
            except SessionRefusedError:
                return Closing(UNAUTHORIZED, "the session has ended or expired")
            except ProblemError:
                continue  # the wallet is away for a moment: the session was valid

    await relay(
        websocket,
        parts.ws_url("table", f"/tables/{player.table_id}/feed?after={start.after}"),
        parts.viewer,
        player_message,
        # the web front's own key refused is not the player's doing: a server error
        upstream_closings={
            UNKNOWN_TABLE: Closing(UNKNOWN_TABLE, f"table {player.table_id} was never opened")
        },
        watch=session_ends,
    )


def player_message(message: dict[str, Any]) -> dict[str, Any] | None:
    """A table feed message as a player sees it, or None: not a player's business."""
    if message.get("event_type") not in PLAYER_EVENTS:
        return None
    payload = {
        name: value
        for name, value in dict(message.get("payload") or {}).items()
        if name not in HIDDEN_PAYLOAD_FIELDS
    }
    return {**message, "payload": payload}


def player_table(table: dict[str, Any]) -> dict[str, Any]:
    """`GET /tables/{id}`'s answer as a player sees it."""
    seen = {name: value for name, value in table.items() if name not in HIDDEN_TABLE_FIELDS}
    round_in_play = seen.get("round")
    if isinstance(round_in_play, dict):
        seen["round"] = {
            name: value for name, value in round_in_play.items() if name not in HIDDEN_ROUND_FIELDS
        }
    return seen


def player_results(page: dict[str, Any]) -> dict[str, Any]:
    """`GET /tables/{id}/results`' answer as a player sees it."""
    results = page.get("results")
    if not isinstance(results, list):
        return page
    return {
        **page,
        "results": [
            {name: value for name, value in result.items() if name not in HIDDEN_RESULT_FIELDS}
            if isinstance(result, dict)
            else result
            for result in results
        ],
    }


def _from_table(answer: httpx.Response) -> httpx.Response:
    """The table service's answer to the web front's own key; its refusal of that key is not
    the player's doing, nor the player's to read: a server error, logged."""
    if answer.status_code in (401, 403):
        log.error("the table service refused the web front's key (TP_WEB_API_KEY): %s", answer.text)
        raise ProblemError(
            502,
            "upstream_refused",
            "the table service refused the web front's own key: a configuration error",
            service="table",
        )
    return answer


def _as_is(answer: httpx.Response) -> Response:
    """The table's refusal as it is, with how long to wait (429, 503)."""
    response = Response(
        answer.content,
        status_code=answer.status_code,
        media_type=answer.headers.get("content-type") or PROBLEM_JSON,
    )
    if "retry-after" in answer.headers:
        response.headers["Retry-After"] = answer.headers["retry-after"]
    return response
