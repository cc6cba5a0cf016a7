"""The studio's transport (teenpatti_tools.simulator.InstancesTransport): each request to one
instance of the service its host names, sent again with the same body after no answer, a 5xx
or a 429, and the operator client's requests through it as through any transport."""

from __future__ import annotations

import json

import httpx
import pytest

from teenpatti_client.wallet.api.default import deposit
from teenpatti_client.wallet.models import Problem, TransferCreate, TransferPublic
from teenpatti_tools.simulator import Endpoints, InstancesTransport, answered, wallet_client

INSTANCES = {"wallet": ["http://127.0.0.1:9001", "http://127.0.0.1:9002"]}


def transport_answering(
    answers: list[httpx.Response | Exception], seen: list[httpx.Request]
) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        request.read()
        seen.append(request)
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    return httpx.MockTransport(handle)


async def test_a_request_is_sent_again_to_an_instance_until_it_is_answered() -> None:
    seen: list[httpx.Request] = []
    retries: list[int] = []
    inner = transport_answering(
        [
            httpx.ConnectError("refused"),
            httpx.Response(503, json={"code": "service_unavailable"}),
            httpx.Response(429, json={"code": "rate_limited"}),
            httpx.Response(200, json={"transfer_id": "t-1", "currency": "INR", "balance": 500}),
        ],
        seen,
    )
    transport = InstancesTransport(
        Endpoints(INSTANCES), patience=30, on_retry=lambda: retries.append(1), inner=inner
    )
    wallet = wallet_client(transport, "dev-operator-1-key")

    funded = await deposit.asyncio(
        "p1", client=wallet, body=TransferCreate(transfer_id="t-1", currency="INR", amount=500)
    )

    assert isinstance(funded, TransferPublic) and funded.balance == 500
    assert len(retries) == 3
    assert len(seen) == 4
    for request in seen:
        assert (
            f"{request.url.scheme}://{request.url.host}:{request.url.port}" in INSTANCES["wallet"]
        )
        assert request.url.path == "/players/p1/deposits"
        assert request.headers["X-Api-Key"] == "dev-operator-1-key"
        assert request.headers["Host"] == f"127.0.0.1:{request.url.port}"
        assert json.loads(request.content) == {
            "transfer_id": "t-1",
            "currency": "INR",
            "amount": 500,
        }


async def test_a_refusal_is_answered_at_once_and_a_lasting_failure_is_raised() -> None:
    seen: list[httpx.Request] = []
    inner = transport_answering(
        [
            httpx.Response(
                409,
                json={"type": "t", "title": "t", "status": 409, "code": "x", "detail": "no"},
            ),
            *[httpx.Response(500, text="down")] * 200,
        ],
        seen,
    )
    transport = InstancesTransport(Endpoints(INSTANCES), patience=0.3, inner=inner)
    wallet = wallet_client(transport, "dev-operator-1-key")
    body = TransferCreate(transfer_id="t-2", currency="INR", amount=1)

    refused = await deposit.asyncio("p1", client=wallet, body=body)
    assert isinstance(refused, Problem) and refused.code == "x" and len(seen) == 1
    with pytest.raises(RuntimeError, match="answered 500"):
        answered(await deposit.asyncio("p1", client=wallet, body=body))


async def test_without_retry_every_answer_comes_as_it_is() -> None:
    seen: list[httpx.Request] = []
    inner = transport_answering([httpx.Response(503, json={"code": "service_unavailable"})], seen)
    transport = InstancesTransport(Endpoints(INSTANCES), patience=30, inner=inner, retry=False)
    async with httpx.AsyncClient(transport=transport) as http:
        answer = await http.get("http://wallet/ready")
    assert answer.status_code == 503 and len(seen) == 1
