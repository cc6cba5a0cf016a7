"""The outbox relay: publishes a store's events to Kafka, in commit-safe order, at least once.

Events are sent keyed by table id with the idempotent producer and `acks=all`; the relay
stores how far it got only after Kafka acknowledged, so a crash at any point republishes
from the last checkpoint (consumers absorb the duplicates) and never loses an event.
One relay per store is active at a time (a Postgres advisory lock); other instances wait
as hot standbys and take over when the holder's session ends. A graceful stop first
publishes everything committed, so nothing waits for the next instance to start.
The leader measures what still waits (`teenpatti_outbox_backlog_events`, and the oldest's
age, `teenpatti_outbox_relay_lag_seconds`) after a publish or an idle poll, at most once a
second, and so does a relay that failed to publish: a scrape never queries the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import zlib
from datetime import UTC, datetime

import asyncpg
from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError
from aiokafka.producer.message_accumulator import BatchBuilder

from teenpatti.eventsourcing.store import (
    NOTIFY_CHANNEL,
    AsyncpgEventStore,
    GlobalPosition,
    StoredEvent,
)
from teenpatti.eventsourcing.topics import TYPE_HEADER, VERSION_HEADER, partition_for
from teenpatti.observability.metrics import RelayMetrics
from teenpatti.observability.tracing import TRACEPARENT
from teenpatti.transient import SERVER_UNAVAILABLE

log = logging.getLogger(__name__)

# the longest measuring the backlog may take (it is a count on the primary key)
_MEASURE_SECONDS = 2.0


def kafka_producer(bootstrap_servers: str, client_id: str) -> AIOKafkaProducer:
    """The producer settings every publisher uses: no loss, no reordering, no duplicates."""
    return AIOKafkaProducer(
        bootstrap_servers=bootstrap_servers,
        client_id=client_id,
        acks="all",
        enable_idempotence=True,
        linger_ms=2,
        max_batch_size=256 * 1024,
        compression_type=None,
    )


class KafkaOutboxRelay:
    def __init__(
        self,
        store: AsyncpgEventStore,
        producer: AIOKafkaProducer,
        topic: str,
        *,
        name: str,
        batch_size: int = 2000,
        idle_poll_seconds: float = 0.5,
        drain_seconds: float = 5.0,
    ) -> None:
        self._store = store
        self._producer = producer
        self._topic = topic
        self._name = name
        self._batch_size = batch_size
        self._idle_poll_seconds = idle_poll_seconds
        self._drain_seconds = drain_seconds
        self._wake = asyncio.Event()
        # while leading: the listener connection (reads and checkpoints go through it, no
        # pool round trips) and the checkpoint, which only the leader writes
        self._leader: tuple[asyncpg.Connection, GlobalPosition] | None = None
        self._metrics = RelayMetrics(name)

    @property
    def name(self) -> str:
        return self._name

    @property
    def leading(self) -> bool:
        """Whether this relay holds its store's leader lock and publishes."""
        return self._leader is not None

    async def checkpoint(self) -> GlobalPosition:
        row = await self._store.pool.fetchrow(
            "SELECT transaction_id, position FROM outbox_checkpoints WHERE relay = $1",
            self._name,
        )
        return GlobalPosition(row[0], row[1]) if row else GlobalPosition()

    async def publish_pending(self) -> int:
        """Publish everything committed since the checkpoint; return how many were sent."""
        sent = 0
        connection = self._leader[0] if self._leader is not None else None
        position = self._leader[1] if self._leader is not None else await self.checkpoint()
        while True:
            events = await self._store.read_all(
                position, limit=self._batch_size, connection=connection
            )
            if not events:
                return sent
            await self._publish(events)
            self._metrics.published(len(events))
            position = events[-1].global_position
            await self._save_checkpoint(position, connection)
            if connection is not None:
                self._leader = (connection, position)
            sent += len(events)

    async def run(self, stop: asyncio.Event) -> None:
        """Relay until `stop` is set, riding out lost connections to Postgres or Kafka."""
        while not stop.is_set():
            try:
                await self._run_as_leader(stop)
            except (*SERVER_UNAVAILABLE, KafkaError) as error:
                log.warning("relay %s: %s; retrying", self._name, error)
                await self._measure()  # what waits meanwhile (Kafka away: its age grows)
                await _wait_any(stop, seconds=1.0)
            except Exception:
                # a relay that stops publishes nothing more, silently: never give up
                log.exception("relay %s: unexpected error; retrying", self._name)
                await self._measure()
                await _wait_any(stop, seconds=1.0)

    async def _run_as_leader(self, stop: asyncio.Event) -> None:
        """Hold the leader lock, then publish after every append (and every idle poll)."""
        async with self._store.pool.acquire() as listener:
            try:
                await self._become_leader(listener, stop)
                if stop.is_set():
                    return
                await listener.add_listener(NOTIFY_CHANNEL, self._on_notify)
                self._leader = (listener, await self.checkpoint())
                backoff: float | None = None
                waited = 0.0
                while not stop.is_set():
                    woken = self._wake.is_set() or backoff is not None
                    self._wake.clear()
                    sent = await self.publish_pending()
                    if self._metrics.due():
                        await self._measure(self._leader)
                    # Woken but nothing visible yet: an older transaction on this database
                    # still holds the read barrier (usually for a few ms). Look again soon
                    # (2, 4, 8, then every 10 ms) for up to an idle poll, not after it.
                    if woken and not sent:
                        backoff = 0.002 if backoff is None else min(backoff * 2, 0.01)
                        waited += backoff
                        if waited >= self._idle_poll_seconds:
                            backoff, waited = None, 0.0
                    else:
                        backoff, waited = None, 0.0
                    await _wait_any(self._wake, stop, seconds=backoff or self._idle_poll_seconds)
                await self._drain()
            finally:
                self._leader = None
                self._metrics.leading(False)
                # The session holds the leader lock and the LISTEN: end it, so that neither
                # stays with a pooled connection (service pools do not reset connections).
                listener.terminate()

    async def _drain(self) -> None:
        """Publish every committed event before stopping. An event committed but still behind
        the read barrier (an older transaction on this database is open) is waited for, up to
        `drain_seconds`; past that the next leader publishes it."""
        deadline = asyncio.get_running_loop().time() + self._drain_seconds
        while True:
            await self.publish_pending()
            assert self._leader is not None
            connection, position = self._leader
            if not await self._store.has_events_after(position, connection=connection):
                return
            if asyncio.get_running_loop().time() >= deadline:
                log.warning("relay %s: stopping with events still behind the barrier", self._name)
                return
            await asyncio.sleep(0.01)

    @property
    def _lock_key(self) -> int:
        return zlib.crc32(f"outbox-relay:{self._name}".encode())

    async def _become_leader(
        self,
        connection: asyncpg.Connection,
        stop: asyncio.Event,
    ) -> None:
        while not stop.is_set():
            if await connection.fetchval("SELECT pg_try_advisory_lock($1)", self._lock_key):
                log.info("relay %s: active", self._name)
                self._metrics.leading(True)
                return
            self._metrics.leading(False)  # a standby: the leader reports the backlog
            await _wait_any(stop, seconds=1.0)

    def _on_notify(self, *_: object) -> None:
        self._wake.set()

    async def _measure(
        self, leader: tuple[asyncpg.Connection, GlobalPosition] | None = None
    ) -> None:
        """Record the backlog (`RelayMetrics`): the events committed after the checkpoint and
        the age of the oldest. The leader reads on its own connection from the checkpoint it
        holds; a relay that failed to publish reads the stored checkpoint. Best effort and
        bounded: a store it cannot read leaves the last figures."""
        try:
            async with asyncio.timeout(_MEASURE_SECONDS):
                connection, position = leader or (None, await self.checkpoint())
                waiting, oldest = await self._store.backlog(position, connection=connection)
        except Exception as error:  # TimeoutError included
            log.debug("relay %s: backlog not measured (%s)", self._name, error)
            return
        self._metrics.backlog(waiting, oldest, datetime.now(UTC))

    async def _publish(self, events: list[StoredEvent]) -> None:
        """Send `events` and wait until Kafka acknowledged all of them. Records are packed into
        one batch per partition (in order; a full batch is sent and a new one started), not a
        producer `send` per record: docs/decisions/0014-relay-batch-per-partition.md."""
        partitions = len(await self._producer.partitions_for(self._topic))
        open_batches: dict[int, BatchBuilder] = {}
        deliveries: list[asyncio.Future[object]] = []
        for event in events:
            key, value = event.table_id.encode(), event.to_json_bytes()
            # what the event is, for consumers that pass it over without reading the value
            headers = [
                (TYPE_HEADER, event.event_type.encode()),
                (VERSION_HEADER, str(event.schema_version).encode()),
            ]
            if event.trace_context is not None:  # the trace goes on in the consumer
                headers.append((TRACEPARENT, event.trace_context.encode()))
            partition = partition_for(event.table_id, partitions)
            batch = open_batches.get(partition)
            if (
                batch is None
                or batch.append(key=key, value=value, timestamp=None, headers=headers) is None
            ):
                if batch is not None:
                    deliveries.append(await self._send(batch, partition))
                batch = open_batches[partition] = self._producer.create_batch()
                if batch.append(key=key, value=value, timestamp=None, headers=headers) is None:
                    raise ValueError(f"event {event.event_id} is larger than a producer batch")
        for partition, batch in open_batches.items():
            deliveries.append(await self._send(batch, partition))
        await asyncio.gather(*deliveries)

    async def _send(self, batch: BatchBuilder, partition: int) -> asyncio.Future[object]:
        batch.close()
        future: asyncio.Future[object] = await self._producer.send_batch(
            batch, self._topic, partition=partition
        )
        return future

    async def _save_checkpoint(
        self, position: GlobalPosition, connection: asyncpg.Connection | None = None
    ) -> None:
        await (connection if connection is not None else self._store.pool).execute(
            "INSERT INTO outbox_checkpoints (relay, transaction_id, position) VALUES ($1, $2, $3)"
            " ON CONFLICT (relay) DO UPDATE SET transaction_id = EXCLUDED.transaction_id,"
            " position = EXCLUDED.position, updated_at = now()",
            self._name,
            position.transaction_id,
            position.position,
        )


async def _wait_any(*events: asyncio.Event, seconds: float) -> None:
    waiters = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        await asyncio.wait(waiters, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*waiters, return_exceptions=True)
