"""Kafka handlers, each run by the consumer runtime inside one Postgres transaction:
`table-scans` turns scanned cards into CardDealt/CardRefused, `table-feed` mirrors every
table event into Redis (live state and the WebSocket feed channel)."""

from __future__ import annotations

import asyncpg
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from teenpatti.events import EventEnvelope
from teenpatti.events.catalog import CardScanned, registry

from .adapters.redis_feed import FeedUpdate, RedisTableFeed, feed_message
from .domain import state_view, stream_id_for
from .handlers import TableService


class ScanHandler:
    """`table-scans` on scanner.events: only CardScanned matters to the table."""

    def __init__(self, service: TableService) -> None:
        self._service = service

    async def __call__(self, connection: asyncpg.Connection, envelope: EventEnvelope) -> None:
        await self.batch(connection, [envelope])

    async def batch(self, connection: asyncpg.Connection, envelopes: list[EventEnvelope]) -> None:
        scans: list[CardScanned] = []
        for envelope in envelopes:
            if envelope.event_type == CardScanned.event_type:
                scan = registry.decode_envelope(envelope)
                assert isinstance(scan, CardScanned)
                scans.append(scan)
        if scans:
            await self._service.handle_scans(connection, scans)


class FeedHandler:
    """`table-feed` on table.events: one delivery per event across all instances."""

    def __init__(self, service: TableService, feed: RedisTableFeed) -> None:
        self._service = service
        self._feed = feed

    async def __call__(self, connection: asyncpg.Connection, envelope: EventEnvelope) -> None:
        await self.batch(connection, [envelope])

    async def batch(self, connection: asyncpg.Connection, envelopes: list[EventEnvelope]) -> None:
        """A poll's events: the tables' states loaded in one query, then each table's
        messages published in order. (A batch that fails and is handled again one by one
        publishes its messages again; the WebSocket feed skips positions it has already
        sent.)"""
        by_table: dict[str, list[EventEnvelope]] = {}
        for envelope in envelopes:
            if envelope.stream_id == stream_id_for(envelope.table_id):
                by_table.setdefault(envelope.table_id, []).append(envelope)
            # else: verdicts for unknown tables, not part of any table's feed
        states = await self._service.repository.load_many(list(by_table), connection=connection)
        updates: list[FeedUpdate] = []
        for table_id, events in by_table.items():
            state = states[table_id]
            current = state.version >= events[-1].stream_version
            messages = [
                feed_message(
                    envelope.stream_version,
                    envelope.event_type,
                    envelope.payload,
                    envelope.occurred_at.isoformat(),
                )
                for envelope in events
            ]
            updates.append(FeedUpdate(table_id, state_view(state) if current else None, messages))
        try:
            await self._feed.publish_all(updates)
        except (RedisConnectionError, RedisTimeoutError) as error:
            # Redis being away is not the event's fault: the runtime retries OSErrors
            # until it is back instead of parking the event.
            raise ConnectionError(f"redis unavailable: {error}") from error
