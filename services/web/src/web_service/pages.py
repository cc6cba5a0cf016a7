"""The pages and their files, and the headers every answer carries.

Plain HTML, CSS and ES modules from `static/`, no build step, nothing from another origin;
and `/currencies.json`, the platform's one currency table, by which the pages format amounts.
The Content-Security-Policy allows only this origin's scripts, styles, images (and `data:`
images) and connections, so an injected `<script>`, inline handler or `style=` attribute
does nothing; `frame-ancestors` lets only the operators' lobbies (`TP_WEB_FRAME_ANCESTORS`)
frame the player view, and nobody the rest.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from teenpatti.currencies import CURRENCIES_FILE
from teenpatti.http import ProblemError

STATIC = Path(__file__).parent / "static"
POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
    " connect-src 'self'; base-uri 'none'; form-action 'self'"
)
# the pages an operator's lobby may frame: the player view only
FRAMED_PREFIX = "/play/"

router = APIRouter(tags=["pages"])


def _page(name: str) -> FileResponse:
    path = STATIC / name
    if not path.is_file():
        raise ProblemError(404, "not_found", f"the page {name} is not installed")
    # a page is small and changes with a release: always asked again, cheap with its ETag
    return FileResponse(path, media_type="text/html", headers={"Cache-Control": "no-cache"})


@router.get("/", include_in_schema=False)
async def index() -> FileResponse:
    return _page("index.html")


@router.get("/console", include_in_schema=False)
async def console() -> FileResponse:
    """The studio console (a supervisor's key, kept in the tab)."""
    return _page("console.html")


@router.get("/play/{table_id}", include_in_schema=False)
async def play(table_id: str) -> FileResponse:
    """The player view: `?ticket=<launch ticket>&lang=<language>` (a session's launch URL)."""
    return _page("play.html")


@router.get("/currencies.json", include_in_schema=False)
async def currencies() -> FileResponse:
    """Every currency the platform accepts and its minor unit: the one table the wallet uses
    (teenpatti.currencies), read by the pages' `money.js` to format amounts."""
    return FileResponse(
        CURRENCIES_FILE, media_type="application/json", headers={"Cache-Control": "no-cache"}
    )


class SecurityHeaders:
    """ASGI middleware: every HTTP answer gets the CSP (with the framing its path allows),
    `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer` (a launch URL's
    ticket never leaves in a Referer)."""

    def __init__(self, app: ASGIApp, frame_ancestors: str) -> None:
        self._app = app
        self._framed = f"{POLICY}; frame-ancestors {frame_ancestors}"
        self._unframed = f"{POLICY}; frame-ancestors 'none'"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        policy = self._framed if scope["path"].startswith(FRAMED_PREFIX) else self._unframed

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["Content-Security-Policy"] = policy
                headers["X-Content-Type-Options"] = "nosniff"
                headers["Referrer-Policy"] = "no-referrer"
                if policy is self._unframed:
                    headers["X-Frame-Options"] = "DENY"  # for browsers without CSP 2
            await send(message)

        await self._app(scope, receive, with_headers)
