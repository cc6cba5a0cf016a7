"""The `tables` projection as the migrations make it: each change of a table is announced
to every instance's table clocks."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from table_service.adapters.tables import TABLE_CHANGED_CHANNEL, parse_table_changed
from table_service.app import SERVICE
from teenpatti.eventsourcing import MIGRATIONS as STORE_MIGRATIONS
from teenpatti.eventsourcing import AsyncpgEventStore
from teenpatti_tools.databases import migrated


async def test_every_change_of_the_projection_is_announced_with_its_deadline(
    store: AsyncpgEventStore,
) -> None:
    """The migrations' `table_changed` trigger: each write of a `tables` row, on any
    instance, notifies '<table_id>:<version>:<clock due, epoch ms>' at commit (the due time
    empty when nothing is timed, and a due time before 1970 sent as 0)."""
    pool = store.pool
    await migrated(pool, STORE_MIGRATIONS, SERVICE.migrations)
    heard: asyncio.Queue[str] = asyncio.Queue()
    async with pool.acquire() as listener:

        def hear(_connection: object, _pid: int, _channel: str, payload: str) -> None:
            heard.put_nowait(payload)

        await listener.add_listener(TABLE_CHANGED_CHANNEL, hear)
        insert = (
            "INSERT INTO tables (table_id, kafka_partition, status, phase, round_id,"
            " needs_clock, config, version, clock_due_at)"
            " VALUES ('T1', 0, 'open', 'open', NULL, true, '{}', $1, $2)"
            " ON CONFLICT (table_id) DO UPDATE SET version = EXCLUDED.version,"
            " clock_due_at = EXCLUDED.clock_due_at"
        )
        due = datetime(2026, 3, 1, 20, 0, 0, 250_000, tzinfo=UTC)
        await pool.execute(insert, 3, due)
        await pool.execute(insert, 4, None)
        await pool.execute(insert, 5, datetime(1969, 1, 1, tzinfo=UTC))
        async with asyncio.timeout(10):
            payloads = [await heard.get() for _ in range(3)]
        await listener.remove_listener(TABLE_CHANGED_CHANNEL, hear)
    assert payloads == [f"T1:3:{int(due.timestamp() * 1000)}", "T1:4:", "T1:5:0"]
    assert [parse_table_changed(payload) for payload in payloads] == [
        ("T1", 3, due),
        ("T1", 4, None),
        ("T1", 5, datetime(1970, 1, 1, tzinfo=UTC)),
    ]
