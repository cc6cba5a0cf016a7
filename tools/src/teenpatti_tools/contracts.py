"""The generated references: `make contracts` (`python -m teenpatti_tools.contracts`) rewrites
them, and tests/unit/test_generated_docs.py fails while the committed ones differ from the code.

- `docs/asyncapi.yaml`: the Kafka topics as an AsyncAPI 3.0 document. Each event's payload
  schema comes from its class in the event catalog; the topic each service emits to from its
  declaration (`Service.emits`); what each service receives from the subscriptions its `wire`
  builds. Which events travel on which topic is `PUBLISHED` below, checked against the catalog.
  Each message has an example record (`teenpatti_tools.event_examples`).
- `docs/configuration.md`: every `TP_*` setting, from the settings classes: each field's type,
  constraints, default (a secret's never shown) and description (`Field(description=...)`).
- `docs/openapi/<service>.json`: each HTTP API's OpenAPI document (`teenpatti_tools.openapi`).
- the Grafana dashboards and the PrometheusRule: `teenpatti_tools.dashboards`,
  `teenpatti_tools.prometheus_rule`.
- `docs/life-of-a-round.md`: its table of consumer groups, from the services' subscriptions
  (`teenpatti_tools.subscriptions_doc`); the rest of that page is written by hand.
- `docs/events/<EventType>.v<N>.json`: each event's payload schema at its `schema_version`,
  rewritten only after a backward compatible change (`teenpatti_tools.event_schemas`).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import inspect
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

import yaml
from pydantic import SecretStr
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema, models_json_schema
from pydantic_core import PydanticUndefined
from pydantic_settings import BaseSettings

from teenpatti.events.catalog import (
    ALL_TOPICS,
    SCANNER_EVENTS,
    SETTLEMENT_EVENTS,
    TABLE_EVENTS,
    WALLET_EVENTS,
    BetBookClosed,
    BetsCorrected,
    BetsPaid,
    BetsPlaced,
    BetsReversed,
    BetsSettled,
    BettingClosed,
    CardDealt,
    CardMarkedWrong,
    CardRefused,
    CardScanned,
    CardsWithdrawn,
    ConfigChangeProposed,
    ConfigChangeRejected,
    DeckReplaced,
    DeviceChangeProposed,
    DeviceChangeRejected,
    DeviceCredentialRotated,
    DeviceRegistered,
    DeviceRevoked,
    FundsDeposited,
    FundsWithdrawn,
    ResultVoidRejected,
    ResultVoidRequested,
    RoundCancelled,
    RoundClosed,
    RoundOpened,
    RoundPaused,
    RoundResumed,
    RoundReversed,
    RoundSettled,
    RoundsHeld,
    RoundsReleased,
    RoundVoided,
    ScanRejected,
    SettlementResolutionRequested,
    SettlementResolved,
    TableClosed,
    TableOpened,
    VideoLost,
    VideoRestored,
    VoidRequested,
    registry,
)
from teenpatti.events.contracts import Event, EventEnvelope
from teenpatti.eventsourcing.topics import TYPE_HEADER, VERSION_HEADER
from teenpatti.kernel import Service
from teenpatti.kernel.subscriptions import handled_types
from teenpatti.migrations import declared_services
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools import acls, dashboards, openapi, prometheus_rule
from teenpatti_tools.event_examples import EventExampleError, message_example
from teenpatti_tools.event_schemas import IncompatibleSchemaError, event_schemas
from teenpatti_tools.operator_client import ClientGenerationError, client_files, stale_client_files
from teenpatti_tools.subscriptions_doc import (
    LIFE_OF_A_ROUND_PATH,
    SubscriptionsDocError,
    life_of_a_round,
    wiring_of,
)

ASYNCAPI_PATH = Path("docs/asyncapi.yaml")
CONFIGURATION_PATH = Path("docs/configuration.md")

# The events each topic carries: every event its producer's store appends, as the catalog's
# sections say (`# --- table -> table.events`). An event missing here stops the generator.
PUBLISHED: Mapping[str, tuple[type[Event], ...]] = {
    TABLE_EVENTS: (
        TableOpened,
        ConfigChangeProposed,
        ConfigChangeRejected,
        TableClosed,
        RoundOpened,
        BettingClosed,
        CardDealt,
        CardRefused,
        RoundPaused,
        RoundResumed,
        DeckReplaced,
        VoidRequested,
        CardMarkedWrong,
        CardsWithdrawn,
        RoundCancelled,
        RoundClosed,
        ResultVoidRequested,
        ResultVoidRejected,
        RoundVoided,
        VideoLost,
        VideoRestored,
        RoundsHeld,
        RoundsReleased,
    ),
    SCANNER_EVENTS: (
        DeviceChangeProposed,
        DeviceChangeRejected,
        DeviceRegistered,
        DeviceCredentialRotated,
        DeviceRevoked,
        CardScanned,
        ScanRejected,
    ),
    WALLET_EVENTS: (
        FundsDeposited,
        FundsWithdrawn,
        BetsPlaced,
        BetBookClosed,
        BetsPaid,
        BetsCorrected,
    ),
    SETTLEMENT_EVENTS: (
        BetsSettled,
        RoundSettled,
        SettlementResolutionRequested,
        SettlementResolved,
        BetsReversed,
        RoundReversed,
    ),
}

KAFKA_BINDING_VERSION = "0.5.0"


class ContractsError(RuntimeError):
    """The code does not add up to a document: the message says what to change."""


@dataclass(frozen=True)
class DeclaredService:
    """What the documents need of a service's declaration."""

    name: str
    emits: str
    settings: type[InfrastructureSettings]
    # topic -> the event types its `wire` subscribes to there (None: every type)
    receives: Mapping[str, frozenset[str] | None]

    def group(self, topic: str) -> str:
        """Its consumer group on `topic`, before the prefix, as the kernel names it."""
        return f"{self.name}-{topic.split('.')[0]}"


def declared() -> list[DeclaredService]:
    """Every installed service (the `teenpatti.services` entry points), in the order of the
    topics they emit to."""
    services: list[Service[Any]] = [load() for load in declared_services().values()]
    found = [
        DeclaredService(
            name=service.name,
            emits=service.emits,
            settings=service.settings,
            receives=asyncio.run(_subscriptions(service)),
        )
        for service in services
    ]
    emitters = sorted(service.emits for service in found)
    if emitters != sorted(ALL_TOPICS):
        raise ContractsError(
            f"every topic needs exactly one service emitting to it: {ALL_TOPICS} are emitted"
            f" to by {emitters}"
        )
    return sorted(found, key=lambda service: ALL_TOPICS.index(service.emits))


async def _subscriptions(service: Service[Any]) -> dict[str, frozenset[str] | None]:
    """What the service's `wire` subscribes to (`wiring_of`: called with a kernel that has
    opened nothing)."""
    wiring = await wiring_of(service)
    return {topic: handled_types(handlers) for topic, handlers in wiring.items()}


# ------------------------------------------------------------------------------ AsyncAPI
class _Schema(GenerateJsonSchema):
    """Pydantic's JSON schema without a title on every field: the field's name says it."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


def asyncapi_document(services: Sequence[DeclaredService]) -> dict[str, Any]:
    """The AsyncAPI 3.0 document of the four topics."""
    published = _published()
    producer = {service.emits: service.name for service in services}
    readers: dict[str, list[str]] = {}  # event type -> the services receiving it
    for service in services:
        for topic, types in service.receives.items():
            if topic not in published:
                raise ContractsError(f"{service.name} subscribes to {topic}, not a topic")
            on_topic = [event.event_type for event in published[topic]]
            unknown = sorted(set(types or ()) - set(on_topic))
            if unknown:
                raise ContractsError(
                    f"{service.name} subscribes to {', '.join(unknown)} on {topic}, which"
                    f" carries only {', '.join(on_topic)}: fix PUBLISHED or the subscription"
                )
            for event_type in on_topic if types is None else types:
                readers.setdefault(event_type, []).append(service.name)

    events = [event for topic in ALL_TOPICS for event in published[topic]]
    refs, definitions = models_json_schema(
        [(EventEnvelope, "serialization"), *((event, "serialization") for event in events)],
        ref_template="#/components/schemas/{model}",
        schema_generator=_Schema,
    )
    schemas: dict[str, Any] = dict(definitions["$defs"])
    schemas["EventEnvelope"]["properties"]["payload"]["description"] = (
        "The event: each message's schema names its own."
    )

    messages: dict[str, Any] = {}
    for topic in ALL_TOPICS:
        for event in published[topic]:
            payload_ref = refs[(event, "serialization")]["$ref"]
            messages[event.event_type] = _message(
                event,
                topic,
                producer[topic],
                sorted(readers.get(event.event_type, [])),
                payload_ref,
            )

    channels: dict[str, Any] = {}
    operations: dict[str, Any] = {}
    for topic in ALL_TOPICS:
        channel_id = _channel_id(topic)
        channels[channel_id] = {
            "address": topic,
            "title": topic,
            "description": _channel_description(topic, producer[topic]),
            "messages": {
                event.event_type: {"$ref": f"#/components/messages/{event.event_type}"}
                for event in published[topic]
            },
        }
        operations[f"{producer[topic]}-sends-{channel_id}"] = {
            "action": "send",
            "channel": {"$ref": f"#/channels/{channel_id}"},
            "title": f"{producer[topic]} sends {topic}",
            "summary": f"The {producer[topic]} service's outbox relay publishes every event"
            " its store appends, at least once, in commit order.",
            "messages": [_message_ref(channel_id, event.event_type) for event in published[topic]],
        }
    for service in services:
        for topic, types in service.receives.items():
            channel_id = _channel_id(topic)
            received = [
                event.event_type
                for event in published[topic]
                if types is None or event.event_type in types
            ]
            operations[f"{service.name}-receives-{channel_id}"] = {
                "action": "receive",
                "channel": {"$ref": f"#/channels/{channel_id}"},
                "title": f"{service.name} receives {topic}",
                "summary": (
                    f"The {service.name} service handles every event of {topic}."
                    if types is None
                    else f"The {service.name} service handles {_and(received)}; it passes over"
                    f" the other types of {topic} on their headers."
                ),
                "messages": [_message_ref(channel_id, event_type) for event_type in received],
                "bindings": {
                    "kafka": {
                        "groupId": {
                            "type": "string",
                            "const": service.group(topic),
                            "description": "The consumer group, before `.<TP_TOPIC_PREFIX>`.",
                        },
                        "bindingVersion": KAFKA_BINDING_VERSION,
                    }
                },
            }

    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "Teen Patti 20-20 live-table events",
            "version": version("teenpatti"),
            "description": _INTRODUCTION.format(partitions=_default_of("kafka_partitions")),
        },
        "defaultContentType": "application/json",
        "servers": {
            "local": {
                "host": f"127.0.0.1:{_default_of('kafka_port')}",
                "protocol": "kafka",
                "description": "The local stack's broker (`make up`): `TP_KAFKA_PORT`. A"
                " deployment names its brokers in `TP_KAFKA_BOOTSTRAP`.",
            }
        },
        "channels": channels,
        "operations": operations,
        "components": {
            "schemas": schemas,
            "messages": messages,
            "correlationIds": {
                "correlation": {
                    "description": "The envelope's `correlation_id`: an event caused by another"
                    " takes its cause's, so that a chain of events shares one.",
                    "location": "$message.payload#/correlation_id",
                }
            },
        },
    }


_INTRODUCTION = """\
The Kafka topics between the four services: generated by `make contracts` from the event
catalog (`teenpatti.events.catalog`) and the services' declarations; edit those, not this file.

Each service publishes the events its own store appends to one topic, through its outbox
relay: at least once, in the order they were committed. Consumers absorb a duplicate by its
`event_id` (each consumer group keeps the ids it has handled).

A record's key is the event's `table_id` (UTF-8), so every event of a table is in one
partition, in order. Every topic has the same number of partitions (`TP_KAFKA_PARTITIONS`,
{partitions} by default), so a table's events are in the same partition number of every topic. A
record's value is the event's envelope (`EventEnvelope`, JSON) with the event in its
`payload`; its headers `event_type` (UTF-8) and `schema_version` (decimal digits) say what
it holds, so that a consumer passes over the types it does not handle without reading the
value.

A topic's name is the channel's address followed by `.<TP_TOPIC_PREFIX>`, and so is a
consumer group's: the run's name is empty in production (no suffix), and test runs set one to
share a broker; each service's ACLs are PREFIXED on the production names, so they hold for
every run (docs/decisions/0051-kafka-names-end-with-the-run.md).

An event's schema here is that of its current `schema_version`; a consumer reads older
versions through the catalog's upcasters. The schema of each event at each version is kept
in `docs/events/<EventType>.v<N>.json`, and changes at the same version only so that every
event stored before still reads (a new optional field, a wider enum or bound).
"""


def _default_of(setting: str) -> object:
    return InfrastructureSettings.model_fields[setting].default


_RECORD_KEY = {
    "type": "string",
    "minLength": 1,
    "maxLength": 100,
    "description": "The record's key: the event's `table_id` (UTF-8).",
}


def _published() -> dict[str, tuple[type[Event], ...]]:
    """`PUBLISHED`, checked against the catalog: every event on exactly one topic."""
    placed = [event.event_type for events in PUBLISHED.values() for event in events]
    catalog = list(registry.event_types)
    missing = [name for name in catalog if name not in placed]
    doubled = sorted({name for name in placed if placed.count(name) > 1})
    if missing or doubled or set(PUBLISHED) != set(ALL_TOPICS):
        raise ContractsError(
            "PUBLISHED must place every event of the catalog on one topic:"
            f" missing {missing}, on two topics {doubled}, topics {sorted(PUBLISHED)}"
        )
    return dict(PUBLISHED)


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _channel_id(topic: str) -> str:
    return topic.replace(".", "-")


def _message_ref(channel_id: str, event_type: str) -> dict[str, str]:
    return {"$ref": f"#/channels/{channel_id}/messages/{event_type}"}


def _channel_description(topic: str, producer: str) -> str:
    return (
        f"Every event the {producer} service's store appends. Kafka topic"
        f" `{topic}[.<TP_TOPIC_PREFIX>]`, keyed by `table_id`, with `TP_KAFKA_PARTITIONS`"
        " partitions."
    )


def _message(
    event: type[Event], topic: str, producer: str, readers: list[str], payload_ref: str
) -> dict[str, Any]:
    read_by = ", ".join(readers) if readers else "no service"
    about = _paragraph(event.__doc__)
    summary = about or f"{event.event_type}, version {event.schema_version}."
    return {
        "name": event.event_type,
        "title": event.event_type,
        "summary": summary,
        "description": f"Emitted by {producer} on `{topic}`; received by {read_by}.",
        "contentType": "application/json",
        "headers": {
            "type": "object",
            "required": [TYPE_HEADER, VERSION_HEADER],
            "properties": {
                TYPE_HEADER: {
                    "type": "string",
                    "const": event.event_type,
                    "description": "The event's type (UTF-8).",
                },
                VERSION_HEADER: {
                    "type": "string",
                    "const": str(event.schema_version),
                    "description": "Its schema version (decimal digits).",
                },
                "traceparent": {
                    "type": "string",
                    "description": "The W3C trace context the event was appended in, when"
                    " there was one (docs/decisions/0047-trace-context-with-the-event.md).",
                },
            },
        },
        "correlationId": {"$ref": "#/components/correlationIds/correlation"},
        "payload": {
            "allOf": [
                {"$ref": "#/components/schemas/EventEnvelope"},
                {
                    "type": "object",
                    "properties": {
                        "event_type": {"const": event.event_type},
                        "schema_version": {"const": event.schema_version},
                        "payload": {"$ref": payload_ref},
                    },
                },
            ]
        },
        "bindings": {
            "kafka": {
                # inline: the AsyncAPI 3.0.0 JSON Schema's `oneOf: [Reference, Schema]` for the
                # key refuses a `$ref`, which is valid under both
                "key": _RECORD_KEY,
                "bindingVersion": KAFKA_BINDING_VERSION,
            }
        },
        "examples": [message_example(event, topic, producer)],
    }


def _paragraph(doc: str | None) -> str:
    return " ".join(inspect.cleandoc(doc).split()) if doc else ""


class _Dumper(yaml.SafeDumper):
    """Block style, no anchors (a schema used twice is written twice), text with line breaks
    as literal blocks."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _text(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _text)


def asyncapi_yaml(services: Sequence[DeclaredService]) -> str:
    body = yaml.dump(
        asyncapi_document(services),
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        width=90,
    )
    return (
        "# Generated by `make contracts` (teenpatti_tools.contracts) from the event catalog and"
        " the\n# services' declarations: edit those, not this file.\n" + body
    )


# ------------------------------------------------------------------------- configuration
def configuration_markdown(services: Sequence[DeclaredService]) -> str:
    """docs/configuration.md: a section per settings class, then the variables outside them."""
    base = InfrastructureSettings
    lines = [_CONFIGURATION_INTRODUCTION]
    names = ", ".join(service.name for service in services)
    lines += [
        f"## `{base.__name__}`: every service",
        "",
        f"`{_source(base)}`. Read by every service ({names}), as each one's class extends it;"
        " by `teenpatti migrate`, with each service's class; by `teenpatti audit` (the Postgres"
        " and Kafka settings and the prefix); and by the tools and the tests.",
        "",
        *_table(base, list(base.model_fields)),
    ]
    for service in services:
        settings = service.settings
        own = [name for name in settings.model_fields if name not in base.model_fields]
        lines += [
            "",
            f"## `{settings.__name__}`: {service.name}",
            "",
            f"`{_source(settings)}`. Read by the {service.name} service, on top of"
            f" `{base.__name__}`.",
            "",
            *_table(settings, own),
        ]
    web = _web_settings()
    if web is not None:
        lines += [
            "",
            f"## `{web.__name__}`: the web front",
            "",
            f"`{_source(web)}`. Read by the web front (docs/web.md), with `TP_ENV`,"
            " `TP_LOG_LEVEL`, `TP_LOG_FORMAT`, `TP_INSTANCE` and `TP_HTTP_MAX_BODY_BYTES` of"
            f" `{base.__name__}`; it connects to no database, broker or cache.",
            "",
            *_table(web, list(web.model_fields)),
        ]
    return "\n".join([*lines, "", *_outside_settings()])


def _web_settings() -> type[BaseSettings] | None:
    """The web front's settings class, where its package is installed: it is no kernel
    service, so the services' entry points do not name it."""
    try:
        module = importlib.import_module("web_service.config")
    except ModuleNotFoundError:
        return None
    found: type[BaseSettings] = module.WebSettings
    return found


_CONFIGURATION_INTRODUCTION = """\
<!-- Generated by `make contracts` (teenpatti_tools.contracts) from the settings classes:
edit their fields' descriptions, not this file. -->
# Configuration

Every setting is a `TP_*` environment variable, read once when a process starts, into a
frozen pydantic settings class: `InfrastructureSettings` (`shared/src/teenpatti/settings.py`),
which every service's class extends with its own (`services/<service>/src/<package>/config.py`).
A variable's name is `TP_` and the field's name in capitals; names are not case-sensitive,
and variables a class does not declare are ignored. A value of the wrong type or outside its
constraints stops the process at start, with pydantic's message naming the field.

The defaults match the local stack (`make up`, `deploy/local/defaults.env`), so the
services, the tests and the tools agree with it without any configuration. They are for
development: a deployment sets at least the addresses, `TP_PG_PASSWORD` and `TP_API_KEYS`.
The secrets' defaults are public, so unless `TP_ENV` is `dev` (the Makefile and the tests
set it) every service, `teenpatti migrate` and `teenpatti audit` refuse to start while a
secret setting holds one, naming each such setting.

Types: *bool* reads `true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`; *secret* is kept out of
logs and reprs (`SecretStr`), and its development default is not shown here. A name ending in
`_SECONDS` or `_MS` counts seconds or milliseconds.
"""

# What the local stack, the tools and the tests read from the environment themselves, apart
# from the settings classes: (variable, default, what it does, read by).
OUTSIDE_SETTINGS: tuple[tuple[str, str, str, str], ...] = (
    (
        "TP_HOME",
        "`.local`",
        "where the local stack keeps its data, logs, pid files and Kafka jars; the tools write"
        " their logs under it",
        "`deploy/local/stack.sh`, `make run`, the tools",
    ),
    (
        "TP_KAFKA_CONTROLLER_PORT",
        "`19093`",
        "the local broker's KRaft controller port",
        "`deploy/local/stack.sh`",
    ),
    (
        "TP_KAFKA_VERSION",
        "`4.1.1`",
        "the Apache Kafka release the local stack fetches and runs",
        "`deploy/local/stack.sh`",
    ),
    (
        "TP_TESTCONTAINERS",
        "unset",
        "`1`: the tests start throwaway containers (needs a Docker engine) instead of using the"
        " local stack",
        "`tests/`",
    ),
    (
        "TP_FUZZ_EXAMPLES",
        "`30`",
        "cases per operation and run of the OpenAPI fuzzing ([bad-input.md](bad-input.md))",
        "`tests/fuzz`",
    ),
    (
        "TP_FUZZ_REPORT",
        "unset",
        "a file the fuzzing's counts are appended to",
        "`tests/fuzz`",
    ),
)

_DEFAULTS_ENV = """\
`deploy/local/defaults.env` also sets `TP_PG_PORT`, `TP_PG_USER`, `TP_PG_PASSWORD`,
`TP_KAFKA_PORT` and `TP_REDIS_PORT` for the stack, with the same defaults as the settings
above, and `TP_ENV=dev` for the Makefile's targets; set one in the environment and the stack
and the services both follow it.
"""


def _outside_settings() -> list[str]:
    return [
        "## Variables outside the settings classes",
        "",
        "Not read by the services:",
        "",
        "| variable | default | what it does | read by |",
        "|---|---|---|---|",
        *(
            f"| `{name}` | {default} | {what} | {readers} |"
            for name, default, what, readers in OUTSIDE_SETTINGS
        ),
        "",
        _DEFAULTS_ENV,
    ]


_TYPES = {str: "text", int: "integer", float: "number", bool: "bool", SecretStr: "secret"}


def _source(settings: type[BaseSettings]) -> str:
    path = Path(inspect.getfile(settings)).resolve()
    for root in path.parents:
        if (root / "pyproject.toml").is_file() and (root / "uv.lock").is_file():
            return path.relative_to(root).as_posix()
    return path.name


def _table(settings: type[BaseSettings], names: list[str]) -> list[str]:
    prefix = str(settings.model_config.get("env_prefix", ""))
    rows = [
        "| variable | type | constraints | default | what it does |",
        "|---|---|---|---|---|",
    ]
    for name in names:
        field = settings.model_fields[name]
        where = f"{settings.__name__}.{name}"
        if not field.description:
            raise ContractsError(f"{where} has no description: give it Field(description=...)")
        if field.annotation not in _TYPES:
            raise ContractsError(f"{where}: no name for the type {field.annotation!r}")
        cells = [
            f"`{prefix.upper()}{name.upper()}`",
            _TYPES[field.annotation],
            _constraints(field, where),
            _default(field),
            _links(field.description),
        ]
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return rows


def _constraints(field: FieldInfo, where: str) -> str:
    said: list[str] = []
    for item in field.metadata:
        found = False
        for attribute, sign in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
            value = getattr(item, attribute, None)
            if value is not None:
                said.append(f"{sign} {_number(value)}")
                found = True
        pattern = getattr(item, "pattern", None)
        if pattern is not None:
            said.append(f"matches `{pattern}`")
            found = True
        if not found:
            raise ContractsError(f"{where}: no words for the constraint {item!r}")
    return ", ".join(said)


def _number(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _default(field: FieldInfo) -> str:
    value = field.default
    if value is PydanticUndefined:
        return "(required)"
    if isinstance(value, SecretStr):
        return "(development default)"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if value == "":
        return "empty"
    return f"`{value}`"


def _links(description: str) -> str:
    """A description with each path under docs/ as a link from docs/configuration.md."""
    return re.sub(r"docs/decisions/((\d{4})-[\w.-]+?\.md)", r"[\2](decisions/\1)", description)


# ---------------------------------------------------------------------------- command line
def generated(services: Sequence[DeclaredService] | None = None) -> dict[Path, str]:
    """Each generated file (its path from the repository's root) and its text."""
    services = declared() if services is None else services
    files = {
        ASYNCAPI_PATH: asyncapi_yaml(services),
        CONFIGURATION_PATH: configuration_markdown(services),
        **dashboards.generated(),
        **prometheus_rule.generated(),
        LIFE_OF_A_ROUND_PATH: life_of_a_round(services),
        **event_schemas(registry.event_types.values()),
        **acls.generated(services),
        **openapi.generated(),
    }
    files |= client_files(files)  # the operator client, from those documents
    return files


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m teenpatti_tools.contracts",
        description="Rewrite docs/asyncapi.yaml (the Kafka topics), docs/openapi/ (the HTTP"
        " APIs), docs/configuration.md (the TP_* settings), docs/life-of-a-round.md's table of"
        " consumer groups and docs/events/ (each event's schema) from the event catalog, the"
        " services and their apps, and the settings classes.",
    )
    parser.add_argument(
        "--root", type=Path, default=Path.cwd(), help="the repository (default: here)"
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a file is out of date"
    )
    args = parser.parse_args(argv)
    root: Path = args.root
    if not (root / "docs").is_dir():
        parser.error(f"{root} has no docs/: run it from the repository's root, or give --root")
    try:
        files = generated()
    except (
        ContractsError,
        SubscriptionsDocError,
        EventExampleError,
        IncompatibleSchemaError,
        ClientGenerationError,
    ) as error:
        print(f"contracts: {error}", file=sys.stderr)
        return 2
    changed = [
        path
        for path, text in files.items()
        if not (root / path).is_file() or (root / path).read_text(encoding="utf-8") != text
    ]
    changed += stale_client_files(root, files)  # a generated file the generator no longer makes
    if args.check:
        for path in changed:
            print(f"{path} is out of date: run `make contracts`", file=sys.stderr)
        return 1 if changed else 0
    for path in stale_client_files(root, files):
        (root / path).unlink()
        print(f"removed {path}")
    for path, text in files.items():
        if path in changed:
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text, encoding="utf-8")
            print(f"wrote {path}")
        else:
            print(f"{path} is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
