"""The event contracts hold over time: docs/asyncapi.yaml is valid under the official AsyncAPI
3.0.0 JSON Schema, each message has an example that its own schema and the catalog accept, and
an event's schema changes at the same `schema_version` only backward compatibly (a committed
schema per event and version, docs/events/)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

import jsonschema
import pytest
import yaml
from pydantic import BaseModel, ConfigDict, Field

from teenpatti.events.catalog import BetsPlaced, registry
from teenpatti.events.contracts import Event, EventEnvelope
from teenpatti_tools import contracts
from teenpatti_tools.event_examples import EventExampleError, example_of, message_example
from teenpatti_tools.event_schemas import (
    EVENTS_PATH,
    IncompatibleSchemaError,
    event_schemas,
    payload_schema,
    schema_path,
    stale_schemas,
)
from teenpatti_tools.schema_compat import incompatibilities

ROOT = Path(__file__).resolve().parents[2]
# the official schema, vendored: tests/contracts/README.md says where from
ASYNCAPI_SCHEMA = ROOT / "tests" / "contracts" / "asyncapi-3.0.0.schema.json"


@pytest.fixture(scope="module")
def generated() -> dict[Path, str]:
    return contracts.generated()


@pytest.fixture(scope="module")
def document(generated: dict[Path, str]) -> dict[str, Any]:
    parsed: dict[str, Any] = yaml.safe_load(generated[contracts.ASYNCAPI_PATH])
    return parsed


@pytest.fixture(scope="module")
def official() -> jsonschema.Draft7Validator:
    schema = json.loads(ASYNCAPI_SCHEMA.read_text(encoding="utf-8"))
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema"
    assert schema["properties"]["asyncapi"]["const"] == "3.0.0"
    return jsonschema.Draft7Validator(schema)


# ------------------------------------------------------------------ the official schema
def test_the_document_is_valid_under_the_official_asyncapi_3_0_0_schema(
    document: dict[str, Any], official: jsonschema.Draft7Validator
) -> None:
    problems = [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message[:200]}"
        for error in official.iter_errors(document)
    ]
    assert problems == []


def test_the_official_schema_refuses_what_asyncapi_3_0_0_does_not_allow(
    document: dict[str, Any], official: jsonschema.Draft7Validator
) -> None:
    operation = next(iter(document["operations"]))
    broken = {
        **document,
        # 2.x's verbs, gone in 3.0
        "operations": {operation: {**document["operations"][operation], "action": "publish"}},
    }
    assert not official.is_valid(broken)
    assert not official.is_valid({key: value for key, value in document.items() if key != "info"})
    message = next(iter(document["components"]["messages"]))
    keyed = json.loads(json.dumps(document))
    # what the generator writes inline, because the schema's oneOf refuses a reference here
    keyed["components"]["messages"][message]["bindings"]["kafka"]["key"] = {
        "$ref": "#/components/schemas/EventEnvelope"
    }
    assert not official.is_valid(keyed)


# ------------------------------------------------------------------------------ examples
def test_every_message_has_an_example_its_schemas_and_the_catalog_accept(
    document: dict[str, Any],
) -> None:
    messages = document["components"]["messages"]
    assert sorted(messages) == sorted(registry.event_types)
    for name, message in messages.items():
        (example,) = message["examples"]
        payload = _validator(document, f"#/components/messages/{name}/payload")
        headers = _validator(document, f"#/components/messages/{name}/headers")
        assert payload.is_valid(example["payload"]), list(payload.iter_errors(example["payload"]))
        assert headers.is_valid(example["headers"]), name
        event = registry.decode_envelope(EventEnvelope.model_validate(example["payload"]))
        assert event.event_type == name
        # the message's schema is the event's own: another event's example does not fit it
        other = next(n for n in messages if n != name)
        assert not payload.is_valid(messages[other]["examples"][0]["payload"]), name


def _validator(document: dict[str, Any], pointer: str) -> jsonschema.Draft7Validator:
    """The schema at `pointer`, its references resolved within the document."""
    return jsonschema.Draft7Validator({**document, "$ref": pointer})


# ------------------------------------------------------------------- committed schemas
def test_each_event_s_committed_schema_is_its_current_one(generated: dict[Path, str]) -> None:
    files = {path: text for path, text in generated.items() if path.parent == EVENTS_PATH}
    assert sorted(files) == sorted(schema_path(e) for e in registry.event_types.values())
    for path, text in files.items():
        committed = ROOT / path
        assert committed.is_file(), f"{path} is missing: run `make contracts`"
        assert committed.read_text(encoding="utf-8") == text, f"{path}: run `make contracts`"
    assert stale_schemas(registry.event_types.values(), ROOT) == []


class _Line(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    stake: Annotated[int, Field(gt=0, le=1_000)]
    bet_type: Literal["player_a", "player_b"]


class _V1(Event):
    event_type: ClassVar[str] = "ChipsCounted"
    table_id: str
    chips: int
    note: str | None = None
    colour: Literal["red", "blue"]
    lines: list[_Line]


def _changed(**fields: Any) -> type[Event]:
    """`_V1` with some fields' annotations (and defaults) replaced, or removed (None)."""
    annotations = {
        "table_id": (str, ...),
        "chips": (int, ...),
        "note": (str | None, None),
        "colour": (Literal["red", "blue"], ...),
        "lines": (list[_Line], ...),
    }
    for name, value in fields.items():
        if value is None:
            del annotations[name]
        else:
            annotations[name] = value
    namespace: dict[str, Any] = {
        "__annotations__": {name: spec[0] for name, spec in annotations.items()},
        "event_type": "ChipsCounted",
        **{name: spec[1] for name, spec in annotations.items() if spec[1] is not ...},
    }
    namespace["__annotations__"]["event_type"] = ClassVar[str]
    return type("ChipsCounted", (Event,), namespace)


class _WiderLine(_Line):
    stake: Annotated[int, Field(gt=0, le=10_000)]
    bet_type: Literal["player_a", "player_b", "tie"]  # type: ignore[assignment]


class _NarrowerLine(_Line):
    stake: Annotated[int, Field(gt=0, le=100)]


@pytest.mark.parametrize(
    "change",
    [
        {},
        {"seat": (str | None, None)},  # a new optional field
        {"chips": (int, 0)},  # becomes optional
        {"colour": (Literal["red", "blue", "green"], ...)},  # an enum gains a value
        {"chips": (float, ...)},  # integer to number
        {"chips": (int | None, ...)},  # gains an alternative
        {"lines": (list[_WiderLine], ...)},  # a line's bound and enum widen
        {"table_id": (Annotated[str, Field(description="its table")], ...)},  # words only
    ],
    ids=lambda change: ",".join(change) or "unchanged",
)
def test_a_backward_compatible_change_passes(change: dict[str, Any]) -> None:
    assert incompatibilities(payload_schema(_V1), payload_schema(_changed(**change))) == []


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"note": None}, "note: removed"),
        ({"seat": (str, ...)}, "seat: a new required field"),
        ({"note": (str | None, ...)}, "note: now required"),
        ({"chips": (str, ...)}, "chips: its type changed from integer to string"),
        ({"note": (str, "")}, "note: its type changed from null to string"),
        ({"colour": (Literal["red"], ...)}, "colour: no longer takes ['blue']"),
        ({"lines": (list[_NarrowerLine], ...)}, "lines[].stake: maximum fell from 1000 to 100"),
        (
            {"table_id": (Annotated[str, Field(pattern=r"^T\d+$")], ...)},
            "table_id: its pattern changed from None to '^T\\\\d+$'",
        ),
        ({"lines": (Annotated[list[_Line], Field(min_length=1)], ...)}, "lines: minItems rose"),
    ],
    ids=lambda value: value if isinstance(value, str) else ",".join(value),
)
def test_a_change_that_loses_stored_events_is_found(change: dict[str, Any], problem: str) -> None:
    found = incompatibilities(payload_schema(_V1), payload_schema(_changed(**change)))
    assert any(line.startswith(problem) for line in found), found


def test_an_incompatible_change_at_the_same_version_stops_the_generator(tmp_path: Path) -> None:
    committed = tmp_path / schema_path(_V1)
    committed.parent.mkdir(parents=True)
    committed.write_text(json.dumps(payload_schema(_V1)))

    # compatible: the committed schema is rewritten to the new one
    added = _changed(seat=(str | None, None))
    (text,) = event_schemas([added], tmp_path).values()
    assert "seat" in json.loads(text)["properties"]

    removed = _changed(note=None)
    with pytest.raises(IncompatibleSchemaError) as raised:
        event_schemas([removed], tmp_path)
    message = str(raised.value)
    assert "ChipsCounted changed at schema_version 1" in message
    assert "note: removed" in message
    assert "Bump its schema_version to 2" in message
    assert "@registry.upcaster('ChipsCounted', from_version=1)" in message

    # bumped: a new file for version 2; version 1's stays, as the upcaster's input
    class Bumped(removed):  # type: ignore[valid-type,misc]
        schema_version: ClassVar[int] = 2

    files = event_schemas([Bumped], tmp_path)
    assert list(files) == [EVENTS_PATH / "ChipsCounted.v2.json"]
    assert stale_schemas([Bumped], tmp_path) == []
    assert stale_schemas([_V1], tmp_path) == []
    (tmp_path / EVENTS_PATH / "ChipsCounted.v3.json").write_text("{}")
    (tmp_path / EVENTS_PATH / "Gone.v1.json").write_text("{}")
    assert stale_schemas([Bumped], tmp_path) == [
        EVENTS_PATH / "ChipsCounted.v3.json",
        EVENTS_PATH / "Gone.v1.json",
    ]


def test_an_example_is_made_the_same_each_time_or_the_generator_names_the_field() -> None:
    first = message_example(BetsPlaced, "wallet.events", "wallet")
    assert message_example(BetsPlaced, "wallet.events", "wallet") == first
    assert example_of(BetsPlaced).currency == "INR"

    class Sealed(Event):
        event_type: ClassVar[str] = "Sealed"
        seal: Annotated[str, Field(pattern=r"^S-\d{4}$")]

    with pytest.raises(EventExampleError, match=r"Sealed\.seal must match"):
        example_of(Sealed)
