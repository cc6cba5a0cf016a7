"""What every service runs besides its HTTP edge: its event store, its outbox relay and its
Kafka consumers, opened in the app's lifespan (or a `main()`) and closed in `finally`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import Callable, Sequence
from types import TracebackType

import asyncpg
from aiokafka import AIOKafkaProducer

from teenpatti.events import EventEnvelope
from teenpatti.events.catalog import ALL_TOPICS, registry
from teenpatti.events.contracts import EventContractError, UnsupportedSchemaVersionError
from teenpatti.eventsourcing import (
    AsyncpgEventStore,
    Handler,
    KafkaEventConsumer,
    KafkaOutboxRelay,
    ensure_topics,
    kafka_producer,
)
from teenpatti.eventsourcing.consumer import AfterCommit, BatchHandler, PartitionsCallback
from teenpatti.settings import InfrastructureSettings

log = logging.getLogger(__name__)


def readable_only(handler: Handler) -> Handler:
    """Refuse an event this build cannot read (a type the catalog does not know, or a schema
    version beyond the one it reads) before the service's handler skips it as "not mine":
    the consumer parks it (`parked_events`) at once, for a person to see, and goes on."""

    async def checked(
        connection: asyncpg.Connection, envelope: EventEnvelope
    ) -> AfterCommit | None:
        _check_readable(envelope)
        return await handler(connection, envelope)

    return checked


def readable_only_batch(handler: BatchHandler) -> BatchHandler:
    """`readable_only` for a batch: one unreadable event fails the batch, whose events then
    go one by one through the single-event handler, which parks that one."""

    async def checked(
        connection: asyncpg.Connection, envelopes: list[EventEnvelope]
    ) -> AfterCommit | None:
        for envelope in envelopes:
            _check_readable(envelope)
        return await handler(connection, envelopes)

    return checked


def _ignored_by(handles: frozenset[str]) -> Callable[[str, int], bool]:
    """Whether an event (its type and schema version) is one a consumer handling `handles`
    may pass over: readable by this build (else it is parked) and of another type."""

    def ignored(event_type: str, schema_version: int) -> bool:
        if event_type in handles:
            return False
        try:
            _check_type_readable(event_type, schema_version)
        except EventContractError:
            return False
        return True

    return ignored


def _check_readable(envelope: EventEnvelope) -> None:
    _check_type_readable(envelope.event_type, envelope.schema_version)


def _check_type_readable(event_type: str, schema_version: int) -> None:
    event_class = registry.event_class(event_type)  # UnknownEventTypeError
    if not 1 <= schema_version <= event_class.schema_version:
        raise UnsupportedSchemaVersionError(
            f"{event_type} schema version {schema_version} is not"
            f" supported (this build reads versions 1 to {event_class.schema_version})"
        )


async def keep_session(connection: asyncpg.Connection) -> None:
    """The pool's reset on release: nothing beyond asyncpg's own (roll back an open
    transaction, drop listeners). Its default also runs `RESET ALL`, `UNLISTEN *` and
    `pg_advisory_unlock_all()`, one more round trip per request, for session state the
    services never leave behind: they only take transaction-scoped locks, and the relay
    ends the one session that holds a lock and a LISTEN."""


def freeze_startup_objects() -> None:
    """Keep what exists after start-up (modules, FastAPI and pydantic schemas, the clients)
    out of the garbage collector's full collections, which otherwise walk all of it: about
    90,000 objects, 40-170 ms with the event loop stopped, measured in the services under
    load (a table's betting window closing that much late). Later full collections only
    walk what survives them once (`FreezeSurvivors`)."""
    gc.collect()
    gc.freeze()
    if not any(isinstance(callback, FreezeSurvivors) for callback in gc.callbacks):
        gc.callbacks.append(FreezeSurvivors())


FULL_WALK_SECONDS = 600.0


class FreezeSurvivors:
    """A `gc.callbacks` hook: after each full collection, freeze what survived it, so the
    next one walks only objects made since (in the table service at 1,000 tables, full
    collections of some 60,000 live objects took 35-53 ms of CPU, 40-120 ms with the event
    loop stopped on the busy cores: betting windows closing that late).

    A frozen object is never collected as part of a reference cycle, so once every
    `every` seconds the survivors are thawed instead, and the next full collection walks
    everything once: whatever cycle died among them meanwhile is freed then. That walk
    includes the start-up objects: 105-116 ms of CPU, 140-210 ms with the loop stopped, measured in
    the table service at 1,000 tables, where some 42 betting windows close a second: about
    10 of the 25,000 windows of 10 minutes fall in it."""

    def __init__(
        self, every: float = FULL_WALK_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.every = every
        self._clock = clock
        self._thawed_at = clock()

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase != "stop" or info["generation"] != 2:
            return
        now = self._clock()
        if now - self._thawed_at >= self.every:
            self._thawed_at = now
            gc.unfreeze()
        else:
            gc.freeze()


class ServiceRuntime:
    """One service instance's store, relay (publishing to `emits`) and consumers."""

    def __init__(
        self,
        *,
        service: str,
        database: str,
        emits: str,
        settings: InfrastructureSettings,
        pool_size: int = 20,
    ) -> None:
        self.service = service
        self.settings = settings
        self._database = database
        self._emits = emits
        self._pool_size = pool_size
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._consumers: list[KafkaEventConsumer] = []
        self._pool: asyncpg.Pool | None = None
        self._store: AsyncpgEventStore | None = None
        self._producer: AIOKafkaProducer | None = None

    @property
    def pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise RuntimeError(f"{self.service} runtime is not started")
        return self._pool

    @property
    def store(self) -> AsyncpgEventStore:
        if self._store is None:
            raise RuntimeError(f"{self.service} runtime is not started")
        return self._store

    @property
    def stopping(self) -> asyncio.Event:
        return self._stop

    async def start(self) -> None:
        self._pool = await asyncpg.create_pool(
            self.settings.postgres_dsn(self._database),
            min_size=2,
            max_size=self._pool_size,
            reset=keep_session,
        )
        self._store = AsyncpgEventStore(self._pool, producer=self.service)
        await self._store.migrate()
        await ensure_topics(
            self.settings.kafka_servers,
            [self.settings.topic(t) for t in ALL_TOPICS],
            partitions=self.settings.kafka_partitions,
            replication_factor=self.settings.kafka_replication_factor,
        )
        self._producer = kafka_producer(self.settings.kafka_servers, client_id=self.service)
        await self._producer.start()
        relay = KafkaOutboxRelay(
            self._store, self._producer, self.settings.topic(self._emits), name=self.service
        )
        self.spawn(relay.run(self._stop), name=f"{self.service}-relay")
        freeze_startup_objects()

    def consume(
        self,
        name: str,
        topics: Sequence[str],
        handler: Handler,
        *,
        batch_handler: BatchHandler | None = None,
        handles: frozenset[str] | None = None,
        max_records: int = 500,
        gather_ms: int = 0,
        on_assigned: PartitionsCallback | None = None,
        on_revoked: PartitionsCallback | None = None,
    ) -> KafkaEventConsumer:
        """Start the consumer group `<service>-<name>` on `topics`; each event is handled in
        one Postgres transaction (with `batch_handler`, each poll's records in one, whatever
        partitions they come from; `max_records` bounds a poll). With `handles`, the event
        types the handlers act on, an event of another type that this build can read is
        passed over without a transaction (the handlers would ignore it), on its record's
        headers alone when they name it; one it cannot read still goes to the handler's
        check and is parked. `gather_ms`: how long the broker may
        hold a fetch for more records to come (fewer, larger polls; that much latency). The
        callbacks hear which partitions this instance owns."""
        ignored = None if handles is None else _ignored_by(handles)
        consumer = KafkaEventConsumer(
            self.pool,
            name=self.settings.topic(f"{self.service}-{name}"),
            topics=[self.settings.topic(t) for t in topics],
            bootstrap_servers=self.settings.kafka_servers,
            handler=readable_only(handler),
            batch_handler=None if batch_handler is None else readable_only_batch(batch_handler),
            skips=None if ignored is None else lambda e: ignored(e.event_type, e.schema_version),
            skips_type=ignored,
            max_records=max_records,
            gather_ms=gather_ms,
            on_assigned=on_assigned,
            on_revoked=on_revoked,
        )
        self._consumers.append(consumer)
        self.spawn(consumer.run(self._stop), name=consumer.name)
        return consumer

    def spawn(self, coroutine: object, *, name: str) -> asyncio.Task[None]:
        """Run a background loop for the life of the service; a crash is logged loudly."""
        task: asyncio.Task[None] = asyncio.create_task(coroutine, name=name)  # type: ignore[arg-type]
        task.add_done_callback(self._report_crash)
        self._tasks.append(task)
        return task

    def _report_crash(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("%s: %s stopped", self.service, task.get_name(), exc_info=task.exception())

    async def stop(self) -> None:
        self._stop.set()
        if self._tasks:
            _, pending = await asyncio.wait(self._tasks, timeout=15)
            for task in pending:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(*pending, return_exceptions=True)
        if self._producer is not None:
            await self._producer.stop()
        if self._pool is not None:
            await self._pool.close()

    async def __aenter__(self) -> ServiceRuntime:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()
