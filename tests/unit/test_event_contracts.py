"""Event contracts: the envelope, the registry and upcasting (no servers)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta, timezone
from typing import ClassVar
from uuid import uuid4

import pytest
from pydantic import ValidationError

from teenpatti.events import (
    Event,
    EventEnvelope,
    EventRegistry,
    InvalidEventPayloadError,
    MalformedEnvelopeError,
    UnknownEventTypeError,
    UnsupportedSchemaVersionError,
    new_envelope,
)

registry = EventRegistry()


@registry.register
class CardShown(Event):
    event_type: ClassVar[str] = "CardShown"
    schema_version: ClassVar[int] = 3
    card: str
    seat: int
    face_up: bool


@registry.upcaster("CardShown", from_version=1)
def _v1_to_v2(payload: dict[str, object]) -> dict[str, object]:
    return {"card": payload["card"], "seat": payload["position"]}


@registry.upcaster("CardShown", from_version=2)
def _v2_to_v3(payload: dict[str, object]) -> dict[str, object]:
    return {**payload, "face_up": True}


def envelope_json(**overrides: object) -> bytes:
    envelope = new_envelope(
        CardShown(card="AS", seat=1, face_up=True),
        stream_id="round-1",
        stream_version=1,
        table_id="T1",
        producer="tests",
    )
    return json.dumps({**json.loads(envelope.to_json_bytes()), **overrides}).encode()


def test_an_envelope_round_trips_through_json() -> None:
    envelope = EventEnvelope.from_json_bytes(envelope_json())

    assert EventEnvelope.from_json_bytes(envelope.to_json_bytes()) == envelope
    assert registry.decode_envelope(envelope) == CardShown(card="AS", seat=1, face_up=True)
    assert envelope.correlation_id == envelope.event_id


def test_times_are_kept_in_utc() -> None:
    india = timezone(timedelta(hours=5, minutes=30))
    envelope = EventEnvelope.from_json_bytes(
        envelope_json(occurred_at=datetime(2026, 11, 29, 17, 30, tzinfo=india).isoformat())
    )

    assert envelope.occurred_at == datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    assert envelope.occurred_at.tzinfo == UTC


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"{not json", "malformed event envelope: (root): Invalid JSON"),
        (b"[]", "malformed event envelope: (root): Input should be an object"),
        (
            envelope_json(event_id="42"),
            "malformed event envelope: event_id: Input should be a valid UUID",
        ),
        (
            envelope_json(stream_version=0),
            "stream_version: Input should be greater than or equal to 1",
        ),
        (
            envelope_json(occurred_at="2026-11-29T12:00:00"),
            "occurred_at: Input should have timezone info",
        ),
        (envelope_json(extra="x"), "extra: Extra inputs are not permitted"),
        (envelope_json(payload="AS"), "payload: Input should be an object"),
        (envelope_json(table_id=""), "table_id: String should have at least 1 character"),
    ],
)
def test_a_malformed_envelope_says_what_is_wrong(raw: bytes, message: str) -> None:
    with pytest.raises(MalformedEnvelopeError, match=re.escape(message)):
        EventEnvelope.from_json_bytes(raw)


def test_an_unknown_event_type_is_named() -> None:
    with pytest.raises(UnknownEventTypeError, match="unknown event type 'CardBurned'"):
        registry.decode("CardBurned", 1, {})


@pytest.mark.parametrize("version", [0, 4, 99])
def test_a_schema_version_this_build_cannot_read_is_refused(version: int) -> None:
    with pytest.raises(
        UnsupportedSchemaVersionError,
        match=re.escape(
            f"CardShown schema version {version} is not supported"
            " (this build reads versions 1 to 3)"
        ),
    ):
        registry.decode("CardShown", version, {"card": "AS", "seat": 1, "face_up": True})


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"card": "AS", "seat": "one", "face_up": True}, "seat: Input should be a valid integer"),
        ({"card": "AS", "face_up": True}, "seat: Field required"),
        ({"card": "AS", "seat": 1, "face_up": True, "x": 1}, "x: Extra inputs are not permitted"),
    ],
)
def test_an_invalid_payload_says_which_field(payload: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidEventPayloadError, match=f"invalid CardShown v3 payload: {message}"):
        registry.decode("CardShown", 3, payload)


def test_older_versions_are_upcast_one_step_at_a_time() -> None:
    assert registry.decode("CardShown", 1, {"card": "KD", "position": 4}) == CardShown(
        card="KD", seat=4, face_up=True
    )
    assert registry.decode("CardShown", 2, {"card": "KD", "seat": 4}) == CardShown(
        card="KD", seat=4, face_up=True
    )


def test_stored_json_decodes_to_the_same_event_as_the_parsed_payload() -> None:
    assert registry.decode_json("CardShown", 3, '{"card":"AS","seat":1,"face_up":false}') == (
        CardShown(card="AS", seat=1, face_up=False)
    )
    # older versions still go through the upcasters
    assert registry.decode_json("CardShown", 1, b'{"card":"KD","position":4}') == CardShown(
        card="KD", seat=4, face_up=True
    )


@pytest.mark.parametrize(
    ("version", "payload", "message"),
    [
        (3, '{"card":"AS","seat":"one","face_up":true}', "seat: Input should be a valid integer"),
        (3, '{"card":"AS","face_up":true}', "seat: Field required"),
        (3, '{"card":"AS","seat":1,"face_up":true', "invalid CardShown v3 payload: (root)"),
        (3, "[1, 2]", "invalid CardShown v3 payload: (root)"),
        (1, '{"card":', "CardShown payload is not JSON"),
        (1, "[1, 2]", "CardShown payload is not a JSON object"),
    ],
)
def test_bad_stored_json_says_what_is_wrong(version: int, payload: str, message: str) -> None:
    with pytest.raises(InvalidEventPayloadError, match=re.escape(message)):
        registry.decode_json("CardShown", version, payload)
    with pytest.raises(UnsupportedSchemaVersionError):
        registry.decode_json("CardShown", 4, payload)


def test_a_missing_upcaster_is_reported() -> None:
    local = EventRegistry()

    @local.register
    class ChipsMoved(Event):
        event_type: ClassVar[str] = "ChipsMoved"
        schema_version: ClassVar[int] = 2
        chips: int

    with pytest.raises(UnsupportedSchemaVersionError, match="no upcaster from version 1 to 2"):
        local.decode("ChipsMoved", 1, {"chips": 1})


def test_an_event_type_is_registered_once() -> None:
    with pytest.raises(ValueError, match="'CardShown' is registered twice"):
        registry.register(CardShown)


def test_payloads_are_frozen() -> None:
    event = CardShown(card="AS", seat=1, face_up=True)
    with pytest.raises(ValidationError, match="frozen"):
        event.seat = 2  # type: ignore[misc]


def test_envelopes_carry_causation() -> None:
    cause = uuid4()
    envelope = new_envelope(
        CardShown(card="AS", seat=1, face_up=True),
        stream_id="round-1",
        stream_version=1,
        table_id="T1",
        producer="tests",
        causation_id=cause,
    )
    assert envelope.causation_id == cause
    assert envelope.payload == {"card": "AS", "seat": 1, "face_up": True}
