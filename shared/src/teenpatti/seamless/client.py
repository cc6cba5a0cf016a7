"""Calls to an operator's wallet server: one signed HTTP attempt per call, its outcome read
strictly (docs/decisions/0064-the-operator-wallet-wire.md).

The client never retries: whether a call may be tried again is the caller's to decide (a bet
never blindly, a win or a rollback until `RS_OK`). Every attempt carries a fresh
`request_uuid`; the `transaction_uuid` (the idempotency key) comes from the caller. An attempt
ends within the operator's `timeout_seconds`, connecting and reading included. Each attempt is
counted and timed here, once (`teenpatti_operator_*`, `record_attempt`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from types import TracebackType
from typing import Protocol, Self
from uuid import uuid4

import httpx

from teenpatti.observability.metrics import (
    OPERATOR_BAD_ANSWERS,
    OPERATOR_CALL_SECONDS,
    OPERATOR_CALL_TIMEOUTS,
    OPERATOR_CALLS,
)
from teenpatti.seamless.calls import (
    Answered,
    BadAnswer,
    BalanceCall,
    BetCall,
    Call,
    CallOutcome,
    Expected,
    NoAnswer,
    RollbackCall,
    WinCall,
)
from teenpatti.seamless.config import Adapter, OperatorConfig
from teenpatti.seamless.http11 import Http11Transport
from teenpatti.seamless.hub88 import Hub88Adapter
from teenpatti.seamless.signing import PrivateKey, PublicKey, sign
from teenpatti.seamless.transports import (
    MAX_ANSWER_BYTES,
    AnswerLostError,
    HttpxTransport,
    NotSentError,
    OperatorTransport,
)

__all__ = [
    "MAX_ANSWER_BYTES",
    "Answered",
    "BadAnswer",
    "CallOutcome",
    "HttpClient",
    "NoAnswer",
    "OperatorWalletClient",
    "WalletAdapter",
]


class WalletAdapter(Protocol):
    """One provider dialect: how a call is written and how its answer is read."""

    signature_header: str

    def request(self, call: Call, game_code: str, request_uuid: str) -> tuple[str, Encodable]:
        """The path under the operator's base URL and the request for one attempt."""
        ...

    def read_answer(
        self,
        body: bytes,
        signature: str | None,
        public_keys: Sequence[PublicKey],
        expected: Expected,
    ) -> Answered | BadAnswer: ...


class Encodable(Protocol):
    def model_dump_json(self) -> str: ...


ADAPTERS: Mapping[Adapter, WalletAdapter] = {Adapter.HUB88: Hub88Adapter()}


class HttpClient(StrEnum):
    """The HTTP client of the calls to operators' wallets (`TP_SEAMLESS_HTTP_CLIENT`)."""

    # our own HTTP/1.1 pools, one per operator, parsed by httptools (decision 0099)
    HTTP11 = "http11"
    # httpx with small pools (decision 0078)
    HTTPX = "httpx"


def open_transport(
    client: HttpClient,
    max_connections: int,
    *,
    httpx_transport: httpx.AsyncBaseTransport | None = None,
) -> OperatorTransport:
    """The transport named `client`, at most `max_connections` connections per operator
    (`httpx`: in all). An httpx transport (an in-memory server, in tests) means httpx."""
    if client is HttpClient.HTTPX or httpx_transport is not None:
        return HttpxTransport(max_connections=max_connections, transport=httpx_transport)
    return Http11Transport(max_connections=max_connections)


class OperatorWalletClient:
    """Signs with our private key; verifies answers with each operator's public keys.
    Open it in a lifespan (`async with`), share it: it keeps connections open per operator.

    Its HTTP client is `http` (`HttpClient.HTTP11` unless the setting turns it off, or a
    transport of one's own), with at most `max_connections` per operator
    (docs/decisions/0099-a-lean-http-client-for-operator-calls.md); an httpx `transport`
    (an in-memory server, in tests) means httpx."""

    def __init__(
        self,
        signing_key: PrivateKey,
        *,
        http: HttpClient | OperatorTransport = HttpClient.HTTP11,
        max_connections: int = 200,
        transport: httpx.AsyncBaseTransport | None = None,
        new_request_uuid: Callable[[], str] = lambda: str(uuid4()),
    ) -> None:
        self._signing_key = signing_key
        self._new_request_uuid = new_request_uuid
        self._http = (
            open_transport(http, max_connections, httpx_transport=transport)
            if isinstance(http, HttpClient)
            else http
        )

    @property
    def transport(self) -> OperatorTransport:
        """The HTTP client the calls go through."""
        return self._http

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def balance(self, config: OperatorConfig, call: BalanceCall) -> CallOutcome:
        return await self._attempt(config, call)

    async def bet(self, config: OperatorConfig, call: BetCall) -> CallOutcome:
        return await self._attempt(config, call)

    async def win(self, config: OperatorConfig, call: WinCall) -> CallOutcome:
        return await self._attempt(config, call)

    async def rollback(self, config: OperatorConfig, call: RollbackCall) -> CallOutcome:
        return await self._attempt(config, call)

    async def _attempt(self, config: OperatorConfig, call: Call) -> CallOutcome:
        if config.base_url is None:
            raise ValueError(f"operator {config.operator_id} has no wallet server (base_url)")
        started = time.perf_counter()
        outcome = await self._try(config, config.base_url, call)
        record_attempt(config.operator_id, call, outcome, time.perf_counter() - started)
        return outcome

    async def _try(self, config: OperatorConfig, base_url: str, call: Call) -> CallOutcome:
        adapter = ADAPTERS[config.adapter]
        request_uuid = self._new_request_uuid()
        path, request = adapter.request(call, config.game_code, request_uuid)
        body = request.model_dump_json().encode()
        headers = {
            "Content-Type": "application/json",
            adapter.signature_header: sign(self._signing_key, body),
        }
        try:
            async with asyncio.timeout(config.timeout_seconds):
                posted = await self._http.post(
                    base_url + path, body, headers, adapter.signature_header
                )
        except TimeoutError:
            return NoAnswer("timeout", f"no answer within {config.timeout_seconds} s", request_uuid)
        except NotSentError as error:
            return NoAnswer("connection", str(error), request_uuid)
        except AnswerLostError as error:
            # cut off while reading: the operator may have applied the call
            return NoAnswer("unreadable", str(error), request_uuid)
        if posted.status != 200:
            said = (posted.body or b"").decode("utf-8", "replace").strip()
            detail = f"HTTP {posted.status}: {said}" if said else f"HTTP {posted.status}"
            return NoAnswer("http_status", detail, request_uuid)
        if posted.body is None:
            return BadAnswer(
                "oversized", b"", f"an answer over {MAX_ANSWER_BYTES} bytes", request_uuid
            )
        expected = Expected(request_uuid, call.user, call.currency)
        return adapter.read_answer(
            posted.body, posted.signature, config.loaded_public_keys, expected
        )


CALL_NAMES: Mapping[type[Call], str] = {
    BalanceCall: "balance",
    BetCall: "bet",
    WinCall: "win",
    RollbackCall: "rollback",
}


def outcome_label(outcome: CallOutcome) -> str:
    """The `outcome` label of an attempt: the answer's status, or timeout, no_answer,
    bad_answer (a bounded set: an unknown status is a bad answer)."""
    match outcome:
        case Answered(status=status):
            return str(status)
        case NoAnswer(reason="timeout"):
            return "timeout"
        case NoAnswer():
            return "no_answer"
        case BadAnswer():
            return "bad_answer"


def record_attempt(operator_id: str, call: Call, outcome: CallOutcome, seconds: float) -> None:
    """Count and time one attempt (`teenpatti_operator_*`): by operator and kind of call,
    never by player or round."""
    name = CALL_NAMES[type(call)]
    OPERATOR_CALLS.labels(operator_id, name, outcome_label(outcome)).inc()
    OPERATOR_CALL_SECONDS.labels(operator_id, name).observe(seconds)
    match outcome:
        case NoAnswer(reason="timeout"):
            OPERATOR_CALL_TIMEOUTS.labels(operator_id, name).inc()
        case BadAnswer(reason=reason):
            OPERATOR_BAD_ANSWERS.labels(operator_id, reason).inc()
        case _:
            pass
