"""The table clocks: the instance that owns a table's partition (in the `table-scanner`
consumer group) runs one asyncio task per table that opens rounds, closes betting at the
deadline and cancels rounds left paused before their first card. A table holding its rounds
for a service that is not ready asks again every `TP_ROUND_GATE_CACHE_SECONDS`.

Nothing lives only here: each clock re-reads the table's stream before every decision and
appends at the expected version, so two instances briefly running the same clock during a
rebalance cannot both act, and a new owner continues exactly where the events say.

A clock sleeps until its table's next deadline, without reading anything meanwhile. Each
write of the `tables` projection (in the transaction of every append, on any instance)
notifies `table_changed` with the table's id, version and next deadline; each instance
listens, and a table's clock takes the new deadline from there (a supervisor's pause on
another instance, a round closed by its last card). Without the listener (Postgres
restarting), the clocks re-read their streams every `poll_seconds`, and at once when it is
back; with it, at least every `max_nap_seconds`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import asyncpg

from teenpatti.observability.logs import background_context

from .adapters.tables import TABLE_CHANGED_CHANNEL, parse_table_changed, tables_needing_clock
from .domain.clock import needs_clock, next_clock_time
from .domain.state import TableState
from .handlers import TableService

log = logging.getLogger(__name__)

_RETRYABLE = (OSError, asyncpg.PostgresError, asyncpg.InterfaceError)


@dataclass
class _Clock:
    task: asyncio.Task[None] | None = None
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    version: int = 0  # the newest version of the table known here
    due: datetime | None = None  # and its next deadline
    reread: bool = False  # changes may have gone unannounced: read the stream again


class ClockManager:
    def __init__(self, service: TableService, poll_seconds: float, max_nap_seconds: float):
        self._service = service
        self._poll_seconds = poll_seconds
        self._max_nap = max_nap_seconds
        self._owned: set[int] = set()
        self._clocks: dict[str, _Clock] = {}
        self._listening = False
        self._wake = asyncio.Event()
        self._stop = asyncio.Event()

    @property
    def owned_partitions(self) -> set[int]:
        return set(self._owned)

    @property
    def running_tables(self) -> set[str]:
        return {
            table_id
            for table_id, clock in self._clocks.items()
            if clock.task is not None and not clock.task.done()
        }

    # the scanner.events consumer's rebalance callbacks (group `table-scanner`)
    async def assigned(self, partitions: set[int]) -> None:
        self._owned |= partitions
        self._wake.set()

    async def revoked(self, partitions: set[int]) -> None:
        self._owned -= partitions
        for table_id, clock in list(self._clocks.items()):
            if self._service.partition_of(table_id) in partitions:
                if clock.task is not None:
                    clock.task.cancel()
                del self._clocks[table_id]

    def poke(self, state: TableState) -> None:
        """The table changed on this instance: its clock learns at once (see `changed`)."""
        due = next_clock_time(state, self._service.pause_timeout, self._service.dealing_stall)
        self.changed(state.table_id, state.version, due)

    def changed(self, table_id: str, version: int, due: datetime | None) -> None:
        """The table is at `version` now, its next deadline `due`: its clock sleeps until
        then instead, or a clock is started if this instance owns the table and runs none."""
        if self._stop.is_set() or self._service.partition_of(table_id) not in self._owned:
            return
        clock = self._clocks.get(table_id)
        if clock is None or clock.task is None or clock.task.done():
            self._start(table_id)
        elif version > clock.version:
            clock.version, clock.due = version, due
            clock.wake.set()

    async def run(self, stop: asyncio.Event) -> None:
        watcher = asyncio.create_task(self._propagate(stop))
        listener = asyncio.create_task(self._listen(), name="table-clocks-listener")
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
            listener.cancel()
            await asyncio.gather(listener, return_exceptions=True)
            await self.stop()

    async def stop(self) -> None:
        self._stop.set()
        clocks, self._clocks = list(self._clocks.values()), {}
        tasks = [clock.task for clock in clocks if clock.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _propagate(self, stop: asyncio.Event) -> None:
        await stop.wait()
        self._stop.set()
        self._wake.set()

    async def _reconcile(self) -> None:
        for table_id, clock in list(self._clocks.items()):
            if clock.task is not None and clock.task.done():
                del self._clocks[table_id]
                if not clock.task.cancelled() and clock.task.exception() is not None:
                    log.error("clock of %s stopped", table_id, exc_info=clock.task.exception())
        if not self._owned:
            return
        for table_id in await tables_needing_clock(self._service.store.pool, sorted(self._owned)):
            if table_id not in self._clocks and not self._stop.is_set():
                self._start(table_id)

    def _start(self, table_id: str) -> None:
        clock = self._clocks[table_id] = _Clock()
        # started by a request or an event, it outlives them: it logs and traces as the table's
        clock.task = asyncio.create_task(
            self._run_clock(table_id, clock),
            name=f"clock-{table_id}",
            context=background_context(table_id=table_id),
        )

    # ------------------------------------------------------------------ the notifications
    async def _listen(self) -> None:
        """Hold a LISTEN on `table_changed`, reconnecting after a lost connection."""
        while not self._stop.is_set():
            try:
                async with self._service.store.pool.acquire() as connection:
                    try:
                        await connection.add_listener(TABLE_CHANGED_CHANNEL, self._on_notify)
                        self._listening = True
                        self._reread_all()  # whatever changed while nobody listened
                        while not self._stop.is_set():
                            await self._nap(self._poll_seconds)
                            await connection.execute("SELECT 1")  # still there?
                    finally:
                        self._listening = False
                        # the session holds the LISTEN: end it rather than pool it
                        connection.terminate()
            except _RETRYABLE as error:
                log.warning("table clocks: not listening to table changes (%s)", error)
                self._reread_all()
                await self._nap(self._poll_seconds)

    def _on_notify(self, _connection: object, _pid: int, _channel: str, payload: str) -> None:
        change = parse_table_changed(payload)
        if change is not None:
            self.changed(*change)

    def _reread_all(self) -> None:
        for clock in self._clocks.values():
            clock.reread = True
            clock.wake.set()

    # ------------------------------------------------------------------ one table's clock
    async def _run_clock(self, table_id: str, clock: _Clock) -> None:
        log.info("clock of %s started", table_id)
        while not self._stop.is_set():
            # what this clock heard of the table, if it heard of every change meanwhile
            known = clock.version if self._listening and not clock.reread else 0
            clock.reread = False
            try:
                state, acted = await self._service.tick(table_id, known_version=known)
            except _RETRYABLE as error:
                log.warning("clock of %s: %s; retrying", table_id, error)
                await self._nap(self._poll_seconds)
                continue
            if acted:
                continue  # something happened: look again at once
            if not needs_clock(state):
                if clock.version > state.version:
                    # a change announced while it read (a table opened just after its
                    # terms were proposed): `changed` found this clock running, so no
                    # other starts; read again rather than stop
                    continue
                log.info("clock of %s stopped: nothing left to time", table_id)
                return
            if state.version >= clock.version:
                clock.version = state.version
                clock.due = next_clock_time(
                    state, self._service.pause_timeout, self._service.dealing_stall
                )
                if state.held and state.round_in_play is None:
                    # rounds held for a service: ask it again after a while
                    clock.due = self._service.clock() + timedelta(
                        seconds=self._service.gate.recheck_seconds
                    )
            await self._sleep_until_due(clock)

    async def _sleep_until_due(self, clock: _Clock) -> None:
        """Sleep until the table's deadline, which a change announced meanwhile may move."""
        while not self._stop.is_set() and not clock.reread:
            clock.wake.clear()
            longest = self._max_nap if self._listening else self._poll_seconds
            nap = longest
            if clock.due is not None:
                until_due = (clock.due - self._service.clock()).total_seconds()
                nap = min(longest, max(until_due, 0.005))
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(nap):
                    await clock.wake.wait()
            if not clock.wake.is_set():
                return  # due, or the longest nap is over

    async def _nap(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self._stop.wait()
