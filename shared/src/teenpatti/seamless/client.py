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
import importlib.util
import itertools
import logging
import math
import sys
import time
from collections.abc import Callable, Mapping, Sequence
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
from teenpatti.seamless.hub88 import Hub88Adapter
from teenpatti.seamless.signing import PrivateKey, PublicKey, sign

__all__ = [
    "Answered",
    "BadAnswer",
    "CallOutcome",
    "NoAnswer",
    "OperatorWalletClient",
    "WalletAdapter",
]

# far above any answer of five fields; more is not an answer
MAX_ANSWER_BYTES = 64 * 1024
ERROR_EXCERPT_BYTES = 300
CONNECTIONS_PER_POOL = 8


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


class OperatorWalletClient:
    """Signs with our private key; verifies answers with each operator's public keys.
    Open it in a lifespan (`async with`), share it: it keeps connections open per operator.

    Its `max_connections` are spread over small pools taken in turn: httpcore's pool walks
    its connections for each waiting request at every request and answer, so one large
    pool costs far more CPU a call than several small ones
    (docs/decisions/0078-seamless-sender-pipeline.md)."""

    def __init__(
        self,
        signing_key: PrivateKey,
        *,
        max_connections: int = 200,
        connections_per_pool: int = CONNECTIONS_PER_POOL,
        transport: httpx.AsyncBaseTransport | None = None,
        new_request_uuid: Callable[[], str] = lambda: str(uuid4()),
    ) -> None:
        self._signing_key = signing_key
        self._new_request_uuid = new_request_uuid
        _skip_absent_sniffio()
        # each call and its answer are recorded by the caller (the wallet's operator_calls);
        # httpx's own line per request would repeat them, at a log line's cost each
        logging.getLogger("httpx").setLevel(max(logging.WARNING, logging.getLogger("httpx").level))
        per_pool = max(1, min(connections_per_pool, max_connections))
        self._pools = [
            httpx.AsyncClient(
                limits=httpx.Limits(max_connections=per_pool, max_keepalive_connections=per_pool),
                transport=transport,
                # one deadline bounds the whole attempt instead: the operator's timeout_seconds
                timeout=None,
                follow_redirects=False,
            )
            for _ in range(math.ceil(max_connections / per_pool))
        ]
        self._turn = itertools.cycle(self._pools)

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
        for pool in self._pools:
            await pool.aclose()

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
                status, answer, signature = await self._post(
                    base_url + path, body, headers, adapter.signature_header
                )
        except TimeoutError:
            return NoAnswer("timeout", f"no answer within {config.timeout_seconds} s", request_uuid)
        except httpx.ConnectError as error:
            return NoAnswer("connection", _describe(error), request_uuid)
        except httpx.TransportError as error:
            # cut off while reading: the operator may have applied the call
            return NoAnswer("unreadable", _describe(error), request_uuid)
        if status != 200:
            said = (answer or b"").decode("utf-8", "replace").strip()
            detail = f"HTTP {status}: {said}" if said else f"HTTP {status}"
            return NoAnswer("http_status", detail, request_uuid)
        if answer is None:
            return BadAnswer(
                "oversized", b"", f"an answer over {MAX_ANSWER_BYTES} bytes", request_uuid
            )
        expected = Expected(request_uuid, call.user, call.currency)
        return adapter.read_answer(answer, signature, config.loaded_public_keys, expected)

    async def _post(
        self, url: str, body: bytes, headers: dict[str, str], signature_header: str
    ) -> tuple[int, bytes | None, str | None]:
        """The HTTP status, the body (None: too long for an answer; the beginning of an error
        page) and the signature header."""
        http = next(self._turn)
        async with http.stream("POST", url, content=body, headers=headers) as response:
            # of an error page, its beginning is enough to say what went wrong
            limit = MAX_ANSWER_BYTES if response.status_code == 200 else ERROR_EXCERPT_BYTES
            received = bytearray()
            async for chunk in response.aiter_bytes():
                received += chunk
                if len(received) > limit:
                    if response.status_code != 200:
                        return response.status_code, bytes(received[:limit]), None
                    return response.status_code, None, None
            signature = response.headers.get(signature_header)
            return response.status_code, bytes(received), signature


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


def _skip_absent_sniffio() -> None:
    """httpcore imports `sniffio` each time it sets up a lock or an event, several times a
    call; when it is not installed (anyio no longer needs it), each of those imports walks
    `sys.path` again. Recording it as absent makes the import fail at once, as it would."""
    if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
        sys.modules["sniffio"] = None  # type: ignore[assignment]


def _describe(error: Exception) -> str:
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
