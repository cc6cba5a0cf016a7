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
    Security,
    WebSocket,
    WebSocketDisconnect,
)
from fastapi.responses import Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field

from scanner_gateway.adapters.postgres import ChangeRow
from scanner_gateway.domain import (
    CREDENTIAL_HASH_PATTERN,
    FINGERPRINT_PATTERN,
    ID_PATTERN,
    MAX_BODY_BYTES,
    ScanAnswer,
    Verdict,
    parse_scan_body,
    parse_stream_bytes,
    parse_stream_message,
)
from scanner_gateway.handlers import Answer, Gateway
from teenpatti.access.holders import KeyHolder
from teenpatti.http import ProblemError, problem_response, required_header
from teenpatti.kernel.dependencies import Supervisor, SupervisorOrDealer, provide, provide_ws

router = APIRouter()

POLICY_VIOLATION = 1008


GatewayDep = Annotated[Gateway, Depends(provide(Gateway))]
# documented as required (`DEVICE_ID`): a read without it is refused 401 unknown_device
DeviceIdHeader = Annotated[str | None, Header(alias="X-Device-Id", include_in_schema=False)]
DEVICE_ID = required_header(
    "X-Device-Id",
    "The scanner's device id, as a supervisor registered it (`POST /devices`); with the"
    " device's credential (`deviceCredential`) it names the table the read is for.",
    max_length=64,
    example="scanner-T01-a",
)
# it refuses nothing itself (auto_error=False): the gateway does, and records the refusal
DEVICE_CREDENTIAL = HTTPBearer(
    scheme_name="deviceCredential",
    auto_error=False,
    description="The scanner device's own credential: `Authorization: Bearer <credential>`,"
    " whose SHA-256 a supervisor registered (`POST /devices`, approved by a second one)."
    " Sent with the `X-Device-Id` header. A wrong or missing credential: 401 `bad_credential`"
    " (recorded); a revoked device: 401 `revoked_device`.",
)
DeviceCredential = Annotated[HTTPAuthorizationCredentials | None, Security(DEVICE_CREDENTIAL)]


CredentialHash = Annotated[
    str,
    Field(
        pattern=CREDENTIAL_HASH_PATTERN,
        description="the SHA-256, in hex, of the credential the device made for itself; the"
        " credential itself never leaves the device but with its reads",
    ),
]


class DeviceProposal(BaseModel):
    model_config = ConfigDict(extra="forbid")

    device_id: Annotated[str, Field(pattern=ID_PATTERN)]
    table_id: Annotated[str, Field(pattern=ID_PATTERN)]
    credential_hash: CredentialHash


class RotationProposal(BaseModel):
    model_config = ConfigDict(extra="forbid")

    credential_hash: CredentialHash


class ChangeApproval(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fingerprint: Annotated[
        str,
        Field(
            pattern=FINGERPRINT_PATTERN,
            description="what the device shows of its credential (`1a2b-3c4d-5e6f-7a8b`),"
            " read off the device by the approver",
        ),
    ]


class ChangeRejection(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    reason: Annotated[str, Field(min_length=1, max_length=300)]
    """Why, in the supervisor's words (1 to 300 characters)."""


class DeviceChangePublic(BaseModel):
    """A device registration or rotation and what became of it; never the credential, its
    hash or its fingerprint."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    change_id: UUID
    device_id: str
    table_id: str
    kind: Literal["register", "rotate"]
    """`register` (a device's first credential, or a move to another table) or `rotate` (a new
    credential for the same device)."""
    status: Literal["pending", "approved", "rejected"]
    """`pending` (a second supervisor decides), `approved` or `rejected`."""
    proposed_by: str
    proposed_at: datetime
    decided_by: str | None
    decided_at: datetime | None


class DevicePublic(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    device_id: str
    table_id: str
    registered_at: datetime
    registered_by: str
    """The supervisor who proposed its credential."""
    approved_by: str | None
    """The supervisor who approved it."""
    last_card: str | None
    """The last card it read, `sealed` until the table's verdict on it showed the value; null before
    its first read."""
    last_read_at: datetime | None
    """When it last read (ISO 8601, UTC); null before its first read."""
    active: bool
    """Whether it is its table's one active device; false once revoked, replaced or moved."""
    last_sequence: int
    """The highest sequence number accepted since its credential was issued: a read must number
    above it."""
    retired_at: datetime | None
    retired_reason: str | None
    """`revoked` or `replaced`; null while active."""


class DeviceRevoke(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    reason: Annotated[str, Field(min_length=1, max_length=300)]
    """Why, in the supervisor's words (1 to 300 characters)."""


class DeviceRevokedPublic(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    device_id: str
    table_id: str
    active: bool
    """False: the device may no longer scan."""


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
    model_config = ConfigDict(use_attribute_docstrings=True)

    device_id: str
    status: Literal["active", "revoked", "replaced"]
    """`active`, `revoked` or `replaced`."""
    registered_at: datetime
    last_seen_at: datetime | None
    """Its last read, whatever became of it (ISO 8601, UTC); null before."""
    last_card: str | None
    """The last card it passed on (or bounced), `sealed` as a read's card is; null before."""
    last_sequence: int
    """The highest sequence number accepted since its credential was issued."""
    retired_at: datetime | None


class TableReadPublic(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    scan_id: UUID
    device_id: str
    raw: str | None
    """What the scanner read, `sealed` until the table's verdict shows the value."""
    card: str | None
    """The card it was read as, `sealed` until the table's verdict shows it; null when it was not a
    card."""
    sealed: bool
    """Whether the value is still hidden (a card read during betting, or before the table decided).
    """
    verdict: Verdict
    """The table's verdict: `accepted`, `rejected` or `pending`."""
    status: str
    """`registered`, `refused`, `rescan`, `duplicate`, `rejected` or `pending`."""
    reason: str | None
    """Why it was refused or rejected; null otherwise."""
    detail: str | None
    """The refusal in words; null otherwise."""
    position: str | None
    sequence: int | None
    """The device's number for the read; null when the read had none."""
    scanned_at: datetime
    """When the gateway received it (ISO 8601, UTC)."""
    decided_at: datetime | None
    """When the table decided on it (ISO 8601, UTC); null while pending."""


class TableScansPublic(BaseModel):
    """The table's devices and its last reads, newest first (docs/services.md)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    table_id: str
    devices: list[TableDevicePublic]
    """The table's devices, the active one and those retired."""
    scans: list[TableReadPublic]
    """The table's last reads, newest first."""


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


@router.post("/devices", status_code=202)
async def propose_device(
    body: DeviceProposal, gateway: GatewayDep, supervisor: Supervisor
) -> DeviceChangePublic:
    """Propose a device for a table, with the hash of the credential it made: nothing is
    active until another supervisor approves it (decision 0085). The same proposal sent
    again by its proposer while it waits answers 202 with the change that waits."""
    supervisor.require_table(body.table_id, "/devices")
    await _require_device_scope(gateway, supervisor, body.device_id, "/devices")  # a move
    change = await gateway.propose_change(
        body.device_id, body.table_id, body.credential_hash, supervisor.name
    )
    return _change(change)


@router.get("/devices")
async def list_devices(gateway: GatewayDep, supervisor: Supervisor) -> list[DevicePublic]:
    """The devices of the tables the key may act on."""
    rows = await gateway.devices()
    return [
        DevicePublic(
            device_id=row.device_id,
            table_id=row.table_id,
            registered_at=row.registered_at,
            registered_by=row.registered_by,
            approved_by=row.approved_by,
            last_card=row.last_card,
            last_read_at=row.last_read_at,
            active=row.active,
            last_sequence=row.last_sequence,
            retired_at=row.retired_at,
            retired_reason=row.retired_reason,
        )
        for row in rows
        if supervisor.may_act_on(row.table_id)
    ]


async def _require_device_scope(
    gateway: Gateway, supervisor: KeyHolder, device_id: str, path: str
) -> None:
    """A key scoped to some tables acts only on the devices registered to them."""
    if supervisor.tables is None:
        return
    for row in await gateway.devices():
        if row.device_id == device_id:
            supervisor.require_table(row.table_id, path)


@router.post("/devices/{device_id}/rotate", status_code=202)
async def propose_rotation(
    device_id: str, body: RotationProposal, gateway: GatewayDep, supervisor: Supervisor
) -> DeviceChangePublic:
    """Propose the device's new credential (its hash): the old one works until another
    supervisor approves the change."""
    await _require_device_scope(gateway, supervisor, device_id, f"/devices/{device_id}/rotate")
    change = await gateway.propose_change(device_id, None, body.credential_hash, supervisor.name)
    return _change(change)


@router.get("/devices/changes")
async def pending_changes(gateway: GatewayDep, supervisor: Supervisor) -> list[DeviceChangePublic]:
    """The device changes waiting for a second supervisor, of the tables the key may act on."""
    rows = await gateway.pending_changes()
    return [_change(row) for row in rows if supervisor.may_act_on(row.table_id)]


@router.post("/devices/changes/{change_id}/approve")
async def approve_change(
    change_id: UUID, body: ChangeApproval, gateway: GatewayDep, supervisor: Supervisor
) -> DeviceChangePublic:
    """Approve another supervisor's device change, with the fingerprint the device shows;
    refused while a round of its table is being dealt."""
    path = f"/devices/changes/{change_id}/approve"
    await _require_change_scope(gateway, supervisor, change_id, path)
    change = await gateway.approve_change(change_id, supervisor.name, body.fingerprint)
    return _change(change)


@router.post("/devices/changes/{change_id}/reject")
async def reject_change(
    change_id: UUID, body: ChangeRejection, gateway: GatewayDep, supervisor: Supervisor
) -> DeviceChangePublic:
    """Reject a device change (any supervisor, its proposer withdrawing it included)."""
    path = f"/devices/changes/{change_id}/reject"
    await _require_change_scope(gateway, supervisor, change_id, path)
    change = await gateway.reject_change(change_id, supervisor.name, body.reason)
    return _change(change)


async def _require_change_scope(
    gateway: Gateway, supervisor: KeyHolder, change_id: UUID, path: str
) -> None:
    change = await gateway.change(change_id)
    supervisor.require_table(change.table_id, path)
    await _require_device_scope(gateway, supervisor, change.device_id, path)


def _change(row: ChangeRow) -> DeviceChangePublic:
    return DeviceChangePublic(
        change_id=row.change_id,
        device_id=row.device_id,
        table_id=row.table_id,
        kind="rotate" if row.kind == "rotate" else "register",
        status=_STATUSES[row.status],
        proposed_by=row.proposed_by,
        proposed_at=row.proposed_at,
        decided_by=row.decided_by,
        decided_at=row.decided_at,
    )


_STATUSES: dict[str, Literal["pending", "approved", "rejected"]] = {
    "pending": "pending",
    "approved": "approved",
    "rejected": "rejected",
}


@router.post("/devices/{device_id}/revoke")
async def revoke_device(
    device_id: str, body: DeviceRevoke, gateway: GatewayDep, supervisor: Supervisor
) -> DeviceRevokedPublic:
    """The device may no longer scan; registering it again (`POST /devices`, approved)
    brings it back. One supervisor suffices."""
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
        },
        **DEVICE_ID,
        # the credential is read from the request, not solved as a dependency (decision 0105)
        "security": [{"deviceCredential": []}],
    },
)
async def post_scan(request: Request, gateway: GatewayDep) -> Response:
    """One card read by the table's scanner device. Answers `registered` (the table took it, at the
    position it names), `refused` (the table's reason), `rescan` (not a card) or, 202, `pending`
    (ask `GET /scans/{scan_id}`). Every refusal is recorded. The device's own credential
    (`deviceCredential`) and `X-Device-Id`; the body is read by the gateway itself (at most its
    size limit), so that a malformed read is recorded before it is refused."""
    body, too_large = await _read_body(request, MAX_BODY_BYTES)
    parsed = parse_scan_body(body, too_large=too_large)
    headers = request.headers
    device_id = headers.get("x-device-id") or ""
    answer = await gateway.handle_read(device_id, _bearer(headers.get("authorization")), parsed)
    return _answer_response(answer)


@router.get(
    "/scans/{scan_id}",
    response_model=ScanAnswer,
    responses=_SCAN_RESPONSES,
    openapi_extra=DEVICE_ID,
)
async def get_scan(
    scan_id: UUID,
    gateway: GatewayDep,
    device_id: DeviceIdHeader = None,
    authorization: DeviceCredential = None,
) -> Response:
    """What became of a read answered `pending`: the same answer as `POST /scans`, once the table
    decided. The device that sent it only (its credential and `X-Device-Id`)."""
    answer = await gateway.scan(device_id or "", _credential(authorization), scan_id)
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


def _answer_response(answer: Answer) -> Response:
    headers = {}
    if answer.http_status == 202:
        headers["Location"] = f"/scans/{answer.body.scan_id}"
    # encoded once by pydantic, not dumped to a dict and encoded again
    return Response(
        answer.body.model_dump_json(),
        status_code=answer.http_status,
        headers=headers,
        media_type="application/json",
    )


def _credential(authorization: HTTPAuthorizationCredentials | None) -> str | None:
    return authorization.credentials.strip() or None if authorization is not None else None


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
