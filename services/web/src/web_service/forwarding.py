"""`/api/{service}/{path}`: the pages' calls to the services, with the caller's own
credentials only.

The method, the path as the caller wrote it, the query and the body (at most
`TP_HTTP_MAX_BODY_BYTES`, 64 KiB: the app's body limit) go to the service, with only the
headers a page may need; the service's status, body and content type come back unchanged,
its problem details included. The web front adds nothing of its own, its key least of all:
a caller without a key gets the service's 401 (docs/decisions/0074-a-stateless-web-front.md).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response

from teenpatti.http import ProblemError

from .upstream import SERVICES, Upstreams, upstreams

router = APIRouter(tags=["forwarding"])

# what a page sends that a service reads; nothing else goes through (no cookie, no
# X-Forwarded-*, no header a service could take for the web front's own)
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

UpstreamsDep = Annotated[Upstreams, Depends(upstreams)]


@router.api_route("/api/{service}/{path:path}", methods=METHODS, include_in_schema=False)
async def forward(service: str, path: str, request: Request, parts: UpstreamsDep) -> Response:
    if service not in SERVICES:
        raise ProblemError(
            404, "unknown_service", f"no service {service!r}: one of {', '.join(SERVICES)}"
        )
    # the path exactly as sent (still percent-encoded), after `/api/<service>/`: cut at the
    # third slash, as the service's name may have been sent percent-encoded
    raw_path: bytes = request.scope.get("raw_path") or request.url.path.encode()
    upstream_path = "/" + raw_path.decode("latin-1").split("/", 3)[3]
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
