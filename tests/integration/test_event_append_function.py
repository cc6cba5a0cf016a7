"""`event_append`, the store's SQL function for a service's own statements: the same stream,
chain and refusals as `append`, mapped back to the store's errors by `append_error`."""

from __future__ import annotations

import asyncpg
import pytest

from teenpatti.audit.chain import Row, verify_stream
from teenpatti.eventsourcing import (
    AsyncpgEventStore,
    CommitOrderError,
    ConcurrencyError,
    append_error,
)

from .sample_events import counted, registry


async def _append(
    executor: asyncpg.Pool | asyncpg.Connection,
    store: AsyncpgEventStore,
    stream: str,
    expected: int,
    chips: int,
) -> int:
    arguments = store.event_append_arguments(counted(chips))
    occurred_at, correlation_id, *event = arguments
    try:
        version: int = await executor.fetchval(
            "SELECT event_append($1, $2, 'T1', $3, $4, NULL, $5, $6, $7, $8, $9)",
            stream,
            expected,
            occurred_at,
            correlation_id,
            *event,
        )
    except asyncpg.PostgresError as error:
        refused = append_error(error)
        if refused is None:
            raise
        raise refused from error
    return version


async def test_event_append_goes_on_a_stream_as_append_does(
    store: AsyncpgEventStore, pool: asyncpg.Pool
) -> None:
    assert await _append(pool, store, "player-1", 0, 1) == 1  # a new stream
    await store.append("player-1", 1, [counted(2)], table_id="T1")
    assert await _append(pool, store, "player-1", 2, 3) == 3

    events = await store.read_stream("player-1")
    assert [registry.decode_envelope(e.envelope()) for e in events] == [
        counted(1),
        counted(2),
        counted(3),
    ]
    assert {e.producer for e in events} == {"tests"}
    rows = await pool.fetch(
        "SELECT stream_id, stream_version, event_id, event_type, schema_version, table_id,"
        " occurred_at, correlation_id, causation_id, producer, payload::text, hash,"
        " transaction_id, position FROM events ORDER BY stream_version"
    )
    chain = [Row("tests", *row[:11], bytes(row[11]), row[12], row[13]) for row in rows]
    assert verify_stream(chain, 3) == ([], 3)


async def test_event_append_refuses_as_append_does(
    store: AsyncpgEventStore, pool: asyncpg.Pool
) -> None:
    await store.append("player-1", 0, [counted(1)], table_id="T1")
    with pytest.raises(ConcurrencyError, match="exists"):
        await _append(pool, store, "player-1", 0, 2)
    with pytest.raises(ConcurrencyError, match="not at the expected version 2"):
        await _append(pool, store, "player-1", 2, 2)
    async with pool.acquire() as older, older.transaction():
        await older.execute("SELECT pg_current_xact_id()")  # its id, taken early
        await store.append("player-1", 1, [counted(2)], table_id="T1")  # a newer one's
        with pytest.raises(CommitOrderError):
            await _append(older, store, "player-1", 2, 3)
    assert await store.stream_version("player-1") == 2
    assert len(await store.read_stream("player-1")) == 2
