"""The operator wallet client over real HTTP, against a small scripted wallet server under
uvicorn on a free local port: each request it receives is checked (our signature, the
request's fields); each answer is what the test scripts, including every way an answer can
be wrong. No Postgres, Kafka or Redis: the client holds no state."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from teenpatti.seamless.calls import (
    Answered,
    BadAnswer,
    BalanceCall,
    BetCall,
    NoAnswer,
    RollbackCall,
    Status,
    WinCall,
)
from teenpatti.seamless.client import MAX_ANSWER_BYTES, OperatorWalletClient
from teenpatti.seamless.config import OperatorConfig, WalletMode
from teenpatti.seamless.signing import (
    SIGNATURE_HEADER,
    PrivateKey,
    generate_private_key,
    load_private_key,
    load_public_key,
    public_key_pem,
    sign,
    verify,
)
from teenpatti_tools.devrun import free_port

pytestmark = pytest.mark.timeout(60)

VECTORS = Path(__file__).parents[2] / "unit" / "seamless" / "vectors"
# the operator signs its answers with the protocol's demo key; we sign with a fresh one
OPERATOR_KEY = load_private_key((VECTORS / "private.pem").read_bytes())
OUR_KEY = generate_private_key()

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]


@dataclass
class Script:
    """How the server answers the next requests."""

    http_status: int = 200
    changes: dict[str, Any] = field(default_factory=dict)
    sign_with: PrivateKey | None = OPERATOR_KEY
    body: bytes | None = None  # in place of the JSON answer
    hang: bool = False  # never answer (until the server stops)


@dataclass
class Received:
    path: str
    fields: dict[str, Any]
    signed_by_us: bool


class ScriptedWallet:
    """The operator's side of the protocol, reduced to what the client's tests need: it
    checks our signature, records the request and answers as scripted."""

    def __init__(self) -> None:
        self.script = Script()
        self.received: list[Received] = []
        self.balance = 10_000_000  # 100.00 INR in protocol units
        self.released = asyncio.Event()

    async def __call__(
        self,
        scope: Scope,
        receive: Callable[[], Awaitable[Message]],
        send: Callable[[Message], Awaitable[None]],
    ) -> None:
        assert scope["type"] == "http"
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {name.decode().lower(): value.decode() for name, value in scope["headers"]}
        signed = verify(
            [load_public_key(public_key_pem(OUR_KEY))], body, headers.get(SIGNATURE_HEADER.lower())
        )
        fields = json.loads(body)
        self.received.append(Received(scope["path"], fields, signed))
        script = self.script
        if script.hang:
            await self.released.wait()
        answer = {
            "user": fields["user"],
            "status": "RS_OK" if signed else "RS_ERROR_INVALID_SIGNATURE",
            "request_uuid": fields["request_uuid"],
            "currency": fields.get("currency", "INR"),
            "balance": self.balance,
            **script.changes,
        }
        payload = script.body if script.body is not None else json.dumps(answer).encode()
        reply_headers = [(b"content-type", b"application/json")]
        if script.sign_with is not None:
            reply_headers.append(
                (SIGNATURE_HEADER.encode(), sign(script.sign_with, payload).encode())
            )
        await send(
            {"type": "http.response.start", "status": script.http_status, "headers": reply_headers}
        )
        await send({"type": "http.response.body", "body": payload})


@pytest.fixture
async def wallet() -> AsyncIterator[tuple[ScriptedWallet, str]]:
    """The scripted server on a free port; its base URL."""
    app = ScriptedWallet()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, lifespan="off", log_level="warning")
    )
    task = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(30):
            while not server.started:
                if task.done():
                    task.result()
                    raise AssertionError("uvicorn stopped before it started")
                await asyncio.sleep(0.02)
        port = server.servers[0].sockets[0].getsockname()[1]
        yield app, f"http://127.0.0.1:{port}/api"
    finally:
        app.released.set()
        server.should_exit = True
        await asyncio.wait_for(task, 30)


@pytest.fixture
async def client() -> AsyncIterator[OperatorWalletClient]:
    async with OperatorWalletClient(OUR_KEY) as opened:
        yield opened


def _config(base_url: str, *more_keys: PrivateKey, timeout: float = 5.0) -> OperatorConfig:
    keys = (OPERATOR_KEY, *more_keys)
    return OperatorConfig(
        operator_id="operator-1",
        mode=WalletMode.SEAMLESS,
        base_url=base_url,
        public_keys=tuple(public_key_pem(key).decode() for key in keys),
        timeout_seconds=timeout,
    )


BET = BetCall(
    user="p1",
    token="operator-token",
    transaction_uuid="slip-1",
    round="T1-42",
    amount=356,
    currency="INR",
    bet="player_a",
)


async def test_a_bet_is_signed_sent_in_protocol_units_and_answered(
    wallet: tuple[ScriptedWallet, str], client: OperatorWalletClient
) -> None:
    server, base_url = wallet
    outcome = await client.bet(_config(base_url), BET)
    assert isinstance(outcome, Answered)
    assert (outcome.status, outcome.balance, outcome.currency) == (Status.RS_OK, 10_000, "INR")
    [received] = server.received
    assert received.path == "/api/transaction/bet"
    assert received.signed_by_us
    assert received.fields["amount"] == 356_000
    assert received.fields["transaction_uuid"] == "slip-1"
    assert received.fields["request_uuid"] == outcome.request_uuid
    assert outcome.raw["request_uuid"] == outcome.request_uuid


async def test_every_attempt_has_a_fresh_request_uuid_and_the_same_transaction(
    wallet: tuple[ScriptedWallet, str], client: OperatorWalletClient
) -> None:
    server, base_url = wallet
    config = _config(base_url)
    win = WinCall(
        user="p1",
        token="operator-token",
        transaction_uuid="win-1",
        reference_transaction_uuid="slip-1",
        round="T1-42",
        amount=0,
        currency="INR",
        round_closed=True,
    )
    first, second = await client.win(config, win), await client.win(config, win)
    assert isinstance(first, Answered) and isinstance(second, Answered)
    uuids = [received.fields["request_uuid"] for received in server.received]
    assert len(set(uuids)) == 2
    assert {received.fields["transaction_uuid"] for received in server.received} == {"win-1"}
    assert server.received[0].path == "/api/transaction/win"


async def test_rollback_and_balance_calls(
    wallet: tuple[ScriptedWallet, str], client: OperatorWalletClient
) -> None:
    server, base_url = wallet
    config = _config(base_url)
    rollback = RollbackCall(
        user="p1",
        token="operator-token",
        transaction_uuid="rb-1",
        reference_transaction_uuid="slip-1",
        round="T1-42",
        currency="INR",
    )
    assert isinstance(await client.rollback(config, rollback), Answered)
    balance = await client.balance(config, BalanceCall(user="p1", token="t", currency="INR"))
    assert isinstance(balance, Answered)
    assert balance.balance == 10_000
    assert [received.path for received in server.received] == [
        "/api/transaction/rollback",
        "/api/user/balance",
    ]
    assert "amount" not in server.received[0].fields


async def test_a_refusal_is_answered(
    wallet: tuple[ScriptedWallet, str], client: OperatorWalletClient
) -> None:
    server, base_url = wallet
    server.script = Script(changes={"status": "RS_ERROR_NOT_ENOUGH_MONEY"})
    outcome = await client.bet(_config(base_url), BET)
    assert isinstance(outcome, Answered)
    assert outcome.status is Status.RS_ERROR_NOT_ENOUGH_MONEY
    assert not outcome.ok


async def test_no_answer_in_time_is_a_timeout(
    wallet: tuple[ScriptedWallet, str], client: OperatorWalletClient
) -> None:
    server, base_url = wallet
    server.script = Script(hang=True)
    outcome = await client.bet(_config(base_url, timeout=0.3), BET)
    assert isinstance(outcome, NoAnswer)
    assert outcome.reason == "timeout"
    # the operator did receive it: no answer is not "not applied"
    assert len(server.received) == 1


@pytest.mark.parametrize("http_status", [500, 502, 503, 404])
async def test_a_status_other_than_200_is_no_answer(
    wallet: tuple[ScriptedWallet, str], client: OperatorWalletClient, http_status: int
) -> None:
    server, base_url = wallet
    server.script = Script(http_status=http_status, body=b"upstream down" * 100)
    outcome = await client.bet(_config(base_url), BET)
    assert isinstance(outcome, NoAnswer)
    assert outcome.reason == "http_status"
    # what the operator said, cut short
    assert outcome.detail.startswith(f"HTTP {http_status}: upstream downupstream down")
    assert len(outcome.detail) < 400


async def test_a_server_not_listening_is_a_connection_error(client: OperatorWalletClient) -> None:
    port = free_port()  # nothing listens on it
    outcome = await client.bet(_config(f"http://127.0.0.1:{port}"), BET)
    assert isinstance(outcome, NoAnswer)
    assert outcome.reason == "connection"


async def test_an_answer_cut_off_in_transit_is_unreadable(client: OperatorWalletClient) -> None:
    # the operator applied the call, but its answer is lost half-way: a raw socket server
    received: list[bytes] = []

    async def cut_off(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        received.append(await reader.readuntil(b"\r\n\r\n"))
        writer.write(b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"user":"p1"')
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(cut_off, "127.0.0.1", 0)
    try:
        port = server.sockets[0].getsockname()[1]
        outcome = await client.bet(_config(f"http://127.0.0.1:{port}"), BET)
    finally:
        server.close()
        await server.wait_closed()
    assert received
    assert isinstance(outcome, NoAnswer)
    assert outcome.reason == "unreadable"


@pytest.mark.parametrize(
    ("script", "reason"),
    [
        (Script(sign_with=None), "unsigned"),
        (Script(sign_with=generate_private_key()), "wrong_signature"),
        (Script(changes={"request_uuid": "someone-elses"}), "wrong_request_uuid"),
        (Script(changes={"currency": "EUR"}), "other_currency"),
        (Script(changes={"balance": -1_000}), "negative_balance"),
        (Script(changes={"balance": 2**63}), "absurd_balance"),
        (Script(changes={"status": "RS_PROBABLY_OK"}), "unknown_status"),
        (Script(changes={"user": "p2"}), "wrong_user"),
        (Script(changes={"balance": 1.5}), "malformed"),
        (Script(body=b"OK"), "malformed"),
        (Script(body=b" " * (MAX_ANSWER_BYTES + 1)), "oversized"),
    ],
)
async def test_a_bad_answer_is_named(
    wallet: tuple[ScriptedWallet, str],
    client: OperatorWalletClient,
    script: Script,
    reason: str,
) -> None:
    server, base_url = wallet
    server.script = script
    outcome = await client.bet(_config(base_url), BET)
    assert isinstance(outcome, BadAnswer), outcome
    assert outcome.reason == reason
    assert outcome.request_uuid == server.received[0].fields["request_uuid"]


async def test_answers_verify_under_either_key_during_a_rollover(
    wallet: tuple[ScriptedWallet, str], client: OperatorWalletClient
) -> None:
    server, base_url = wallet
    new_key = generate_private_key()
    during = _config(base_url, new_key)
    for key in (OPERATOR_KEY, new_key):
        server.script = Script(sign_with=key)
        assert isinstance(await client.bet(during, BET), Answered)
    # once the old key is removed, its signatures are refused
    server.script = Script(sign_with=OPERATOR_KEY)
    after = during.model_copy(update={"public_keys": (public_key_pem(new_key).decode(),)})
    outcome = await client.bet(after, BET)
    assert isinstance(outcome, BadAnswer)
    assert outcome.reason == "wrong_signature"


async def test_the_operator_refuses_a_call_we_did_not_sign(
    wallet: tuple[ScriptedWallet, str],
) -> None:
    server, base_url = wallet
    async with OperatorWalletClient(generate_private_key()) as stranger:
        outcome = await stranger.bet(_config(base_url), BET)
    assert not server.received[0].signed_by_us
    assert isinstance(outcome, Answered)
    assert outcome.status is Status.RS_ERROR_INVALID_SIGNATURE
