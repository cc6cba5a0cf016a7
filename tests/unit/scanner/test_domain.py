"""The gateway's pure rules: reading a card, parsing what arrives, judging a read."""

from __future__ import annotations

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
    Device,
    ParsedRead,
    PassOn,
    ReadAttempt,
    Refuse,
    Rescan,
    UnreadableError,
    card_of_read,
    decide_read,
    evolve,
    is_bounce,
    parse_scan_body,
    parse_stream_bytes,
    parse_stream_message,
    recordable,
    register,
    stream_of_unknown_device,
    verdict_of,
)
from teenpatti.events.catalog import CardDealt, CardRefused, CardScanned, ScanRejected
from teenpatti.http import hash_key

NOW = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)
CREDENTIAL = "s3cret-credential"
DEVICE = Device("scanner-1", "T1", hash_key(CREDENTIAL))
WINDOW = 2.0


def attempt(
    read: str | None = "AS",
    *,
    table_id: str | None = "T1",
    device_id: str = "scanner-1",
    credential: str | None = CREDENTIAL,
    at: datetime = NOW,
    problem: BodyProblem | None = None,
    scan_id: UUID | None = None,
) -> ReadAttempt:
    parsed = ParsedRead(read, table_id, recordable(read or ""), problem)
    return ReadAttempt(scan_id or uuid4(), device_id, credential, parsed, at)


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
def test_a_scan_body_holds_the_read_and_the_table() -> None:
    parsed = parse_scan_body(b'{"read": "10\xe2\x99\xa5", "table_id": "T1"}')
    assert parsed == ParsedRead("10♥", "T1", "10♥")


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (b"not json", "the body is not JSON"),
        (b"\xff\xfe", "the body is not JSON"),
        (b"[1, 2]", "the body must be a JSON object"),
        (b'{"table_id": "T1"}', "read: a string is required"),
        (b'{"read": 7, "table_id": "T1"}', "read: a string is required"),
        (b'{"read": "AS"}', "table_id: a string is required"),
        (b"[" * 100_000, "the body is not JSON"),
    ],
)
def test_a_body_that_is_not_a_read_is_a_422_problem(body: bytes, detail: str) -> None:
    parsed = parse_scan_body(body)
    assert parsed.read is None
    assert parsed.problem == BodyProblem(422, "invalid_request", detail)
    assert len(parsed.raw) <= MAX_RECORDED_CHARS + 20


def test_a_body_too_large_is_a_413_problem_with_a_bounded_record() -> None:
    parsed = parse_scan_body(b"x" * (MAX_BODY_BYTES + 1), too_large=True)
    assert parsed.problem is not None and parsed.problem.status == 413
    assert parsed.problem.code == "payload_too_large"
    assert parsed.raw.startswith("xxxx") and parsed.raw.endswith("chars]")


def test_a_stream_message_is_json_or_the_bare_read_for_the_devices_own_table() -> None:
    assert parse_stream_message('{"read": "AS", "table_id": "T2"}') == ParsedRead("AS", "T2", "AS")
    assert parse_stream_message('{"read": "AS"}') == ParsedRead("AS", None, "AS")
    assert parse_stream_message("KD") == ParsedRead("KD", None, "KD")
    assert parse_stream_message("{garbage") == ParsedRead("{garbage", None, "{garbage")
    assert parse_stream_message("10") == ParsedRead("10", None, "10")


def test_a_binary_stream_message_is_not_a_read_but_is_recorded_bounded() -> None:
    parsed = parse_stream_bytes(b"\x00" * 100_000)
    assert parsed.problem == BodyProblem(422, "text_expected", "send each read as a text message")
    assert parsed.raw.startswith("\\x00") and len(parsed.raw) < 100


def test_a_stream_message_too_large_is_a_413_problem() -> None:
    parsed = parse_stream_message("A" * (MAX_BODY_BYTES + 1))
    assert parsed.problem is not None and parsed.problem.status == 413


# --------------------------------------------------------------------------- registration
def test_registering_binds_the_device_with_a_fresh_credential_and_no_history() -> None:
    used = replace(DEVICE, last_card="AS", last_scan_id=uuid4(), last_read_at=NOW)
    event, device = register(used, "scanner-1", "T2", hash_key("new"), "supervisor-1")
    assert event.model_dump() == {
        "device_id": "scanner-1",
        "table_id": "T2",
        "actor": "supervisor-1",
    }
    assert device == Device("scanner-1", "T2", hash_key("new"))


# ------------------------------------------------------------------------- judging reads
def test_a_good_card_from_its_device_for_its_table_is_passed_on() -> None:
    scan_id = uuid4()
    decision = decide_read(DEVICE, attempt(" 10♥ ", scan_id=scan_id), WINDOW)
    assert decision == PassOn(
        CardScanned(
            scan_id=scan_id,
            device_id="scanner-1",
            table_id="T1",
            card="10H",
            raw=" 10♥ ",
            scanned_at=NOW,
        )
    )


def test_a_bare_stream_read_is_for_the_devices_own_table() -> None:
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
    assert evolve(device, rejected.event) == device


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
