"""The Postgres event store against a real Postgres."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from uuid import uuid4

import asyncpg
import pytest

from teenpatti.audit.chain import Finding, Row, verify_stream
from teenpatti.eventsourcing import (
    AsyncpgEventStore,
    CommitOrderError,
    ConcurrencyError,
    GlobalPosition,
    StreamAppend,
)
from teenpatti.settings import InfrastructureSettings

from .sample_events import counted, registry


async def test_append_and_read_a_stream(store: AsyncpgEventStore) -> None:
    correlation = uuid4()
    first = await store.append(
        "round-1", 0, [counted(1), counted(2)], table_id="T1", correlation_id=correlation
    )
    second = await store.append("round-1", 2, [counted(3)], table_id="T1")

    assert (first.stream_version, second.stream_version) == (2, 3)
    events = await store.read_stream("round-1")
    assert [(e.stream_version, e.payload["chips"]) for e in events] == [(1, 1), (2, 2), (3, 3)]
    assert [e.event_id for e in events] == [*first.event_ids, *second.event_ids]
    assert {e.correlation_id for e in events[:2]} == {correlation}
    assert all(e.table_id == "T1" and e.producer == "tests" for e in events)
    assert all(e.occurred_at.tzinfo is not None for e in events)
    assert registry.decode_envelope(events[0].envelope()) == counted(1)
    assert [e.payload["chips"] for e in await store.read_stream("round-1", after_version=2)] == [3]
    assert await store.stream_version("round-1") == 3
    assert await store.stream_version("round-unknown") == 0


async def test_each_event_of_an_append_may_name_its_own_cause(store: AsyncpgEventStore) -> None:
    causes = [uuid4(), None, uuid4()]
    await store.append(
        "round-1", 0, [counted(n) for n in range(3)], table_id="T1", causation_ids=causes
    )
    shared = uuid4()
    await store.append("round-1", 3, [counted(3), counted(4)], table_id="T1", causation_id=shared)

    events = await store.read_stream("round-1")
    assert [e.causation_id for e in events] == [*causes, shared, shared]
    with pytest.raises(ValueError, match="one causation id per event"):
        await store.append("round-1", 5, [counted(5)], table_id="T1", causation_ids=[])


@pytest.mark.parametrize("existing_events", [0, 2])
async def test_two_writers_one_wins(store: AsyncpgEventStore, existing_events: int) -> None:
    if existing_events:
        await store.append("round-1", 0, [counted(0)] * existing_events, table_id="T1")

    results = await asyncio.gather(
        store.append("round-1", existing_events, [counted(100)], table_id="T1"),
        store.append("round-1", existing_events, [counted(200), counted(201)], table_id="T1"),
        return_exceptions=True,
    )

    conflicts = [r for r in results if isinstance(r, ConcurrencyError)]
    assert len(conflicts) == 1, results
    assert f"not the expected {existing_events}" in str(conflicts[0])
    winner = next(r for r in results if not isinstance(r, BaseException))
    events = await store.read_stream("round-1")
    assert len(events) == winner.stream_version
    assert [e.event_id for e in events[existing_events:]] == list(winner.event_ids)


async def test_a_stale_expected_version_is_refused_and_nothing_is_written(
    store: AsyncpgEventStore,
) -> None:
    await store.append("round-1", 0, [counted(1), counted(2)], table_id="T1")

    with pytest.raises(ConcurrencyError, match="'round-1' is at version 2, not the expected 1"):
        await store.append("round-1", 1, [counted(3)], table_id="T1")
    with pytest.raises(ConcurrencyError, match="at version 2, not the expected 0"):
        await store.append("round-1", 0, [counted(3)], table_id="T1")

    assert len(await store.read_stream("round-1")) == 2
    assert len(await store.read_all()) == 2


async def test_append_joins_the_callers_transaction(
    store: AsyncpgEventStore,
    pool: asyncpg.Pool,
) -> None:
    async with pool.acquire() as connection:
        with pytest.raises(RuntimeError, match="rolled back"):
            async with connection.transaction():
                await store.append("round-1", 0, [counted(1)], table_id="T1", connection=connection)
                raise RuntimeError("rolled back")

    assert await store.read_stream("round-1") == []
    assert await store.stream_version("round-1") == 0


async def test_read_all_pages_through_everything_in_commit_order(
    store: AsyncpgEventStore,
) -> None:
    for n in range(5):
        await store.append(f"round-{n}", 0, [counted(n * 10 + i) for i in range(3)], table_id="T1")

    seen: list[int] = []
    position = GlobalPosition()
    while page := await store.read_all(position, limit=4):
        seen.extend(int(e.payload["chips"]) for e in page)
        position = page[-1].global_position

    assert seen == [n * 10 + i for n in range(5) for i in range(3)]


async def test_a_late_commit_with_a_lower_position_is_not_skipped(
    store: AsyncpgEventStore,
    pool: asyncpg.Pool,
) -> None:
    """T1 takes position 1 but commits after T2 (position 2) has committed and been read."""
    async with pool.acquire() as slow:
        slow_tx = slow.transaction()
        await slow_tx.start()
        late = await store.append("round-slow", 0, [counted(1)], table_id="T1", connection=slow)
        early = await store.append("round-fast", 0, [counted(2)], table_id="T1")
        assert late.positions[0] < early.positions[0]

        # A reader going by position alone would now see position 2 and move past 1.
        visible = await pool.fetch("SELECT position FROM events ORDER BY position")
        assert [row[0] for row in visible] == [early.positions[0]]
        # The store's reader waits for the open transaction instead.
        assert await store.read_all() == []

        await slow_tx.commit()

    events = await store.read_all()
    assert [e.stream_id for e in events] == ["round-slow", "round-fast"]


async def test_only_transactions_that_could_write_here_hold_the_read_barrier(
    store: AsyncpgEventStore,
    pool: asyncpg.Pool,
    infrastructure: InfrastructureSettings,
) -> None:
    """Transaction ids are cluster-wide: one open in another database (older than the
    append) must not hold this store's readers back; one open here must, since it could
    still append below the committed event."""
    elsewhere = await asyncpg.connect(infrastructure.postgres_dsn("postgres"))
    try:
        async with elsewhere.transaction():
            await elsewhere.execute("SELECT pg_current_xact_id()")  # it holds an xid
            committed = await store.append("round-1", 0, [counted(1)], table_id="T1")
            assert [e.event_id for e in await store.read_all()] == list(committed.event_ids)

            async with pool.acquire() as here, here.transaction():
                await here.execute("SELECT pg_current_xact_id()")
                later = await store.append("round-2", 0, [counted(2)], table_id="T1")
                # committed after `here` began: `here` could still append below it
                assert [e.stream_id for e in await store.read_all()] == ["round-1"]
            assert [e.event_id for e in await store.read_all()] == [
                *committed.event_ids,
                *later.event_ids,
            ]
    finally:
        await elsewhere.close()


async def test_a_transaction_older_than_a_streams_last_event_may_not_append_to_it(
    store: AsyncpgEventStore, pool: asyncpg.Pool
) -> None:
    """Readers walk the store in (transaction id, position) order, so a stream's events must
    be stored in that order: a transaction that took its id before another writer of the
    stream committed is refused (and appends in a new transaction)."""
    await store.append("player-1", 0, [counted(1)], table_id="P")
    await store.append("player-2", 0, [counted(1)], table_id="P")
    async with pool.acquire() as older:
        for attempt in ("append", "append_many"):
            async with older.transaction():
                await older.execute("SELECT pg_current_xact_id()")  # its id, taken early
                version = await store.stream_version("player-1")
                await store.append("player-1", version, [counted(2)], table_id="P")  # newer
                with pytest.raises(CommitOrderError, match="commit order"):
                    if attempt == "append":
                        await store.append(
                            "player-1", version + 1, [counted(3)], table_id="P", connection=older
                        )
                    else:
                        await store.append_many(
                            [
                                StreamAppend("player-2", 1, [counted(3)], "P"),
                                StreamAppend("player-1", version + 1, [counted(3)], "P"),
                            ],
                            connection=older,
                        )
        # the same append in a new transaction goes through
        async with older.transaction():
            await store.append("player-1", 3, [counted(3)], table_id="P", connection=older)

    events = await store.read_all()
    assert [e.stream_version for e in events if e.stream_id == "player-1"] == [1, 2, 3, 4]
    assert [e.stream_version for e in events if e.stream_id == "player-2"] == [1]
    # a stream's own appends within one transaction are in order too
    async with pool.acquire() as connection, connection.transaction():
        await store.append("player-3", 0, [counted(1)], table_id="P", connection=connection)
        await store.append("player-3", 1, [counted(2)], table_id="P", connection=connection)


async def test_occurred_at_is_stored_in_utc(store: AsyncpgEventStore) -> None:
    moment = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    await store.append("round-1", 0, [counted(1)], table_id="T1", occurred_at=moment)

    (event,) = await store.read_stream("round-1")
    assert event.occurred_at == moment
    assert event.envelope().occurred_at.utcoffset() is not None


async def test_the_stores_api_reads_versions_and_streams_in_the_callers_transaction(
    store: AsyncpgEventStore, pool: asyncpg.Pool
) -> None:
    await store.append("round-1", 0, [counted(1), counted(2)], table_id="T1")
    await store.append("round-2", 0, [counted(3)], table_id="T1")
    async with pool.acquire() as connection, connection.transaction():
        await store.append("round-2", 1, [counted(4)], table_id="T1", connection=connection)
        assert await store.stream_version("round-2", connection=connection) == 2
        assert await store.stream_version("round-2") == 1  # not committed yet
        assert await store.stream_versions(
            ["round-1", "round-2", "round-3"], connection=connection
        ) == {"round-1": 2, "round-2": 2, "round-3": 0}
        (latest,) = await store.read_stream("round-2", 1, connection=connection)
        assert latest.payload == {"chips": 4, "colour": "red"}
    (first,) = await store.read_stream("round-1", limit=1)
    assert first.stream_version == 1
    replayed = await store.replay_streams({"round-1": 1, "round-2": 0})
    assert [(e.stream_id, e.stream_version, e.event_type) for e in replayed] == [
        ("round-1", 2, "ChipCounted"),
        ("round-2", 1, "ChipCounted"),
        ("round-2", 2, "ChipCounted"),
    ]
    assert [e.payload_json for e in await store.replay_stream("round-1", 1)] == [
        counted(2).model_dump_json()
    ]


async def test_a_locked_stream_makes_a_second_writer_wait_and_then_see_the_first(
    store: AsyncpgEventStore, pool: asyncpg.Pool
) -> None:
    first = await pool.acquire()
    try:
        transaction = first.transaction()
        await transaction.start()
        assert await store.lock_stream("device-1", connection=first) == 0

        async def second_writer() -> int:
            async with pool.acquire() as connection, connection.transaction():
                version = await store.lock_stream("device-1", connection=connection)
                await store.append(
                    "device-1", version, [counted(2)], table_id="T1", connection=connection
                )
                return version

        waiting = asyncio.create_task(second_writer())
        await asyncio.sleep(0.2)
        assert not waiting.done(), "the second writer waits for the lock"
        await store.append("device-1", 0, [counted(1)], table_id="T1", connection=first)
        await transaction.commit()
    finally:
        await pool.release(first)
    assert await asyncio.wait_for(waiting, 10) == 1, "it read the version the first committed"
    assert await store.stream_version("device-1") == 2


@pytest.mark.parametrize(
    ("colour", "stored"),
    [("red\x00", False), ("a\\u0000b", True), ("a\\\x00", False)],
)
async def test_a_nul_character_in_a_payload_is_refused_as_postgres_text_refuses_it(
    store: AsyncpgEventStore, pool: asyncpg.Pool, colour: str, stored: bool
) -> None:
    if stored:  # a backslash followed by "u0000" is text like any other
        await store.append("round-1", 0, [counted(1, colour)], table_id="T1")
        (event,) = await store.read_stream("round-1")
        assert event.payload["colour"] == colour
        return
    with pytest.raises(asyncpg.UntranslatableCharacterError, match="NUL"):
        await store.append("round-1", 0, [counted(1, colour)], table_id="T1")
    async with pool.acquire() as connection:
        with pytest.raises(asyncpg.UntranslatableCharacterError, match="NUL"):
            await store.append_many(
                [
                    StreamAppend("round-2", 0, [counted(2)], "T1"),
                    StreamAppend("round-3", 0, [counted(3, colour)], "T1"),
                ],
                connection=connection,
            )
    assert await store.read_all() == []


@pytest.mark.parametrize(
    ("stream_version", "message"),
    [(-1, "expected_version must be >= 0"), (0, None)],
)
async def test_bad_append_arguments_are_refused(
    store: AsyncpgEventStore, stream_version: int, message: str | None
) -> None:
    if message is None:
        with pytest.raises(ValueError, match="nothing to append"):
            await store.append("round-1", stream_version, [], table_id="T1")
    else:
        with pytest.raises(ValueError, match=message):
            await store.append("round-1", stream_version, [counted(1)], table_id="T1")
    assert await store.read_all() == []


async def _chain_findings(pool: asyncpg.Pool, stream_id: str) -> tuple[list[Finding], int]:
    """The audit's verdict on one stream's hash chain: its findings and how many are chained."""
    records = await pool.fetch(
        "SELECT *, payload::text AS payload_text FROM events WHERE stream_id = $1"
        " ORDER BY stream_version",
        stream_id,
    )
    rows = [
        Row(
            store="tests",
            **{field: r[field] for field in _ROW_FIELDS},
            payload_text=r["payload_text"],
            hash=None if r["hash"] is None else bytes(r["hash"]),
        )
        for r in records
    ]
    findings, chained = verify_stream(rows, len(rows))
    return findings, chained


_ROW_FIELDS = [
    "stream_id",
    "stream_version",
    "event_id",
    "event_type",
    "schema_version",
    "table_id",
    "occurred_at",
    "correlation_id",
    "causation_id",
    "producer",
    "transaction_id",
    "position",
]


async def test_append_many_writes_several_streams_in_one_statement(
    store: AsyncpgEventStore, pool: asyncpg.Pool
) -> None:
    await store.append("player-1", 0, [counted(1), counted(2)], table_id="T1")
    cause_a, cause_b = uuid4(), uuid4()
    correlation = uuid4()
    async with pool.acquire() as connection, connection.transaction():
        results = await store.append_many(
            [
                StreamAppend("player-1", 2, [counted(3), counted(4)], "T1", correlation),
                StreamAppend("player-2", 0, [counted(5)], "T2", causation_ids=[cause_b]),
                StreamAppend("player-3", 0, [counted(6)], "T1", causation_ids=[cause_a]),
            ],
            connection=connection,
        )

    assert [r.stream_version for r in results] == [4, 1, 1]
    one, two, three = [await store.read_stream(f"player-{n}") for n in (1, 2, 3)]
    assert [e.payload["chips"] for e in one] == [1, 2, 3, 4]
    assert [e.event_id for e in one[2:]] == list(results[0].event_ids)
    assert {e.correlation_id for e in one[2:]} == {correlation}
    assert [(e.payload["chips"], e.causation_id, e.table_id) for e in two + three] == [
        (5, cause_b, "T2"),
        (6, cause_a, "T1"),
    ]
    assert [await store.stream_version(f"player-{n}") for n in (1, 2, 3)] == [4, 1, 1]
    for stream in ("player-1", "player-2", "player-3"):
        findings, chained = await _chain_findings(pool, stream)
        assert findings == [] and chained == len(await store.read_stream(stream))


async def test_append_many_is_all_or_nothing(store: AsyncpgEventStore, pool: asyncpg.Pool) -> None:
    await store.append("player-1", 0, [counted(1)], table_id="T1")
    await store.append("player-2", 0, [counted(2), counted(3)], table_id="T1")
    async with pool.acquire() as connection, connection.transaction():
        await connection.execute("CREATE TABLE beside (n int)")
        await connection.execute("INSERT INTO beside VALUES (1)")
        with pytest.raises(
            ConcurrencyError, match=r"^stream 'player-2' is at version 2, not the expected 1$"
        ):
            await store.append_many(
                [
                    StreamAppend("player-1", 1, [counted(4)], "T1"),  # would succeed
                    StreamAppend("player-2", 1, [counted(5)], "T1"),  # stale
                    StreamAppend("player-3", 0, [counted(6)], "T1"),  # new
                ],
                connection=connection,
            )
        # the caller's transaction goes on, without any of the three appends
        assert await connection.fetchval("SELECT count(*) FROM beside") == 1

    assert [await store.stream_version(f"player-{n}") for n in (1, 2, 3)] == [1, 2, 0]
    assert len(await store.read_all()) == 3


@pytest.mark.parametrize(
    ("appends", "message"),
    [
        (
            [StreamAppend("p", 0, [counted(1)], "T1"), StreamAppend("p", 1, [counted(2)], "T1")],
            "one StreamAppend per stream",
        ),
        ([StreamAppend("p", 0, [], "T1")], "nothing to append to 'p'"),
        ([StreamAppend("p", -1, [counted(1)], "T1")], "expected_version must be >= 0"),
        (
            [StreamAppend("p", 0, [counted(1)], "T1", causation_ids=[None, None])],
            "one causation id per event",
        ),
    ],
)
async def test_bad_append_many_arguments_are_refused(
    store: AsyncpgEventStore, pool: asyncpg.Pool, appends: list[StreamAppend], message: str
) -> None:
    async with pool.acquire() as connection:
        with pytest.raises(ValueError, match=message):
            await store.append_many(appends, connection=connection)
    assert await store.read_all() == []
    assert await store.stream_version("p") == 0
