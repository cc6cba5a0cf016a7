"""The Postgres event store: append with an expected version, read a stream, read everything.

Every service owns one database holding this store. The `events` table is also the outbox
that `KafkaOutboxRelay` publishes from. Its primary key is the commit-safe order below;
`(stream_id, stream_version)` is unique, which is what makes expected versions safe. Event
ids are made here (random UUIDs, by Postgres), so they are unique without an index.

Gap safety. Positions come from a sequence, assigned at insert and visible at commit, so a
transaction can commit a lower position after a reader has passed it. Each row therefore
records the id of the transaction that wrote it, and `read_all` walks the store in
(transaction id, position) order, only below the read barrier: the oldest transaction
still running that could write to this database (`READ_BARRIER`). No row can ever appear
below that line again, so a tailing reader never skips one, and appends stay fully
concurrent (no global lock).

Hash chain. Each event's `hash` is sha256 of the previous event's hash in its stream (32 zero
bytes before version 1) and the event's canonical bytes (`events_canonical`; documented and
recomputed in Python by `teenpatti.audit.chain`), so `teenpatti audit` detects an altered,
inserted, removed or reordered event. Postgres computes it: `append` stays one statement,
chaining its rows with one `events_chain_hashes` call per stream from the hash at the
expected version; a row stored without a hash (by another writer) is chained by the
`events_chain` row trigger. The payload is stored as `json`, the producer's text.

Trace context. `append` stores the current span's W3C `traceparent` beside the events
(`trace_context`, NULL when no trace is going on), for the relay to send on with them; it
is not part of the canonical bytes (docs/decisions/0047-trace-context-with-the-event.md).

Encapsulation. Only this module (and the store's migrations) names the store's tables.
Services use its methods, which all join the caller's transaction when given `connection`:
append, lock a stream, read a stream's version, read a stream (or several) from a version;
and, in their own SQL functions, `event_stream_version(stream)`, `event_stream_lock(stream)`
and `event_append(...)` (one event, its arguments from `event_append_arguments`, its
refusals mapped back by `append_error`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NoReturn, cast
from uuid import UUID, uuid4

import asyncpg

from teenpatti.events.contracts import Event, EventEnvelope
from teenpatti.migrations import MigrationSet
from teenpatti.observability.tracing import current_traceparent

# The store's tables and functions: its migrations (applied by `teenpatti migrate`).
MIGRATIONS = MigrationSet.from_package("store", "teenpatti.eventsourcing.migrations")

NOTIFY_CHANNEL = "events_appended"

# The read barrier, as a scalar subquery: the oldest transaction in the statement's snapshot
# still running (`pg_snapshot_xip`) that could write to this database, or, with none, the
# first transaction id not yet given out (`pg_snapshot_xmax`). Transaction ids are
# cluster-wide, so `pg_snapshot_xmin` alone would let a transaction of any database on the
# server (another service's, a migration's) hold this store's readers back. One is left out
# only when `pg_stat_activity`, read after the snapshot, shows it belongs to a session of
# another database: a session never changes database and a transaction writes to its own
# only, so that is always safe to skip, even if the session has ended since (what is not
# known to be elsewhere still counts). `backend_xid` is the 32-bit form of the id.
READ_BARRIER = (
    "SELECT least(pg_snapshot_xmax(snapshot)::text::bigint, ("
    "  SELECT min(xid::text::bigint) FROM pg_snapshot_xip(snapshot) AS xid"
    "  WHERE xid::text::bigint % 4294967296 NOT IN ("
    "    SELECT backend_xid::text::bigint FROM pg_stat_activity"
    "    WHERE backend_xid IS NOT NULL AND datname <> current_database())))"
    " FROM pg_current_snapshot() AS snapshot"
)

_COLUMNS = (
    "position, transaction_id, stream_id, stream_version, event_id, event_type, schema_version,"
    " table_id, occurred_at, correlation_id, causation_id, producer, payload::text AS payload,"
    " trace_context"
)

_INSERT_EVENTS = """,
e AS (
    SELECT u.*, gen_random_uuid() AS event_id
      FROM unnest($9::text[], $10::int[], $11::json[], $7::uuid[])
           WITH ORDINALITY AS u(event_type, schema_version, payload, causation_id, n)
), chained AS (
    SELECT events_chain_hashes(
               (SELECT previous FROM chain_start),
               array_agg(events_canonical($1, ($2 + e.n)::integer, e.event_id, e.event_type,
                                          e.schema_version, $4, $5, $6, e.causation_id, $8,
                                          e.payload::text) ORDER BY e.n)
           ) AS hashes
      FROM e
)
INSERT INTO events (stream_id, stream_version, event_id, event_type, schema_version, table_id,
                    occurred_at, correlation_id, causation_id, producer, payload, hash,
                    trace_context)
SELECT $1, $2 + e.n, e.event_id, e.event_type, e.schema_version, $4, $5, $6, e.causation_id,
       $8, e.payload, chained.hashes[e.n], $12
FROM e, chained
WHERE EXISTS (SELECT 1 FROM bump)
ORDER BY e.n
RETURNING stream_version, position, event_id
"""

# The hash the stream's chain goes on from: the event at the expected version's (zero bytes
# for a new stream or a predecessor stored before the chain). NULL when that event is not
# visible to this statement: the rows are then stored without hash and chained by the
# `events_chain` trigger.
_ZERO_HASH = "'\\x" + "00" * 32 + "'::bytea"
_CHAIN_START = (
    f" chain_start AS (SELECT CASE WHEN $2 = 0 THEN {_ZERO_HASH}"
    f" ELSE (SELECT coalesce(hash, {_ZERO_HASH}) FROM events"
    " WHERE stream_id = $1 AND stream_version = $2) END AS previous)"
)

_APPEND_NEW_STREAM = (
    "WITH bump AS (INSERT INTO streams (stream_id, version) VALUES ($1, $3)"
    " ON CONFLICT (stream_id) DO NOTHING RETURNING 1)," + _CHAIN_START + _INSERT_EVENTS
)
# A transaction may only go on a stream after events written by transactions older than
# itself: readers walk the store in (transaction id, position) order, so a stream's events
# must be stored in that order too. A transaction that took its id before waiting its turn
# (a consumer's `processed_events` row, then a lock another writer held) would put its event
# before the previous one; it is refused like a stale version, and a new transaction, with
# a newer id, succeeds.
_OLDER_THAN_THE_STREAM = (
    " AND NOT EXISTS (SELECT 1 FROM events WHERE stream_id = $1 AND stream_version = $2"
    " AND transaction_id > pg_current_xact_id()::text::bigint)"
)
_APPEND_EXISTING_STREAM = (
    "WITH bump AS (UPDATE streams SET version = $3 WHERE stream_id = $1 AND version = $2"
    + _OLDER_THAN_THE_STREAM
    + " RETURNING 1),"
    + _CHAIN_START
    + _INSERT_EVENTS
)


# `append_many`: one statement for any number of streams. (For the one-stream appends of most
# commands it is slower than the statements above, hence both: docs/decisions/0006.) $1-$5
# describe the streams (one element each), $6-$11 the events (one each, `k` naming the
# event's stream by its index), $12 and $13 occurred_at and producer, $14 the trace context.
# Every stream is bumped from its expected version (or created, for 0), if its last event is
# not newer than this transaction (as above); the events are stored only if all were, and
# chained per stream by `events_chain_hashes` from the hash at the expected version, as above.
_APPEND_MANY = f"""
WITH s AS (
    SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::text[], $5::uuid[])
        WITH ORDINALITY AS s(stream_id, expected, new_version, table_id, correlation_id, k)
), bumped AS (
    UPDATE streams SET version = s.new_version FROM s
     WHERE s.expected > 0 AND streams.stream_id = s.stream_id AND streams.version = s.expected
       AND NOT EXISTS (SELECT 1 FROM events WHERE events.stream_id = s.stream_id
                          AND events.stream_version = s.expected
                          AND events.transaction_id > pg_current_xact_id()::text::bigint)
    RETURNING 1
), created AS (
    INSERT INTO streams (stream_id, version)
    SELECT stream_id, new_version FROM s WHERE expected = 0
    ON CONFLICT (stream_id) DO NOTHING
    RETURNING 1
), chain_start AS (
    SELECT s.*, CASE WHEN s.expected = 0 THEN {_ZERO_HASH}
                ELSE (SELECT coalesce(hash, {_ZERO_HASH}) FROM events
                       WHERE stream_id = s.stream_id AND stream_version = s.expected)
                END AS previous
      FROM s
), e AS (
    SELECT u.*, gen_random_uuid() AS event_id
      FROM unnest($6::bigint[], $7::int[], $8::text[], $9::int[], $10::json[], $11::uuid[])
           WITH ORDINALITY AS u(k, stream_version, event_type, schema_version, payload,
                                causation_id, n)
), chained AS (
    SELECT c.k, events_chain_hashes(
               c.previous,
               array_agg(events_canonical(c.stream_id, e.stream_version, e.event_id,
                                          e.event_type, e.schema_version, c.table_id, $12,
                                          c.correlation_id, e.causation_id, $13,
                                          e.payload::text) ORDER BY e.n)
           ) AS hashes
      FROM e JOIN chain_start AS c ON c.k = e.k
     GROUP BY c.k, c.previous
)
INSERT INTO events (stream_id, stream_version, event_id, event_type, schema_version, table_id,
                    occurred_at, correlation_id, causation_id, producer, payload, hash,
                    trace_context)
SELECT c.stream_id, e.stream_version, e.event_id, e.event_type, e.schema_version, c.table_id,
       $12, c.correlation_id, e.causation_id, $13, e.payload,
       chained.hashes[e.stream_version - c.expected], $14
FROM e
JOIN chain_start AS c ON c.k = e.k
JOIN chained ON chained.k = e.k
WHERE (SELECT count(*) FROM bumped) + (SELECT count(*) FROM created) = (SELECT count(*) FROM s)
ORDER BY e.n
RETURNING stream_id, stream_version, position, event_id
"""


class EventStoreError(Exception):
    pass


# `\u0000` in a JSON string: the escape, not an escaped backslash followed by "u0000"
_NUL_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\u0000")


def payload_json(event: Event) -> str:
    """The event's payload as stored. A NUL character (`\\u0000` in JSON) is refused as
    `jsonb` refused it: no text column of a service that reads the event could hold it."""
    text = event.model_dump_json()
    if "\\u0000" in text and _NUL_ESCAPE.search(text):
        raise asyncpg.UntranslatableCharacterError(
            f"{event.event_type}: a NUL character (\\u0000) cannot be stored"
        )
    return text


class ConcurrencyError(EventStoreError):
    """The stream moved on since the caller read it: re-read and decide again."""


class CommitOrderError(ConcurrencyError):
    """The stream's last event was written by a transaction newer than the appending one
    (which took its id before it waited its turn): the same append succeeds in a new
    transaction. Rare; callers that hold the stream's lock may simply run theirs again."""


# The SQLSTATEs `event_append` (the store's SQL function) refuses an append with
_NOT_AT_EXPECTED_VERSION = "TPS01"
_NEWER_WRITER = "TPS02"


def append_error(error: asyncpg.PostgresError) -> EventStoreError | None:
    """The store's error for `event_append`'s refusal raised through a service's statement
    (None: another error)."""
    sqlstate = getattr(error, "sqlstate", None)
    if sqlstate == _NOT_AT_EXPECTED_VERSION:
        return ConcurrencyError(str(error))
    if sqlstate == _NEWER_WRITER:
        return CommitOrderError(str(error))
    return None


@dataclass(frozen=True, slots=True, order=True)
class GlobalPosition:
    """A place in the whole store, in commit-safe order."""

    transaction_id: int = 0
    position: int = 0

    def __str__(self) -> str:
        return f"{self.transaction_id}:{self.position}"


class StoredEvent(asyncpg.Record):  # type: ignore[misc]
    """One stored event as read back: a row that asyncpg builds without running Python code,
    which is what lets a replay go at the speed of the driver."""

    __slots__ = ()

    @property
    def position(self) -> int:
        return int(self[0])

    @property
    def transaction_id(self) -> int:
        return int(self[1])

    @property
    def stream_id(self) -> str:
        return str(self[2])

    @property
    def stream_version(self) -> int:
        return int(self[3])

    @property
    def event_id(self) -> UUID:
        return cast("UUID", self[4])

    @property
    def event_type(self) -> str:
        return str(self[5])

    @property
    def schema_version(self) -> int:
        return int(self[6])

    @property
    def table_id(self) -> str:
        return str(self[7])

    @property
    def occurred_at(self) -> datetime:
        return cast("datetime", self[8])

    @property
    def correlation_id(self) -> UUID:
        return cast("UUID", self[9])

    @property
    def causation_id(self) -> UUID | None:
        return cast("UUID | None", self[10])

    @property
    def producer(self) -> str:
        return str(self[11])

    @property
    def payload_json(self) -> str:
        return str(self[12])

    @property
    def payload(self) -> dict[str, Any]:
        """The payload, decoded on demand: replaying needs the metadata far more often."""
        decoded: dict[str, Any] = json.loads(self.payload_json)
        return decoded

    @property
    def trace_context(self) -> str | None:
        """The `traceparent` of the span that appended it, if a trace was going on."""
        return cast("str | None", self[13])

    @property
    def global_position(self) -> GlobalPosition:
        return GlobalPosition(self.transaction_id, self.position)

    def envelope(self) -> EventEnvelope:
        return EventEnvelope(
            event_id=self.event_id,
            event_type=self.event_type,
            schema_version=self.schema_version,
            stream_id=self.stream_id,
            stream_version=self.stream_version,
            table_id=self.table_id,
            occurred_at=self.occurred_at,
            correlation_id=self.correlation_id,
            causation_id=self.causation_id,
            producer=self.producer,
            payload=self.payload,
        )

    def to_json_bytes(self) -> bytes:
        """The envelope as published on Kafka (the same shape as `EventEnvelope`)."""
        metadata = json.dumps(
            {
                "event_id": str(self.event_id),
                "event_type": self.event_type,
                "schema_version": self.schema_version,
                "stream_id": self.stream_id,
                "stream_version": self.stream_version,
                "table_id": self.table_id,
                "occurred_at": self.occurred_at.isoformat(),
                "correlation_id": str(self.correlation_id),
                "causation_id": None if self.causation_id is None else str(self.causation_id),
                "producer": self.producer,
            },
            separators=(",", ":"),
        )
        return f'{metadata[:-1]},"payload":{self.payload_json}}}'.encode()


# What folding a stream needs of each row, and no more: a replay reads fewer columns.
_REPLAY_COLUMNS = (
    "stream_id, stream_version, event_id, event_type, schema_version, occurred_at,"
    " payload::text AS payload"
)


class ReplayedEvent(asyncpg.Record):  # type: ignore[misc]
    """A stored event as a replay reads it (`replay_stream`), built by the driver."""

    __slots__ = ()

    @property
    def stream_id(self) -> str:
        return str(self[0])

    @property
    def stream_version(self) -> int:
        return int(self[1])

    @property
    def event_id(self) -> UUID:
        return cast("UUID", self[2])

    @property
    def event_type(self) -> str:
        return str(self[3])

    @property
    def schema_version(self) -> int:
        return int(self[4])

    @property
    def occurred_at(self) -> datetime:
        return cast("datetime", self[5])

    @property
    def payload_json(self) -> str:
        return str(self[6])


@dataclass(frozen=True, slots=True)
class StreamAppend:
    """Events to append to one stream after its `expected_version` (see `append`)."""

    stream_id: str
    expected_version: int
    events: Sequence[Event]
    table_id: str
    correlation_id: UUID | None = None
    causation_ids: Sequence[UUID | None] | None = None  # one per event

    def check(self) -> None:
        if not self.events:
            raise ValueError(f"nothing to append to {self.stream_id!r}")
        if self.expected_version < 0:
            raise ValueError(f"expected_version must be >= 0, not {self.expected_version}")
        if self.causation_ids is not None and len(self.causation_ids) != len(self.events):
            raise ValueError("give causation_id or one causation id per event, not both")


@dataclass(frozen=True, slots=True)
class AppendResult:
    stream_version: int
    event_ids: tuple[UUID, ...]
    positions: tuple[int, ...]


class AsyncpgEventStore:
    """One service's event store in its own Postgres database."""

    def __init__(self, pool: asyncpg.Pool, producer: str) -> None:
        self._pool = pool
        self._producer = producer

    @property
    def pool(self) -> asyncpg.Pool:
        return self._pool

    def event_append_arguments(
        self,
        event: Event,
        *,
        occurred_at: datetime | None = None,
        correlation_id: UUID | None = None,
    ) -> tuple[datetime, UUID, str, str, int, str, str | None]:
        """What a service's SQL function hands on to `event_append` for `event`, after the
        stream, its expected version and the table id: occurred_at, correlation id, producer,
        event type, schema version, payload and trace context (its causation id is NULL)."""
        return (
            occurred_at or datetime.now(UTC),
            correlation_id or uuid4(),
            self._producer,
            event.event_type,
            event.schema_version,
            payload_json(event),
            current_traceparent(),
        )

    async def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[Event],
        *,
        table_id: str,
        correlation_id: UUID | None = None,
        causation_id: UUID | None = None,
        causation_ids: Sequence[UUID | None] | None = None,
        occurred_at: datetime | None = None,
        connection: asyncpg.Connection | None = None,
    ) -> AppendResult:
        """Append `events` after `expected_version` of the stream, or raise ConcurrencyError.

        Every event gets `causation_id`, or with `causation_ids` each its own (one per event:
        events caused by several others, appended at once). With `connection`, the append
        joins the caller's transaction, so state the caller writes beside it commits or
        rolls back together with the events.
        """
        if causation_ids is None:
            causation_ids = [causation_id] * len(events)
        elif causation_id is not None:
            raise ValueError("give causation_id or one causation id per event, not both")
        StreamAppend(
            stream_id, expected_version, events, table_id, causation_ids=causation_ids
        ).check()
        new_version = expected_version + len(events)
        query = _APPEND_NEW_STREAM if expected_version == 0 else _APPEND_EXISTING_STREAM
        args = (
            stream_id,
            expected_version,
            new_version,
            table_id,
            occurred_at or datetime.now(UTC),
            correlation_id or uuid4(),
            list(causation_ids),
            self._producer,
            [event.event_type for event in events],
            [event.schema_version for event in events],
            [payload_json(event) for event in events],
            current_traceparent(),
        )
        executor = connection if connection is not None else self._pool
        rows = sorted(await executor.fetch(query, *args))
        if not rows:
            await _raise_conflict(
                executor, [StreamAppend(stream_id, expected_version, events, table_id)]
            )
        return AppendResult(
            stream_version=new_version,
            event_ids=tuple(row[2] for row in rows),
            positions=tuple(row[1] for row in rows),
        )

    async def append_many(
        self,
        appends: Sequence[StreamAppend],
        *,
        connection: asyncpg.Connection,
        occurred_at: datetime | None = None,
    ) -> list[AppendResult]:
        """`append` to several streams in one statement (one round trip), all or none: a
        ConcurrencyError leaves none of them appended. Joins `connection`'s transaction.
        One stream is simply an `append`: its statement is cheaper, and a conflict there
        writes nothing, so it needs no savepoint."""
        if len({appended.stream_id for appended in appends}) != len(appends):
            raise ValueError("one StreamAppend per stream")
        if len(appends) == 1:
            [one] = appends
            return [
                await self.append(
                    one.stream_id,
                    one.expected_version,
                    one.events,
                    table_id=one.table_id,
                    correlation_id=one.correlation_id,
                    causation_ids=one.causation_ids,
                    occurred_at=occurred_at,
                    connection=connection,
                )
            ]
        # in a transaction (or savepoint) of its own: a conflict undoes the streams bumped
        transaction = connection.transaction()
        await transaction.start()
        try:
            results = await self._append(connection, appends, occurred_at)
        except BaseException:
            await transaction.rollback()
            raise
        if results is None:
            await transaction.rollback()
            await _raise_conflict(connection, appends)
        await transaction.commit()
        return results

    async def _append(
        self,
        executor: asyncpg.Connection | asyncpg.Pool,
        appends: Sequence[StreamAppend],
        occurred_at: datetime | None,
    ) -> list[AppendResult] | None:
        """The statement; None when a stream was not at its expected version."""
        streams: tuple[list[Any], ...] = ([], [], [], [], [])
        events: tuple[list[Any], ...] = ([], [], [], [], [], [])
        for k, appended in enumerate(appends, start=1):
            appended.check()
            streams[0].append(appended.stream_id)
            streams[1].append(appended.expected_version)
            streams[2].append(appended.expected_version + len(appended.events))
            streams[3].append(appended.table_id)
            streams[4].append(appended.correlation_id or uuid4())
            causes = appended.causation_ids or [None] * len(appended.events)
            for n, (event, cause) in enumerate(zip(appended.events, causes, strict=True), 1):
                events[0].append(k)
                events[1].append(appended.expected_version + n)
                events[2].append(event.event_type)
                events[3].append(event.schema_version)
                events[4].append(payload_json(event))
                events[5].append(cause)
        rows = await executor.fetch(
            _APPEND_MANY,
            *streams,
            *events,
            occurred_at or datetime.now(UTC),
            self._producer,
            current_traceparent(),
        )
        if not rows:
            return None
        stored: dict[str, list[asyncpg.Record]] = {}
        for row in sorted(rows, key=lambda row: row[2]):
            stored.setdefault(row[0], []).append(row)
        return [
            AppendResult(
                stream_version=appended.expected_version + len(appended.events),
                event_ids=tuple(row[3] for row in stored[appended.stream_id]),
                positions=tuple(row[2] for row in stored[appended.stream_id]),
            )
            for appended in appends
        ]

    async def stream_version(
        self, stream_id: str, *, connection: asyncpg.Connection | None = None
    ) -> int:
        """The stream's version (0 if it does not exist); on `connection`, in its transaction."""
        executor = connection if connection is not None else self._pool
        return int(await executor.fetchval("SELECT event_stream_version($1)", stream_id))

    async def stream_versions(
        self, stream_ids: Sequence[str], *, connection: asyncpg.Connection | None = None
    ) -> dict[str, int]:
        """Each stream's version (0 for one not written yet), in one query."""
        executor = connection if connection is not None else self._pool
        rows = await executor.fetch(
            "SELECT stream_id, version FROM streams WHERE stream_id = ANY($1::text[])",
            list(stream_ids),
        )
        versions = dict.fromkeys(stream_ids, 0)
        versions.update((row[0], int(row[1])) for row in rows)
        return versions

    async def lock_stream(self, stream_id: str, *, connection: asyncpg.Connection) -> int:
        """Hold the stream for the rest of `connection`'s transaction (writers that lock it
        take turns) and return its version as the previous holder left it."""
        return int(await connection.fetchval("SELECT event_stream_lock($1)", stream_id))

    async def read_stream(
        self,
        stream_id: str,
        after_version: int = 0,
        *,
        limit: int | None = None,
        connection: asyncpg.Connection | None = None,
    ) -> list[StoredEvent]:
        """The stream's events after `after_version`, in order (at most `limit`)."""
        executor = connection if connection is not None else self._pool
        rows = await executor.fetch(
            f"SELECT {_COLUMNS} FROM events WHERE stream_id = $1 AND stream_version > $2"
            " ORDER BY stream_version LIMIT $3",
            stream_id,
            after_version,
            limit,
            record_class=StoredEvent,
        )
        return rows  # type: ignore[no-any-return]

    async def replay_stream(
        self,
        stream_id: str,
        after_version: int = 0,
        *,
        connection: asyncpg.Connection | None = None,
    ) -> list[ReplayedEvent]:
        """`read_stream` with only what folding a stream into state needs."""
        executor = connection if connection is not None else self._pool
        rows = await executor.fetch(
            f"SELECT {_REPLAY_COLUMNS} FROM events WHERE stream_id = $1 AND stream_version > $2"
            " ORDER BY stream_version",
            stream_id,
            after_version,
            record_class=ReplayedEvent,
        )
        return rows  # type: ignore[no-any-return]

    async def replay_streams(
        self,
        after_versions: Mapping[str, int],
        *,
        connection: asyncpg.Connection | None = None,
    ) -> list[ReplayedEvent]:
        """The events of several streams, each after its version in `after_versions`, in one
        query, ordered by stream then version."""
        executor = connection if connection is not None else self._pool
        rows = await executor.fetch(
            f"SELECT {_REPLAY_COLUMNS}"
            " FROM unnest($1::text[], $2::int[]) AS known(sid, known_version)"
            " JOIN events ON events.stream_id = known.sid AND stream_version > known.known_version"
            " ORDER BY stream_id, stream_version",
            list(after_versions),
            list(after_versions.values()),
            record_class=ReplayedEvent,
        )
        return rows  # type: ignore[no-any-return]

    async def read_all(
        self,
        after: GlobalPosition = GlobalPosition(),
        limit: int = 1000,
        *,
        connection: asyncpg.Connection | None = None,
    ) -> list[StoredEvent]:
        """Events after `after`, in commit-safe order; never skips a late commit. With
        `connection` (outside a transaction), read on it instead of a pooled one."""
        executor = connection if connection is not None else self._pool
        rows = await executor.fetch(
            f"SELECT {_COLUMNS} FROM events"
            " WHERE (transaction_id, position) > ($1, $2)"
            f"   AND transaction_id < ({READ_BARRIER})"
            " ORDER BY transaction_id, position LIMIT $3",
            after.transaction_id,
            after.position,
            limit,
            record_class=StoredEvent,
        )
        return rows  # type: ignore[no-any-return]

    async def has_events_after(
        self, after: GlobalPosition, *, connection: asyncpg.Connection | None = None
    ) -> bool:
        """Whether any committed event lies after `after`, read barrier or not."""
        executor = connection if connection is not None else self._pool
        return bool(
            await executor.fetchval(
                "SELECT EXISTS (SELECT 1 FROM events WHERE (transaction_id, position) > ($1, $2))",
                after.transaction_id,
                after.position,
            )
        )

    async def backlog(
        self,
        after: GlobalPosition,
        *,
        limit: int = 100_000,
        connection: asyncpg.Connection | None = None,
    ) -> tuple[int, datetime | None]:
        """How many committed events lie after `after` (read barrier or not; counted up to
        `limit`, on the primary key), and when the first of them in commit order occurred:
        what a relay at `after` has still to publish, and since when (None: nothing)."""
        executor = connection if connection is not None else self._pool
        row = await executor.fetchrow(
            "SELECT (SELECT count(*) FROM (SELECT 1 FROM events"
            "         WHERE (transaction_id, position) > ($1, $2) LIMIT $3) AS waiting),"
            " (SELECT occurred_at FROM events WHERE (transaction_id, position) > ($1, $2)"
            "  ORDER BY transaction_id, position LIMIT 1)",
            after.transaction_id,
            after.position,
            limit,
        )
        return int(row[0]), row[1]


async def _raise_conflict(
    executor: asyncpg.Connection | asyncpg.Pool, appends: Sequence[StreamAppend]
) -> NoReturn:
    """Raise ConcurrencyError naming the streams not at their expected versions (or, with
    none, saying this transaction is older than a stream's last event)."""
    current = dict(
        await executor.fetch(
            "SELECT stream_id, version FROM streams WHERE stream_id = ANY($1::text[])",
            [appended.stream_id for appended in appends],
        )
    )
    moved = [
        f"stream {a.stream_id!r} is at version {current.get(a.stream_id, 0)},"
        f" not the expected {a.expected_version}"
        for a in appends
        if current.get(a.stream_id, 0) != a.expected_version
    ]
    if moved:
        raise ConcurrencyError("; ".join(moved))
    raise CommitOrderError(
        "a stream's last event was written by a transaction newer than this one; append"
        " again in a new transaction (a stream's events are stored in commit order)"
    )


# --------------------------------------------------------------------------- the audit
# `teenpatti audit` reads a store whole, as stored, hashes included: these are its reads.


async def store_exists(connection: asyncpg.Connection) -> bool:
    return bool(await connection.fetchval("SELECT to_regclass('events') IS NOT NULL"))


async def stream_heads(connection: asyncpg.Connection) -> dict[str, int]:
    """Every stream's recorded version."""
    rows = await connection.fetch("SELECT stream_id, version FROM streams")
    return {row[0]: int(row[1]) for row in rows}


async def last_checkpoint(connection: asyncpg.Connection) -> tuple[int, int] | None:
    """How far the store's relay has published: (transaction id, position), if it has."""
    row = await connection.fetchrow(
        "SELECT transaction_id, position FROM outbox_checkpoints"
        " ORDER BY transaction_id DESC, position DESC LIMIT 1"
    )
    return None if row is None else (int(row[0]), int(row[1]))


_AUDIT_COLUMNS = (
    "transaction_id, position, stream_id, stream_version, event_id, event_type,"
    " schema_version, table_id, occurred_at, correlation_id, causation_id, producer,"
    " payload::text AS payload, hash"
)


def audit_query(table_id: str | None, since: datetime | None) -> tuple[str, list[Any]]:
    """The query (and its arguments) reading every event with its hash, by stream then
    version: all streams, or those with an event of `table_id` / at or after `since`."""
    conditions: list[str] = []
    args: list[Any] = []
    if table_id is not None:
        args.append(table_id)
        conditions.append(f"table_id = ${len(args)}")
    if since is not None:
        args.append(since)
        conditions.append(f"occurred_at >= ${len(args)}")
    where = ""
    if conditions:
        where = (
            " WHERE stream_id IN (SELECT DISTINCT stream_id FROM events WHERE "
            + " AND ".join(conditions)
            + ")"
        )
    return f"SELECT {_AUDIT_COLUMNS} FROM events{where} ORDER BY stream_id, stream_version", args
