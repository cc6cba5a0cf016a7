"""What the studio console needs beyond plain forwarding: a table's live feed opened with the
supervisor's own key (sent in the first frame, never in a URL), and every service's problems
in one answer. Both act with the caller's key only: the services decide what it may see."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Response, Security, WebSocket
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from teenpatti.http import PROBLEM_JSON, ProblemError
from teenpatti.kernel.dependencies import KEY_SCHEMES

from .relay import FORBIDDEN, UNAUTHORIZED, UNKNOWN_TABLE, Closing, first_frame, relay
from .upstream import SERVICES, Upstreams, upstreams

router = APIRouter(tags=["console"])

MAX_POSITION = 2**31 - 1
UpstreamsDep = Annotated[Upstreams, Depends(upstreams)]


class ConsoleFeedStart(BaseModel):
    """The console feed's first frame."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    api_key: str = Field(min_length=1, max_length=512)
    after: int = Field(default=0, ge=0, le=MAX_POSITION)


@router.websocket("/api/console/feed/{table_id}")
async def console_feed(websocket: WebSocket, table_id: str) -> None:
    """Everything the table's feed sends, relayed with the key of the first frame
    `{"api_key", "after"}`; 4401/4403/4404 as the table answers."""
    start = await first_frame(websocket, ConsoleFeedStart)
    if start is None:
        return
    parts = upstreams(websocket)
    await relay(
        websocket,
        parts.ws_url("table", f"/tables/{table_id}/feed?after={start.after}"),
        {"X-Api-Key": start.api_key},
        lambda message: message,
        upstream_closings={
            UNAUTHORIZED: Closing(UNAUTHORIZED, "the key is unknown, expired or revoked"),
            FORBIDDEN: Closing(FORBIDDEN, f"this key may not read the table {table_id}"),
            UNKNOWN_TABLE: Closing(UNKNOWN_TABLE, f"table {table_id} was never opened"),
        },
    )


@router.get("/api/console/problems")
async def console_problems(
    parts: UpstreamsDep,
    # passed on as it came: each service checks it is a supervisor's
    x_api_key: Annotated[str | None, Security(KEY_SCHEMES["supervisor"])] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> Response:
    """Every service's `GET /problems`, asked with the caller's key:
    `{"services": {"table": {"reachable", "problems"}, ...}}`. When every service that
    answered refused the key, its refusal (401 or 403) is the answer."""
    headers = {"X-Api-Key": x_api_key} if x_api_key else {}
    answers = await asyncio.gather(
        *(_problems_of(parts, service, headers, limit) for service in SERVICES)
    )
    found = dict(zip(SERVICES, answers, strict=True))
    refusals = [a for a in answers if a.get("status") in (401, 403)]
    reached = [a for a in answers if a["reachable"]]
    if reached and len(refusals) == len(reached):
        refusal = refusals[0]
        return JSONResponse(
            refusal["error"], status_code=refusal["status"], media_type=PROBLEM_JSON
        )
    return JSONResponse({"services": found})


async def _problems_of(
    parts: Upstreams, service: str, headers: dict[str, str], limit: int
) -> dict[str, Any]:
    try:
        answer = await parts.request(
            service, "GET", "/problems", headers=headers, params={"limit": limit}
        )
    except ProblemError:
        return {"reachable": False, "problems": []}
    if answer.status_code == 200:
        return {"reachable": True, "problems": answer.json().get("items", [])}
    body = answer.json() if answer.headers.get("content-type") == PROBLEM_JSON else {}
    return {"reachable": True, "problems": [], "status": answer.status_code, "error": body}
