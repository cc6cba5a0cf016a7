"""Errors that mean a server (Postgres, Redis) is unreachable, restarting or shutting down
for the moment, not that a request or an event is wrong: the answer is to wait and try again
(a background loop), to answer 503 and let the caller retry (an HTTP edge), or for a starting
instance to wait for the server (`once_reachable`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import asyncpg
from aiokafka.errors import KafkaError, KafkaTimeoutError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

SERVER_UNAVAILABLE: tuple[type[Exception], ...] = (
    OSError,  # refused, reset, unreachable, timed out
    asyncpg.PostgresConnectionError,  # the connection was lost
    asyncpg.InterfaceError,  # a connection closed under its pool
    asyncpg.OperatorInterventionError,  # 57xxx: starting up, shutting down, crashed
    asyncpg.TooManyConnectionsError,
    RedisConnectionError,
    RedisTimeoutError,
)

log = logging.getLogger(__name__)
T = TypeVar("T")


def unavailable(error: BaseException) -> bool:
    """Whether `error` says a server is unreachable or restarting for the moment: one of
    SERVER_UNAVAILABLE, or a Kafka error Kafka's client calls retriable (no broker to
    bootstrap from, no controller or leader yet, a request timed out)."""
    if isinstance(error, SERVER_UNAVAILABLE):
        return True
    return isinstance(error, KafkaError) and (
        error.retriable or isinstance(error, KafkaTimeoutError)
    )


async def once_reachable(what: str, attempt: Callable[[], Awaitable[T]], *, seconds: float) -> T:
    """`attempt()`, tried again while it fails because a server is `unavailable`, for at
    most `seconds` in all (0: once): an instance started while Kafka or Postgres restarts
    waits for it rather than exiting. Each failed try is logged; any other error, and the
    last one, is raised."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    delay = 0.25
    while True:
        try:
            return await attempt()
        except Exception as error:
            if not unavailable(error) or loop.time() + delay > deadline:
                raise
            log.warning(
                "%s unreachable while starting (%s: %s); trying again in %.2f s",
                what,
                type(error).__name__,
                error,
                delay,
            )
        await asyncio.sleep(delay)
        delay = min(delay * 2, 2.0)
