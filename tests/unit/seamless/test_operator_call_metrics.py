"""Each attempt of a call to an operator's wallet is counted and timed once, by operator and
kind of call (`teenpatti_operator_*`): its outcome the answer's status, or timeout,
no_answer, bad_answer; a timeout and a bad answer (by reason) counted on their own too. The
client here talks to an in-memory wallet server (httpx's MockTransport)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest
from prometheus_client import REGISTRY

from teenpatti.seamless.calls import (
    BAD_ANSWER_REASONS,
    Answered,
    BadAnswer,
    BalanceCall,
    BetCall,
    NoAnswer,
    RollbackCall,
    Status,
    WinCall,
)
from teenpatti.seamless.client import OperatorWalletClient, outcome_label, record_attempt
from teenpatti.seamless.config import OperatorConfig, WalletMode
from teenpatti.seamless.signing import (
    SIGNATURE_HEADER,
    generate_private_key,
    load_private_key,
    sign,
)

VECTORS = Path(__file__).parent / "vectors"
OPERATOR_KEY = load_private_key((VECTORS / "private.pem").read_bytes())
GAME_KEY = generate_private_key()
BET = BetCall(user="p1", token="t", transaction_uuid="s-1", round="R1", amount=100, currency="INR")


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def config(operator_id: str, timeout: float = 3.0) -> OperatorConfig:
    return OperatorConfig(
        operator_id=operator_id,
        mode=WalletMode.SEAMLESS,
        base_url="http://wallet.test",
        public_keys=((VECTORS / "public.pub").read_text(),),
        timeout_seconds=timeout,
    )


def answering(
    status: str = "RS_OK", *, signing: object = OPERATOR_KEY, http_status: int = 200
) -> httpx.MockTransport:
    """A wallet server answering every call with `status`, signed with `signing` (None:
    unsigned)."""

    def answer(request: httpx.Request) -> httpx.Response:
        asked = json.loads(request.content)
        body = json.dumps(
            {
                "user": asked["user"],
                "status": status,
                "request_uuid": asked["request_uuid"],
                "currency": "INR",
                "balance": 10_000_000,
            }
        ).encode()
        headers = {} if signing is None else {SIGNATURE_HEADER: sign(signing, body)}  # type: ignore[arg-type]
        return httpx.Response(http_status, content=body, headers=headers)

    return httpx.MockTransport(answer)


async def attempt(
    transport: httpx.AsyncBaseTransport, operator: str, timeout: float = 3.0
) -> object:
    async with OperatorWalletClient(GAME_KEY, max_connections=1, transport=transport) as client:
        return await client.bet(config(operator, timeout), BET)


@pytest.mark.parametrize(
    ("transport", "outcome"),
    [
        (answering(), "RS_OK"),
        (answering("RS_ERROR_NOT_ENOUGH_MONEY"), "RS_ERROR_NOT_ENOUGH_MONEY"),
        (answering(http_status=503), "no_answer"),
        (answering(signing=None), "bad_answer"),
    ],
)
async def test_each_attempt_is_counted_by_its_outcome_and_timed(
    transport: httpx.MockTransport, outcome: str
) -> None:
    operator = f"op-{outcome.lower()}"
    await attempt(transport, operator)
    assert (
        value("teenpatti_operator_calls_total", operator=operator, call="bet", outcome=outcome) == 1
    )
    assert (
        value("teenpatti_operator_call_duration_seconds_count", operator=operator, call="bet") == 1
    )
    assert value("teenpatti_operator_call_timeouts_total", operator=operator, call="bet") == 0


async def test_a_timeout_is_counted_as_one() -> None:
    async def never(request: httpx.Request) -> httpx.Response:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    outcome = await attempt(httpx.MockTransport(never), "op-slow", timeout=0.05)
    assert isinstance(outcome, NoAnswer) and outcome.reason == "timeout"
    labels = {"operator": "op-slow", "call": "bet"}
    assert value("teenpatti_operator_calls_total", **labels, outcome="timeout") == 1
    assert value("teenpatti_operator_call_timeouts_total", **labels) == 1
    assert value("teenpatti_operator_call_duration_seconds_count", **labels) == 1


async def test_a_bad_answer_is_counted_by_its_reason() -> None:
    outcome = await attempt(answering(signing=generate_private_key()), "op-forged")
    assert isinstance(outcome, BadAnswer) and outcome.reason == "wrong_signature"
    assert (
        value(
            "teenpatti_operator_bad_answers_total", operator="op-forged", reason="wrong_signature"
        )
        == 1
    )
    assert (
        value(
            "teenpatti_operator_calls_total", operator="op-forged", call="bet", outcome="bad_answer"
        )
        == 1
    )


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (BalanceCall(user="p1", token="t", currency="INR"), "balance"),
        (BET, "bet"),
        (
            WinCall(
                user="p1",
                token="t",
                transaction_uuid="w-1",
                reference_transaction_uuid="s-1",
                round="R1",
                amount=0,
                currency="INR",
            ),
            "win",
        ),
        (
            RollbackCall(
                user="p1",
                token="t",
                transaction_uuid="r-1",
                reference_transaction_uuid="s-1",
                round="R1",
                currency="INR",
            ),
            "rollback",
        ),
    ],
)
def test_each_kind_of_call_has_its_own_series(call: object, name: str) -> None:
    answered = Answered(Status.RS_OK, 0, "INR", {})
    record_attempt("op-kinds", call, answered, 0.02)  # type: ignore[arg-type]
    assert (
        value("teenpatti_operator_calls_total", operator="op-kinds", call=name, outcome="RS_OK")
        == 1
    )
    assert (
        value(
            "teenpatti_operator_call_duration_seconds_bucket",
            operator="op-kinds",
            call=name,
            le="0.025",
        )
        == 1
    )


def test_outcome_labels_are_a_bounded_set() -> None:
    statuses = {str(status) for status in Status}
    labels = {outcome_label(Answered(status, 0, "INR", {})) for status in Status}
    labels |= {
        outcome_label(NoAnswer(reason))
        for reason in ("timeout", "connection", "http_status", "unreadable")
    }
    labels |= {outcome_label(BadAnswer(reason, b"")) for reason in BAD_ANSWER_REASONS}
    assert labels == statuses | {"timeout", "no_answer", "bad_answer"}
