"""What the check sends and receives: one HTTP attempt as an exchange, the transport that
makes it, and how an exchange is shown without its secrets."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol, Self

import httpx

from teenpatti.seamless.client import MAX_ANSWER_BYTES

REDACTED_TOKEN = "<token>"
_SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})


@dataclass(frozen=True, slots=True)
class Sent:
    path: str
    headers: Mapping[str, str]
    body: bytes


@dataclass(frozen=True, slots=True)
class Received:
    status: int
    headers: Mapping[str, str]  # names in lower case
    body: bytes


@dataclass(frozen=True, slots=True)
class Exchange:
    """One HTTP attempt of a case: what was sent and what came back (`received` None: no
    answer, `problem` says why). `currency` is the request's own, where it names one."""

    case: str
    what: str
    request_uuid: str
    user: str
    currency: str | None
    sent: Sent
    received: Received | None
    problem: str = ""


class NoAnswerError(Exception):
    """The attempt got no HTTP answer (a timeout, a connection cut off)."""


class UnreachableError(Exception):
    """The operator's server cannot be connected to at all."""


class Transport(Protocol):
    async def post(self, path: str, body: bytes, headers: Mapping[str, str]) -> Received: ...


class HttpTransport:
    """POSTs to the operator's base URL over httpx, one deadline per attempt, no redirect
    followed (an answer other than 200 is no answer)."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout_seconds: float = 10.0,
        verify_tls: Any = True,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._base_url = base_url.rstrip("/")
        self._timeout = timeout_seconds
        self._client = httpx.AsyncClient(
            transport=transport, verify=verify_tls, timeout=None, follow_redirects=False
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self._client.aclose()

    async def post(self, path: str, body: bytes, headers: Mapping[str, str]) -> Received:
        try:
            async with asyncio.timeout(self._timeout):
                return await self._post(path, body, headers)
        except TimeoutError:
            raise NoAnswerError(f"no answer within {self._timeout:g} s") from None
        except httpx.ConnectError as error:
            raise UnreachableError(_describe(error)) from None
        except httpx.HTTPError as error:
            raise NoAnswerError(_describe(error)) from None

    async def _post(self, path: str, body: bytes, headers: Mapping[str, str]) -> Received:
        url = self._base_url + path
        async with self._client.stream(
            "POST", url, content=body, headers=dict(headers)
        ) as response:
            received = bytearray()
            async for chunk in response.aiter_bytes():
                received += chunk
                if len(received) > MAX_ANSWER_BYTES:
                    # far more than any answer: the beginning is enough to show it
                    del received[MAX_ANSWER_BYTES:]
                    break
            return Received(
                response.status_code,
                {name.lower(): value for name, value in response.headers.items()},
                bytes(received),
            )


def _describe(error: Exception) -> str:
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def redact(text: str, secrets: Sequence[str]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED_TOKEN)
            escaped = json.dumps(secret)[1:-1]
            if escaped != secret:
                text = text.replace(escaped, REDACTED_TOKEN)
    return text


def _headers(headers: Mapping[str, str], secrets: Sequence[str]) -> dict[str, str]:
    return {
        name: "<redacted>" if name.lower() in _SECRET_HEADERS else redact(value, secrets)
        for name, value in headers.items()
    }


def exchange_view(exchange: Exchange, secrets: Sequence[str]) -> dict[str, Any]:
    """An exchange as it is shown: the session token (and any secret header) replaced."""
    received = exchange.received
    return {
        "what": exchange.what,
        "sent": {
            "method": "POST",
            "path": exchange.sent.path,
            "headers": _headers(exchange.sent.headers, secrets),
            "body": redact(exchange.sent.body.decode("utf-8", "replace"), secrets),
        },
        "received": None
        if received is None
        else {
            "status": received.status,
            "headers": _headers(received.headers, secrets),
            "body": redact(received.body.decode("utf-8", "replace"), secrets),
        },
        "problem": exchange.problem,
    }
