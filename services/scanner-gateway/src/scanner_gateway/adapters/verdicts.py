"""Verdicts through Redis, so that whichever gateway instance holds a device's request can
answer it, whichever instance consumed the table's verdict.

A verdict is written to the key `<prefix>scan:<scan_id>` (short TTL: for a waiter that
subscribes after it was published) and published on the channel of the same name (for the
waiters already listening). Each instance keeps one pattern subscription to `*scan:*` and
hands each message to the requests waiting for that scan. Redis is the
fast path only: the verdict is also in the `scans` table, which is what a waiter falls back
to when Redis is slow or down.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator, Sequence
from uuid import UUID

from pydantic import ValidationError
from redis.asyncio import Redis
from redis.exceptions import RedisError

from scanner_gateway.domain import ScanAnswer

log = logging.getLogger(__name__)

# The channels the gateway's Redis user may use (deploy/local/stack.sh): Redis lets a user
# subscribe to a pattern only if its ACL lists that very pattern, so this is the one pattern
# subscribed to, whatever the prefix; each message goes only to waiters of its exact channel.
VERDICT_CHANNELS = "*scan:*"


class VerdictBroker:
    def __init__(self, redis: Redis, *, prefix: str, ttl_seconds: int) -> None:
        self._redis = redis
        self._prefix = prefix
        self._ttl_seconds = ttl_seconds
        self._waiters: dict[str, set[asyncio.Future[ScanAnswer]]] = {}
        self.listening = asyncio.Event()

    def channel(self, scan_id: UUID) -> str:
        return f"{self._prefix}scan:{scan_id}"

    async def announce(self, verdict: ScanAnswer) -> None:
        await self.announce_all([verdict])

    async def announce_all(self, verdicts: Sequence[ScanAnswer]) -> None:
        """Store and publish verdicts, in one Redis round trip. Best effort: a Redis failure
        is logged, since the verdicts are safe in Postgres and waiters fall back to them."""
        if not verdicts:
            return
        try:
            # one round trip; no MULTI/EXEC: each verdict's SET and PUBLISH go in order anyway
            async with self._redis.pipeline(transaction=False) as pipe:
                for verdict in verdicts:
                    name, data = self.channel(verdict.scan_id), verdict.model_dump_json()
                    pipe.set(name, data, ex=self._ttl_seconds)
                    pipe.publish(name, data)
                await pipe.execute()
        except (RedisError, OSError) as error:
            scans = ", ".join(str(verdict.scan_id) for verdict in verdicts)
            log.warning("could not announce the verdicts of scans %s: %s", scans, error)

    async def lookup(self, scan_id: UUID) -> ScanAnswer | None:
        try:
            data = await self._redis.get(self.channel(scan_id))
        except (RedisError, OSError) as error:
            log.warning("could not read the verdict of scan %s: %s", scan_id, error)
            return None
        return _decode(data)

    @contextlib.contextmanager
    def expecting(self, scan_id: UUID) -> Iterator[asyncio.Future[ScanAnswer]]:
        """A future for the verdict of `scan_id` heard while inside; entered before the read's
        commit, no verdict can come before it (decision 0105)."""
        name = self.channel(scan_id)
        future: asyncio.Future[ScanAnswer] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(name, set()).add(future)
        try:
            yield future
        finally:
            future.cancel()
            waiting = self._waiters.get(name)
            if waiting is not None:
                waiting.discard(future)
                if not waiting:
                    del self._waiters[name]

    async def wait(self, scan_id: UUID, seconds: float) -> ScanAnswer | None:
        """The verdict of `scan_id` if it comes within `seconds` (or came already)."""
        with self.expecting(scan_id) as future:
            # registered first, then the key: a verdict is either stored or heard, never missed
            known = await self.lookup(scan_id)
            if known is not None:
                return known
            return await within(future, seconds)

    async def listen(self, stop: asyncio.Event) -> None:
        """Hand every published verdict to its waiters until `stop`; reconnects on failure."""
        while not stop.is_set():
            pubsub = self._redis.pubsub()
            try:
                await pubsub.psubscribe(VERDICT_CHANNELS)
                self.listening.set()
                while not stop.is_set():
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.5)
                    if message is not None and message.get("type") == "pmessage":
                        self._dispatch(message["channel"], message["data"])
            except (RedisError, OSError) as error:
                self.listening.clear()
                log.warning("verdict subscription lost (%s); reconnecting", error)
                await _sleep_unless(stop, 0.5)
            finally:
                self.listening.clear()
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]

    def _dispatch(self, channel: bytes | str, data: bytes | str) -> None:
        name = channel.decode() if isinstance(channel, bytes) else channel
        waiting = self._waiters.get(name)
        if not waiting:
            return
        verdict = _decode(data)
        if verdict is None:
            return
        for future in waiting:
            if not future.done():
                future.set_result(verdict)


async def within(future: asyncio.Future[ScanAnswer], seconds: float) -> ScanAnswer | None:
    """The verdict `future` is to hear, if it comes within `seconds`."""
    with contextlib.suppress(TimeoutError):
        return await asyncio.wait_for(future, seconds)
    return None


def _decode(data: bytes | str | None) -> ScanAnswer | None:
    if data is None:
        return None
    try:
        return ScanAnswer.model_validate_json(data)
    except ValidationError:
        log.warning("ignoring a malformed verdict in Redis: %r", data[:200])
        return None


async def _sleep_unless(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)
