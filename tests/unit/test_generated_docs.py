"""The generated references (`make contracts`): the committed files are what the code makes of
them, and the AsyncAPI document holds together: AsyncAPI 3.0, every reference resolves, every
operation names messages of its own channel, what each service receives agrees with the
chaos check's table of consumer groups, and a record as the relay writes it fits its message."""

from __future__ import annotations

import dataclasses
import difflib
import json
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import uuid4

import jsonschema_rs
import pytest
import yaml

from teenpatti.events.catalog import (
    ALL_TOPICS,
    TABLE_EVENTS,
    BetsPlaced,
    CardScanned,
    RoundOpened,
    SlipBet,
    StakeLimit,
    registry,
)
from teenpatti.events.contracts import Event, new_envelope
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools import contracts
from teenpatti_tools.acls import ACLS_PATH
from teenpatti_tools.chaos.checks import CONSUMERS

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def services() -> list[contracts.DeclaredService]:
    return contracts.declared()


@pytest.fixture(scope="module")
def generated(services: list[contracts.DeclaredService]) -> dict[Path, str]:
    return contracts.generated(services)


@pytest.fixture(scope="module")
def document(generated: dict[Path, str]) -> dict[str, Any]:
    parsed: dict[str, Any] = yaml.safe_load(generated[contracts.ASYNCAPI_PATH])
    return parsed


@pytest.mark.parametrize(
    "path",
    [
        contracts.ASYNCAPI_PATH,
        contracts.CONFIGURATION_PATH,
        contracts.LIFE_OF_A_ROUND_PATH,
        ACLS_PATH,
    ],
)
def test_the_committed_file_is_what_the_code_generates(
    generated: dict[Path, str], path: Path
) -> None:
    committed = (ROOT / path).read_text(encoding="utf-8") if (ROOT / path).is_file() else ""
    if committed != generated[path]:
        diff = difflib.unified_diff(
            committed.splitlines(), generated[path].splitlines(), "committed", "generated", n=1
        )
        shown = "\n".join(list(diff)[:40])
        pytest.fail(f"{path} differs from the code: run `make contracts`\n{shown}")


def test_the_document_is_asyncapi_3_0(document: dict[str, Any]) -> None:
    with warnings.catch_warnings():  # the model's own field names shadow pydantic's
        warnings.simplefilter("ignore", UserWarning)
        from asyncapi3.models.asyncapi import AsyncAPI3

    AsyncAPI3.model_validate(document)
    assert document["asyncapi"] == "3.0.0"
    assert sorted(channel["address"] for channel in document["channels"].values()) == sorted(
        ALL_TOPICS
    )


def test_every_reference_resolves(document: dict[str, Any]) -> None:
    references = list(_references(document))
    assert references
    for reference in references:
        assert reference.startswith("#/"), reference
        _resolve(document, reference)


def test_each_operation_names_messages_of_its_own_channel(document: dict[str, Any]) -> None:
    for name, operation in document["operations"].items():
        channel = operation["channel"]["$ref"]
        _resolve(document, channel)
        assert operation["messages"], name
        for message in operation["messages"]:
            assert message["$ref"].startswith(f"{channel}/messages/"), (name, message)
            _resolve(document, message["$ref"])


def test_each_topic_is_sent_by_one_service_and_carries_every_event_once(
    document: dict[str, Any],
) -> None:
    sent = [op for op in document["operations"].values() if op["action"] == "send"]
    assert sorted(op["channel"]["$ref"] for op in sent) == sorted(
        f"#/channels/{channel}" for channel in document["channels"]
    )
    carried = [name for channel in document["channels"].values() for name in channel["messages"]]
    assert sorted(carried) == sorted(registry.event_types)


def test_what_each_service_receives_is_what_the_chaos_check_expects(
    services: list[contracts.DeclaredService], document: dict[str, Any]
) -> None:
    # CONSUMERS is written apart from the services' subscriptions, which `declared` reads
    expected = {(service, topic): types for service, topic, _, types in CONSUMERS}
    derived = {
        (service.name, topic): types
        for service in services
        for topic, types in service.receives.items()
    }
    assert derived == expected
    channel_of = {channel["address"]: name for name, channel in document["channels"].items()}
    for (service, topic), types in expected.items():
        channel = channel_of[topic]
        operation = document["operations"][f"{service}-receives-{channel}"]
        assert operation["channel"]["$ref"] == f"#/channels/{channel}"
        names = {message["$ref"].rsplit("/", 1)[1] for message in operation["messages"]}
        assert names == (set(document["channels"][channel]["messages"]) if types is None else types)
    receiving = [op for op in document["operations"].values() if op["action"] == "receive"]
    assert len(receiving) == len(expected)


def test_a_subscription_to_an_event_its_topic_does_not_carry_stops_the_generator(
    services: list[contracts.DeclaredService],
) -> None:
    wrong = dataclasses.replace(services[0], receives={TABLE_EVENTS: frozenset({"CardScanned"})})
    with pytest.raises(contracts.ContractsError, match=r"CardScanned on table\.events"):
        contracts.asyncapi_document([wrong, *services[1:]])


@pytest.mark.parametrize(
    "event",
    [
        RoundOpened(
            round_id="T01-000001",
            table_id="T01",
            number=1,
            opened_at=datetime(2026, 1, 1, tzinfo=UTC),
            betting_closes_at=datetime(2026, 1, 1, 0, 0, 20, tzinfo=UTC),
            limits={"INR": {"player_a": StakeLimit(min=100, max=500_000)}},
            paytable={"player_a": "1/1"},
        ),
        BetsPlaced(
            slip_id=uuid4(),
            round_id="T01-000001",
            table_id="T01",
            operator_id="operator-1",
            player_id="p-1",
            currency="INR",
            placed_at=datetime(2026, 1, 1, 0, 0, 5, tzinfo=UTC),
            bets=[SlipBet(bet_id=uuid4(), bet_type="tie", stake=1_000)],
        ),
        CardScanned(
            scan_id=uuid4(),
            device_id="scanner-1",
            table_id="T01",
            round_id="T01-000001",
            sequence=1,
            card="10H",
            raw="10H",
            scanned_at=datetime(2026, 1, 1, 0, 0, 30, tzinfo=UTC),
        ),
    ],
    ids=lambda event: event.event_type,
)
def test_a_record_as_the_relay_writes_it_fits_its_message(
    document: dict[str, Any], event: Event
) -> None:
    envelope = new_envelope(
        event, stream_id="round-T01-000001", stream_version=1, table_id="T01", producer="test"
    )
    message = f"#/components/messages/{event.event_type}"
    value = json.loads(envelope.to_json_bytes())
    headers = {"event_type": event.event_type, "schema_version": str(event.schema_version)}

    assert _schema(document, f"{message}/payload").is_valid(value)
    assert _schema(document, f"{message}/headers").is_valid(headers)
    assert _schema(document, f"{message}/bindings/kafka/key").is_valid(envelope.table_id)
    # the event's own schema applies to the envelope's payload, and the type to the headers
    del value["payload"][next(iter(value["payload"]))]
    assert not _schema(document, f"{message}/payload").is_valid(value)
    assert not _schema(document, f"{message}/headers").is_valid(
        {**headers, "event_type": "TableClosed"}
    )


def test_the_configuration_lists_every_setting_and_no_secret(
    services: list[contracts.DeclaredService], generated: dict[Path, str]
) -> None:
    text = generated[contracts.CONFIGURATION_PATH]
    for service in services:
        for name in service.settings.model_fields:
            assert f"| `TP_{name.upper()}` |" in text, name
    defaults = InfrastructureSettings.model_construct()
    assert defaults.api_keys.get_secret_value() not in text
    assert "| `TP_PG_PASSWORD` | secret |  | (development default) |" in text
    assert "Variables outside the settings classes" in text


def _references(node: object) -> Any:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from _references(value)
    elif isinstance(node, list):
        for item in node:
            yield from _references(item)


def _resolve(document: dict[str, Any], reference: str) -> Any:
    node: Any = document
    for part in reference.removeprefix("#/").split("/"):
        key = part.replace("~1", "/").replace("~0", "~")
        assert isinstance(node, dict) and key in node, f"{reference} does not resolve"
        node = node[key]
    return node


def _schema(document: dict[str, Any], pointer: str) -> jsonschema_rs.Validator:
    """The schema at `pointer`, its references resolved within the document."""
    _resolve(document, pointer)
    return jsonschema_rs.Draft202012Validator({**document, "$ref": pointer})
