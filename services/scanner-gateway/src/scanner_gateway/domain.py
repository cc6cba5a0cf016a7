"""The gateway's rules: which reads go on to the table, which are kept back, and why.

Pure: no I/O; the time, the scan id and the device's state are passed in. Every read, good
or bad, becomes exactly one event: `CardScanned` (passed on to the table) or `ScanRejected`
(kept, with the reason). Text from outside is bounded and made printable before it is
stored, so garbage cannot bloat or break the store.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from teenpatti.engine import InvalidCardError, parse_card
from teenpatti.events.catalog import (
    CardDealt,
    CardRefused,
    CardScanned,
    DeviceChangeProposed,
    DeviceChangeRejected,
    DeviceCredentialRotated,
    DeviceRegistered,
    DeviceRevoked,
    ScanRejected,
)

MAX_READ_CHARS = 32  # a card read is a few characters; anything longer is not a card
MAX_BODY_BYTES = 4096  # a read request or stream message; larger is refused (413)
MAX_RECORDED_CHARS = 64  # of a garbage read, header or id kept in an event
MAX_DETAIL_CHARS = 300
NO_TABLE = "-"  # the table of a read that names no valid table (cannot be a table id)
MISSING = "(missing)"
MAX_SEQUENCE = 2**63 - 1  # a Postgres bigint

# device and table ids: what a supervisor may register; starts with a letter or digit
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$"
_ID = re.compile(ID_PATTERN)

ScanStatus = Literal["registered", "refused", "rescan", "pending"]
RejectReason = Literal[
    "unreadable",
    "duplicate_read",
    "unknown_device",
    "wrong_table",
    "bad_credential",
    "revoked_device",
    "stale_sequence",
]


def is_valid_id(text: str | None) -> bool:
    return text is not None and _ID.fullmatch(text) is not None


def recordable(text: str, limit: int = MAX_RECORDED_CHARS) -> str:
    """`text` as it may be stored: non-printable characters escaped (so NULs and lone
    surrogates cannot reach Postgres), at most `limit` characters, and a note of the
    original length when it was cut."""
    head = "".join(ch if ch.isprintable() else _escape(ch) for ch in text[:limit])
    if len(text) > limit or len(head) > limit:
        return f"{head[:limit]}…[{len(text)} chars]"
    return head


def _escape(ch: str) -> str:
    return ch.encode("unicode_escape", errors="backslashreplace").decode("ascii")


def stream_of_device(device_id: str) -> str:
    return f"device-{device_id}"


def stream_of_reads(device_id: str) -> str:
    return f"scans-{device_id}"


def stream_of_unknown_device(device_id: str) -> str:
    return f"unknown-device-{recordable(device_id) or MISSING}"


# ------------------------------------------------------------------------- reading a card
class UnreadableError(ValueError):
    """The read is not a card; the message says why (for the dealer and the audit)."""


def card_of_read(read: str) -> str:
    """The read's card in canonical form (`AS`, `10H`), by the engine's rules."""
    if len(read) > MAX_READ_CHARS:
        raise UnreadableError(
            f"the read is {len(read)} characters long; a card read has at most {MAX_READ_CHARS}"
        )
    try:
        return str(parse_card(read))
    except InvalidCardError as error:
        raise UnreadableError(str(error)) from None


@dataclass(frozen=True)
class BodyProblem:
    """A request that is not a read at all; answered with this problem, recorded unreadable."""

    status: int
    code: str
    detail: str


@dataclass(frozen=True)
class ParsedRead:
    read: str | None  # None when the message held no read
    table_id: str | None  # None: the device's own table
    raw: str  # what arrived, bounded, for the record
    problem: BodyProblem | None = None
    sequence: int | None = None  # the device's number for this read; None: none valid


def parse_scan_body(body: bytes, *, too_large: bool = False) -> ParsedRead:
    """A `POST /scans` body: `{"read": str, "table_id": str, "sequence": int}`."""
    raw = recordable(body.decode("utf-8", errors="replace"))
    if too_large:
        detail = f"the request body is larger than {MAX_BODY_BYTES} bytes"
        return ParsedRead(None, None, raw, BodyProblem(413, "payload_too_large", detail))
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return ParsedRead(None, None, raw, _invalid("the body is not JSON"))
    return _parse_object(data, raw, table_required=True)


def parse_stream_message(text: str) -> ParsedRead:
    """One WebSocket message: `{"read": str, "sequence": int, "table_id"?: str}`."""
    if len(text.encode("utf-8", errors="replace")) > MAX_BODY_BYTES:
        detail = f"the message is larger than {MAX_BODY_BYTES} bytes"
        return ParsedRead(
            None, None, recordable(text), BodyProblem(413, "payload_too_large", detail)
        )
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return ParsedRead(None, None, recordable(text), _invalid("the message is not JSON"))
    return _parse_object(data, recordable(text), table_required=False)


def parse_stream_bytes(data: bytes) -> ParsedRead:
    """A binary WebSocket message: not a read (reads are text), but recorded like one."""
    raw = recordable(data[: MAX_BODY_BYTES + 1].decode("utf-8", errors="replace"))
    problem = BodyProblem(422, "text_expected", "send each read as a text message")
    return ParsedRead(None, None, raw, problem)


def _parse_object(data: object, raw: str, *, table_required: bool) -> ParsedRead:
    if not isinstance(data, dict):
        return ParsedRead(None, None, raw, _invalid("the body must be a JSON object"))
    read, table_id, sequence = data.get("read"), data.get("table_id"), data.get("sequence")
    if not _is_sequence(sequence):
        sequence = None
    if not isinstance(read, str):
        return ParsedRead(None, None, raw, _invalid("read: a string is required"), sequence)
    if sequence is None:
        detail = f"sequence: a whole number from 1 to {MAX_SEQUENCE} is required"
        return ParsedRead(None, None, raw, _invalid(detail))
    if table_id is None and not table_required:
        return ParsedRead(read, None, recordable(read), sequence=sequence)
    if not isinstance(table_id, str):
        problem = _invalid("table_id: a string is required")
        return ParsedRead(None, None, raw, problem, sequence)
    return ParsedRead(read, table_id, recordable(read), sequence=sequence)


def _is_sequence(value: object) -> bool:
    # a bool is an int to Python, never a sequence number
    return type(value) is int and 1 <= value <= MAX_SEQUENCE


def _invalid(detail: str) -> BodyProblem:
    return BodyProblem(422, "invalid_request", detail)


# --------------------------------------------------------------------------- the devices
@dataclass(frozen=True)
class Device:
    """A registered scanner, bound to one table, with what the bounce filter and the
    sequence check need."""

    device_id: str
    table_id: str
    credential_hash: str
    last_card: str | None = None  # the last card read (canonical)
    last_scan_id: UUID | None = None  # the scan that passed that card on
    last_status: str | None = None  # that scan's verdict so far
    last_read_at: datetime | None = None  # the last read of that card, absorbed ones too
    active: bool = True  # False once revoked, replaced or moved away
    last_sequence: int = 0  # the highest sequence accepted since the credential was issued


def credential_hash_of(credential: str) -> str:
    """What the gateway keeps of a device's credential, and a supervisor's proposal carries:
    its SHA-256, in hex (the device keeps the credential itself: decision 0085)."""
    return hashlib.sha256(credential.encode()).hexdigest()


def credential_matches(credential: str | None, credential_hash: str) -> bool:
    if not credential:
        return False
    return hmac.compare_digest(credential_hash_of(credential), credential_hash)


# ------------------------------------------------------------------------- device changes
# Registering a device or replacing its credential takes two supervisors, and the credential
# is made on the device: one supervisor proposes the device with its credential's SHA-256,
# another approves it with the fingerprint the device shows (decision 0085).
CREDENTIAL_HASH_PATTERN = r"^[0-9a-f]{64}$"  # the SHA-256 of the device's credential, in hex
FINGERPRINT_PATTERN = r"^\s*[0-9A-Fa-f]{4}(-?[0-9A-Fa-f]{4}){3}\s*$"

ChangeKind = Literal["register", "rotate"]


def fingerprint_of(credential_hash: str) -> str:
    """What the device shows of its credential: the first 64 bits of its SHA-256, in four
    groups (`1a2b-3c4d-5e6f-7a8b`)."""
    head = credential_hash[:16]
    return "-".join(head[i : i + 4] for i in range(0, 16, 4))


def fingerprint_matches(typed: str, credential_hash: str) -> bool:
    given = "".join(typed.split()).replace("-", "").lower()
    return hmac.compare_digest(given.encode(), credential_hash[:16].encode())


@dataclass(frozen=True)
class DeviceChange:
    """A registration or a rotation one supervisor proposed, waiting for another."""

    change_id: UUID
    device_id: str
    table_id: str
    kind: ChangeKind
    credential_hash: str
    proposed_by: str


class DeviceChangeError(Exception):
    """A device command the gateway refuses; `code` is stable, `detail` says why."""

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.extra = extra


class UnknownDeviceError(DeviceChangeError):
    def __init__(self, device_id: str) -> None:
        super().__init__("unknown_device", f"device {device_id!r} is not registered")


class UnknownChangeError(DeviceChangeError):
    def __init__(self, change_id: UUID) -> None:
        super().__init__("unknown_change", f"no device change {change_id}")


class SameSupervisorError(DeviceChangeError):
    """The second supervisor a change needs is its proposer."""


class DeviceConflictError(DeviceChangeError):
    """The device or the change is not in a state that allows the command."""


def propose(
    change_id: UUID,
    device: Device | None,
    pending: UUID | None,
    device_id: str,
    table_id: str | None,
    credential_hash: str,
    actor: str,
) -> tuple[DeviceChangeProposed, DeviceChange]:
    """A registration (to `table_id`) or, without a table, a rotation of an active device:
    recorded, nothing active yet. One change waits per device."""
    if pending is not None:
        detail = (
            f"device {device_id}'s change {pending} waits for a second supervisor;"
            " approve or reject it first"
        )
        raise DeviceConflictError("change_pending", detail, change_id=str(pending))
    kind: ChangeKind = "register" if table_id is not None else "rotate"
    if table_id is None:
        if device is None:
            raise UnknownDeviceError(device_id)
        if not device.active:
            detail = f"device {device_id} is revoked; register it again"
            raise DeviceConflictError("device_revoked", detail)
        table_id = device.table_id
    if device is not None and device.active and device.credential_hash == credential_hash:
        detail = "that is the device's current credential; the device makes a new one"
        raise DeviceConflictError("credential_in_use", detail)
    change = DeviceChange(change_id, device_id, table_id, kind, credential_hash, actor)
    event = DeviceChangeProposed(
        change_id=change_id,
        device_id=device_id,
        table_id=table_id,
        kind=kind,
        fingerprint=fingerprint_of(credential_hash),
        actor=actor,
    )
    return event, change


def proposed_again(
    pending: DeviceChange, table_id: str | None, credential_hash: str, actor: str
) -> bool:
    """The change that waits is exactly this proposal, by the same supervisor: a request sent
    again after its answer was lost, answered with the change rather than refused."""
    same_table = pending.kind == "rotate" if table_id is None else pending.table_id == table_id
    return (
        same_table
        and (pending.kind == "register") == (table_id is not None)
        and pending.credential_hash == credential_hash
        and pending.proposed_by == actor
    )


def check_approval(
    change: DeviceChange, approver: str, fingerprint: str, dealing: str | None
) -> None:
    """A change applies when a supervisor other than its proposer approves it, with the
    fingerprint read off the device, and no round of its table is being dealt (`dealing`:
    the round between its betting closed and its result): a round's cards come from one
    device and one credential (decision 0085)."""
    if approver == change.proposed_by:
        raise SameSupervisorError(
            "same_supervisor", f"{approver} proposed this change; another supervisor approves it"
        )
    if not fingerprint_matches(fingerprint, change.credential_hash):
        detail = "the fingerprint is not the one proposed: read it again off the device"
        raise DeviceConflictError("fingerprint_mismatch", detail)
    if dealing is not None:
        detail = (
            f"round {dealing} is being dealt: approve the change once its result is in,"
            " for the next round"
        )
        raise DeviceConflictError("round_dealing", detail, round_id=dealing)


def reject(change: DeviceChange, actor: str, reason: str) -> DeviceChangeRejected:
    """Any supervisor may reject a change, its proposer included."""
    return DeviceChangeRejected(
        change_id=change.change_id,
        device_id=change.device_id,
        table_id=change.table_id,
        actor=actor,
        reason=recordable(reason, MAX_DETAIL_CHARS),
    )


@dataclass(frozen=True)
class Registered:
    """A registration's events, each with the device whose stream it goes to, and the
    devices after it (the new one first, then any it retired)."""

    events: list[tuple[str, DeviceRegistered | DeviceRevoked]]
    devices: list[Device]


def register(
    existing: Device | None, active_at_table: Device | None, change: DeviceChange, approver: str
) -> Registered:
    """(Re-)register a device as the table's one active scanner: its new credential (the old
    one stops working), bound to the change's table (which may move it from another table:
    that binding is revoked, `moved`); the table's other active device, if any, is retired
    (`replaced`). The sequence starts again with the new credential."""
    device_id, table_id = change.device_id, change.table_id
    events: list[tuple[str, DeviceRegistered | DeviceRevoked]] = []
    retired: list[Device] = []
    if existing is not None and existing.active and existing.table_id != table_id:
        detail = f"moved to table {table_id}"
        events.append((device_id, _revoked(existing, approver, "moved", detail)))
    if active_at_table is not None and active_at_table.device_id != device_id:
        detail = f"replaced by device {device_id}"
        events.append(
            (active_at_table.device_id, _revoked(active_at_table, approver, "replaced", detail))
        )
        retired.append(replace(active_at_table, active=False))
    registered = DeviceRegistered(
        device_id=device_id,
        table_id=table_id,
        actor=change.proposed_by,
        change_id=change.change_id,
        approved_by=approver,
    )
    events.append((device_id, registered))
    return Registered(events, [Device(device_id, table_id, change.credential_hash), *retired])


def rotate(
    device: Device, change: DeviceChange, approver: str
) -> tuple[DeviceCredentialRotated, Device]:
    """The device's new credential; the old one stops working, the sequence starts again,
    the bounce state is forgotten."""
    if not device.active:
        raise DeviceConflictError(
            "device_revoked", f"device {device.device_id} is revoked; register it again"
        )
    event = DeviceCredentialRotated(
        device_id=device.device_id,
        table_id=device.table_id,
        actor=change.proposed_by,
        change_id=change.change_id,
        approved_by=approver,
    )
    return event, Device(device.device_id, device.table_id, change.credential_hash)


def revoke(device: Device, actor: str, detail: str) -> tuple[DeviceRevoked, Device]:
    """The device may no longer scan; only registering it again brings it back. One
    supervisor suffices: it takes a device away, it gives none a say in the deal."""
    if not device.active:
        raise DeviceConflictError("device_revoked", f"device {device.device_id} is already revoked")
    return _revoked(device, actor, "revoked", detail), replace(device, active=False)


def _revoked(
    device: Device, actor: str, reason: Literal["revoked", "replaced", "moved"], detail: str
) -> DeviceRevoked:
    return DeviceRevoked(
        device_id=device.device_id,
        table_id=device.table_id,
        actor=actor,
        reason=reason,
        detail=recordable(detail, MAX_DETAIL_CHARS),
    )


# ----------------------------------------------------------------------- judging a read
@dataclass(frozen=True)
class ReadAttempt:
    scan_id: UUID  # the id this read gets, whatever becomes of it
    device_id: str  # as the device claimed it ("" when missing)
    credential: str | None
    parsed: ParsedRead
    received_at: datetime
    round_id: str | None = None  # the round the gateway believes in play at the device's table


@dataclass(frozen=True)
class PassOn:
    """A good card: `CardScanned`; the answer is the table's verdict."""

    event: CardScanned


@dataclass(frozen=True)
class Rescan:
    """Not a card: ask the dealer to scan again (an answer, not an error)."""

    event: ScanRejected


@dataclass(frozen=True)
class Absorb:
    """Scanner bounce: the same card again; the answer is the first read's verdict."""

    event: ScanRejected
    original_scan_id: UUID


@dataclass(frozen=True)
class Refuse:
    """Not the device's to send (or not a read at all): answered with a problem."""

    event: ScanRejected
    status: int
    code: str
    detail: str


Decision = PassOn | Rescan | Absorb | Refuse


def is_bounce(device: Device, card: str, now: datetime, window_seconds: float) -> bool:
    """The same card as the device's last one, within the window of its last read, and not
    refused by the table (a refused card read again is the dealer trying again)."""
    return (
        device.last_card == card
        and device.last_read_at is not None
        and device.last_scan_id is not None
        and device.last_status != "refused"
        and now - device.last_read_at < timedelta(seconds=window_seconds)
    )


def authenticate(device: Device | None, attempt: ReadAttempt) -> Refuse | None:
    """The device is known and the credential is its current one; else the refusal."""
    if device is None:
        shown = recordable(attempt.device_id) or MISSING
        claimed = attempt.parsed.table_id
        table_id = claimed if is_valid_id(claimed) and claimed is not None else NO_TABLE
        detail = f"device {shown!r} is not registered"
        event = _rejected(attempt, shown, table_id, "unknown_device", detail)
        return Refuse(event, 401, "unknown_device", detail)
    if not credential_matches(attempt.credential, device.credential_hash):
        detail = (
            "no credential was sent"
            if not attempt.credential
            else "the credential is not this device's current one"
        )
        event = _rejected(attempt, device.device_id, device.table_id, "bad_credential", detail)
        return Refuse(event, 401, "bad_credential", detail)
    if not device.active:  # told only to the holder of its last credential
        detail = f"device {device.device_id!r} is revoked"
        event = _rejected(attempt, device.device_id, device.table_id, "revoked_device", detail)
        return Refuse(event, 401, "revoked_device", detail)
    return None


def decide_read(device: Device | None, attempt: ReadAttempt, window_seconds: float) -> Decision:
    refused = authenticate(device, attempt)
    if refused is not None:
        return refused
    assert device is not None
    parsed = attempt.parsed
    if parsed.problem is not None or parsed.read is None:
        problem = parsed.problem or _invalid("no read")
        event = _rejected(attempt, device.device_id, device.table_id, "unreadable", problem.detail)
        return Refuse(event, problem.status, problem.code, problem.detail)
    assert parsed.sequence is not None  # a read without one is a problem (above)
    if parsed.sequence <= device.last_sequence:
        # a replayed or reordered read: refused whatever it holds (decision 0055)
        detail = (
            f"sequence {parsed.sequence} is not above the device's last, {device.last_sequence}"
        )
        event = _rejected(attempt, device.device_id, device.table_id, "stale_sequence", detail)
        return Refuse(event, 409, "stale_sequence", detail)
    if parsed.table_id is not None and parsed.table_id != device.table_id:
        detail = (
            f"the read names table {recordable(parsed.table_id)!r};"
            f" device {device.device_id!r} is bound to table {device.table_id!r}"
        )
        event = _rejected(attempt, device.device_id, device.table_id, "wrong_table", detail)
        return Refuse(event, 403, "wrong_table", detail)
    try:
        card = card_of_read(parsed.read)
    except UnreadableError as error:
        event = _rejected(attempt, device.device_id, device.table_id, "unreadable", str(error))
        return Rescan(event)
    now = attempt.received_at
    if is_bounce(device, card, now, window_seconds):
        assert device.last_scan_id is not None and device.last_read_at is not None
        seconds = (now - device.last_read_at).total_seconds()
        detail = f"{card} again {seconds:.3f}s after the last read; scan {device.last_scan_id}"
        event = _rejected(attempt, device.device_id, device.table_id, "duplicate_read", detail)
        return Absorb(event, device.last_scan_id)
    return PassOn(
        CardScanned(
            scan_id=attempt.scan_id,
            device_id=device.device_id,
            table_id=device.table_id,
            round_id=attempt.round_id,
            sequence=parsed.sequence,
            card=card,
            raw=parsed.raw,
            scanned_at=now,
        )
    )


def _rejected(
    attempt: ReadAttempt, device_id: str, table_id: str, reason: RejectReason, detail: str
) -> ScanRejected:
    return ScanRejected(
        scan_id=attempt.scan_id,
        device_id=device_id,
        table_id=table_id,
        raw=attempt.parsed.raw,
        sequence=attempt.parsed.sequence,
        reason=reason,
        detail=recordable(detail, MAX_DETAIL_CHARS),
        scanned_at=attempt.received_at,
    )


_KEEPS_SEQUENCE = frozenset(
    {"unknown_device", "bad_credential", "revoked_device", "stale_sequence"}
)


def evolve(device: Device, event: CardScanned | ScanRejected) -> Device:
    """The device after one of its reads: a passed-on card starts a new bounce window, an
    absorbed one extends it; an authenticated read with a fresh sequence number raises the
    device's last one (whatever became of it); other rejections change nothing."""
    if isinstance(event, CardScanned):
        return replace(
            device,
            last_card=event.card,
            last_scan_id=event.scan_id,
            last_status="pending",
            last_read_at=event.scanned_at,
            last_sequence=event.sequence,
        )
    if event.sequence is not None and event.reason not in _KEEPS_SEQUENCE:
        device = replace(device, last_sequence=max(device.last_sequence, event.sequence))
    if event.reason == "duplicate_read":
        return replace(device, last_read_at=event.scanned_at)
    return device


# ----------------------------------------------------------------------------- verdicts
class ScanAnswer(BaseModel):
    """What a device is told about one read (POST /scans, the stream, GET /scans/{id})."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    scan_id: UUID
    status: ScanStatus
    """`registered` (the table took the card), `refused` (the table refused it: `reason`), `rescan`
    (not a card: read it again) or `pending` (ask `GET /scans/{scan_id}` later)."""
    reason: str | None = None
    """Refused: the table's reason; rescan: why it is not a card; null otherwise."""
    detail: str | None = None
    """The reason in words; null otherwise."""
    position: str | None = None
    """Registered: where the card was dealt (`A1` `B1` `A2` `B2` `A3` `B3`); null otherwise."""
    card: str | None = None
    """Registered: the card, e.g. `10H`; null otherwise."""
    duplicate: bool = False
    """True when absorbed as a scanner bounce of the read `scan_id`: the table saw it once."""


def verdict_of(event: CardDealt | CardRefused) -> ScanAnswer:
    if isinstance(event, CardDealt):
        return ScanAnswer(
            scan_id=event.scan_id, status="registered", position=event.position, card=event.card
        )
    return ScanAnswer(
        scan_id=event.scan_id,
        status="refused",
        reason=event.reason,
        detail=event.detail,
        card=event.card,
    )


def rescan_answer(event: ScanRejected) -> ScanAnswer:
    return ScanAnswer(scan_id=event.scan_id, status="rescan", reason=event.detail)


# ------------------------------------------------------------------------- a table's reads
# A read's verdict as the studio console shows it, from the status its row holds: the table
# dealt it (`accepted`), the table or the gateway turned it down (`rejected`: the table's
# refusal, a read that is not a card, scanner bounce, a read not the device's to send), or
# the table has not spoken yet (`pending`).
Verdict = Literal["accepted", "rejected", "pending"]
_VERDICTS: dict[str, Verdict] = {
    "registered": "accepted",
    "pending": "pending",
    "refused": "rejected",
    "rescan": "rejected",
    "duplicate": "rejected",
    "rejected": "rejected",
}
# What the studio sees in place of a value the table has not shown. Only the table knows
# whether betting had closed on a read's round (decision 0058): a read's value is shown once
# the table's verdict shows it (it dealt the card, or refused it with its value), never
# before; a read the gateway kept back never reaches the table, so it stays sealed.
SEALED = "sealed"
# the gateway's own details of these quote what was read
_DETAIL_QUOTES_THE_READ = frozenset({"rescan", "duplicate"})


def shown(value: str | None, revealed: bool) -> str | None:
    return value if value is None or revealed else SEALED


@dataclass(frozen=True)
class TableRead:
    """One read of a table's device, as the studio console shows it."""

    scan_id: UUID
    device_id: str
    raw: str | None  # what arrived (bounded), or `sealed`; null for a read stored before
    card: str | None  # the card read, when it was one, or `sealed`
    sealed: bool  # the table has not shown this read's value
    verdict: Verdict
    status: str  # the gateway's own: registered, refused, rescan, duplicate, rejected, pending
    reason: str | None
    detail: str | None
    position: str | None  # accepted: A1 B1 A2 B2 A3 B3
    sequence: int | None
    scanned_at: datetime
    decided_at: datetime | None  # when the table's verdict came


def table_read(row: Mapping[str, Any]) -> TableRead:
    """A stored read (its `scans` row) as the console shows it."""
    revealed: bool = row["revealed"]
    detail = row["detail"]
    if row["status"] in _DETAIL_QUOTES_THE_READ:
        detail = shown(detail, revealed)
    return TableRead(
        scan_id=row["scan_id"],
        device_id=row["device_id"],
        raw=shown(row["raw"], revealed),
        card=shown(row["card"], revealed),
        sealed=not revealed,
        verdict=_VERDICTS.get(row["status"], "rejected"),
        status=row["status"],
        reason=row["reason"],
        detail=detail,
        position=row["position"],
        sequence=row["sequence"],
        scanned_at=row["received_at"],
        decided_at=row["decided_at"],
    )
