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

An event Kafka cannot take never stops the relay: one whose record is larger than
`max_event_bytes` is not sent, and one that Kafka refuses as too large anyway (a topic with
a smaller `max.message.bytes`) is sent again in a batch of its own to find it. Either is set
aside: recorded in `parked_outbox_events` (listed by `GET /problems`, counted), never
published, and the relay goes on with the events after it, those of the same stream
included: every consumer of ours waits for, parks or holds what lacks a fact it depends on,
so a gap is seen, never acted on (docs/decisions/0063-oversized-events-set-aside.md). A
refusal spoils the idempotent producer's sequence on its partition, so the relay then
carries on with a new producer (`renew_producer`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from uuid import UUID

import asyncpg
from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError, MessageSizeTooLargeError, RecordTooLargeError
from aiokafka.producer.message_accumulator import BatchBuilder
from aiokafka.record.default_records import DefaultRecordBatchBuilder

from teenpatti.eventsourcing.store import (
    NOTIFY_CHANNEL,
    AsyncpgEventStore,
    GlobalPosition,
    StoredEvent,
)
from teenpatti.eventsourcing.topics import TYPE_HEADER, VERSION_HEADER, partition_for
from teenpatti.observability.metrics import RelayMetrics
from teenpatti.observability.tracing import TRACEPARENT
from teenpatti.settings import KafkaConnection, kafka_client_options
from teenpatti.transient import SERVER_UNAVAILABLE

log = logging.getLogger(__name__)

# the longest measuring the backlog may take (it is a count on the primary key)
_MEASURE_SECONDS = 2.0
# below the broker's default `message.max.bytes` (1,048,588) with room for a batch's header
DEFAULT_MAX_EVENT_BYTES = 1_000_000
# what Kafka answers for a record or batch above its limit (the broker, or the producer)
_TOO_LARGE = (MessageSizeTooLargeError, RecordTooLargeError)

Headers = list[tuple[str, bytes]]
ProducerFactory = Callable[[], Awaitable[AIOKafkaProducer]]


@dataclass(frozen=True, slots=True)
class _Record:
    event: StoredEvent
    key: bytes
    value: bytes
    headers: Headers

    @property
    def size(self) -> int:
        """An upper bound of its size in a batch of its own, as Kafka counts it."""
        return int(
            DefaultRecordBatchBuilder.estimate_size_in_bytes(self.key, self.value, self.headers)
        )


class _RefusedAsTooLargeError(Exception):
    """Kafka refused records as too large: those alone were set aside or will go alone next."""


def kafka_producer(kafka: KafkaConnection, client_id: str) -> AIOKafkaProducer:
    """The producer settings every publisher uses: no loss, no reordering, no duplicates.
    `kafka`: the connection options (`InfrastructureSettings.kafka_options()`)."""
    return AIOKafkaProducer(
        **kafka_client_options(kafka),
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
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        renew_producer: ProducerFactory | None = None,
    ) -> None:
        self._store = store
        self._producer = producer
        self._max_event_bytes = max_event_bytes
        # a started producer in place of one whose sequence a refusal spoilt (None: keep it)
        self._renew_producer = renew_producer
        # set aside by this process (never sent again), and refused in a batch with others
        # (sent next in a batch of their own, to find the one too large)
        self._set_aside: set[UUID] = set()
        self._alone: set[UUID] = set()
        self._spoilt = False  # a refusal spoilt the producer's sequence: renew it first
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
        """Publish everything committed since the checkpoint; return how many were sent (the
        events set aside as too large are not)."""
        sent = 0
        connection = self._leader[0] if self._leader is not None else None
        position = self._leader[1] if self._leader is not None else await self.checkpoint()
        while True:
            events = await self._store.read_all(
                position, limit=self._batch_size, connection=connection
            )
            if not events:
                return sent
            records = [_record(event) for event in events if event.event_id not in self._set_aside]
            oversized = [record for record in records if record.size > self._max_event_bytes]
            if oversized:
                await self._set_aside_records(
                    oversized,
                    f"larger than the relay's bound of {self._max_event_bytes} bytes"
                    " (TP_KAFKA_MAX_EVENT_BYTES)",
                    connection,
                )
                records = [
                    record for record in records if record.event.event_id not in self._set_aside
                ]
            try:
                await self._publish(records)
            except _RefusedAsTooLargeError:
                continue  # the same events again: those refused go alone, or not at all
            self._metrics.published(len(records))
            position = events[-1].global_position
            await self._save_checkpoint(position, connection)
            if connection is not None:
                self._leader = (connection, position)
            sent += len(records)
            if self._set_aside or self._alone:  # behind the checkpoint: never read again
                passed = {event.event_id for event in events}
                self._set_aside -= passed
                self._alone -= passed
            if len(events) < self._batch_size:
                # all that was visible is sent: what commits later wakes the relay again
                # (NOTIFY, or the idle poll), so it is not read for once more (decision 0105)
                return sent

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

    async def _publish(self, records: list[_Record]) -> None:
        """Send `records` and wait until Kafka acknowledged all of them. Records are packed into
        one batch per partition (in order; a full batch is sent and a new one started), not a
        producer `send` per record: docs/decisions/0014-relay-batch-per-partition.md. A record
        refused before in a batch with others goes in a batch of its own."""
        if not records:
            return
        if self._spoilt and self._renew_producer is not None:  # renewing failed last time
            await self._renew()
        partitions = len(await self._producer.partitions_for(self._topic))
        open_batches: dict[int, tuple[BatchBuilder, list[_Record]]] = {}
        deliveries: list[asyncio.Future[object]] = []
        sent: list[list[_Record]] = []  # each delivery's records

        async def send(partition: int) -> None:
            batch, in_batch = open_batches.pop(partition)
            deliveries.append(await self._send(batch, partition))
            sent.append(in_batch)

        for record in records:
            alone = record.event.event_id in self._alone
            partition = partition_for(record.event.table_id, partitions)
            if partition in open_batches and (
                alone or not _append(open_batches[partition][0], record)
            ):
                await send(partition)
            if partition not in open_batches:
                open_batches[partition] = (self._producer.create_batch(), [])
                _append(open_batches[partition][0], record)  # a batch's first always fits
            open_batches[partition][1].append(record)
            if alone:
                await send(partition)
        for partition in list(open_batches):
            await send(partition)
        outcomes = await asyncio.gather(*deliveries, return_exceptions=True)
        refused = [
            in_batch
            for in_batch, outcome in zip(sent, outcomes, strict=True)
            if isinstance(outcome, _TOO_LARGE)
        ]
        if refused:
            await self._after_refusal(refused)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome

    async def _after_refusal(self, refused: list[list[_Record]]) -> None:
        """Kafka refused these batches as too large: a record refused alone is set aside, the
        records of a larger batch go alone next time. Then a new producer, since the refusal
        spoilt this one's sequence on those partitions (without one, the relay retries)."""
        for in_batch in refused:
            if len(in_batch) == 1:
                connection = self._leader[0] if self._leader is not None else None
                await self._set_aside_records(in_batch, "refused by Kafka as too large", connection)
            else:
                self._alone.update(record.event.event_id for record in in_batch)
        self._spoilt = True
        if self._renew_producer is None:
            return
        await self._renew()
        raise _RefusedAsTooLargeError

    async def _renew(self) -> None:
        assert self._renew_producer is not None
        old, self._producer = self._producer, await self._renew_producer()
        self._spoilt = False
        try:
            await old.stop()
        except Exception as error:  # it is done with either way
            log.warning("relay %s: the old producer did not stop cleanly: %s", self._name, error)

    async def _set_aside_records(
        self, records: list[_Record], why: str, connection: asyncpg.Connection | None
    ) -> None:
        """Record `records` in `parked_outbox_events` and never send them again."""
        executor = connection if connection is not None else self._store.pool
        for record in records:
            event = record.event
            log.error(
                "relay %s: set aside %s %s of %s (%d bytes): %s",
                self._name,
                event.event_type,
                event.event_id,
                event.stream_id,
                record.size,
                why,
            )
            added = await executor.fetchval(
                "INSERT INTO parked_outbox_events (relay, event_id, transaction_id, position,"
                " stream_id, stream_version, event_type, table_id, size_bytes, error)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
                " ON CONFLICT (relay, event_id) DO NOTHING RETURNING true",
                self._name,
                event.event_id,
                event.transaction_id,
                event.position,
                event.stream_id,
                event.stream_version,
                event.event_type,
                event.table_id,
                record.size,
                why,
            )
            if added:
                self._metrics.set_aside(1)
            self._set_aside.add(event.event_id)
            self._alone.discard(event.event_id)

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


def _record(event: StoredEvent) -> _Record:
    # what the event is, for consumers that pass it over without reading the value
    headers = [
        (TYPE_HEADER, event.event_type.encode()),
        (VERSION_HEADER, str(event.schema_version).encode()),
    ]
    if event.trace_context is not None:  # the trace goes on in the consumer
        headers.append((TRACEPARENT, event.trace_context.encode()))
    return _Record(event, event.table_id.encode(), event.to_json_bytes(), headers)


def _append(batch: BatchBuilder, record: _Record) -> bool:
    """Whether `record` went into `batch` (not when the batch is full)."""
    added = batch.append(key=record.key, value=record.value, timestamp=None, headers=record.headers)
    return added is not None


@dataclass(frozen=True, slots=True)
class ParkedOutboxEvent:
    """An event the relay set aside, for a person: which, how large, and why."""

    relay: str
    event_id: UUID
    stream_id: str
    stream_version: int
    event_type: str
    table_id: str
    size_bytes: int
    error: str
    parked_at: datetime


async def parked_outbox_events(pool: asyncpg.Pool, *, limit: int) -> list[ParkedOutboxEvent]:
    """The newest `limit` events the store's relay set aside, newest first."""
    rows = await pool.fetch(
        "SELECT relay, event_id, stream_id, stream_version, event_type, table_id, size_bytes,"
        " error, parked_at FROM parked_outbox_events ORDER BY id DESC LIMIT $1",
        limit,
    )
    return [ParkedOutboxEvent(**dict(row)) for row in rows]


async def parked_outbox_by_relay(pool: asyncpg.Pool) -> dict[tuple[str, ...], float]:
    """How many events each relay set aside (for `teenpatti_outbox_parked_events`)."""
    rows = await pool.fetch("SELECT relay, count(*) FROM parked_outbox_events GROUP BY relay")
    return {(row[0],): float(row[1]) for row in rows}


async def _wait_any(*events: asyncio.Event, seconds: float) -> None:
    waiters = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        await asyncio.wait(waiters, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*waiters, return_exceptions=True)
