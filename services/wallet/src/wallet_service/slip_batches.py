"""Group commit for transfer slips placed in one statement: slips that arrive while every
batch in flight is busy wait, and then go together in one statement and one transaction
(`wallet_place_slips`), each answered only once that transaction committed. A slip that
finds a batch slot free goes at once, alone: under a light load nothing waits.

Why: a transaction that appends an event notifies the relay, and Postgres holds its notify
lock from before the commit's WAL flush to its end, so transactions that notify commit one
at a time and cannot share a flush. A batch makes one commit (and one notification) of many
slips (docs/decisions/0101-a-slip-in-one-round-trip.md).

Each slip stays whole or nothing: one a guard refuses writes nothing and the others stand.
An error of the batch's statement rolls all of it back; then each of its slips is placed
again alone, so the slip that cannot be placed fails alone."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import asyncpg

from .adapters import postgres as db

_Waiting = tuple[db.SlipToPlace, "asyncio.Future[int | None]"]


class SlipBatches:
    """Places transfer slips in one statement each batch, at most `in_flight` batches at a
    time, each of at most `batch_size` slips."""

    def __init__(
        self, pool: asyncpg.Pool, *, grace: timedelta, batch_size: int, in_flight: int
    ) -> None:
        self._pool = pool
        self._grace = grace
        self._batch_size = batch_size
        self._in_flight = in_flight
        self._waiting: list[_Waiting] = []
        self._flushing = 0  # counted down as a flusher finds nothing waiting, in that step
        self._flushers: set[asyncio.Task[None]] = set()

    async def place(self, slip: db.SlipToPlace) -> int | None:
        """The player's balance after the slip, once it committed; None when a guard refused
        it or its key was used: nothing of it written (`db.place_slips`)."""
        future: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self._waiting.append((slip, future))
        if self._flushing < self._in_flight:
            self._flushing += 1
            flusher = asyncio.create_task(self._flush())
            self._flushers.add(flusher)  # held until done: the loop keeps only weak references
            flusher.add_done_callback(self._flushers.discard)
        return await future

    async def _flush(self) -> None:
        try:
            while self._waiting:
                # each batch locks its players in one order: batches cannot deadlock on them
                batch = sorted(self._waiting[: self._batch_size], key=_player)
                del self._waiting[: self._batch_size]
                try:
                    await self._place(batch)
                except BaseException as error:  # cancelled at shutdown: no slip waits forever
                    waiting, self._waiting = batch + self._waiting, []
                    for _, future in waiting:
                        if future.done():
                            continue
                        if isinstance(error, asyncio.CancelledError):
                            future.cancel()
                        else:
                            future.set_exception(error)
                    raise
        finally:
            self._flushing -= 1

    async def _place(self, batch: list[_Waiting]) -> None:
        try:
            balances = await db.place_slips(self._pool, [slip for slip, _ in batch], self._grace)
        except Exception as error:
            if len(batch) == 1:
                _, future = batch[0]
                if not future.done():
                    future.set_exception(error)
                return
            for one in batch:  # nothing of the batch committed: each alone, to fail alone
                await self._place([one])
            return
        for (_, future), balance in zip(batch, balances, strict=True):
            if not future.done():  # its request gone: the slip stands, its key replays it
                future.set_result(balance)


def _player(waiting: _Waiting) -> tuple[str, str]:
    record = waiting[0].record
    return (record.operator_id, record.player_id)
