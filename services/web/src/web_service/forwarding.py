"""`/api/{service}/{path}`: the pages' calls to the services, with the caller's own
credentials only.

The method, the path as the caller wrote it, the query and the body (at most
`TP_HTTP_MAX_BODY_BYTES`, 64 KiB: the app's body limit) go to the service, with only the
headers a page may need and the caller's address (`X-Forwarded-For`); the service's status,
body and content type come back unchanged, its problem details included. The web front adds
nothing of its own, its key least of all: a caller without a key gets the service's 401
(docs/decisions/0074-a-stateless-web-front.md). What is not the pages' business is not
passed on: a service's probes, its metrics and its API documents (404), and a path that
hides a slash, a backslash or a dot segment in percent-encoding, which a server on the way
could read as another path (400 `invalid_path`).
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import unquote

from fastapi import APIRouter, Depends, Request, Response

from teenpatti.http import ProblemError

from .upstream import SERVICES, Upstreams, upstreams

router = APIRouter(tags=["forwarding"])

# what a page sends that a service reads; nothing else goes through (no cookie, no
# X-Forwarded-* of the caller's: `Upstreams.request` names the client itself, no header a
# service could take for the web front's own)
FORWARDED_REQUEST_HEADERS = (
    "x-api-key",
    "authorization",
    "idempotency-key",
    "content-type",
    "accept",
)
# beside the content type: how long to wait before retrying (429, 503)
FORWARDED_RESPONSE_HEADERS = ("retry-after",)
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]
# a service's own routes that no page calls: the probes, the scrape, the API documents
NOT_FORWARDED = frozenset({"health", "ready", "metrics", "docs", "redoc", "openapi.json"})

UpstreamsDep = Annotated[Upstreams, Depends(upstreams)]


@router.api_route("/api/{service}/{path:path}", methods=METHODS, include_in_schema=False)
async def forward(request: Request, parts: UpstreamsDep) -> Response:
    # the path exactly as sent (still percent-encoded), not as decoded for routing
    raw_path: bytes = request.scope.get("raw_path") or request.url.path.encode()
    service, upstream_path = target(raw_path.decode("latin-1"))
    query = request.url.query
    headers = {
        name: value
        for name in FORWARDED_REQUEST_HEADERS
        if (value := request.headers.get(name)) is not None
    }
    answer = await parts.request(
        service,
        request.method,
        upstream_path + (f"?{query}" if query else ""),
        headers=headers,
        content=await request.body(),
    )
    response = Response(
        content=answer.content,
        status_code=answer.status_code,
        media_type=answer.headers.get("content-type"),
    )
    for name in FORWARDED_RESPONSE_HEADERS:
        if name in answer.headers:
            response.headers[name] = answer.headers[name]
    return response


def target(raw_path: str) -> tuple[str, str]:
    """The service and the path to send it (still percent-encoded, as the caller wrote it)
    of `/api/<service>/<path>` as sent; a 404 or 400 problem for what is not forwarded."""
    _, _, rest = raw_path.partition("/api/")
    segment, slash, path = rest.partition("/")
    # the service's name may come percent-encoded: decoded, it must be one name, whole
    service = unquote(segment)
    if service not in SERVICES or not slash:
        raise ProblemError(
            404, "unknown_service", f"no service {service!r}: one of {', '.join(SERVICES)}"
        )
    segments = [unquote(part) for part in path.split("/")]
    if any("/" in part or "\\" in part or part in (".", "..") for part in segments):
        raise ProblemError(
            400,
            "invalid_path",
            "a path segment may not be `.` or `..`, nor hold an encoded slash or backslash",
        )
    first = next((part for part in segments if part), "")
    if first.lower() in NOT_FORWARDED:
        raise ProblemError(404, "not_found", f"/{first} of a service is not passed on")
    return service, "/" + path
