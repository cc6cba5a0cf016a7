"""An example of each event, for its message in docs/asyncapi.yaml: built from the event's own
JSON schema with plausible values for the fields the events share (a table `T01`, its round
`T01-000001`, the card `10H`...), then read back through the event's class, so that an example
is one the code would accept: a field whose value cannot be made up stops the generator,
naming the field, until `VALUES` gives it one. Deterministic, so the document does not drift."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import NAMESPACE_URL, uuid5

from pydantic import ValidationError

from teenpatti.events.catalog import RoundClosed
from teenpatti.events.contracts import Event, EventEnvelope
from teenpatti.eventsourcing.topics import TYPE_HEADER, VERSION_HEADER

AT = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
TABLE = "T01"
ROUND = "T01-000001"

# what a field of this name holds, in every event that has one
VALUES: dict[str, Any] = {
    "table_id": TABLE,
    "round_id": ROUND,
    "device_id": "scanner-1",
    "operator_id": "operator-1",
    "player_id": "player-1",
    "actor": "supervisor-2",
    "requested_by": "supervisor-1",
    "approved_by": "supervisor-2",
    "confirmed_by": "supervisor-2",
    "marked_by": "supervisor-1",
    "currency": "INR",
    "card": "10H",
    "raw": "10H",
    "cards": ["10H", "KS", "3D", "QC", "7H", "AS"],
    "position": "A1",
    "positions": ["A1"],
    "digest": "9f2c" * 16,
    "fingerprint": "9f2c-41d0-8b3e-77a5",
    "transfer_id": "transfer-1",
    "name": "Table 1",
    "number": 1,
    "sequence": 1,
    "detail": "as the example says",
    "reason": "as the example says",
    "reasons": ["as the example says"],
    "problems": ["as the example says"],
    "betting_closes_at": (AT + timedelta(seconds=20)).isoformat(),
    "limits": {"INR": {"player_a": {"min": 100, "max": 500_000}}},
    "paytable": {"player_a": "1/1", "player_b": "1/1", "tie": "35/1"},
    "rtp": {"player_a": "0.9753", "player_b": "0.9753", "tie": "0.8514"},
    "bet_type": "player_a",
    "stake": 1_000,
    "amount": 1_000,
    "balance_after": 9_000,
    # a bet of 1,000 won at 1/1, then voided: its stake refunded, its return taken back
    "returned": 2_000,
    "refunded": 1_000,
    "reversed": 2_000,
    "net": -1_000,
    "applied": -1_000,
    "shortfall": 0,
    "fraction_kept": "0",
    "odds": "1/1",
}

# where each topic's events are appended, for the example's envelope
STREAMS = {
    "table.events": f"table-{TABLE}",
    "scanner.events": "scans-scanner-1",
    "wallet.events": "player-operator-1:player-1",
    "settlement.events": f"settlement-{ROUND}",
}


class EventExampleError(RuntimeError):
    """An event whose example cannot be made: the message names the field."""


# events whose fields follow from one another: made as the code makes them
BUILT: dict[str, Callable[[], Event]] = {
    "RoundClosed": lambda: RoundClosed.of(ROUND, TABLE, VALUES["cards"]),
}


def example_of(event: type[Event]) -> Event:
    """An instance of `event`, from its schema and `VALUES`, as its class reads it."""
    if event.event_type in BUILT:
        return BUILT[event.event_type]()
    schema = event.model_json_schema(mode="validation")
    data = _value(schema, schema.get("$defs", {}), event.event_type, "")
    try:
        return event.model_validate(data)
    except ValidationError as error:
        raise EventExampleError(
            f"the example of {event.event_type} is not one: {error.errors()[0]};"
            " give the field a value in teenpatti_tools.event_examples.VALUES"
        ) from None


def example_envelope(event: Event, topic: str, producer: str) -> dict[str, Any]:
    """The record's value an example event travels in, as JSON."""
    event_id = uuid5(NAMESPACE_URL, f"teenpatti:example:{event.event_type}")
    envelope = EventEnvelope(
        event_id=event_id,
        event_type=event.event_type,
        schema_version=event.schema_version,
        stream_id=STREAMS[topic],
        stream_version=1,
        table_id=TABLE,
        occurred_at=AT,
        correlation_id=event_id,
        causation_id=None,
        producer=producer,
        payload=json.loads(event.model_dump_json()),
    )
    loaded: dict[str, Any] = json.loads(envelope.model_dump_json())
    return loaded


def _value(schema: dict[str, Any], defs: dict[str, Any], event: str, path: str) -> Any:
    if "$ref" in schema:
        return _value(defs[schema["$ref"].rsplit("/", 1)[1]], defs, event, path)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    name = path.rsplit(".", 1)[-1]
    if name in VALUES:
        return VALUES[name]
    if "default" in schema:
        return schema["default"]
    if "anyOf" in schema:
        chosen = next(s for s in schema["anyOf"] if s.get("type") != "null")
        return _value(chosen, defs, event, path)
    kind = schema.get("type")
    if kind == "object" and "properties" in schema:
        return {
            field: _value(sub, defs, event, f"{path}.{field}".lstrip("."))
            for field, sub in schema["properties"].items()
            if field in schema.get("required", ()) or field in VALUES
        }
    if kind == "object":
        return _mapping(schema, defs, event, path)
    if kind == "array":
        return [_value(schema["items"], defs, event, f"{path}[]")]
    if kind == "string":
        return _string(schema, event, path)
    if kind == "integer":
        return max(1, int(schema.get("minimum", 1)))
    if kind == "number":
        return max(1, schema.get("minimum", 1))
    if kind == "boolean":
        return False
    raise EventExampleError(f"{event}.{path}: no example for the schema {schema}")


def _mapping(schema: dict[str, Any], defs: dict[str, Any], event: str, path: str) -> Any:
    patterns = schema.get("patternProperties", {})
    if patterns:
        (pattern, values), *_ = patterns.items()
        key = "INR" if pattern == "^[A-Z]{3}$" else None
        if key is None:
            raise EventExampleError(f"{event}.{path}: no example key for {pattern}")
        return {key: _value(values, defs, event, f"{path}[]")}
    values = schema.get("additionalProperties")
    names = schema.get("propertyNames", {}).get("enum")
    if isinstance(values, dict) and names:
        return {names[0]: _value(values, defs, event, f"{path}[]")}
    return {}


def _string(schema: dict[str, Any], event: str, path: str) -> str:
    form = schema.get("format")
    if form == "date-time":
        return AT.isoformat()
    if form == "uuid":
        return str(uuid5(NAMESPACE_URL, f"teenpatti:example:{event}.{path}"))
    if "pattern" in schema:
        raise EventExampleError(
            f"{event}.{path} must match {schema['pattern']}: give it a value in VALUES"
        )
    return "example"


def message_example(event: type[Event], topic: str, producer: str) -> dict[str, Any]:
    """The AsyncAPI Message Example of `event`: a record's headers and value."""
    example = example_of(event)
    return {
        "name": f"{event.event_type}Example",
        "summary": f"A {event.event_type} of table {TABLE}, as the relay publishes it.",
        "headers": {
            TYPE_HEADER: event.event_type,
            VERSION_HEADER: str(event.schema_version),
        },
        "payload": example_envelope(example, topic, producer),
    }
