"""The table's subscriptions, each run by the kernel's consumer inside one Postgres
transaction: scanned cards (`scanner.events`) become CardDealt/CardRefused, the gateway's
device registrations, rotations and revocations (`scanner.events`) tell which device may
scan for which table, and every table event (`table.events`) is mirrored into Redis (the
live state and the WebSocket feed)."""

from __future__ import annotations

import asyncpg
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from teenpatti.events import Event, EventEnvelope
from teenpatti.events.catalog import CardScanned
from teenpatti.eventsourcing.consumer import AfterCommit
from teenpatti.kernel import Received
from teenpatti.observability.metrics import SCAN_TO_ROUND_CLOSED

from .adapters.redis_feed import FeedUpdate, RedisTableFeed, feed_message
from .adapters.scanners import DeviceEvent, apply_device_events
from .adapters.views import state_view
from .domain.state import stream_id_for
from .handlers import TableService


class DealScans:
    """A run of `CardScanned`: each dealt or refused, in order (`TableService.handle_scans`).
    The rounds they close are timed from their last scan once the transaction has committed
    (`teenpatti_table_scan_to_round_closed_seconds`)."""

    def __init__(self, service: TableService) -> None:
        self._service = service

    async def __call__(
        self, connection: asyncpg.Connection, scans: list[Received[CardScanned]]
    ) -> AfterCommit | None:
        closed = await self._service.handle_scans(
            connection, [received.event for received in scans]
        )
        if not closed:
            return None

        async def observe() -> None:
            for seconds in closed:
                SCAN_TO_ROUND_CLOSED.observe(seconds)

        return observe


class RecordScanners:
    """A run of the gateway's device events: the table's view of which device may scan
    for which table (decision 0055)."""

    async def __call__(
        self, connection: asyncpg.Connection, received: list[Received[DeviceEvent]]
    ) -> None:
        await apply_device_events(
            connection, [(one.event, one.envelope.stream_version) for one in received]
        )


class MirrorToFeed:
    """Every table event, once across all instances: the tables' states loaded in one query,
    then each table's messages published in order. (A batch that fails and is handled again
    one by one publishes its messages again; the WebSocket feed skips positions it has
    already sent.)"""

    def __init__(self, service: TableService, feed: RedisTableFeed) -> None:
        self._service = service
        self._feed = feed

    async def __call__(
        self, connection: asyncpg.Connection, received: list[Received[Event]]
    ) -> None:
        by_table: dict[str, list[EventEnvelope]] = {}
        for envelope in (one.envelope for one in received):
            if envelope.stream_id == stream_id_for(envelope.table_id):
                by_table.setdefault(envelope.table_id, []).append(envelope)
            # else: verdicts for unknown tables, not part of any table's feed
        states = await self._service.repository.load_many(list(by_table), connection=connection)
        updates: list[FeedUpdate] = []
        for table_id, envelopes in by_table.items():
            state = states[table_id]
            current = state.version >= envelopes[-1].stream_version
            messages = [
                feed_message(
                    envelope.stream_version,
                    envelope.event_type,
                    envelope.payload,
                    envelope.occurred_at.isoformat(),
                )
                for envelope in envelopes
            ]
            updates.append(FeedUpdate(table_id, state_view(state) if current else None, messages))
        try:
            await self._feed.publish_all(updates)
        except (RedisConnectionError, RedisTimeoutError) as error:
            # Redis being away is not the event's fault: the consumer retries OSErrors
            # until it is back instead of parking the event.
            raise ConnectionError(f"redis unavailable: {error}") from error
