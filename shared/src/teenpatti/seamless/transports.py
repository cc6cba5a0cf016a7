"""How a signed request reaches an operator's wallet server and its answer comes back: one
HTTP POST, its status, its body (up to a cap) and its signature header. Nothing here reads
the answer; the adapter does (teenpatti.seamless.hub88).

Two clients speak it, chosen by name (`teenpatti.seamless.client.HttpClient`, the
wallet's `TP_SEAMLESS_HTTP_CLIENT`): `http11`, our own HTTP/1.1 connection pools
(teenpatti.seamless.http11), and `httpx` (`HttpxTransport`), kept as the setting that turns
that off and for tests' in-memory servers
(docs/decisions/0099-a-lean-http-client-for-operator-calls.md).
Both end an attempt in the same ways: a `Posted`, `NotSentError` (no connection: nothing of
the request left us) or `AnswerLostError` (the request may have reached the operator, its
answer did not reach us whole). Neither retries, follows a redirect or reads past the cap.
"""

from __future__ import annotations

import importlib.util
import itertools
import logging
import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

import httpx

# far above any answer of five fields; more is not an answer
MAX_ANSWER_BYTES = 64 * 1024
# of an error page, its beginning is enough to say what went wrong
ERROR_EXCERPT_BYTES = 300
CONNECTIONS_PER_POOL = 8


@dataclass(frozen=True, slots=True)
class Posted:
    """An HTTP answer: its status, its body (None: a 200 too long to be an answer; of any
    other status, its first `ERROR_EXCERPT_BYTES`) and its signature header."""

    status: int
    body: bytes | None
    signature: str | None


class NotSentError(Exception):
    """No connection to the operator could be made: nothing of the request was sent."""


class AnswerLostError(Exception):
    """The request was sent (in part or whole) and no whole answer came back: the operator
    may have applied the call."""


class OperatorTransport(Protocol):
    async def post(
        self, url: str, body: bytes, headers: Mapping[str, str], signature_header: str
    ) -> Posted:
        """POST `body` to `url` once; the caller's deadline bounds it, connecting included."""
        ...

    async def aclose(self) -> None: ...


class HttpxTransport:
    """httpx, its `max_connections` spread over small pools taken in turn: httpcore's pool
    walks its connections for each waiting request at every request and answer, so one large
    pool costs far more CPU a call than several small ones
    (docs/decisions/0078-seamless-sender-pipeline.md)."""

    def __init__(
        self,
        *,
        max_connections: int = 200,
        connections_per_pool: int = CONNECTIONS_PER_POOL,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        _skip_absent_sniffio()
        # each call and its answer are recorded by the caller (the wallet's operator_calls);
        # httpx's own line per request would repeat them, at a log line's cost each
        logging.getLogger("httpx").setLevel(max(logging.WARNING, logging.getLogger("httpx").level))
        per_pool = max(1, min(connections_per_pool, max_connections))
        self._pools = [
            httpx.AsyncClient(
                limits=httpx.Limits(max_connections=per_pool, max_keepalive_connections=per_pool),
                transport=transport,
                # the caller's one deadline bounds the whole attempt instead
                timeout=None,
                follow_redirects=False,
            )
            for _ in range(math.ceil(max_connections / per_pool))
        ]
        self._turn = itertools.cycle(self._pools)

    async def aclose(self) -> None:
        for pool in self._pools:
            await pool.aclose()

    async def post(
        self, url: str, body: bytes, headers: Mapping[str, str], signature_header: str
    ) -> Posted:
        try:
            return await self._post(url, body, headers, signature_header)
        except httpx.ConnectError as error:
            raise NotSentError(describe(error)) from error
        except httpx.TransportError as error:
            # cut off while reading: the operator may have applied the call
            raise AnswerLostError(describe(error)) from error

    async def _post(
        self, url: str, body: bytes, headers: Mapping[str, str], signature_header: str
    ) -> Posted:
        http = next(self._turn)
        async with http.stream("POST", url, content=body, headers=headers) as response:
            status = response.status_code
            limit = MAX_ANSWER_BYTES if status == 200 else ERROR_EXCERPT_BYTES
            received = bytearray()
            async for chunk in response.aiter_bytes():
                received += chunk
                if len(received) > limit:
                    if status != 200:
                        return Posted(status, bytes(received[:limit]), None)
                    return Posted(status, None, None)
            return Posted(status, bytes(received), response.headers.get(signature_header))


def _skip_absent_sniffio() -> None:
    """httpcore imports `sniffio` each time it sets up a lock or an event, several times a
    call; when it is not installed (anyio no longer needs it), each of those imports walks
    `sys.path` again. Recording it as absent makes the import fail at once, as it would."""
    if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
        sys.modules["sniffio"] = None  # type: ignore[assignment]


def describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
