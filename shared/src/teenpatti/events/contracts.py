"""Event contracts: the envelope every event travels in, versioned payloads, one registry.

An event is a frozen pydantic payload class with a past-tense name, an `event_type` and a
`schema_version`. Older versions of a payload are upcast, one version at a time, by
functions registered beside the class, so stored history never has to be rewritten. The
types decoded most are also decoded by compiled decoders derived from their classes
(`teenpatti.events.compiled`), which answer as the classes do, at a fraction of the cost.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from datetime import UTC, datetime
from typing import Any, ClassVar, TypeVar, cast
from uuid import UUID, uuid4

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError, field_validator

from teenpatti.events.compiled import REFUSED, CompiledDecoder, compile_decoder

JsonObject = dict[str, Any]
Upcaster = Callable[[JsonObject], JsonObject]


class EventContractError(ValueError):
    """An event that does not fit its contract; the message says exactly why."""


class UnknownEventTypeError(EventContractError):
    pass


class UnsupportedSchemaVersionError(EventContractError):
    pass


class InvalidEventPayloadError(EventContractError):
    pass


class MalformedEnvelopeError(EventContractError):
    pass


class Event(BaseModel):
    """Base of every event payload: frozen, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    event_type: ClassVar[str]
    schema_version: ClassVar[int] = 1


class EventEnvelope(BaseModel):
    """What is stored and published: the payload and everything needed to route and trace it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    event_id: UUID
    event_type: str = Field(min_length=1, max_length=100)
    schema_version: int = Field(ge=1)
    stream_id: str = Field(min_length=1, max_length=200)
    stream_version: int = Field(ge=1)
    table_id: str = Field(min_length=1, max_length=100)
    occurred_at: AwareDatetime
    correlation_id: UUID
    causation_id: UUID | None
    producer: str = Field(min_length=1, max_length=100)
    payload: JsonObject

    @field_validator("occurred_at")
    @classmethod
    def _in_utc(cls, value: datetime) -> datetime:
        return value.astimezone(UTC)

    def to_json_bytes(self) -> bytes:
        return self.model_dump_json().encode()

    @classmethod
    def from_json_bytes(cls, raw: bytes) -> EventEnvelope:
        try:
            return cls.model_validate_json(raw)
        except ValidationError as error:
            raise MalformedEnvelopeError(
                f"malformed event envelope: {_first_problem(error)}"
            ) from None


E = TypeVar("E", bound=type[Event])


class EventRegistry:
    """The one list of event types: encodes payloads and decodes (and upcasts) them."""

    def __init__(self) -> None:
        self._classes: dict[str, type[Event]] = {}
        self._upcasters: dict[tuple[str, int], Upcaster] = {}
        # (event type, its current schema version) -> the class's validator from JSON text
        self._current: dict[tuple[str, int], Callable[[str | bytes], Any]] = {}
        # event type -> its compiled decoder, for its current schema version (`compile`)
        self._compiled_all: dict[str, CompiledDecoder[Any]] = {}
        self._compiled: dict[str, CompiledDecoder[Any]] = {}
        # event type -> (its current schema version, its compiled decoder from JSON text)
        self._compiled_json: dict[str, tuple[int, Callable[[str | bytes], Event]]] = {}
        self._compiled_enabled = True

    def register(self, event_class: E) -> E:
        name = event_class.event_type
        if name in self._classes:
            raise ValueError(f"event type {name!r} is registered twice")
        self._classes[name] = event_class
        self._current[(name, event_class.schema_version)] = (
            event_class.__pydantic_validator__.validate_json
        )
        return event_class

    def compile(
        self, *event_classes: type[Event], interned: Collection[type[BaseModel]] = ()
    ) -> None:
        """Decode these registered types' current versions with compiled decoders too: what
        one refuses goes on to the class's validator, so every answer is the class's
        (docs/decisions/0102-compiled-event-decoders.md). `interned`: nested models shared
        between equal values (`compile_decoder`)."""
        for event_class in event_classes:
            if self._classes.get(event_class.event_type) is not event_class:
                raise ValueError(f"{event_class.__name__} is not registered")
            self._compiled_all[event_class.event_type] = compile_decoder(event_class, interned)
        self.use_compiled(self._compiled_enabled)

    def use_compiled(self, enabled: bool) -> None:
        """Whether the compiled decoders are used (`TP_COMPILED_DECODERS`); without them
        every payload is validated by its class alone."""
        self._compiled_enabled = enabled
        self._compiled = dict(self._compiled_all) if enabled else {}
        self._compiled_json = {
            name: (compiled.model.schema_version, compiled.from_json)
            for name, compiled in self._compiled.items()
        }

    @property
    def compiled_types(self) -> frozenset[str]:
        """The event types decoded by a compiled decoder now."""
        return frozenset(self._compiled)

    def compiled_decoder(self, event_type: str) -> CompiledDecoder[Any]:
        """The type's compiled decoder (`compile`), used or not."""
        return self._compiled_all[event_type]

    @property
    def compilable_types(self) -> frozenset[str]:
        """The event types given a compiled decoder (`compile`), used or not."""
        return frozenset(self._compiled_all)

    def upcaster(self, event_type: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
        """Register a function turning a payload of `from_version` into `from_version + 1`."""

        def decorate(function: Upcaster) -> Upcaster:
            self._upcasters[(event_type, from_version)] = function
            return function

        return decorate

    @property
    def event_types(self) -> Mapping[str, type[Event]]:
        return dict(self._classes)

    def event_class(self, event_type: str) -> type[Event]:
        try:
            return self._classes[event_type]
        except KeyError:
            raise UnknownEventTypeError(f"unknown event type {event_type!r}") from None

    def decode(self, event_type: str, schema_version: int, payload: Mapping[str, Any]) -> Event:
        """The payload as its current class, upcast from older versions when needed."""
        event_class = self._readable_class(event_type, schema_version)
        current = event_class.schema_version
        data = dict(payload)
        for version in range(schema_version, current):
            step = self._upcasters.get((event_type, version))
            if step is None:
                raise UnsupportedSchemaVersionError(
                    f"{event_type} has no upcaster from version {version} to {version + 1}"
                )
            data = step(data)
        try:
            return event_class.model_validate(data)
        except ValidationError as error:
            raise InvalidEventPayloadError(
                f"invalid {event_type} v{schema_version} payload: {_first_problem(error)}"
            ) from None

    def decode_json(self, event_type: str, schema_version: int, payload_json: str | bytes) -> Event:
        """`decode` from the payload's JSON text, as stored. The current schema version is
        parsed and validated in one step by the class's pydantic validator (docs/decisions/
        0031-replay-folds-one-copy.md), or first by its compiled decoder (`compile`); older
        versions go through the upcasters."""
        compiled_json = self._compiled_json.get(event_type)
        if compiled_json is not None and compiled_json[0] == schema_version:
            try:
                return compiled_json[1](payload_json)
            except REFUSED:
                pass  # the class's validator below accepts it (a form not compiled) or says why
        validate_json = self._current.get((event_type, schema_version))
        if validate_json is not None:
            try:
                return cast("Event", validate_json(payload_json))
            except ValidationError as error:
                raise InvalidEventPayloadError(
                    f"invalid {event_type} v{schema_version} payload: {_first_problem(error)}"
                ) from None
        self._readable_class(event_type, schema_version)  # unknown type or version: raises
        try:
            payload = json.loads(payload_json)
        except ValueError as error:
            raise InvalidEventPayloadError(f"{event_type} payload is not JSON: {error}") from None
        if not isinstance(payload, dict):
            raise InvalidEventPayloadError(f"{event_type} payload is not a JSON object")
        return self.decode(event_type, schema_version, payload)

    def _readable_class(self, event_type: str, schema_version: int) -> type[Event]:
        event_class = self.event_class(event_type)
        if not 1 <= schema_version <= event_class.schema_version:
            raise UnsupportedSchemaVersionError(
                f"{event_type} schema version {schema_version} is not supported "
                f"(this build reads versions 1 to {event_class.schema_version})"
            )
        return event_class

    def decode_parsed(
        self, event_type: str, schema_version: int, payload: Mapping[str, Any]
    ) -> Event:
        """`decode` of a payload parsed from JSON text, whose values are only dicts, lists,
        str, int, float, bool and None: by its compiled decoder first (`compile`). Not for
        other Python values: a compiled decoder keeps a str subclass (an enum) as given,
        where the class makes it a plain str."""
        compiled = self._compiled.get(event_type)
        if compiled is not None and compiled.model.schema_version == schema_version:
            try:
                return cast("Event", compiled.from_python(payload))
            except REFUSED:
                pass  # the class's validator below accepts it (a form not compiled) or says why
        return self.decode(event_type, schema_version, payload)

    def decode_envelope(self, envelope: EventEnvelope) -> Event:
        """The envelope's event; its payload is JSON values, as read from its JSON text."""
        return self.decode_parsed(envelope.event_type, envelope.schema_version, envelope.payload)


def new_envelope(
    event: Event,
    *,
    stream_id: str,
    stream_version: int,
    table_id: str,
    producer: str,
    correlation_id: UUID | None = None,
    causation_id: UUID | None = None,
    occurred_at: datetime | None = None,
) -> EventEnvelope:
    """Wrap a payload for storage; the caller supplies the stream position it expects."""
    event_id = uuid4()
    return EventEnvelope(
        event_id=event_id,
        event_type=event.event_type,
        schema_version=event.schema_version,
        stream_id=stream_id,
        stream_version=stream_version,
        table_id=table_id,
        occurred_at=occurred_at or datetime.now(UTC),
        correlation_id=correlation_id or event_id,
        causation_id=causation_id,
        producer=producer,
        payload=json.loads(event.model_dump_json()),
    )


def _first_problem(error: ValidationError) -> str:
    problem = error.errors()[0]
    where = ".".join(str(part) for part in problem["loc"]) or "(root)"
    more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return f"{where}: {problem['msg']}{more}"
