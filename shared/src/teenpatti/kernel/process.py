"""What a service process sets up once: its pool's session reset and its garbage collector."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

import asyncpg


async def keep_session(connection: asyncpg.Connection) -> None:
    """The pool's reset on release: nothing beyond asyncpg's own (roll back an open
    transaction, drop listeners). Its default also runs `RESET ALL`, `UNLISTEN *` and
    `pg_advisory_unlock_all()`, one more round trip per request, for session state the
    services never leave behind: they only take transaction-scoped locks, and the relay
    ends the one session that holds a lock and a LISTEN."""


def freeze_startup_objects() -> None:
    """Keep what exists after start-up (modules, FastAPI and pydantic schemas, the clients)
    out of the garbage collector's full collections, which otherwise walk all of it with the
    event loop stopped (betting windows closing late). Later full collections only walk what
    survives them once (`FreezeSurvivors`). docs/decisions/0024-gc-freeze-at-start-up.md"""
    gc.collect()
    gc.freeze()
    if not any(isinstance(callback, FreezeSurvivors) for callback in gc.callbacks):
        gc.callbacks.append(FreezeSurvivors())


FULL_WALK_SECONDS = 600.0


class FreezeSurvivors:
    """A `gc.callbacks` hook: after each full collection, freeze what survived it, so the
    next one walks only objects made since.

    A frozen object is never collected as part of a reference cycle, so once every
    `every` seconds the survivors are thawed instead, and the next full collection walks
    everything once: whatever cycle died among them meanwhile is freed then.
    docs/decisions/0024-gc-freeze-at-start-up.md"""

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
