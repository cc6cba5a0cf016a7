"""Our own HTTP/1.1 client for the calls to operators' wallet servers: one pool of kept-alive
connections per operator (scheme, host, port), a connection taken and given back in
constant time, each connection an asyncio protocol whose answers httptools (llhttp, in C)
parses. It does what a call needs and nothing else: one POST at a time per connection, no
redirect followed, no retry, no cookie, no proxy
(docs/decisions/0099-a-lean-http-client-for-operator-calls.md).

What it guarantees, as `HttpxTransport` does:
- the caller's one deadline bounds an attempt, waiting for a connection, connecting (TLS
  included) and reading: a connection whose attempt was given up is closed, never reused;
- a 200 body over `MAX_ANSWER_BYTES` ends the attempt as soon as it passes the cap, the
  connection closed unread; of any other status only the first `ERROR_EXCERPT_BYTES`;
- https is verified: httpx's trust roots (certifi, or `SSL_CERT_FILE` / `SSL_CERT_DIR`) and
  the host name, unless a context is given;
- at most `max_connections` connections per operator; a caller past it waits its turn;
- a request is written only on a connection known to be open: one the operator closed, that
  has been idle longer than `keepalive_seconds` or that has bytes nobody asked for is closed
  and another taken. Whatever happens once a byte is written is `AnswerLostError`, never
  tried again here: a bet is not sent twice by the client
  (`NotSentError` only when no connection could be made).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import select
import ssl
import time
from collections import deque
from collections.abc import Mapping
from typing import Any, cast
from urllib.parse import quote, urlsplit

import httptools
from opentelemetry import propagate
from opentelemetry.trace import SpanKind, StatusCode, Tracer

from teenpatti.observability.tracing import client_tracer
from teenpatti.seamless.transports import (
    ERROR_EXCERPT_BYTES,
    MAX_ANSWER_BYTES,
    AnswerLostError,
    NotSentError,
    Posted,
    describe,
)

# below the keep-alive timeout of common servers (uvicorn and Node 5 s, gunicorn 2 s): a
# connection is not reused at the moment its server closes it
KEEPALIVE_SECONDS = 1.5
# a status line and headers of an answer of five fields fit in far less
MAX_HEADER_BYTES = 16 * 1024
_UNSAFE_IN_HEADER = re.compile(r"[\r\n\x00]")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class Http11Transport:
    """POSTs to operators' wallet servers over kept-alive HTTP/1.1 connections, one pool
    per operator. Open once per process, close with `aclose`."""

    def __init__(
        self,
        *,
        max_connections: int = 200,
        ssl_context: ssl.SSLContext | None = None,
        keepalive_seconds: float = KEEPALIVE_SECONDS,
    ) -> None:
        if max_connections < 1:
            raise ValueError("max_connections must be at least 1")
        self._max_connections = max_connections
        self._ssl_context = ssl_context
        self._keepalive_seconds = keepalive_seconds
        self._pools: dict[tuple[str, str, int], _Pool] = {}
        # by URL: its pool and the request's first lines, worked out once
        self._routes: dict[str, tuple[_Pool, bytes]] = {}

    async def aclose(self) -> None:
        for pool in self._pools.values():
            pool.close()
        self._pools.clear()
        self._routes.clear()

    async def post(
        self, url: str, body: bytes, headers: Mapping[str, str], signature_header: str
    ) -> Posted:
        tracer = client_tracer()
        if tracer is None:
            return await self._post(url, body, headers, signature_header)
        return await self._traced(tracer, url, body, headers, signature_header)

    async def _post(
        self, url: str, body: bytes, headers: Mapping[str, str], signature_header: str
    ) -> Posted:
        try:
            pool, head = self._route(url)
            request = _request(head, body, headers)
        except ValueError as error:  # not a URL or a header we write: nothing is sent
            raise NotSentError(str(error)) from error
        connection = await pool.acquire()
        try:
            posted = await connection.exchange(request, signature_header.lower().encode())
        except BaseException:
            # given up (the deadline) or cut off: what the connection carries next is unknown
            connection.discard()
            raise
        pool.release(connection)
        return posted

    async def _traced(
        self,
        tracer: Tracer,
        url: str,
        body: bytes,
        headers: Mapping[str, str],
        signature_header: str,
    ) -> Posted:
        """The call in a client span that the operator receives as its `traceparent`, named and
        described as OpenTelemetry's httpx instrumentation does."""
        with tracer.start_as_current_span(
            "POST", kind=SpanKind.CLIENT, attributes=_SEMCONV.request(url)
        ) as span:
            carried = dict(headers)
            propagate.inject(carried)
            posted = await self._post(url, body, carried, signature_header)
            for name in _SEMCONV.status_attributes:
                span.set_attribute(name, posted.status)
            if posted.status >= 400:
                span.set_status(StatusCode.ERROR)
            return posted

    def _route(self, url: str) -> tuple[_Pool, bytes]:
        known = self._routes.get(url)
        if known is None:
            if len(self._routes) > 4_096:  # operators' URLs changed many times over
                self._routes.clear()
            known = self._routes[url] = self._new_route(url)
        return known

    def _new_route(self, url: str) -> tuple[_Pool, bytes]:
        parts = urlsplit(url)
        if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
            raise ValueError(f"not an http(s) URL with a host: {url!r}")
        if parts.username is not None or parts.password is not None:
            raise ValueError("an operator's URL carries no user or password")
        port = parts.port or _DEFAULT_PORTS[parts.scheme]  # ValueError: not a port
        key = (parts.scheme, parts.hostname, port)
        pool = self._pools.get(key)
        if pool is None:
            tls = None
            if parts.scheme == "https":
                tls = self._ssl_context or _verified_context()
            pool = self._pools[key] = _Pool(
                parts.hostname, port, tls, self._max_connections, self._keepalive_seconds
            )
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        if port != _DEFAULT_PORTS[parts.scheme]:
            host = f"{host}:{port}"
        target = quote(parts.path or "/", safe="/%:@!$&'()*+,;=-._~")
        if parts.query:
            target += "?" + quote(parts.query, safe="/%:@!$&'()*+,;=-._~?")
        head = f"POST {target} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: teenpatti\r\n"
        return pool, head.encode("ascii")


def _request(head: bytes, body: bytes, headers: Mapping[str, str]) -> bytes:
    lines = []
    for name, value in headers.items():
        if _UNSAFE_IN_HEADER.search(name) or _UNSAFE_IN_HEADER.search(value):
            raise ValueError(f"header {name!r} holds a line break")
        lines.append(f"{name}: {value}\r\n")
    lines.append(f"Content-Length: {len(body)}\r\n\r\n")
    return head + "".join(lines).encode("latin-1") + body


def _verified_context() -> ssl.SSLContext:
    # the same trust roots as httpx's, so that the choice of client changes no trust
    import httpx

    return httpx.create_ssl_context()


class _Pool:
    """One operator's connections: the idle ones, most recently used last; the count of
    those open or opening (at most `limit`); the callers waiting for one, in order."""

    def __init__(
        self, host: str, port: int, tls: ssl.SSLContext | None, limit: int, keepalive: float
    ) -> None:
        self.host = host
        self.port = port
        self.tls = tls
        self.limit = limit
        self.keepalive = keepalive
        self.idle: deque[_Connection] = deque()
        self.opened = 0
        # each is given a connection, or None: a free place to open one in (counted)
        self.waiters: deque[asyncio.Future[_Connection | None]] = deque()
        self.closed = False

    async def acquire(self) -> _Connection:
        while True:
            if self.closed:
                raise NotSentError("the client is closed")
            while self.idle:
                connection = self.idle.pop()
                if connection.reusable():
                    return connection
                connection.discard()
            if self.opened < self.limit:
                self.opened += 1
                break
            handed = await self._wait()
            if handed is None:
                break
            if handed.reusable():
                return handed
            handed.discard()
        try:
            return await self._open()
        except BaseException:
            self.place_freed()
            raise

    async def _wait(self) -> _Connection | None:
        waiter: asyncio.Future[_Connection | None] = asyncio.get_running_loop().create_future()
        self.waiters.append(waiter)
        try:
            return await waiter
        except asyncio.CancelledError:
            # handed something just as the deadline cancelled us: pass it on
            if waiter.done() and not waiter.cancelled():
                handed = waiter.result()
                if handed is None:
                    self.place_freed()
                else:
                    self.release(handed)
            raise

    async def _open(self) -> _Connection:
        loop = asyncio.get_running_loop()
        try:
            transport, connection = await loop.create_connection(
                lambda: _Connection(self),
                self.host,
                self.port,
                ssl=self.tls,
                server_hostname=self.host if self.tls is not None else None,
            )
        except OSError as error:  # refused, unreachable, no such host, TLS refused
            raise NotSentError(describe(error)) from error
        # uvloop calls connection_made after it returns
        connection.transport = transport
        if connection.closed:  # closed by the server as soon as it was open
            raise NotSentError("the server closed the connection at once")
        connection.counted = True
        connection.idle_since = time.monotonic()
        return connection

    def release(self, connection: _Connection) -> None:
        """A connection whose answer was read whole: to a waiting caller, else idle."""
        if self.closed or not connection.keep_alive or connection.closed:
            connection.discard()
            return
        connection.idle_since = time.monotonic()
        if self._hand(connection):
            return
        self.idle.append(connection)
        # the longest idle ones are not taken while others are; close them once stale
        while self.idle and not self.idle[0].fresh(connection.idle_since):
            self.idle.popleft().discard()

    def place_freed(self) -> None:
        """A connection closed (or never opened): its place goes to the first caller waiting."""
        self.opened -= 1
        if self.waiters and not self.closed:
            self.opened += 1
            if not self._hand(None):
                self.opened -= 1

    def _hand(self, handed: _Connection | None) -> bool:
        while self.waiters:
            waiter = self.waiters.popleft()
            if not waiter.done():
                waiter.set_result(handed)
                return True
        return False

    def close(self) -> None:
        self.closed = True
        while self.idle:
            self.idle.pop().discard()
        while self.waiters:
            waiter = self.waiters.popleft()
            if not waiter.done():
                waiter.set_exception(NotSentError("the client is closed"))


class _Connection(asyncio.Protocol):
    """One kept-alive connection: one request at a time, its answer read by httptools."""

    def __init__(self, pool: _Pool) -> None:
        self.pool = pool
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpResponseParser(self)
        self.counted = False  # its place in the pool is taken (opened), to give back once
        self.discarded = False
        self.closed = False
        self.idle_since = 0.0
        self._poll: select.poll | None = None
        # the attempt under way
        self.answer: asyncio.Future[Posted] | None = None
        self.keep_alive = False
        self._signature_name = b""
        self._signature: bytes | None = None
        self._status = 0
        self._limit = MAX_ANSWER_BYTES
        self._body = bytearray()
        self._received = 0
        self._headers_done = False
        self._delimited = False  # a Content-Length or Transfer-Encoding: not read until close
        self._informational = False
        self._over = False  # past the cap: the rest is not read

    # -- the pool's side -------------------------------------------------------------

    def fresh(self, now: float) -> bool:
        return now - self.idle_since <= self.pool.keepalive

    def reusable(self) -> bool:
        """Open, idle for less than the keep-alive and with nothing to read: the operator has
        not closed it (an EOF makes the socket readable before the loop has seen it)."""
        transport = self.transport
        if (
            self.closed
            or self.discarded
            or transport is None
            or transport.is_closing()
            or not self.fresh(time.monotonic())
        ):
            return False
        if self._poll is None:
            sock = transport.get_extra_info("socket")
            if sock is None:
                return False
            self._poll = select.poll()
            self._poll.register(sock.fileno(), select.POLLIN | select.POLLPRI)
        return not self._poll.poll(0)

    def discard(self) -> None:
        if self.discarded:
            return
        self.discarded = True
        if self.transport is not None:
            self.transport.abort()
        if self.counted:
            self.pool.place_freed()

    async def exchange(self, request: bytes, signature_name: bytes) -> Posted:
        assert self.transport is not None
        self.answer = asyncio.get_running_loop().create_future()
        self.keep_alive = False
        self._signature_name = signature_name
        self._signature = None
        self._status = 0
        self._limit = MAX_ANSWER_BYTES
        self._body = bytearray()
        self._received = 0
        self._headers_done = self._delimited = self._informational = self._over = False
        self.transport.write(request)
        return await self.answer

    # -- asyncio's side --------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are asyncio's in all but their class
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        answer = self.answer
        if answer is None or answer.done():
            # bytes nobody asked for: what the connection carries is unknown
            self.keep_alive = False
            if self._idle():
                self.discard()
            return
        self._received += len(data)
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._lose("the server switched protocols instead of answering")
        except httptools.HttpParserError as error:
            self._lose(f"not an HTTP/1.1 answer: {describe(error)}")
        if self._over and self.transport is not None:
            self.transport.abort()  # not a byte more of it is read
        elif not self._headers_done and self._received > MAX_HEADER_BYTES:
            self._lose(f"no end of the headers in {MAX_HEADER_BYTES} bytes")

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        answer = self.answer
        if answer is not None and not answer.done():
            if self._headers_done and not self._delimited and exc is None:
                # an answer with neither length nor chunks ends when its connection does
                self._finish()
            elif self._received:
                self._lose("the connection closed before the whole answer", exc)
            else:
                self._lose("the connection closed before any answer", exc)
        if self._idle():
            with contextlib.suppress(ValueError):  # handed to a caller, not idle any more
                self.pool.idle.remove(self)
            self.discard()

    def _idle(self) -> bool:
        return self.answer is None or self.answer.done()

    def _lose(self, what: str, error: BaseException | None = None) -> None:
        self.keep_alive = False
        if self.answer is not None and not self.answer.done():
            said = f"{what}: {describe(error)}" if error is not None else what
            self.answer.set_exception(AnswerLostError(said))
        if self.transport is not None:
            self.transport.abort()

    def _finish(self) -> None:
        if self.answer is not None and not self.answer.done():
            signature = None if self._signature is None else self._signature.decode("latin-1")
            self.answer.set_result(Posted(self._status, bytes(self._body), signature))

    # -- httptools' side -------------------------------------------------------------

    def on_message_begin(self) -> None:
        if self._headers_done:  # a second answer to one request
            self.keep_alive = False
            self._over = True

    def on_header(self, name: bytes, value: bytes) -> None:
        lowered = name.lower()
        if lowered == self._signature_name:
            # repeated: both, as httpx joins them (and no signature verifies that)
            self._signature = value if self._signature is None else self._signature + b", " + value
        elif lowered == b"content-length" or (
            lowered == b"transfer-encoding" and b"chunked" in value.lower()
        ):
            self._delimited = True

    def on_headers_complete(self) -> None:
        if self._over:
            return
        status = self.parser.get_status_code()
        if 100 <= status < 200:  # an interim answer (100 Continue): the real one follows
            self._informational = True
            self._signature = None
            self._delimited = False
            return
        self._status = status
        self._headers_done = True
        self._limit = MAX_ANSWER_BYTES if status == 200 else ERROR_EXCERPT_BYTES

    def on_body(self, chunk: bytes) -> None:
        if self._over:
            return
        self._body += chunk
        if len(self._body) > self._limit:
            self._over = True
            self.keep_alive = False
            if self.answer is not None and not self.answer.done():
                excerpt = None if self._status == 200 else bytes(self._body[: self._limit])
                self.answer.set_result(Posted(self._status, excerpt, None))

    def on_message_complete(self) -> None:
        if self._informational:
            self._informational = False
            return
        if self._over:
            return
        self.keep_alive = self.parser.should_keep_alive()
        self._finish()


class _Semconv:
    """The span attributes of an HTTP client call, in the semantic conventions' older names
    or their stable ones as `OTEL_SEMCONV_STABILITY_OPT_IN` says (`http`, `http/dup`), as
    the maintained instrumentations name them."""

    def __init__(self, opt_in: str) -> None:
        chosen = {part.strip() for part in opt_in.split(",")}
        self.new = bool(chosen & {"http", "http/dup"})
        self.old = "http" not in chosen or "http/dup" in chosen
        self.status_attributes = (
            *(("http.status_code",) if self.old else ()),
            *(("http.response.status_code",) if self.new else ()),
        )

    def request(self, url: str) -> dict[str, Any]:
        attributes: dict[str, Any] = {}
        if self.old:
            attributes |= {"http.method": "POST", "http.url": url}
        if self.new:
            parts = urlsplit(url)
            attributes |= {"http.request.method": "POST", "url.full": url}
            if parts.hostname:
                attributes["server.address"] = parts.hostname
            if parts.port:
                attributes["server.port"] = parts.port
        return attributes


_SEMCONV = _Semconv(os.environ.get("OTEL_SEMCONV_STABILITY_OPT_IN", ""))
