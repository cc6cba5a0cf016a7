"""What one caller may send to a service: how large a body, how many requests.

The kernel puts both in front of every app (`Service.create_app`):
- `BodyLimitMiddleware` refuses a request body larger than `TP_HTTP_MAX_BODY_BYTES` with 413
  `payload_too_large`: at once when its Content-Length says so, else as it arrives, before
  any route has buffered it. A route that bounds its own reading (the gateway's
  `POST /scans`, which records what it refused) is exempt.
- `RateLimitMiddleware` gives each API key (or device credential) and each client address a
  token bucket; a request that finds either empty is refused with 429 `rate_limited` and
  `Retry-After`, and spends nothing from the other. The buckets live in the instance's
  memory (docs/decisions/0062-rate-limits-per-instance.md): no round trip, nothing to fail,
  and a limit per instance, which an operator multiplies by the instance count. The client
  address is the one a trusted proxy names (`teenpatti.kernel.proxies`); a key that comes
  through one is counted per key and client, so that the web front's one key, used for
  every player, is not one bucket a player could drain
  (docs/decisions/0087-limits-at-the-web-front.md).
The probes and the scrape (`/health`, `/ready`, `/metrics`) are never limited.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from teenpatti.http import ProblemError, problem_response
from teenpatti.kernel.proxies import TrustedProxies, client_address
from teenpatti.observability.metrics import HTTP_RATE_LIMITED

# never limited: a balancer's probes and Prometheus's scrapes must always get through
UNLIMITED_PATHS = frozenset({"/health", "/ready", "/metrics"})
# the most callers of each kind remembered at once; past it the least recently seen is
# forgotten (and starts again with a full bucket): memory stays bounded under a spray of
# addresses or made-up keys
MAX_BUCKETS = 100_000
POLICY_VIOLATION = 1008


class BodyTooLargeError(ProblemError, HTTPException):
    # an HTTPException too, so that FastAPI passes it on from body parsing as it is
    def __init__(self, limit: int) -> None:
        detail = f"the request body is larger than {limit} bytes"
        ProblemError.__init__(self, 413, "payload_too_large", detail, limit=limit)
        HTTPException.__init__(self, 413, detail)


class BodyLimitMiddleware:
    """Refuses (413 problem) a request body that is or grows past `limit` bytes, whatever its
    Content-Length says, before any route buffers it."""

    def __init__(self, app: ASGIApp, limit: int, exempt: frozenset[str] = frozenset()) -> None:
        self._app = app
        self._limit = limit
        self._exempt = exempt  # routes that bound their own reading

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self._exempt:
            await self._app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self._limit:
            error = BodyTooLargeError(self._limit)
            response = problem_response(
                413, error.code, error.detail, scope["path"], limit=self._limit
            )
            response.headers["Connection"] = "close"  # the rest of the body is not read
            await response(scope, receive, send)
            return
        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self._limit:
                    raise BodyTooLargeError(self._limit)
            return message

        await self._app(scope, limited_receive, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None  # the server refuses it; the running count still bounds it
    return None


@dataclass
class _Bucket:
    tokens: float
    updated_at: float


@dataclass(frozen=True)
class Rate:
    """A sustained rate and the burst above it; a rate of 0 is no limit."""

    per_second: float
    burst: int


class TokenBuckets:
    """One token bucket per caller: each request takes a token, `rate.per_second` tokens come
    back each second, at most `rate.burst` are kept. Time is passed in."""

    def __init__(self, rate: Rate, *, max_callers: int = MAX_BUCKETS) -> None:
        self.rate = rate
        self._max_callers = max_callers
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def wait(self, caller: str, now: float) -> float:
        """0 if `caller` may go now (nothing taken yet), else how many seconds until it may."""
        if not self.rate.per_second:
            return 0.0
        bucket = self._refilled(caller, now)
        return 0.0 if bucket.tokens >= 1 else (1 - bucket.tokens) / self.rate.per_second

    def take(self, caller: str, now: float) -> None:
        """Spend one of `caller`'s tokens (after `wait` said it may go)."""
        if self.rate.per_second:
            self._refilled(caller, now).tokens -= 1

    def __len__(self) -> int:
        return len(self._buckets)

    def _refilled(self, caller: str, now: float) -> _Bucket:
        bucket = self._buckets.get(caller)
        if bucket is None:
            bucket = self._buckets[caller] = _Bucket(float(self.rate.burst), now)
            if len(self._buckets) > self._max_callers:
                self._buckets.popitem(last=False)
            return bucket
        self._buckets.move_to_end(caller)
        elapsed = max(now - bucket.updated_at, 0.0)
        bucket.tokens = min(float(self.rate.burst), bucket.tokens + elapsed * self.rate.per_second)
        bucket.updated_at = now
        return bucket


class RateLimitMiddleware:
    """429 `rate_limited` with `Retry-After` for a caller past its rate: per API key (the
    `X-Api-Key` header, else `Authorization`, known or not) and per client address (the
    peer's, or the one a proxy of `trusted_proxies` names; an IPv6 one by its /64). A key
    that comes through a trusted proxy is counted per key and client address. HTTP requests
    and WebSocket handshakes (refused with close code 1008) alike."""

    def __init__(
        self,
        app: ASGIApp,
        per_key: Rate,
        per_address: Rate,
        trusted_proxies: TrustedProxies | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._app = app
        self._keys = TokenBuckets(per_key)
        self._addresses = TokenBuckets(per_address)
        self._proxies = trusted_proxies or TrustedProxies()
        self._clock = clock

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or scope["path"] in UNLIMITED_PATHS:
            await self._app(scope, receive, send)
            return
        now = self._clock()
        key = _credential(scope)
        client = client_address(scope, self._proxies)
        checks = [("address", self._addresses, client.caller)]
        if key is not None:
            # a proxy's own key (the web front's viewer key) serves many callers: each its own
            caller = f"{key}@{client.caller}" if client.forwarded else key
            checks.insert(0, ("api_key", self._keys, caller))
        for limit, buckets, caller in checks:
            wait = buckets.wait(caller, now)
            if wait:
                HTTP_RATE_LIMITED.labels(limit).inc()
                await _refuse(scope, receive, send, limit, buckets.rate, wait)
                return
        for _, buckets, caller in checks:
            buckets.take(caller, now)
        await self._app(scope, receive, send)


def _credential(scope: Scope) -> str | None:
    """A digest of the request's key or bearer credential: the buckets never hold a secret."""
    found: bytes | None = None
    for name, value in scope.get("headers", ()):
        if name == b"x-api-key":
            found = value
            break
        if name == b"authorization":
            found = value
    if not found:
        return None
    return hashlib.blake2b(found, digest_size=16).hexdigest()


async def _refuse(
    scope: Scope, receive: Receive, send: Send, limit: str, rate: Rate, wait: float
) -> None:
    retry_after = max(1, math.ceil(wait))
    whose = "API key" if limit == "api_key" else "client address"
    detail = (
        f"too many requests from this {whose}: at most {rate.per_second:g} per second, in"
        f" bursts of {rate.burst}; retry after {retry_after} s"
    )
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": POLICY_VIOLATION, "reason": "rate_limited"})
        return
    response = problem_response(
        429, "rate_limited", detail, scope["path"], limit=limit, retry_after=retry_after
    )
    response.headers["Retry-After"] = str(retry_after)
    await response(scope, receive, send)
