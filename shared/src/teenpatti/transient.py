"""Errors that mean a server (Postgres, Redis) is unreachable, restarting or shutting down
for the moment, not that a request or an event is wrong: the answer is to wait and try again
(a background loop) or to answer 503 and let the caller retry (an HTTP edge)."""

from __future__ import annotations

import asyncpg
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
