"""The table clocks: the instance that owns a table's partition (in the `table-scans`
consumer group) runs one asyncio task per table that opens rounds, closes betting at the
deadline and cancels rounds left paused before their first card.

Nothing lives only here: each clock re-reads the table's stream before every decision and
appends at the expected version, so two instances briefly running the same clock during a
rebalance cannot both act, and a new owner continues exactly where the events say.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import asyncpg

from .adapters.tables import tables_needing_clock
from .domain import needs_clock, next_clock_time
from .handlers import TableService

log = logging.getLogger(__name__)

_RETRYABLE = (OSError, asyncpg.PostgresError, asyncpg.InterfaceError)


class ClockManager:
    def __init__(self, service: TableService, poll_seconds: float, max_nap_seconds: float):
        self._service = service
        self._poll_seconds = poll_seconds
        self._max_nap = max_nap_seconds
        self._owned: set[int] = set()
        self._clocks: dict[str, asyncio.Task[None]] = {}
        self._wake = asyncio.Event()
        self._stop = asyncio.Event()

    @property
    def owned_partitions(self) -> set[int]:
        return set(self._owned)

    @property
    def running_tables(self) -> set[str]:
        return {table_id for table_id, task in self._clocks.items() if not task.done()}

    # the table-scans consumer's rebalance callbacks
    async def assigned(self, partitions: set[int]) -> None:
        self._owned |= partitions
        self._wake.set()

    async def revoked(self, partitions: set[int]) -> None:
        self._owned -= partitions
        for table_id, task in list(self._clocks.items()):
            if self._service.partition_of(table_id) in partitions:
                task.cancel()
                del self._clocks[table_id]

    def poke(self, table_id: str) -> None:
        """A table changed on this instance: look for clocks to start now, not at next poll."""
        self._wake.set()

    async def run(self, stop: asyncio.Event) -> None:
        watcher = asyncio.create_task(self._propagate(stop))
        try:
            while not self._stop.is_set():
                try:
                    await self._reconcile()
                except _RETRYABLE as error:
                    log.warning("table clocks: cannot list tables (%s); retrying", error)
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self._poll_seconds):
                        await self._wake.wait()
        finally:
            watcher.cancel()
            await self.stop()

    async def stop(self) -> None:
        self._stop.set()
        clocks, self._clocks = list(self._clocks.values()), {}
        for task in clocks:
            task.cancel()
        await asyncio.gather(*clocks, return_exceptions=True)

    async def _propagate(self, stop: asyncio.Event) -> None:
        await stop.wait()
        self._stop.set()
        self._wake.set()

    async def _reconcile(self) -> None:
        for table_id, task in list(self._clocks.items()):
            if task.done():
                del self._clocks[table_id]
                if not task.cancelled() and task.exception() is not None:
                    log.error("clock of %s stopped", table_id, exc_info=task.exception())
        if not self._owned:
            return
        for table_id in await tables_needing_clock(self._service.store.pool, sorted(self._owned)):
            if table_id not in self._clocks and not self._stop.is_set():
                self._clocks[table_id] = asyncio.create_task(
                    self._run_clock(table_id), name=f"table-clock-{table_id}"
                )

    async def _run_clock(self, table_id: str) -> None:
        log.info("clock of %s started", table_id)
        while not self._stop.is_set():
            try:
                state, acted = await self._service.tick(table_id)
            except _RETRYABLE as error:
                log.warning("clock of %s: %s; retrying", table_id, error)
                await self._nap(self._poll_seconds)
                continue
            if acted:
                continue  # something happened: look again at once
            if not needs_clock(state):
                log.info("clock of %s stopped: nothing left to time", table_id)
                return
            due = next_clock_time(state, self._service.pause_timeout)
            nap = self._max_nap
            if due is not None:
                until_due = (due - self._service.clock()).total_seconds()
                nap = min(self._max_nap, max(until_due, 0.005))
            await self._nap(nap)

    async def _nap(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self._stop.wait()
