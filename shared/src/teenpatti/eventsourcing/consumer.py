"""The consumer runtime: Kafka consumer groups with an exactly-once effect in Postgres.

Delivery is at least once. The handler's writes and the record that the event was
processed (`processed_events`) commit in one Postgres transaction, and the Kafka offset
is committed only afterwards (every `commit_interval_seconds`, on a rebalance and on
stopping); so a redelivery, a rebalance, or a crash between the two commits finds the
event already recorded and skips it. An event that cannot be handled
(malformed, or failing again after retries) is parked in `parked_events` with the error,
logged, and passed over, so it never blocks its partition unseen. Lost database
connections are not the event's fault: those are retried until the database is back. Nor is
an event that came before a fact it depends on, which another consumer has yet to take in
(`NotYetError`): it is rolled back and handled again after a pause, for up to
`wait_seconds`; past that it is parked like any event that cannot be handled (a forgery
naming a round that never comes must not hold its partition). A record larger than
`max_record_bytes` (key and value) is parked unread: no producer of ours sends one.

The handler takes a batch. The records a poll brings (from all its partitions, each in its
order) are handled together in one transaction (one `processed_events` insert for all, one
call of the handler with the new ones): the same guarantees, a fraction of the round trips.
If the batch fails for any reason but an outage, it is rolled back and its records go one
by one (each a batch of one) through the handler, so that only the event at fault is
parked. With `batches=False` every record goes on its own.

A consumer may be told which records it can pass over (`skips`: events of types its
handler ignores): those take no transaction and leave no `processed_events` row, since
handling them would change nothing; their offsets are committed like any other's. With
`skips_type`, a record whose headers name its event's type and schema version (`TYPE_HEADER`,
`VERSION_HEADER`, as the relay writes them) is passed over on those alone, before its value
is read: a service that ignores most of a topic (the settlement service and the wallet's
`BetsPaid`) does not parse them.

A handler may return an action to run once its transaction has committed: for an
announcement that nobody may hear before what it announces is durable (the gateway's
verdicts). It is best effort: run once, after the commit; a failure is logged, not retried.
With `after_commit=False` the actions are dropped (their readers fall back to Postgres).

Each attempt at a batch (or a record) is a span that continues the traces its records'
`traceparent` headers name (`teenpatti.observability.tracing.consuming`), so the events
the handler appends go on in the trace of what caused them.

After each poll the consumer reports what its records came to (handled, duplicate, parked,
passed over) and each assigned partition's lag (`teenpatti.observability.metrics`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import asyncpg
from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener, ConsumerRecord, TopicPartition
from aiokafka.errors import CommitFailedError, IllegalStateError

from teenpatti.events.contracts import EventContractError, EventEnvelope
from teenpatti.eventsourcing.store import ConcurrencyError
from teenpatti.eventsourcing.topics import TYPE_HEADER, VERSION_HEADER
from teenpatti.observability.metrics import ConsumerMetrics
from teenpatti.observability.tracing import TRACEPARENT, consuming, parse_traceparent
from teenpatti.settings import KafkaConnection, kafka_client_options
from teenpatti.transient import SERVER_UNAVAILABLE

log = logging.getLogger(__name__)

AfterCommit = Callable[[], Awaitable[None]]
BatchHandler = Callable[[asyncpg.Connection, list[EventEnvelope]], Awaitable[AfterCommit | None]]

_TRANSIENT_ERRORS = (
    *SERVER_UNAVAILABLE,
    asyncpg.SerializationError,
    asyncpg.DeadlockDetectedError,
    # another writer moved the stream on: handling again re-reads it and decides afresh
    ConcurrencyError,
)

NOT_YET_PAUSE_SECONDS = 1.0
# as large as the relay's largest record (`relay.DEFAULT_MAX_EVENT_BYTES`)
DEFAULT_MAX_RECORD_BYTES = 1_000_000


class NotYetError(Exception):
    """The event depends on a fact its service has not taken in yet (from another topic, whose
    consumer is behind): the handler's transaction is rolled back and the event handled again
    after `NOT_YET_PAUSE_SECONDS`, until the fact is there, for up to the consumer's
    `wait_seconds`; then parked."""


PartitionsCallback = Callable[[set[int]], Awaitable[None]]
Skips = Callable[[EventEnvelope], bool]
TypeSkips = Callable[[str, int], bool]  # (event type, schema version) -> pass it over


def all_of(actions: Sequence[AfterCommit | None]) -> AfterCommit | None:
    """One action after commit that runs each of `actions` in turn (None: there are none)."""
    due = [action for action in actions if action is not None]
    if not due:
        return None

    async def run() -> None:
        for action in due:
            await action()

    return run


@dataclass
class ConsumerStats:
    handled: int = 0
    duplicates: int = 0
    parked: int = 0
    skipped: int = 0


class KafkaEventConsumer:
    def __init__(
        self,
        pool: asyncpg.Pool,
        *,
        name: str,
        topics: Sequence[str],
        bootstrap_servers: KafkaConnection,
        handler: BatchHandler,
        batches: bool = True,
        after_commit: bool = True,
        skips: Skips | None = None,
        skips_type: TypeSkips | None = None,
        max_attempts: int = 3,
        retry_backoff_seconds: float = 0.2,
        wait_seconds: float = 120.0,
        max_records: int = 500,
        gather_ms: int = 0,
        commit_interval_seconds: float = 0.5,
        on_assigned: PartitionsCallback | None = None,
        on_revoked: PartitionsCallback | None = None,
        max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
    ) -> None:
        self._pool = pool
        self._max_record_bytes = max_record_bytes
        self._commit_interval = commit_interval_seconds
        self._name = name
        self._topics = list(topics)
        self._kafka_options = kafka_client_options(bootstrap_servers)
        self._handler = handler
        self._batches = batches
        self._after_commit_enabled = after_commit
        self._skips = skips
        self._skips_type = skips_type
        self._max_attempts = max_attempts
        self._wait_seconds = wait_seconds
        self._retry_backoff_seconds = retry_backoff_seconds
        self._max_records = max_records
        self._gather_ms = gather_ms
        self._on_assigned = on_assigned
        self._on_revoked = on_revoked
        self._pending_offsets: dict[TopicPartition, int] = {}
        self._kafka: AIOKafkaConsumer | None = None
        self.stats = ConsumerStats()
        self._metrics = ConsumerMetrics(name)  # the stats and the lag, after each poll

    @property
    def name(self) -> str:
        return self._name

    async def run(self, stop: asyncio.Event, started: asyncio.Event | None = None) -> None:
        """Consume until `stop` is set, then commit what was handled and leave the group.
        Anything that breaks the session (the broker unreachable at start, a failing
        rebalance callback) starts it again a second later: the new session re-reads from
        the last committed offsets and `processed_events` absorbs what was handled."""
        while not stop.is_set():
            try:
                await self._session(stop, started)
            except Exception:
                log.exception("%s: consumer session failed; starting a new one", self._name)
                await asyncio.sleep(1.0)

    async def _session(self, stop: asyncio.Event, started: asyncio.Event | None) -> None:
        self._pending_offsets = {}
        kafka = AIOKafkaConsumer(
            **self._kafka_options,
            group_id=self._name,
            client_id=self._name,
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            isolation_level="read_committed",
            # A dead instance's partitions (and the tables they carry) move after this
            # long: the broker's smallest allowed session, heartbeats well inside it.
            session_timeout_ms=6000,
            heartbeat_interval_ms=1500,
            # room for a poll of max_records envelopes (about 1 kB each) from one partition
            max_partition_fetch_bytes=max(1 << 20, self._max_records * 1024),
            # With gather_ms, the broker holds a fetch up to that long for 64 kB to come
            # together: fewer, larger polls (a transaction each) for a consumer that may
            # wait, at that much latency. Without, a fetch returns as soon as a record is in.
            **(
                {"fetch_min_bytes": 64 * 1024, "fetch_max_wait_ms": self._gather_ms}
                if self._gather_ms
                else {}
            ),
        )
        self._kafka = kafka
        try:
            await kafka.start()
        except BaseException:
            await kafka.stop()
            raise
        try:
            kafka.subscribe(self._topics, listener=_CommitOnRevoke(self))
            if started is not None:
                started.set()
            # Offsets are committed every commit_interval, not after every poll (a round trip
            # to the group coordinator each time): after a crash the events handled since the
            # last commit come again, and processed_events absorbs them.
            loop = asyncio.get_running_loop()
            next_commit = loop.time() + self._commit_interval
            while not stop.is_set():
                batches = await kafka.getmany(timeout_ms=200, max_records=self._max_records)
                polled = [record for records in batches.values() for record in records]
                if self._batches and len(polled) > 1:
                    # the whole poll in one transaction, whatever partitions it spans: each
                    # partition's records stay in their order, and the poll costs one commit
                    await self._process_batch(polled)
                    for partition, records in batches.items():
                        self._pending_offsets[partition] = records[-1].offset + 1
                else:
                    for partition, records in batches.items():
                        for record in records:
                            if stop.is_set():
                                break
                            await self._process(record)
                            self._pending_offsets[partition] = record.offset + 1
                await self._metrics.after_poll(kafka, self.stats)
                if loop.time() >= next_commit:
                    await self._commit_offsets()
                    next_commit = loop.time() + self._commit_interval
        finally:
            try:
                await self._commit_offsets()
            finally:
                await kafka.stop()
                self._kafka = None
                self._metrics.count(self.stats)
                self._metrics.forget_lag()

    def _passed_over(self, record: ConsumerRecord[bytes, bytes]) -> bool:
        """Whether the record's headers name a type and version to pass over."""
        if self._skips_type is None or not record.headers:
            return False
        headers = dict(record.headers)
        event_type, version = headers.get(TYPE_HEADER), headers.get(VERSION_HEADER)
        if event_type is None or version is None:
            return False
        try:
            return self._skips_type(event_type.decode(), int(version))
        except (UnicodeDecodeError, ValueError):
            return False  # not headers the relay wrote: the value says what it is

    def _oversized(self, record: ConsumerRecord[bytes, bytes]) -> str | None:
        """Why the record is too large to read, if it is."""
        size = len(record.key or b"") + len(record.value or b"")
        if size <= self._max_record_bytes:
            return None
        return (
            f"a record of {size} bytes, over the bound of {self._max_record_bytes}"
            " (TP_CONSUMER_MAX_RECORD_BYTES): not read"
        )

    async def _process(self, record: ConsumerRecord[bytes, bytes]) -> None:
        if self._passed_over(record):
            self.stats.skipped += 1
            return
        oversized = self._oversized(record)
        if oversized is not None:
            await self._park(record, oversized)
            return
        try:
            envelope = EventEnvelope.from_json_bytes(record.value or b"")
        except EventContractError as error:
            await self._park(record, str(error))
            return
        if self._skips is not None and self._skips(envelope):
            self.stats.skipped += 1
            return
        attempt = 0
        waiting_since = asyncio.get_running_loop().time()
        while True:
            try:
                with self._traced([record]):
                    await self._handle_once(envelope)
                return
            except NotYetError as error:
                waited = asyncio.get_running_loop().time() - waiting_since
                if waited >= self._wait_seconds:
                    await self._park(record, f"NotYetError after {waited:.0f} s: {error}")
                    return
                log.info("%s: not yet (%s); trying again", self._name, error)
                await asyncio.sleep(NOT_YET_PAUSE_SECONDS)
            except _TRANSIENT_ERRORS as error:
                log.warning("%s: database unavailable (%s); retrying", self._name, error)
                await asyncio.sleep(self._retry_backoff_seconds)
            except Exception as error:
                attempt += 1
                if isinstance(error, EventContractError) or attempt >= self._max_attempts:
                    await self._park(record, f"{type(error).__name__}: {error}")
                    return
                await asyncio.sleep(self._retry_backoff_seconds * attempt)

    async def _process_batch(self, records: list[ConsumerRecord[bytes, bytes]]) -> None:
        if any(self._oversized(record) is not None for record in records):
            # parked unread by the one-by-one path, the others handled as ever
            await self._process_one_by_one(records, "a record is over the size bound")
            return
        readable: list[EventEnvelope] = []
        read: list[ConsumerRecord[bytes, bytes]] = []  # their records, for their traces
        passed_over = 0
        for record in records:
            if self._passed_over(record):
                passed_over += 1
                continue
            try:
                readable.append(EventEnvelope.from_json_bytes(record.value or b""))
                read.append(record)
            except EventContractError:
                # parked with its error by the one-by-one path below
                await self._process_one_by_one(records, "a record is not an envelope")
                return
        self.stats.skipped += passed_over
        if not readable:
            return
        if self._skips is not None:
            kept = [envelope for envelope in readable if not self._skips(envelope)]
            self.stats.skipped += len(readable) - len(kept)
            if not kept:
                return
            readable = kept
        waiting_since = asyncio.get_running_loop().time()
        while True:
            try:
                with self._traced(read, len(readable)):
                    await self._handle_batch(readable)
                return
            except NotYetError as error:
                if asyncio.get_running_loop().time() - waiting_since >= self._wait_seconds:
                    # one by one: the event that waits in vain is parked, the others go on
                    await self._process_one_by_one(records, f"NotYetError: {error}")
                    return
                log.info("%s: not yet (%s); trying again", self._name, error)
                await asyncio.sleep(NOT_YET_PAUSE_SECONDS)
            except _TRANSIENT_ERRORS as error:
                log.warning("%s: database unavailable (%s); retrying", self._name, error)
                await asyncio.sleep(self._retry_backoff_seconds)
            except Exception as error:
                await self._process_one_by_one(records, f"{type(error).__name__}: {error}")
                return

    def _traced(
        self, records: Sequence[ConsumerRecord[bytes, bytes]], count: int = 1
    ) -> AbstractContextManager[None]:
        """The span `count` events of `records` are handled in: it continues the traces
        their `traceparent` headers name (`consuming`)."""
        parents = []
        for record in records:
            for name, value in record.headers or ():
                if name == TRACEPARENT:
                    parent = parse_traceparent(value)
                    if parent is not None:
                        parents.append(parent)
                    break
        return consuming(records[0].topic, self._name, parents, count)

    async def _process_one_by_one(
        self, records: list[ConsumerRecord[bytes, bytes]], reason: str
    ) -> None:
        log.warning(
            "%s: a batch of %d records failed (%s); handling them one by one",
            self._name,
            len(records),
            reason,
        )
        for record in records:
            await self._process(record)

    async def _handle_batch(self, envelopes: list[EventEnvelope]) -> None:
        seen: set[UUID] = set()
        unique: list[EventEnvelope] = []  # a record published twice: once, where it came first
        for envelope in envelopes:
            if envelope.event_id not in seen:
                seen.add(envelope.event_id)
                unique.append(envelope)
        after: AfterCommit | None = None
        async with self._pool.acquire() as connection, connection.transaction():
            fresh = {
                row[0]
                for row in await connection.fetch(
                    "INSERT INTO processed_events (consumer, event_id)"
                    " SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING RETURNING event_id",
                    self._name,
                    [envelope.event_id for envelope in unique],
                )
            }
            new = [envelope for envelope in unique if envelope.event_id in fresh]
            if new:
                after = await self._handler(connection, new)
        self.stats.handled += len(new)
        self.stats.duplicates += len(envelopes) - len(new)
        await self._after_commit(after)

    async def _handle_once(self, envelope: EventEnvelope) -> None:
        async with self._pool.acquire() as connection, connection.transaction():
            first_time = await connection.fetchval(
                "INSERT INTO processed_events (consumer, event_id) VALUES ($1, $2)"
                " ON CONFLICT DO NOTHING RETURNING true",
                self._name,
                envelope.event_id,
            )
            if not first_time:
                self.stats.duplicates += 1
                return
            after = await self._handler(connection, [envelope])
        self.stats.handled += 1
        await self._after_commit(after)

    async def _after_commit(self, action: AfterCommit | None) -> None:
        if action is None or not self._after_commit_enabled:
            return
        try:
            await action()
        except Exception:  # the handler's effects are committed: nothing to undo or retry
            log.exception("%s: an action after commit failed", self._name)

    async def _park(self, record: ConsumerRecord[bytes, bytes], error: str) -> None:
        # the error may quote the record (a NUL in it): Postgres text cannot hold NUL, and a
        # park that fails would stop the consumer on this record for good
        error = error.replace("\x00", "\\x00")
        log.error(
            "%s: parked %s[%d]@%d: %s",
            self._name,
            record.topic,
            record.partition,
            record.offset,
            error,
        )
        while True:
            try:
                await self._pool.execute(
                    "INSERT INTO parked_events (consumer, topic, kafka_partition, kafka_offset,"
                    " record_key, record_value, error) VALUES ($1, $2, $3, $4, $5, $6, $7)"
                    " ON CONFLICT DO NOTHING",
                    self._name,
                    record.topic,
                    record.partition,
                    record.offset,
                    record.key,
                    # an oversized record's beginning only: reading the list stays cheap
                    None if record.value is None else record.value[: self._max_record_bytes],
                    error,
                )
                break
            except _TRANSIENT_ERRORS:
                await asyncio.sleep(self._retry_backoff_seconds)
        self.stats.parked += 1

    async def _commit_offsets(self) -> None:
        if self._kafka is None or not self._pending_offsets:
            return
        offsets, self._pending_offsets = self._pending_offsets, {}
        try:
            await self._kafka.commit(offsets)
        except (IllegalStateError, CommitFailedError) as error:
            # A rebalance took (some of) these partitions meanwhile. Not worth dying for:
            # whoever owns them next re-reads from the last commit and processed_events
            # absorbs the repeats.
            log.warning("%s: offsets not committed (%s)", self._name, error)


@dataclass(frozen=True, slots=True)
class ParkedEvent:
    """A record parked in `parked_events`, for a person: where it came from and why it was
    not handled; its event's type and id when it is an envelope."""

    id: int
    consumer: str
    topic: str
    partition: int
    offset: int
    parked_at: datetime
    error: str
    event_type: str | None
    event_id: UUID | None


async def parked_events(pool: asyncpg.Pool, *, limit: int) -> list[ParkedEvent]:
    """The newest `limit` records parked by the service's consumers, newest first."""
    rows = await pool.fetch(
        "SELECT id, consumer, topic, kafka_partition, kafka_offset, parked_at, error,"
        " record_value FROM parked_events ORDER BY id DESC LIMIT $1",
        limit,
    )
    parked = []
    for row in rows:
        event_type, event_id = _named_event(row["record_value"])
        parked.append(
            ParkedEvent(
                id=row["id"],
                consumer=row["consumer"],
                topic=row["topic"],
                partition=row["kafka_partition"],
                offset=row["kafka_offset"],
                parked_at=row["parked_at"],
                error=row["error"],
                event_type=event_type,
                event_id=event_id,
            )
        )
    return parked


def _named_event(value: bytes | None) -> tuple[str | None, UUID | None]:
    """The type and id an envelope's bytes name, each None where they name none (a record
    parked for being unreadable)."""
    try:
        envelope = json.loads(value or b"")
        event_type, event_id = envelope.get("event_type"), UUID(str(envelope.get("event_id")))
    except (ValueError, AttributeError, RecursionError):
        return None, None
    return (event_type if isinstance(event_type, str) else None), event_id


async def parked_by_group(pool: asyncpg.Pool) -> dict[tuple[str, ...], float]:
    """How many events each consumer group has waiting in `parked_events` (for
    `teenpatti_parked_events`)."""
    rows = await pool.fetch("SELECT consumer, count(*) FROM parked_events GROUP BY consumer")
    return {(row[0],): float(row[1]) for row in rows}


class _CommitOnRevoke(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(self, consumer: KafkaEventConsumer) -> None:
        self._consumer = consumer

    async def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        try:
            await self._consumer._commit_offsets()
        except Exception as error:  # the next owner re-reads; processed_events absorbs it
            log.warning("%s: offset commit on revoke failed: %s", self._consumer.name, error)
        if self._consumer._on_revoked is not None:
            await self._consumer._on_revoked({tp.partition for tp in revoked})

    async def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        if self._consumer._on_assigned is not None:
            await self._consumer._on_assigned({tp.partition for tp in assigned})
