"""`GET /demo/play`, in development only: a demo player's view of a running table, for
`make run` to print one address that always works.

A launch URL holds a single-use ticket that lasts seconds, so it cannot be printed once and
opened later: each visit opens a fresh session, as an operator's lobby would, for a demo
player of the transfer operator `operator-2` (its development key, public anyway), funds it
when its balance runs low, and redirects to the session's launch URL. Outside development
the route answers 404: no operator's key is used by the web front there.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse

from teenpatti.http import ProblemError
from teenpatti.settings import DEVELOPMENT

from .upstream import Upstreams, upstreams

router = APIRouter(tags=["demo"])

DEMO_OPERATOR_KEY = {"X-Api-Key": "dev-operator-2-key"}  # a development key: dev only
DEMO_PLAYER = "demo-player"
DEMO_CURRENCY = "INR"
DEMO_DEPOSIT = 10_000_000  # minor units: 100,000.00 INR
LOW_BALANCE = 1_000_000


@router.get("/demo/play", include_in_schema=False)
async def demo_play(
    request: Request,
    table: Annotated[str | None, Query(max_length=32)] = None,
    lang: Annotated[Literal["en", "th", "fa", "ja", "ru"], Query()] = "en",
    player: Annotated[str, Query(pattern=r"^demo-[a-z0-9-]{1,40}$")] = DEMO_PLAYER,
) -> RedirectResponse:
    """A fresh session of a demo player at `table` (default: the first open table), then its
    launch URL."""
    if request.app.state.env != DEVELOPMENT:
        raise ProblemError(404, "not_found", "Not Found")
    parts = upstreams(request)
    table_id = table or await _first_open_table(parts)
    await _fund(parts, player)
    opened = await parts.request(
        "wallet",
        "POST",
        "/sessions",
        headers=DEMO_OPERATOR_KEY,
        json={
            "token": f"demo-{uuid.uuid4()}",
            "player_id": player,
            "currency": DEMO_CURRENCY,
            "language": lang,
            "table_id": table_id,
        },
    )
    _expect(opened.status_code == 201, "open a session", opened.json())
    return RedirectResponse(str(opened.json()["launch_url"]), status_code=303)


async def _first_open_table(parts: Upstreams) -> str:
    answer = await parts.request("table", "GET", "/tables", headers=parts.viewer)
    _expect(answer.status_code == 200, "list the tables", answer.json())
    tables = [t for t in answer.json()["tables"] if t.get("status") == "open"]
    if not tables:
        raise ProblemError(404, "no_open_table", "no table is open: open one first")
    return str(sorted(tables, key=lambda t: str(t["table_id"]))[0]["table_id"])


async def _fund(parts: Upstreams, player: str) -> None:
    balances = await parts.request(
        "wallet", "GET", f"/players/{player}/balances", headers=DEMO_OPERATOR_KEY
    )
    _expect(balances.status_code == 200, "read the balance", balances.json())
    if int(balances.json().get(DEMO_CURRENCY, 0)) >= LOW_BALANCE:
        return
    deposit = await parts.request(
        "wallet",
        "POST",
        f"/players/{player}/deposits",
        headers=DEMO_OPERATOR_KEY,
        json={"transfer_id": str(uuid.uuid4()), "currency": DEMO_CURRENCY, "amount": DEMO_DEPOSIT},
    )
    _expect(deposit.status_code in (200, 201), "deposit", deposit.json())


def _expect(ok: bool, what: str, answer: Any) -> None:
    if not ok:
        detail = answer.get("detail") if isinstance(answer, dict) else answer
        raise ProblemError(502, "demo_failed", f"the demo could not {what}: {detail}")
