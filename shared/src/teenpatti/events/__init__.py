"""Event contracts: the envelope, versioned payloads and the registry."""

from teenpatti.events.contracts import (
    Event,
    EventContractError,
    EventEnvelope,
    EventRegistry,
    InvalidEventPayloadError,
    MalformedEnvelopeError,
    UnknownEventTypeError,
    UnsupportedSchemaVersionError,
    new_envelope,
)

__all__ = [
    "Event",
    "EventContractError",
    "EventEnvelope",
    "EventRegistry",
    "InvalidEventPayloadError",
    "MalformedEnvelopeError",
    "UnknownEventTypeError",
    "UnsupportedSchemaVersionError",
    "new_envelope",
]
