"""A service's subscriptions, `{topic: {EventType: handler}}`, as one consumer per topic.

The kernel decodes each record's event, passes over the types a subscription does not name
(without a transaction, on the record's headers alone where it can), and calls each handler
with a batch: the events of a poll, in order, split into runs of consecutive events for the
same handler. A single event is a batch of one. An event this build cannot read (an unknown
type, a schema version beyond the catalog's) is parked by the consumer, never passed over
unseen. What a handler logs names the events it was given (`log_context`): their type,
table, round and correlation where they all share one, the event's id for one event.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

import asyncpg

from teenpatti.events import Event, EventEnvelope
from teenpatti.events.catalog import registry
from teenpatti.events.contracts import EventContractError, UnsupportedSchemaVersionError
from teenpatti.eventsourcing.consumer import AfterCommit, BatchHandler, all_of
from teenpatti.observability.logs import log_context

log = logging.getLogger(__name__)

E_co = TypeVar("E_co", bound=Event, covariant=True)


@dataclass(frozen=True, slots=True)
class Received(Generic[E_co]):
    """An event as a handler receives it: decoded, with the envelope that carried it (its
    ids, stream position and time, for the events it causes)."""

    event: E_co
    envelope: EventEnvelope


class _EveryEvent:
    def __repr__(self) -> str:
        return "EVERY_EVENT"


# A subscription key for a handler that takes every event of its topic.
EVERY_EVENT: Final = _EveryEvent()

EventHandler = Callable[[asyncpg.Connection, list[Received[Any]]], Awaitable[AfterCommit | None]]
Handlers = Mapping[type[Event] | _EveryEvent, EventHandler]
Subscriptions = Mapping[str, Handlers]


def dispatcher(handlers: Handlers) -> BatchHandler:
    """One batch handler for a topic's consumer: decode, filter by type, split into runs."""
    by_type: dict[str, EventHandler] = {}
    for key, handler in handlers.items():
        if isinstance(key, _EveryEvent):
            continue
        by_type[key.event_type] = handler
    every = handlers.get(EVERY_EVENT)

    async def dispatch(
        connection: asyncpg.Connection, envelopes: list[EventEnvelope]
    ) -> AfterCommit | None:
        actions: list[AfterCommit | None] = []
        current: EventHandler | None = None
        run: list[Received[Any]] = []
        for envelope in envelopes:
            handler = by_type.get(envelope.event_type, every)
            if handler is None:
                check_readable(envelope.event_type, envelope.schema_version)
                continue
            event = registry.decode_envelope(envelope)
            if handler is not current and run:
                assert current is not None
                actions.append(await _handle(current, connection, run))
                run = []
            current = handler
            run.append(Received(event, envelope))
        if run:
            assert current is not None
            actions.append(await _handle(current, connection, run))
        return all_of(actions)

    return dispatch


async def _handle(
    handler: EventHandler, connection: asyncpg.Connection, run: list[Received[Any]]
) -> AfterCommit | None:
    """Call `handler` with a run; the lines it logs name what the run's events share."""
    with log_context(**_in_common(run)):
        log.debug("handling %d event(s)", len(run))
        return await handler(connection, run)


def _in_common(run: list[Received[Any]]) -> dict[str, object]:
    """The log fields of a run of events: each one they all share (None: not shared)."""
    envelopes = [received.envelope for received in run]
    first = envelopes[0]
    round_id = first.payload.get("round_id")
    return {
        "event_type": first.event_type
        if all(e.event_type == first.event_type for e in envelopes)
        else None,
        "table_id": first.table_id
        if all(e.table_id == first.table_id for e in envelopes)
        else None,
        "round_id": round_id
        if all(e.payload.get("round_id") == round_id for e in envelopes)
        else None,
        "correlation_id": first.correlation_id
        if all(e.correlation_id == first.correlation_id for e in envelopes)
        else None,
        "event_id": first.event_id if len(envelopes) == 1 else None,
    }


def handled_types(handlers: Handlers) -> frozenset[str] | None:
    """The event types the handlers act on; None when one takes every event."""
    if EVERY_EVENT in handlers:
        return None
    return frozenset(key.event_type for key in handlers if not isinstance(key, _EveryEvent))


def passed_over(handles: frozenset[str]) -> Callable[[str, int], bool]:
    """Whether an event (its type and schema version) is one a consumer handling `handles`
    may pass over: readable by this build (else it is parked) and of another type."""

    def ignored(event_type: str, schema_version: int) -> bool:
        if event_type in handles:
            return False
        try:
            check_readable(event_type, schema_version)
        except EventContractError:
            return False
        return True

    return ignored


def check_readable(event_type: str, schema_version: int) -> None:
    """Raise EventContractError for an event this build cannot read."""
    event_class = registry.event_class(event_type)  # UnknownEventTypeError
    if not 1 <= schema_version <= event_class.schema_version:
        raise UnsupportedSchemaVersionError(
            f"{event_type} schema version {schema_version} is not"
            f" supported (this build reads versions 1 to {event_class.schema_version})"
        )
