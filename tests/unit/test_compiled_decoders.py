"""Compiled event decoders against the pydantic contracts they are derived from (no servers).

The oracle is pydantic itself: over payloads generated from each contract's own fields
(valid ones, and each mutated once: a wrong type, a bound crossed, a field missing or
unknown, a bad UUID, card code or time, a list too long, a duplicated key, broken JSON), a
compiled decoder that accepts must build what the contract builds, field for field; and the
registry must answer as the contract alone does: the same event, or the same
InvalidEventPayloadError with the same message. A canonical payload (what the services
write) must take the compiled path, so the equality is not won by always falling back.
"""

from __future__ import annotations

import json
import types
import typing
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import AwareDatetime, BaseModel, Field, ValidationError, model_validator

from teenpatti.events import (
    Event,
    EventEnvelope,
    EventRegistry,
    InvalidEventPayloadError,
    new_envelope,
)
from teenpatti.events.catalog import (
    SETTLEMENT_PART,
    BetSettled,
    BetsSettled,
    RoundOpened,
    StakeLimit,
    registry,
)
from teenpatti.events.compiled import REFUSED, NotCompilableError, compile_decoder

COMPILED = {name: registry.compiled_decoder(name) for name in sorted(registry.compilable_types)}
EXAMPLES = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ------------------------------------------------------------------ payloads from the contract
def _constraints(metadata: list[Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for item in metadata:
        for name in ("gt", "ge", "lt", "le", "min_length", "max_length", "pattern"):
            if hasattr(item, name) and getattr(item, name) is not None:
                found[name] = getattr(item, name)
    return found


def _flatten(annotation: Any, metadata: list[Any]) -> tuple[Any, dict[str, Any]]:
    if typing.get_origin(annotation) is Annotated:
        inner, *extras = typing.get_args(annotation)
        more = [m for extra in extras for m in getattr(extra, "metadata", [extra])]
        return _flatten(inner, [*metadata, *more])
    return annotation, _constraints(metadata)


ZONES = st.sampled_from(
    [UTC, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=3, minutes=15))]
)
JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=10,
)


def valid_json(annotation: Any, metadata: list[Any] = [], most: int = 4) -> st.SearchStrategy[Any]:  # noqa: B006
    """A JSON value the contract's annotation accepts (lists and dicts of at most `most`)."""
    annotation, bounds = _flatten(annotation, metadata)
    origin = typing.get_origin(annotation)
    if annotation is AwareDatetime:
        return st.builds(
            lambda moment, zone: moment.replace(tzinfo=zone).isoformat().replace("+00:00", "Z"),
            st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)),
            ZONES,
        )
    if annotation is uuid.UUID:
        return st.uuids().map(str)
    if annotation is Any:
        return JSON_VALUES
    if annotation is bool:
        return st.booleans()
    if annotation is str:
        if "pattern" in bounds:
            return st.from_regex(bounds["pattern"].removesuffix("$") + r"\Z")
        return st.text(
            min_size=bounds.get("min_length", 0), max_size=min(bounds.get("max_length", 12), 12)
        )
    if annotation is int:
        low = bounds.get("ge", bounds["gt"] + 1 if "gt" in bounds else -(2**40))
        high = bounds.get("le", bounds["lt"] - 1 if "lt" in bounds else 2**70)
        return st.integers(low, high) | st.sampled_from([low, high])
    if annotation is float:
        return st.floats(
            min_value=bounds.get("ge", bounds.get("gt")),
            max_value=bounds.get("le", bounds.get("lt")),
            exclude_min="gt" in bounds,
            allow_nan=False,
        ) | st.integers(int(bounds.get("ge", bounds.get("gt", 0))) + 1, int(bounds.get("le", 9)))
    if origin is Literal:
        return st.sampled_from(typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        (inner,) = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        return st.none() | valid_json(inner, [], most)
    if origin is list:
        (item,) = typing.get_args(annotation)
        low = bounds.get("min_length", 0)
        return st.lists(valid_json(item, [], most), min_size=low, max_size=max(low, most))
    if origin is dict:
        key, value = typing.get_args(annotation)
        return st.dictionaries(valid_json(key), valid_json(value, [], most), max_size=2)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return valid_payload(annotation, most)
    raise AssertionError(f"no generator for {annotation!r}")


def valid_payload(model: type[BaseModel], most: int = 4) -> st.SearchStrategy[dict[str, Any]]:
    required = {
        name: valid_json(info.annotation, info.metadata, most)
        for name, info in model.model_fields.items()
        if info.is_required()
    }
    optional = {
        name: valid_json(info.annotation, info.metadata, most)
        for name, info in model.model_fields.items()
        if not info.is_required()
    }
    return st.fixed_dictionaries(required, optional=optional)


# what a value is replaced with: each a form some field of some contract refuses, or accepts
# only through pydantic's lax reading
HOSTILE = [
    None,
    True,
    False,
    0,
    -1,
    1,
    1.0,
    2.5,
    -0.0,
    "1",
    "",
    " ",
    "x" * 201,
    "é" * 50,
    2**31,
    2**63 - 1,
    2**63,
    2**64,
    10**30,
    10**11,
    10**11 + 1,
    10**15 * 1_001,
    [],
    {},
    ["AS"],
    {"a": 1},
    float("inf"),
    float("nan"),
    "AS",
    "AS\n",
    "as",
    "1S",
    "10H",
    "11H",
    " AS",
    "AS ",
    "A1",
    "A1\n",
    "C1",
    "INR",
    "inr",
    "INRR",
    "IN",
    "INR\n",
    "player_a",
    "player_a ",
    "won",
    "WON",
    "12345678-1234-5678-1234-567812345678",
    "12345678123456781234567812345678",
    "{12345678-1234-5678-1234-567812345678}",
    "urn:uuid:12345678-1234-5678-1234-567812345678",
    "12345678-1234-5678-1234-56781234567",
    "12345678-1234-5678-1234-5678123456789",
    "2026-11-01T00:00:00Z",
    "2026-11-01T00:00:00",
    "2026-11-01T00:00:00.1234567Z",
    "2026-11-01T00:00:00.9999999+05:30",
    "2026-11-01 00:00:00Z",
    "2026-11-01t00:00:00z",
    "2026-11-01T00:00Z",
    "2026-11-01T00:00:00+05",
    "2026-11-01T00:00:00+0530",
    "2026-02-30T00:00:00Z",
    "2026-11-01T24:00:00Z",
    "1700000000",
    1700000000,
    "0/1",
    "49/50",
    "p" * 51,
]


@st.composite
def mutated(draw: st.DrawFn, model: type[BaseModel]) -> str:
    """A valid payload of `model` with one thing wrong (or, by chance, still right), as text."""
    payload: Any = draw(valid_payload(model))
    kind = draw(st.sampled_from(["replace", "delete", "extra", "lengthen", "text"]))
    containers = list(_containers(payload))
    holder = draw(st.sampled_from(containers))
    keys = list(holder) if isinstance(holder, dict) else list(range(len(holder)))
    if kind == "replace" and keys:
        holder[draw(st.sampled_from(keys))] = draw(st.sampled_from(HOSTILE))
    elif kind == "delete" and keys:
        del holder[draw(st.sampled_from(keys))]
    elif kind == "extra" and isinstance(holder, dict):
        holder[draw(st.sampled_from(["extra", "event_type", "", "Round_id"]))] = 1
    elif kind == "lengthen":
        lists = [c for c in containers if isinstance(c, list) and c]
        if lists:
            target = draw(st.sampled_from(lists))
            target.extend(target * draw(st.sampled_from([1, 5, 1000])))
    text = json.dumps(payload, allow_nan=True)
    if kind == "text":
        cut = draw(st.integers(0, len(text)))
        text = draw(
            st.sampled_from(
                [
                    text[:cut],
                    text + " x",
                    "[" + text + "]",
                    text.replace('"', '"\\ud800', 1),
                    # a key given twice: the first value wrong, then the last
                    text.replace("{", '{"round_id": 5, ', 1),
                    text[:-1] + ', "round_id": 5}' if text.endswith("}") else text,
                ]
            )
        )
    return text


def _containers(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        yield value
        for inner in value.values():
            yield from _containers(inner)
    elif isinstance(value, list):
        yield value
        for inner in value:
            yield from _containers(inner)


# ------------------------------------------------------------------ the oracle
def same(got: Any, expected: Any) -> bool:
    """Equal, field by field, of the same types; a datetime the same instant and offset."""
    if isinstance(expected, BaseModel):
        return (
            type(got) is type(expected)
            and got.model_fields_set == expected.model_fields_set
            and got.__pydantic_extra__ == expected.__pydantic_extra__
            and got.__pydantic_private__ == expected.__pydantic_private__
            and list(got.__dict__) == list(expected.__dict__)
            and all(same(got.__dict__[k], v) for k, v in expected.__dict__.items())
        )
    if isinstance(expected, datetime):
        return (
            type(got) is datetime
            and got == expected
            and got.utcoffset() == expected.utcoffset()
            and got.replace(tzinfo=None) == expected.replace(tzinfo=None)
        )
    if type(got) is not type(expected):
        return False
    if isinstance(expected, dict):
        return list(got) == list(expected) and all(same(got[k], v) for k, v in expected.items())
    if isinstance(expected, list):
        return len(got) == len(expected) and all(map(same, got, expected))
    if isinstance(expected, float) and expected != expected:
        return bool(got != got)
    return bool(got == expected)


def by_pydantic(event_type: str, decode: Any) -> Any:
    """What the registry answers with the contract alone: an event, or the error's text."""
    registry.use_compiled(False)
    try:
        return decode()
    except InvalidEventPayloadError as error:
        return error
    finally:
        registry.use_compiled(True)


def agree(event_type: str, text: str) -> None:
    decoder = COMPILED[event_type]
    model = decoder.model
    try:
        expected: Any = model.__pydantic_validator__.validate_json(text)
    except ValidationError:
        expected = None
    try:
        got = decoder.from_json(text)
    except REFUSED:
        got = None
    if got is not None:
        assert expected is not None, (
            f"compiled {event_type} took what pydantic refuses: {text:.300}"
        )
        assert same(got, expected), f"{event_type}: {got!r} != {expected!r}"
    # the registry: the compiled path, then the contract for what it refuses
    want = by_pydantic(event_type, lambda: registry.decode_json(event_type, 1, text))
    try:
        answer: Any = registry.decode_json(event_type, 1, text)
    except InvalidEventPayloadError as error:
        answer = error
    if isinstance(want, InvalidEventPayloadError):
        assert isinstance(answer, InvalidEventPayloadError) and str(answer) == str(want)
    else:
        assert same(answer, want)
    # from a payload parsed already (what a consumer's envelope carries)
    try:
        parsed = json.loads(text)
    except ValueError:
        return
    if isinstance(parsed, dict):
        agree_parsed(event_type, parsed)


def agree_parsed(event_type: str, payload: dict[str, Any]) -> None:
    want = by_pydantic(event_type, lambda: registry.decode(event_type, 1, payload))
    try:
        answer: Any = registry.decode_parsed(event_type, 1, payload)
    except InvalidEventPayloadError as error:
        answer = error
    if isinstance(want, InvalidEventPayloadError):
        assert isinstance(answer, InvalidEventPayloadError) and str(answer) == str(want)
    else:
        assert same(answer, want), f"{event_type}: {answer!r} != {want!r}"


# ------------------------------------------------------------------ the properties
def test_the_hot_types_are_compiled() -> None:
    assert set(COMPILED) == {
        "TableOpened", "RoundOpened", "CardDealt", "RoundClosed", "BetsSettled"
    }  # fmt: skip
    assert registry.compiled_types == frozenset(COMPILED)


@pytest.mark.parametrize("event_type", list(COMPILED))
@EXAMPLES
@given(data=st.data())
def test_a_valid_payload_takes_the_compiled_path_and_builds_the_same_event(
    event_type: str, data: st.DataObject
) -> None:
    model = COMPILED[event_type].model
    canonical = model.model_validate(data.draw(valid_payload(model))).model_dump_json()
    got = COMPILED[event_type].from_json(canonical)  # no fallback: it must take it
    assert same(got, model.model_validate_json(canonical))
    agree(event_type, canonical)


@pytest.mark.parametrize("event_type", list(COMPILED))
@EXAMPLES
@given(data=st.data())
def test_any_payload_is_answered_as_the_contract_answers_it(
    event_type: str, data: st.DataObject
) -> None:
    model = COMPILED[event_type].model
    agree(event_type, data.draw(st.one_of(valid_payload(model).map(json.dumps), mutated(model))))


class _Text(StrEnum):
    OPERATOR = "op"


def test_python_values_are_decoded_by_the_contract_alone() -> None:
    """`decode` takes any Python values, so it is the class's alone: a compiled decoder keeps
    a str subclass (an enum) as given where the class makes it a plain str. A payload parsed
    from JSON (an envelope's) has none, and `decode_parsed` takes the compiled path."""
    line = {
        "bet_id": str(uuid.UUID(int=7)), "operator_id": _Text.OPERATOR, "player_id": "p1",
        "bet_type": "tie", "stake": 100, "currency": "INR", "outcome": "lost",
        "returned": 0, "fraction_kept": "0", "odds": None,
    }  # fmt: skip
    part = {"round_id": "r", "table_id": "t", "bets": [line]}
    decoded = registry.decode("BetsSettled", 1, part)
    assert isinstance(decoded, BetsSettled)
    assert type(decoded.bets[0].operator_id) is str
    assert same(decoded, BetsSettled.model_validate(part))
    as_json = json.loads(json.dumps(part))
    assert same(registry.decode_parsed("BetsSettled", 1, as_json), decoded)


def test_a_part_of_the_most_lines_is_compiled_and_one_more_is_refused_as_before() -> None:
    lines = [
        BetSettled(
            bet_id=uuid.uuid4(), operator_id="op-1", player_id=f"p{n % 7}", bet_type="player_a",
            stake=100 + n, currency="INR", outcome="won", returned=195 + 2 * n,
            fraction_kept="0", odds="19/20",
        ).model_dump(mode="json")
        for n in range(SETTLEMENT_PART + 1)
    ]  # fmt: skip
    full = json.dumps({"round_id": "T1-000001", "table_id": "T1", "bets": lines[:-1]})
    assert same(COMPILED["BetsSettled"].from_json(full), BetsSettled.model_validate_json(full))
    agree("BetsSettled", full)
    too_long = json.dumps({"round_id": "T1-000001", "table_id": "T1", "bets": lines})
    with pytest.raises(InvalidEventPayloadError, match="at most 1000 items"):
        registry.decode_json("BetsSettled", 1, too_long)
    agree("BetsSettled", too_long)


def test_a_round_shares_equal_stake_limits_and_still_equals_the_contract() -> None:
    limits = {"INR": {"tie": {"min": 100, "max": 5_000}, "player_a": {"min": 100, "max": 5_000}}}
    payload = {
        "round_id": "T1-000001", "table_id": "T1", "number": 1,
        "opened_at": "2026-11-01T00:00:00Z", "betting_closes_at": "2026-11-01T00:00:15+00:00",
        "limits": limits, "paytable": {"name": "published", "tie": "50", "big": 10**30},
    }  # fmt: skip
    first = COMPILED["RoundOpened"].from_json(json.dumps(payload))
    second = COMPILED["RoundOpened"].from_json(json.dumps(payload))
    assert isinstance(first, RoundOpened) and isinstance(second, RoundOpened)
    assert first.limits["INR"]["tie"] is second.limits["INR"]["tie"]
    assert first.limits is not second.limits  # the containers are each event's own
    assert same(first, RoundOpened.model_validate_json(json.dumps(payload)))
    assert first.limits["INR"]["tie"] == StakeLimit(min=100, max=5_000)
    # a consumer's envelope takes the compiled path too: its limits are the shared ones
    record = new_envelope(
        first, stream_id="table-T1", stream_version=2, table_id="T1", producer="table"
    ).to_json_bytes()
    third = registry.decode_envelope(EventEnvelope.from_json_bytes(record))
    assert isinstance(third, RoundOpened)
    assert third.limits["INR"]["tie"] is first.limits["INR"]["tie"]
    assert same(third, RoundOpened.model_validate_json(json.dumps(payload)))


def test_a_time_with_more_than_microseconds_is_left_to_pydantic_which_truncates_it() -> None:
    payload = {
        "round_id": "T1-000001", "table_id": "T1", "number": 1,
        "opened_at": "2026-11-01T00:00:00.9999999Z",
        "betting_closes_at": "2026-11-01T00:00:15.1234567+05:30",
        "limits": {}, "paytable": {},
    }  # fmt: skip
    with pytest.raises(REFUSED):
        COMPILED["RoundOpened"].from_json(json.dumps(payload))
    event = registry.decode_json("RoundOpened", 1, json.dumps(payload))
    assert isinstance(event, RoundOpened)
    assert event.opened_at.microsecond == 999_999
    assert event.betting_closes_at.microsecond == 123_456
    agree("RoundOpened", json.dumps(payload))


def test_compiled_decoders_can_be_turned_off() -> None:
    registry.use_compiled(False)
    try:
        assert registry.compiled_types == frozenset()
    finally:
        registry.use_compiled(True)
    assert "CardDealt" in registry.compiled_types


# ------------------------------------------------------------------ what is not compiled
class _Validated(Event):
    event_type: ClassVar[str] = "Validated"
    a: int

    @model_validator(mode="after")
    def _positive(self) -> _Validated:
        if self.a < 0:
            raise ValueError("negative")
        return self


class _Lax(Event):
    event_type: ClassVar[str] = "Lax"
    when: datetime  # naive times: a form the derivation does not take


class _Tuple(Event):
    event_type: ClassVar[str] = "Tuple"
    pair: tuple[int, int]


@pytest.mark.parametrize("model", [_Validated, _Lax, _Tuple])
def test_a_contract_beyond_the_derivation_is_not_compiled(model: type[BaseModel]) -> None:
    with pytest.raises(NotCompilableError):
        compile_decoder(model)


def test_a_registry_compiles_only_its_own_types() -> None:
    own = EventRegistry()
    with pytest.raises(ValueError, match="not registered"):
        own.compile(RoundOpened)


class _Digest(Event):
    event_type: ClassVar[str] = "Digest"
    digest: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


def test_the_patterns_become_lookups_only_where_their_words_are_few() -> None:
    cards = {f.name: f.type for f in msgspec.structs.fields(COMPILED["CardDealt"].struct)}
    assert typing.get_origin(cards["card"]) is Literal
    assert len(typing.get_args(cards["card"])) == 52
    (digest,) = [f.type for f in msgspec.structs.fields(compile_decoder(_Digest).struct)]
    assert typing.get_origin(digest) is Annotated
    assert compile_decoder(_Digest).from_json('{"digest": "%s"}' % ("a" * 64)).digest == "a" * 64
    with pytest.raises(REFUSED):
        compile_decoder(_Digest).from_json('{"digest": "%s\\n"}' % ("a" * 64))
