"""A table's clock does not stop on a state older than a change it was told of while it read
it: a table opened just after its terms were proposed gets its rounds (the clock started on
the proposal, read the table before the opening, and heard of the opening meanwhile)."""

from __future__ import annotations

import asyncio
from typing import cast

from table_service.clock import ClockManager
from table_service.domain.state import TableState, TableStatus
from table_service.handlers import TableService


class SlowReads:
    """The part of the table service a clock uses: its first read waits for `release` and
    finds the table before its opening (version 1); the next find it open (version 2) and
    wait for ever, so the clock stays where it is."""

    def __init__(self) -> None:
        self.reads = 0
        self.first_read = asyncio.Event()
        self.release = asyncio.Event()
        self.second_read = asyncio.Event()

    def partition_of(self, table_id: str) -> int:
        return 0

    async def tick(self, table_id: str, known_version: int = 0) -> tuple[TableState, bool]:
        self.reads += 1
        if self.reads == 1:
            self.first_read.set()
            await self.release.wait()
            return TableState(table_id, version=1), False
        self.second_read.set()
        await asyncio.Event().wait()
        return TableState(table_id, version=2, status=TableStatus.OPEN), False


async def test_a_change_heard_during_a_read_keeps_the_clock_running() -> None:
    service = SlowReads()
    clocks = ClockManager(cast(TableService, service), poll_seconds=60, max_nap_seconds=60)
    await clocks.assigned({0})
    clocks.changed("T1", 1, None)  # the terms proposed: a clock starts and reads
    await asyncio.wait_for(service.first_read.wait(), 5)
    clocks.changed("T1", 2, None)  # the table opened while it read
    service.release.set()
    try:
        await asyncio.wait_for(service.second_read.wait(), 5)
        assert clocks.running_tables == {"T1"}
    finally:
        await clocks.stop()
