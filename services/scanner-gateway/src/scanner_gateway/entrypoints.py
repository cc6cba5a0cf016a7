"""HTTP routes and the device stream: thin, over `Gateway`."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal
from uuid import UUID

from fastapi import (
    APIRouter,
    Depends,
    Header,
    Path,
    Query,
    Request,
    WebSocket,
    WebSocketDisconnect,
)
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from scanner_gateway.domain import (
    ID_PATTERN,
    MAX_BODY_BYTES,
    ScanAnswer,
    Verdict,
    parse_scan_body,
    parse_stream_bytes,
    parse_stream_message,
)
from scanner_gateway.handlers import Answer, Gateway
from teenpatti.http import KeyHolder, ProblemError, problem_response
from teenpatti.kernel.dependencies import Supervisor, SupervisorOrDealer, provide, provide_ws

router = APIRouter()

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
    active: bool  # the table's one active device; False once revoked, replaced or moved
    last_sequence: int  # the highest sequence number accepted since the credential was issued
    retired_at: datetime | None
    retired_reason: str | None  # revoked, replaced


class DeviceRevoke(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: Annotated[str, Field(min_length=1, max_length=300)]


class DeviceRevokedPublic(BaseModel):
    device_id: str
    table_id: str
    active: bool


class ScanRequest(BaseModel):
    """The body of `POST /scans` (documentation only: the route parses it itself, so that
    a malformed read is recorded before it is refused)."""

    read: Annotated[str, Field(description="what the scanner read, e.g. `AS`, `10♥`")]
    table_id: str
    sequence: Annotated[
        int,
        Field(
            ge=1,
            le=2**63 - 1,
            description="the device's number for this read, above every number it sent"
            " since its credential was issued (a replayed or reordered read is refused)",
        ),
    ]


class TableDevicePublic(BaseModel):
    device_id: str
    status: Literal["active", "revoked", "replaced"]
    registered_at: datetime
    last_seen_at: datetime | None  # its last read, whatever became of it
    last_card: str | None  # the last card it read that was passed on (or bounced)
    last_sequence: int
    retired_at: datetime | None


class TableReadPublic(BaseModel):
    scan_id: UUID
    device_id: str
    raw: str | None
    card: str | None
    verdict: Verdict  # accepted, rejected or pending
    status: str  # registered, refused, rescan, duplicate, rejected or pending
    reason: str | None
    detail: str | None
    position: str | None
    sequence: int | None
    scanned_at: datetime
    decided_at: datetime | None


class TableScansPublic(BaseModel):
    """The table's devices and its last reads, newest first (docs/services.md)."""

    table_id: str
    devices: list[TableDevicePublic]
    scans: list[TableReadPublic]


@router.get("/tables/{table_id}/scans")
async def table_scans(
    # the table service's rule for a table id (teenpatti.access.keys.TABLE_ID_PATTERN)
    table_id: Annotated[str, Path(pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")],
    gateway: GatewayDep,
    holder: SupervisorOrDealer,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
) -> TableScansPublic:
    """What the studio sees of the table's scanner: its devices and its last reads, accepted
    and rejected, with the reason (a supervisor's or dealer's key for the table)."""
    found = await gateway.table_scans(table_id, limit)
    return TableScansPublic(
        table_id=found.table_id,
        devices=[
            TableDevicePublic(
                device_id=device.device_id,
                status="active" if device.active else _retired(device.retired_reason),
                registered_at=device.registered_at,
                last_seen_at=device.last_seen_at,
                last_card=device.last_card,
                last_sequence=device.last_sequence,
                retired_at=device.retired_at,
            )
            for device in found.devices
        ],
        scans=[TableReadPublic(**vars(read)) for read in found.scans],
    )


def _retired(reason: str | None) -> Literal["revoked", "replaced"]:
    return "replaced" if reason == "replaced" else "revoked"


@router.post("/devices", status_code=201)
async def register_device(
    body: DeviceCreate, gateway: GatewayDep, supervisor: Supervisor
) -> DeviceCredential:
    supervisor.require_table(body.table_id, "/devices")
    await _require_device_scope(gateway, supervisor, body.device_id, "/devices")  # a move
    registration = await gateway.register_device(body.device_id, body.table_id, supervisor.name)
    return DeviceCredential(
        device_id=registration.device_id,
        table_id=registration.table_id,
        credential=registration.credential,
        rotated=registration.rotated,
    )


@router.get("/devices")
async def list_devices(gateway: GatewayDep, supervisor: Supervisor) -> list[DevicePublic]:
    """The devices of the tables the key may act on."""
    rows = await gateway.devices()
    return [DevicePublic(**vars(row)) for row in rows if supervisor.may_act_on(row.table_id)]


async def _require_device_scope(
    gateway: Gateway, supervisor: KeyHolder, device_id: str, path: str
) -> None:
    """A key scoped to some tables acts only on the devices registered to them."""
    if supervisor.tables is None:
        return
    for row in await gateway.devices():
        if row.device_id == device_id:
            supervisor.require_table(row.table_id, path)


@router.post("/devices/{device_id}/rotate")
async def rotate_credential(
    device_id: str, gateway: GatewayDep, supervisor: Supervisor
) -> DeviceCredential:
    """A new credential for the device (shown once); the old one stops working at once."""
    await _require_device_scope(gateway, supervisor, device_id, f"/devices/{device_id}/rotate")
    registration = await gateway.rotate_credential(device_id, supervisor.name)
    return DeviceCredential(
        device_id=registration.device_id,
        table_id=registration.table_id,
        credential=registration.credential,
        rotated=True,
    )


@router.post("/devices/{device_id}/revoke")
async def revoke_device(
    device_id: str, body: DeviceRevoke, gateway: GatewayDep, supervisor: Supervisor
) -> DeviceRevokedPublic:
    """The device may no longer scan; registering it again (`POST /devices`) brings it back."""
    await _require_device_scope(gateway, supervisor, device_id, f"/devices/{device_id}/revoke")
    device = await gateway.revoke_device(device_id, supervisor.name, body.reason)
    return DeviceRevokedPublic(
        device_id=device.device_id, table_id=device.table_id, active=device.active
    )


_SCAN_RESPONSES: dict[int | str, dict[str, object]] = {
    200: {"model": ScanAnswer, "description": "registered, refused or rescan"},
    202: {"model": ScanAnswer, "description": "pending: ask GET /scans/{scan_id} later"},
    401: {"description": "unknown_device, bad_credential or revoked_device (recorded)"},
    403: {"description": "wrong_table (recorded)"},
    409: {"description": "stale_sequence: a replayed or reordered read (recorded)"},
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
) -> None:
    """One read per text message, each answered with the same JSON as `POST /scans` (or
    its problem). The credential comes in the `Authorization: Bearer` header, never in the
    URL. A bad device or credential is recorded, then closed with 1008."""
    path = websocket.url.path
    credential = _bearer(websocket.headers.get("authorization"))
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
