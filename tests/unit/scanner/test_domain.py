"""The gateway's pure rules: reading a card, parsing what arrives, judging a read."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from uuid import UUID, uuid4

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scanner_gateway.domain import (
    MAX_BODY_BYTES,
    MAX_RECORDED_CHARS,
    NO_TABLE,
    Absorb,
    BodyProblem,
    ChangeKind,
    Device,
    DeviceChange,
    DeviceChangeError,
    DeviceConflictError,
    ParsedRead,
    PassOn,
    ReadAttempt,
    Refuse,
    Rescan,
    SameSupervisorError,
    UnknownDeviceError,
    UnreadableError,
    card_of_read,
    check_approval,
    credential_hash_of,
    decide_read,
    evolve,
    fingerprint_of,
    is_bounce,
    parse_scan_body,
    parse_stream_bytes,
    parse_stream_message,
    propose,
    proposed_again,
    recordable,
    register,
    reject,
    revoke,
    rotate,
    stream_of_unknown_device,
    table_read,
    verdict_of,
)
from teenpatti.events.catalog import (
    CardDealt,
    CardRefused,
    CardScanned,
    DeviceChangeProposed,
    DeviceRegistered,
    DeviceRevoked,
    ScanRejected,
)

NOW = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)
CREDENTIAL = "s3cret-credential"
DEVICE = Device("scanner-1", "T1", credential_hash_of(CREDENTIAL))
WINDOW = 2.0
_sequences = itertools.count(1)


def attempt(
    read: str | None = "AS",
    *,
    table_id: str | None = "T1",
    device_id: str = "scanner-1",
    credential: str | None = CREDENTIAL,
    at: datetime = NOW,
    problem: BodyProblem | None = None,
    scan_id: UUID | None = None,
    sequence: int | None = None,
    round_id: str | None = "T1-000001",
) -> ReadAttempt:
    """A read with a fresh sequence number (each above the last) unless given one."""
    number = sequence if sequence is not None else next(_sequences)
    parsed = ParsedRead(read, table_id, recordable(read or ""), problem, number)
    return ReadAttempt(scan_id or uuid4(), device_id, credential, parsed, at, round_id)


# ------------------------------------------------------------------------------ card reads
@pytest.mark.parametrize(
    ("read", "card"),
    [("AS", "AS"), (" as ", "AS"), ("10♥", "10H"), ("TD", "10D"), ("2c", "2C"), ("Q♠️", "QS")],
)
def test_a_read_becomes_the_canonical_card(read: str, card: str) -> None:
    assert card_of_read(read) == card


@pytest.mark.parametrize("read", ["", "X", "1S", "AX", "joker", "A S S"])
def test_a_read_that_is_not_a_card_is_unreadable_with_the_engines_reason(read: str) -> None:
    with pytest.raises(UnreadableError) as raised:
        card_of_read(read)
    assert str(raised.value)


def test_a_read_longer_than_32_characters_is_unreadable_before_parsing() -> None:
    with pytest.raises(UnreadableError, match="33 characters long"):
        card_of_read(" " * 31 + "AS")


# ------------------------------------------------------------------------- bounded records
def test_recordable_escapes_what_postgres_or_a_log_cannot_hold() -> None:
    assert recordable("A\x00S\ud800\n") == "A\\x00S\\ud800\\n"


def test_recordable_cuts_long_text_and_says_how_long_it_was() -> None:
    kept = recordable("x" * 10_000)
    assert kept == "x" * MAX_RECORDED_CHARS + "…[10000 chars]"


@given(st.text())
def test_recordable_is_always_bounded_printable_and_encodable(text: str) -> None:
    kept = recordable(text)
    assert len(kept) <= MAX_RECORDED_CHARS + len(f"…[{len(text)} chars]")
    assert "\x00" not in kept
    kept.encode("utf-8")  # no lone surrogates left


def test_an_unknown_device_stream_id_is_bounded() -> None:
    assert stream_of_unknown_device("d" * 5000).startswith("unknown-device-ddd")
    assert len(stream_of_unknown_device("d" * 5000)) < 200
    assert stream_of_unknown_device("") == "unknown-device-(missing)"


# ---------------------------------------------------------------------- parsing a request
def test_a_scan_body_holds_the_read_the_table_and_the_sequence() -> None:
    parsed = parse_scan_body(b'{"read": "10\xe2\x99\xa5", "table_id": "T1", "sequence": 7}')
    assert parsed == ParsedRead("10♥", "T1", "10♥", sequence=7)


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (b"not json", "the body is not JSON"),
        (b"\xff\xfe", "the body is not JSON"),
        (b"[1, 2]", "the body must be a JSON object"),
        (b'{"table_id": "T1", "sequence": 1}', "read: a string is required"),
        (b'{"read": 7, "table_id": "T1", "sequence": 1}', "read: a string is required"),
        (b'{"read": "AS", "sequence": 1}', "table_id: a string is required"),
        (b"[" * 100_000, "the body is not JSON"),
        (b'{"read": "AS", "table_id": "T1"}', "sequence: a whole number"),
        (b'{"read": "AS", "table_id": "T1", "sequence": 0}', "sequence: a whole number"),
        (b'{"read": "AS", "table_id": "T1", "sequence": -3}', "sequence: a whole number"),
        (b'{"read": "AS", "table_id": "T1", "sequence": true}', "sequence: a whole number"),
        (b'{"read": "AS", "table_id": "T1", "sequence": 1.5}', "sequence: a whole number"),
        (b'{"read": "AS", "table_id": "T1", "sequence": "2"}', "sequence: a whole number"),
        (
            b'{"read": "AS", "table_id": "T1", "sequence": 9223372036854775808}',
            "sequence: a whole number",
        ),
    ],
)
def test_a_body_that_is_not_a_read_is_a_422_problem(body: bytes, detail: str) -> None:
    parsed = parse_scan_body(body)
    assert parsed.read is None
    assert parsed.problem is not None
    assert (parsed.problem.status, parsed.problem.code) == (422, "invalid_request")
    assert parsed.problem.detail.startswith(detail)
    assert len(parsed.raw) <= MAX_RECORDED_CHARS + 20


def test_a_body_too_large_is_a_413_problem_with_a_bounded_record() -> None:
    parsed = parse_scan_body(b"x" * (MAX_BODY_BYTES + 1), too_large=True)
    assert parsed.problem is not None and parsed.problem.status == 413
    assert parsed.problem.code == "payload_too_large"
    assert parsed.raw.startswith("xxxx") and parsed.raw.endswith("chars]")


def test_a_stream_message_is_a_json_read_with_its_sequence_the_table_optional() -> None:
    assert parse_stream_message('{"read": "AS", "table_id": "T2", "sequence": 3}') == ParsedRead(
        "AS", "T2", "AS", sequence=3
    )
    assert parse_stream_message('{"read": "AS", "sequence": 4}') == ParsedRead(
        "AS", None, "AS", sequence=4
    )


@pytest.mark.parametrize("text", ["KD", "{garbage", "10", '{"read": "AS"}', '"AS"'])
def test_a_stream_message_without_a_sequence_is_not_a_read(text: str) -> None:
    parsed = parse_stream_message(text)
    assert parsed.read is None
    assert parsed.problem is not None and parsed.problem.code == "invalid_request"


def test_a_binary_stream_message_is_not_a_read_but_is_recorded_bounded() -> None:
    parsed = parse_stream_bytes(b"\x00" * 100_000)
    assert parsed.problem == BodyProblem(422, "text_expected", "send each read as a text message")
    assert parsed.raw.startswith("\\x00") and len(parsed.raw) < 100


def test_a_stream_message_too_large_is_a_413_problem() -> None:
    parsed = parse_stream_message("A" * (MAX_BODY_BYTES + 1))
    assert parsed.problem is not None and parsed.problem.status == 413


# --------------------------------------------------------------------------- registration
def change(
    device_id: str = "scanner-1", table_id: str = "T1", kind: ChangeKind = "register"
) -> DeviceChange:
    return DeviceChange(
        CHANGE_ID, device_id, table_id, kind, credential_hash_of("new"), "supervisor-1"
    )


CHANGE_ID = UUID(int=7)


def test_a_proposal_records_the_change_and_only_the_credentials_fingerprint() -> None:
    event, proposed = propose(
        CHANGE_ID, None, None, "scanner-1", "T1", credential_hash_of("new"), "supervisor-1"
    )
    assert proposed == change()
    assert event == DeviceChangeProposed(
        change_id=CHANGE_ID,
        device_id="scanner-1",
        table_id="T1",
        kind="register",
        fingerprint=fingerprint_of(credential_hash_of("new")),
        actor="supervisor-1",
    )
    assert credential_hash_of("new") not in event.model_dump_json()
    assert fingerprint_of(credential_hash_of("new")) == "-".join(
        credential_hash_of("new")[i : i + 4] for i in (0, 4, 8, 12)
    )


def test_a_rotation_is_proposed_for_the_devices_own_table() -> None:
    event, proposed = propose(
        CHANGE_ID, DEVICE, None, "scanner-1", None, credential_hash_of("new"), "supervisor-1"
    )
    assert (event.kind, event.table_id, proposed.kind) == ("rotate", "T1", "rotate")


def test_the_same_proposal_sent_again_by_its_proposer_is_the_change_that_waits() -> None:
    _, waiting = propose(
        CHANGE_ID, None, None, "scanner-1", "T1", credential_hash_of("new"), "supervisor-1"
    )
    _, rotation = propose(
        CHANGE_ID, DEVICE, None, "scanner-1", None, credential_hash_of("new"), "supervisor-1"
    )
    assert proposed_again(waiting, "T1", credential_hash_of("new"), "supervisor-1")
    assert proposed_again(rotation, None, credential_hash_of("new"), "supervisor-1")
    for table_id, credential, actor in (
        ("T1", credential_hash_of("new"), "supervisor-2"),  # another supervisor
        ("T1", credential_hash_of("other"), "supervisor-1"),  # another credential
        ("T2", credential_hash_of("new"), "supervisor-1"),  # another table
        (None, credential_hash_of("new"), "supervisor-1"),  # a rotation, not this registration
    ):
        assert not proposed_again(waiting, table_id, credential, actor)
    assert not proposed_again(rotation, "T1", credential_hash_of("new"), "supervisor-1")


@pytest.mark.parametrize(
    ("device", "pending", "table_id", "credential", "error", "code"),
    [
        (DEVICE, UUID(int=1), "T1", "new", DeviceConflictError, "change_pending"),
        (None, None, None, "new", UnknownDeviceError, "unknown_device"),
        (replace(DEVICE, active=False), None, None, "new", DeviceConflictError, "device_revoked"),
        (DEVICE, None, None, CREDENTIAL, DeviceConflictError, "credential_in_use"),
    ],
)
def test_a_proposal_that_cannot_apply_is_refused(
    device: Device | None,
    pending: UUID | None,
    table_id: str | None,
    credential: str,
    error: type[DeviceChangeError],
    code: str,
) -> None:
    with pytest.raises(error) as refused:
        propose(
            CHANGE_ID,
            device,
            pending,
            "scanner-1",
            table_id,
            credential_hash_of(credential),
            "supervisor-1",
        )
    assert refused.value.code == code


def test_a_change_is_approved_by_another_supervisor_with_the_devices_fingerprint() -> None:
    fingerprint = fingerprint_of(credential_hash_of("new"))
    check_approval(change(), "supervisor-2", fingerprint, None)
    check_approval(change(), "supervisor-2", f" {fingerprint.upper().replace('-', '')} ", None)
    with pytest.raises(SameSupervisorError) as same:
        check_approval(change(), "supervisor-1", fingerprint, None)
    assert same.value.code == "same_supervisor"
    with pytest.raises(DeviceConflictError) as mismatch:
        check_approval(change(), "supervisor-2", fingerprint_of(credential_hash_of("other")), None)
    assert mismatch.value.code == "fingerprint_mismatch"
    with pytest.raises(DeviceConflictError) as dealing:
        check_approval(change(), "supervisor-2", fingerprint, "T1-000007")
    assert (dealing.value.code, dealing.value.extra) == ("round_dealing", {"round_id": "T1-000007"})


def test_any_supervisor_may_reject_a_change() -> None:
    rejected = reject(change(), "supervisor-1", "withdrawn")
    assert (rejected.change_id, rejected.actor, rejected.reason) == (
        CHANGE_ID,
        "supervisor-1",
        "withdrawn",
    )


def test_registering_binds_the_device_with_its_new_credential_and_no_history() -> None:
    used = replace(DEVICE, last_card="AS", last_scan_id=uuid4(), last_read_at=NOW, last_sequence=41)
    registered = register(used, used, change(), "supervisor-2")
    assert registered.events == [
        (
            "scanner-1",
            DeviceRegistered(
                device_id="scanner-1",
                table_id="T1",
                actor="supervisor-1",
                change_id=CHANGE_ID,
                approved_by="supervisor-2",
            ),
        )
    ]
    assert registered.devices == [Device("scanner-1", "T1", credential_hash_of("new"))]
    assert registered.devices[0].last_sequence == 0 and registered.devices[0].active


def test_registering_a_device_to_a_table_retires_the_tables_other_device() -> None:
    other = Device("scanner-2", "T1", credential_hash_of("old"), last_sequence=9)
    registered = register(None, other, change(), "supervisor-2")
    [(owner, retired), (new_owner, new)] = registered.events
    assert (owner, new_owner) == ("scanner-2", "scanner-1")
    assert isinstance(retired, DeviceRevoked) and retired.reason == "replaced"
    assert retired.table_id == "T1" and "scanner-1" in retired.detail
    assert isinstance(new, DeviceRegistered)
    assert registered.devices[1] == replace(other, active=False)


def test_moving_a_device_revokes_its_binding_to_the_old_table() -> None:
    registered = register(DEVICE, None, change(table_id="T2"), "supervisor-2")
    [(_, moved), (_, new)] = registered.events
    assert isinstance(moved, DeviceRevoked)
    assert (moved.table_id, moved.reason) == ("T1", "moved")
    assert isinstance(new, DeviceRegistered) and new.table_id == "T2"


def test_rotating_gives_the_new_credential_and_starts_the_sequence_again() -> None:
    used = replace(DEVICE, last_sequence=12, last_card="AS")
    event, rotated = rotate(used, change(kind="rotate"), "supervisor-2")
    assert (event.device_id, event.table_id, event.actor, event.approved_by) == (
        "scanner-1",
        "T1",
        "supervisor-1",
        "supervisor-2",
    )
    assert rotated == Device("scanner-1", "T1", credential_hash_of("new"))
    with pytest.raises(DeviceConflictError):
        rotate(replace(DEVICE, active=False), change(kind="rotate"), "supervisor-2")


def test_a_revoked_device_is_refused_401_even_with_its_last_credential() -> None:
    event, revoked = revoke(DEVICE, "supervisor-1", "lost")
    assert (event.reason, event.detail, revoked.active) == ("revoked", "lost", False)
    decision = decide_read(revoked, attempt(), WINDOW)
    assert isinstance(decision, Refuse)
    assert (decision.status, decision.code, decision.event.reason) == (
        401,
        "revoked_device",
        "revoked_device",
    )
    guessed = decide_read(revoked, attempt(credential="guess"), WINDOW)
    assert isinstance(guessed, Refuse) and guessed.code == "bad_credential"  # tells nothing
    with pytest.raises(DeviceConflictError):
        revoke(revoked, "supervisor-1", "again")


# ------------------------------------------------------------------------ sequence numbers
@pytest.mark.parametrize("sequence", [5, 4, 1])
def test_a_replayed_or_reordered_read_is_refused_409_and_recorded(sequence: int) -> None:
    device = replace(DEVICE, last_sequence=5)
    decision = decide_read(device, attempt(sequence=sequence), WINDOW)
    assert isinstance(decision, Refuse)
    assert (decision.status, decision.code, decision.event.reason) == (
        409,
        "stale_sequence",
        "stale_sequence",
    )
    assert decision.event.sequence == sequence
    assert evolve(device, decision.event) == device  # a stale number moves nothing


def test_any_read_with_a_fresh_sequence_raises_the_devices_last() -> None:
    device = replace(DEVICE, last_sequence=5)
    rescan = decide_read(device, attempt("ZZ", sequence=9), WINDOW)
    assert isinstance(rescan, Rescan)
    assert evolve(device, rescan.event).last_sequence == 9
    wrong = decide_read(device, attempt(table_id="T2", sequence=7), WINDOW)
    assert isinstance(wrong, Refuse) and wrong.code == "wrong_table"
    assert evolve(device, wrong.event).last_sequence == 7
    unauthenticated = decide_read(device, attempt(credential="bad", sequence=99), WINDOW)
    assert evolve(device, unauthenticated.event).last_sequence == 5


# ------------------------------------------------------------------------- judging reads
def test_a_good_card_from_its_device_for_its_table_is_passed_on() -> None:
    scan_id = uuid4()
    decision = decide_read(DEVICE, attempt(" 10♥ ", scan_id=scan_id, sequence=3), WINDOW)
    assert decision == PassOn(
        CardScanned(
            scan_id=scan_id,
            device_id="scanner-1",
            table_id="T1",
            round_id="T1-000001",  # the round the gateway believes in play
            sequence=3,
            card="10H",
            raw=" 10♥ ",
            scanned_at=NOW,
        )
    )


def test_a_stream_read_without_a_table_is_for_the_devices_own_table() -> None:
    decision = decide_read(DEVICE, attempt("AS", table_id=None), WINDOW)
    assert isinstance(decision, PassOn) and decision.event.table_id == "T1"


def test_an_unknown_device_is_refused_401_and_recorded_under_the_claimed_table() -> None:
    decision = decide_read(None, attempt(device_id="ghost", table_id="T9"), WINDOW)
    assert isinstance(decision, Refuse)
    assert (decision.status, decision.code) == (401, "unknown_device")
    assert decision.event.reason == "unknown_device"
    assert (decision.event.device_id, decision.event.table_id) == ("ghost", "T9")


def test_an_unknown_device_naming_no_valid_table_is_recorded_without_one() -> None:
    decision = decide_read(None, attempt(device_id="", table_id="\x00" * 100), WINDOW)
    assert isinstance(decision, Refuse)
    assert (decision.event.device_id, decision.event.table_id) == ("(missing)", NO_TABLE)


@pytest.mark.parametrize("credential", [None, "", "wrong", CREDENTIAL + "x"])
def test_a_bad_credential_is_refused_401(credential: str | None) -> None:
    decision = decide_read(DEVICE, attempt(credential=credential), WINDOW)
    assert isinstance(decision, Refuse)
    assert (decision.status, decision.code, decision.event.reason) == (
        401,
        "bad_credential",
        "bad_credential",
    )
    assert decision.event.table_id == "T1"


def test_a_read_for_another_table_is_refused_403_under_the_devices_table() -> None:
    decision = decide_read(DEVICE, attempt(table_id="T2"), WINDOW)
    assert isinstance(decision, Refuse)
    assert (decision.status, decision.code, decision.event.reason) == (
        403,
        "wrong_table",
        "wrong_table",
    )
    assert decision.event.table_id == "T1"
    assert "'T2'" in decision.event.detail


def test_an_unreadable_read_asks_for_a_rescan_with_the_engines_reason() -> None:
    decision = decide_read(DEVICE, attempt("ZZ"), WINDOW)
    assert isinstance(decision, Rescan)
    assert decision.event.reason == "unreadable"
    assert "unknown suit 'Z'" in decision.event.detail


def test_a_body_problem_from_a_known_device_is_recorded_unreadable_and_refused() -> None:
    problem = BodyProblem(422, "invalid_request", "the body is not JSON")
    decision = decide_read(DEVICE, attempt(None, table_id=None, problem=problem), WINDOW)
    assert isinstance(decision, Refuse)
    assert (decision.status, decision.code, decision.event.reason) == (
        422,
        "invalid_request",
        "unreadable",
    )


def test_authentication_comes_before_the_body() -> None:
    problem = BodyProblem(422, "invalid_request", "the body is not JSON")
    decision = decide_read(DEVICE, attempt(None, credential="bad", problem=problem), WINDOW)
    assert isinstance(decision, Refuse) and decision.code == "bad_credential"


# -------------------------------------------------------------------------- bounce window
def after_scan(card: str, scan_id: UUID, at: datetime, status: str = "pending") -> Device:
    return replace(
        DEVICE, last_card=card, last_scan_id=scan_id, last_status=status, last_read_at=at
    )


def test_the_same_card_within_the_window_is_absorbed_as_the_first_read() -> None:
    first = uuid4()
    device = after_scan("AS", first, NOW)
    decision = decide_read(device, attempt("as", at=NOW + timedelta(seconds=1.5)), WINDOW)
    assert isinstance(decision, Absorb)
    assert decision.original_scan_id == first
    assert decision.event.reason == "duplicate_read"


@pytest.mark.parametrize(
    ("device", "card", "seconds", "bounce"),
    [
        (DEVICE, "AS", 0.1, False),  # nothing read yet
        (after_scan("AS", uuid4(), NOW), "AS", 1.999, True),
        (after_scan("AS", uuid4(), NOW), "AS", 2.0, False),  # the window is half-open
        (after_scan("AS", uuid4(), NOW), "KS", 0.1, False),  # another card
        (after_scan("AS", uuid4(), NOW, "registered"), "AS", 0.1, True),
        (after_scan("AS", uuid4(), NOW, "refused"), "AS", 0.1, False),  # the dealer retries
        (after_scan("AS", uuid4(), NOW), "AS", -0.5, True),  # clocks: "just now" still
    ],
)
def test_the_bounce_decision(device: Device, card: str, seconds: float, bounce: bool) -> None:
    assert is_bounce(device, card, NOW + timedelta(seconds=seconds), WINDOW) is bounce


def test_a_zero_window_absorbs_nothing() -> None:
    device = after_scan("AS", uuid4(), NOW)
    assert not is_bounce(device, "AS", NOW, 0.0)


def test_the_window_slides_with_every_read_of_the_same_card() -> None:
    first = uuid4()
    device = after_scan("AS", first, NOW)
    for step in range(1, 6):  # a card resting on the scanner, read every 1.5 s
        at = NOW + timedelta(seconds=1.5 * step)
        decision = decide_read(device, attempt("AS", at=at), WINDOW)
        assert isinstance(decision, Absorb) and decision.original_scan_id == first
        device = evolve(device, decision.event)
    assert device.last_read_at == NOW + timedelta(seconds=7.5)


def test_a_passed_on_card_starts_a_new_window_and_other_rejections_change_nothing() -> None:
    decision = decide_read(DEVICE, attempt("KH"), WINDOW)
    assert isinstance(decision, PassOn)
    device = evolve(DEVICE, decision.event)
    assert (device.last_card, device.last_scan_id, device.last_status, device.last_read_at) == (
        "KH",
        decision.event.scan_id,
        "pending",
        NOW,
    )
    rejected = decide_read(device, attempt("ZZ", at=NOW + timedelta(seconds=1)), WINDOW)
    assert isinstance(rejected.event, ScanRejected)
    assert evolve(device, rejected.event) == replace(
        device, last_sequence=rejected.event.sequence
    )  # only its sequence number is used up


# ------------------------------------------------------------------------------- verdicts
def test_a_dealt_card_is_registered_at_its_position() -> None:
    scan_id = uuid4()
    dealt = CardDealt(
        round_id="T1-000001", table_id="T1", position="B2", card="AS", scan_id=scan_id
    )
    assert json.loads(verdict_of(dealt).model_dump_json()) == {
        "scan_id": str(scan_id),
        "status": "registered",
        "reason": None,
        "detail": None,
        "position": "B2",
        "card": "AS",
        "duplicate": False,
    }


def test_a_refused_card_carries_the_tables_reason() -> None:
    scan_id = uuid4()
    refused = CardRefused(
        table_id="T1",
        round_id=None,
        scan_id=scan_id,
        card="AS",
        reason="betting_open",
        detail="betting is open",
    )
    verdict = verdict_of(refused)
    assert (verdict.status, verdict.reason, verdict.detail, verdict.position) == (
        "refused",
        "betting_open",
        "betting is open",
        None,
    )


# ---------------------------------------------------------------------- a table's reads
def scan_row(status: str, *, revealed: bool, **more: object) -> dict[str, object]:
    row: dict[str, object] = {
        "scan_id": uuid4(),
        "device_id": "scanner-1",
        "raw": "K♥",
        "card": "KH",
        "status": status,
        "reason": None,
        "detail": None,
        "position": None,
        "sequence": 3,
        "received_at": NOW,
        "decided_at": None,
        "revealed": revealed,
    }
    return row | more


def test_a_reads_value_is_shown_once_the_tables_verdict_shows_it() -> None:
    dealt = table_read(scan_row("registered", revealed=True, position="A1"))
    assert (dealt.raw, dealt.card, dealt.sealed, dealt.verdict) == ("K♥", "KH", False, "accepted")
    for status in ("pending", "refused", "duplicate", "rejected"):
        read = table_read(scan_row(status, revealed=False, detail="KH again 0.1s after"))
        assert (read.raw, read.card, read.sealed) == ("sealed", "sealed", True)
    bounce = table_read(scan_row("duplicate", revealed=False, detail="KH again 0.1s after"))
    assert bounce.detail == "sealed"  # the gateway's own detail quotes the card
    garbage = table_read(
        scan_row("rescan", revealed=False, card=None, raw="KH KH", detail="'KH KH' is not")
    )
    assert (garbage.raw, garbage.card, garbage.detail) == ("sealed", None, "sealed")
    refused = table_read(scan_row("refused", revealed=False, detail="betting is open"))
    assert refused.detail == "betting is open"  # the table's, as its feed shows it
