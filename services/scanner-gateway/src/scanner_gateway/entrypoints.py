"""HTTP routes and the device stream: thin, over `Gateway`."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated
from uuid import UUID

from fastapi import (
    APIRouter,
    Depends,
    Header,
    HTTPException,
    Request,
    WebSocket,
    WebSocketDisconnect,
)
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from scanner_gateway.domain import (
    ID_PATTERN,
    MAX_BODY_BYTES,
    ScanAnswer,
    parse_scan_body,
    parse_stream_bytes,
    parse_stream_message,
)
from scanner_gateway.handlers import Answer, Gateway
from teenpatti.http import ProblemError, problem_response
from teenpatti.kernel.dependencies import Supervisor, provide, provide_ws

router = APIRouter()

# no route needs more; a larger body is refused while it arrives (POST /scans reads its
# own body with the smaller read limit, so that an oversized read is still recorded)
MAX_REQUEST_BYTES = 64 * 1024
POLICY_VIOLATION = 1008


GatewayDep = Annotated[Gateway, Depends(provide(Gateway))]
DeviceIdHeader = Annotated[str | None, Header(alias="X-Device-Id")]
AuthorizationHeader = Annotated[str | None, Header(alias="Authorization")]


class DeviceCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    device_id: Annotated[str, Field(pattern=ID_PATTERN)]
    table_id: Annotated[str, Field(pattern=ID_PATTERN)]


class DeviceCredential(BaseModel):
    device_id: str
    table_id: str
    credential: str
    rotated: bool


class DevicePublic(BaseModel):
    device_id: str
    table_id: str
    registered_at: datetime
    registered_by: str
    last_card: str | None
    last_read_at: datetime | None


class ScanRequest(BaseModel):
    """The body of `POST /scans` (documentation only: the route parses it itself, so that
    a malformed read is recorded before it is refused)."""

    read: Annotated[str, Field(description="what the scanner read, e.g. `AS`, `10♥`")]
    table_id: str


@router.post("/devices", status_code=201)
async def register_device(
    body: DeviceCreate, gateway: GatewayDep, supervisor: Supervisor
) -> DeviceCredential:
    registration = await gateway.register_device(body.device_id, body.table_id, supervisor.name)
    return DeviceCredential(
        device_id=registration.device_id,
        table_id=registration.table_id,
        credential=registration.credential,
        rotated=registration.rotated,
    )


@router.get("/devices")
async def list_devices(gateway: GatewayDep, supervisor: Supervisor) -> list[DevicePublic]:
    return [DevicePublic(**vars(row)) for row in await gateway.devices()]


_SCAN_RESPONSES: dict[int | str, dict[str, object]] = {
    200: {"model": ScanAnswer, "description": "registered, refused or rescan"},
    202: {"model": ScanAnswer, "description": "pending: ask GET /scans/{scan_id} later"},
    401: {"description": "unknown_device or bad_credential (recorded)"},
    403: {"description": "wrong_table (recorded)"},
    413: {"description": "payload_too_large (recorded)"},
    422: {"description": "invalid_request: not a read (recorded)"},
}


@router.post(
    "/scans",
    response_model=ScanAnswer,
    responses=_SCAN_RESPONSES,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": ScanRequest.model_json_schema()}},
        }
    },
)
async def post_scan(
    request: Request,
    gateway: GatewayDep,
    device_id: DeviceIdHeader = None,
    authorization: AuthorizationHeader = None,
) -> JSONResponse:
    body, too_large = await _read_body(request, MAX_BODY_BYTES)
    parsed = parse_scan_body(body, too_large=too_large)
    answer = await gateway.handle_read(device_id or "", _bearer(authorization), parsed)
    return _answer_response(answer)


@router.get("/scans/{scan_id}", response_model=ScanAnswer, responses=_SCAN_RESPONSES)
async def get_scan(
    scan_id: UUID,
    gateway: GatewayDep,
    device_id: DeviceIdHeader = None,
    authorization: AuthorizationHeader = None,
) -> JSONResponse:
    answer = await gateway.scan(device_id or "", _bearer(authorization), scan_id)
    return _answer_response(answer)


@router.websocket("/devices/{device_id}/stream")
async def device_stream(
    websocket: WebSocket,
    device_id: str,
    gateway: Annotated[Gateway, Depends(provide_ws(Gateway))],
    credential: str | None = None,
) -> None:
    """One read per text message, each answered with the same JSON as `POST /scans` (or
    its problem). A bad device or credential is recorded, then closed with 1008."""
    path = websocket.url.path
    await websocket.accept()
    try:
        await gateway.open_stream(device_id, credential)
    except ProblemError as error:
        await _refuse_stream(websocket, error, path)
        return
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if text is not None:
                parsed = parse_stream_message(text)
            else:
                parsed = parse_stream_bytes(message.get("bytes") or b"")
            try:
                answer = await gateway.handle_read(device_id, credential, parsed)
            except ProblemError as error:
                if error.status == 401:  # e.g. the credential was rotated meanwhile
                    await _refuse_stream(websocket, error, path)
                    return
                await websocket.send_text(_problem_text(error, path))
                continue
            await websocket.send_text(answer.body.model_dump_json())
    except (WebSocketDisconnect, OSError):  # the device went away (uvicorn: an OSError)
        return


async def _refuse_stream(websocket: WebSocket, error: ProblemError, path: str) -> None:
    await websocket.send_text(_problem_text(error, path))
    await websocket.close(code=POLICY_VIOLATION, reason=error.code)


def _problem_text(error: ProblemError, path: str) -> str:
    response = problem_response(error.status, error.code, error.detail, path, **error.extra)
    return bytes(response.body).decode()


def _answer_response(answer: Answer) -> JSONResponse:
    headers = {}
    if answer.http_status == 202:
        headers["Location"] = f"/scans/{answer.body.scan_id}"
    return JSONResponse(
        answer.body.model_dump(mode="json"), status_code=answer.http_status, headers=headers
    )


def _bearer(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


async def _read_body(request: Request, limit: int) -> tuple[bytes, bool]:
    """At most `limit` bytes of the body, and whether there was more (not read)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            return b"".join(chunks)[:limit], True
    return b"".join(chunks), False


class BodyTooLargeError(ProblemError, HTTPException):
    # an HTTPException too, so that FastAPI passes it on from body parsing as it is
    def __init__(self, limit: int) -> None:
        detail = f"the request body is larger than {limit} bytes"
        ProblemError.__init__(self, 413, "payload_too_large", detail)
        HTTPException.__init__(self, 413, detail)


class BodyLimitMiddleware:
    """Refuses (413 problem) a request body that grows past `limit` bytes as it arrives,
    whatever its Content-Length says, before any route buffers it."""

    def __init__(
        self, app: ASGIApp, limit: int = MAX_REQUEST_BYTES, exempt: frozenset[str] = frozenset()
    ) -> None:
        self._app = app
        self._limit = limit
        self._exempt = exempt  # routes that bound their own reading

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self._exempt:
            await self._app(scope, receive, send)
            return
        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self._limit:
                    raise BodyTooLargeError(self._limit)
            return message

        await self._app(scope, limited_receive, send)
