"""The second operator wallet server (tests/counterparts) against hand-signed requests."""

from __future__ import annotations

import asyncio
import base64
import json
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from tests.counterparts.hub88_operator import Hub88Operator, hub88_operator

GAME_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
OTHER_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _pem(key: rsa.RSAPrivateKey) -> str:
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


def _signature(key: rsa.RSAPrivateKey, body: bytes) -> str:
    return base64.b64encode(key.sign(body, padding.PKCS1v15(), hashes.SHA256())).decode()


class Game:
    """The game side, as thin as it can be: a signing HTTP client."""

    def __init__(self, operator: Hub88Operator, client: httpx.AsyncClient) -> None:
        self.operator = operator
        self.client = client

    async def raw(
        self, path: str, body: bytes, headers: dict[str, str] | None = None, timeout: float = 5
    ) -> httpx.Response:
        return await self.client.post(
            self.operator.base_url + path, content=body, headers=headers, timeout=timeout
        )

    async def call(
        self,
        path: str,
        fields: dict[str, Any],
        key: rsa.RSAPrivateKey = GAME_KEY,
        timeout: float = 5,
    ) -> httpx.Response:
        body = json.dumps({"request_uuid": str(uuid.uuid4()), **fields}).encode()
        headers = {"Content-Type": "application/json", "X-Hub88-Signature": _signature(key, body)}
        return await self.raw(path, body, headers, timeout)

    async def status(self, path: str, fields: dict[str, Any]) -> str:
        response = await self.call(path, fields)
        assert response.status_code == 200
        status: str = response.json()["status"]
        return status


def bet(
    token: str, tx: str, amount: int = 100_000, round_id: str = "r1", user: str = "alice"
) -> dict[str, Any]:
    return {
        "user": user,
        "token": token,
        "game_code": "teenpatti",
        "transaction_uuid": tx,
        "round": round_id,
        "round_closed": False,
        "amount": amount,
        "currency": "INR",
        "bet": "player_a",
        "meta": None,
    }


def win(
    token: str, tx: str, ref: str, amount: int, round_id: str = "r1", closed: bool = True
) -> dict[str, Any]:
    return {
        **bet(token, tx, amount, round_id),
        "reference_transaction_uuid": ref,
        "round_closed": closed,
    }


def rollback(token: str, tx: str, ref: str, round_id: str = "r1") -> dict[str, Any]:
    return {
        "currency": "EUR",  # not a rollback field: ignored, whatever it says
        "user": "alice",
        "token": token,
        "game_code": "teenpatti",
        "transaction_uuid": tx,
        "reference_transaction_uuid": ref,
        "round": round_id,
    }


@pytest.fixture
async def operator() -> AsyncIterator[Hub88Operator]:
    async with hub88_operator([_pem(GAME_KEY)]) as running:
        yield running


@pytest.fixture
async def game(operator: Hub88Operator) -> AsyncIterator[Game]:
    async with httpx.AsyncClient() as client:
        yield Game(operator, client)


@pytest.fixture
def token(operator: Hub88Operator) -> str:
    return operator.add_player("alice", "INR", 1_000_000)


async def test_balance_answer_is_echoed_and_signed(
    operator: Hub88Operator, game: Game, token: str
) -> None:
    body = b'{"user":"alice","token":"%s","game_code":"tp","request_uuid":"q-1"}' % token.encode()
    response = await game.raw(
        "/user/balance",
        body,
        {"Content-Type": "application/json", "X-Hub88-Signature": _signature(GAME_KEY, body)},
    )
    assert response.status_code == 200
    assert response.json() == {
        "user": "alice",
        "status": "RS_OK",
        "request_uuid": "q-1",
        "currency": "INR",
        "balance": 1_000_000,
    }
    key = serialization.load_pem_public_key(operator.public_key_pem.encode())
    assert isinstance(key, rsa.RSAPublicKey)
    signature = base64.b64decode(response.headers["X-Hub88-Signature"])
    key.verify(signature, response.content, padding.PKCS1v15(), hashes.SHA256())
    with pytest.raises(InvalidSignature):
        key.verify(signature, response.content + b" ", padding.PKCS1v15(), hashes.SHA256())
    assert operator.requests[-1]["signature_ok"] is True
    assert operator.requests[-1]["status"] == "RS_OK"


async def test_bet_debits(operator: Hub88Operator, game: Game, token: str) -> None:
    response = await game.call("/transaction/bet", bet(token, "b1", 356_000))
    assert response.json()["status"] == "RS_OK"
    assert response.json()["balance"] == 644_000
    assert operator.balance("alice", "INR") == 644_000
    (placed,) = operator.bets("alice")
    assert (placed.transaction_uuid, placed.amount, placed.state) == ("b1", 356_000, "open")
    assert operator.transactions()[0].kind == "bet"


async def test_identical_replay_moves_nothing(
    operator: Hub88Operator, game: Game, token: str
) -> None:
    assert await game.status("/transaction/bet", bet(token, "b1")) == "RS_OK"
    again = await game.call("/transaction/bet", bet(token, "b1"))
    assert again.json()["status"] == "RS_OK"
    assert again.json()["balance"] == 900_000
    assert operator.balance("alice", "INR") == 900_000
    assert len(operator.transactions()) == 1
    # a bet is never retried by the game side: the repeat is answered but noted
    assert any("b1 sent again" in v for v in operator.violations)


async def test_same_id_other_data_is_a_duplicate(
    operator: Hub88Operator, game: Game, token: str
) -> None:
    assert await game.status("/transaction/bet", bet(token, "b1")) == "RS_OK"
    other = await game.status("/transaction/bet", bet(token, "b1", amount=200_000))
    assert other == "RS_ERROR_DUPLICATE_TRANSACTION"
    assert operator.balance("alice", "INR") == 900_000
    assert any("reused with other data" in v for v in operator.violations)


async def test_win_and_zero_win(operator: Hub88Operator, game: Game, token: str) -> None:
    await game.status("/transaction/bet", bet(token, "b1", round_id="r1"))
    await game.status("/transaction/bet", bet(token, "b2", round_id="r2"))
    paid = await game.call("/transaction/win", win(token, "w1", "b1", 195_000, "r1"))
    assert paid.json()["balance"] == 800_000 + 195_000
    assert await game.status("/transaction/win", win(token, "w2", "b2", 0, "r2")) == "RS_OK"
    assert [b.state for b in operator.bets()] == ["won", "won"]
    assert [b.ended_by for b in operator.bets()] == [["w1"], ["w2"]]
    # a win is retried until RS_OK, so its repeat is quietly answered
    assert await game.status("/transaction/win", win(token, "w1", "b1", 195_000, "r1")) == "RS_OK"
    assert operator.balance("alice", "INR") == 995_000
    assert operator.check() == []


async def test_closing_win_ends_other_open_bets(
    operator: Hub88Operator, game: Game, token: str
) -> None:
    for tx in ("b1", "b2", "b3"):
        assert await game.status("/transaction/bet", bet(token, tx)) == "RS_OK"
    await game.status("/transaction/bet", bet(token, "other-round", round_id="r2"))
    assert await game.status("/transaction/win", win(token, "w1", "b2", 250_000)) == "RS_OK"
    states = {b.transaction_uuid: (b.state, b.ended_by) for b in operator.bets()}
    assert states == {
        "b1": ("closed_by_round", ["w1"]),
        "b2": ("won", ["w1"]),
        "b3": ("closed_by_round", ["w1"]),
        "other-round": ("open", []),
    }
    problems = operator.check()
    assert len(problems) == 2
    assert "other-round" in problems[0]
    assert "round r2 of alice was never closed" in problems[1]


async def test_rollback_refunds_the_bet(operator: Hub88Operator, game: Game, token: str) -> None:
    await game.status("/transaction/bet", bet(token, "b1", 300_000))
    undone = await game.call("/transaction/rollback", rollback(token, "rb1", "b1"))
    assert undone.json()["status"] == "RS_OK"
    assert undone.json()["balance"] == 1_000_000
    refund = operator.transactions()[-1]
    assert (refund.kind, refund.amount, refund.tombstone) == ("rollback", 300_000, False)
    assert operator.bets()[0].state == "rolled_back"
    assert await game.status("/transaction/rollback", rollback(token, "rb1", "b1")) == "RS_OK"
    assert operator.balance("alice", "INR") == 1_000_000
    assert operator.check() == []


async def test_rollback_of_unknown_then_late_bet(
    operator: Hub88Operator, game: Game, token: str
) -> None:
    assert await game.status("/transaction/rollback", rollback(token, "rb1", "b1")) == "RS_OK"
    (tombstone,) = operator.transactions()
    assert (tombstone.amount, tombstone.tombstone) == (0, True)
    late = await game.status("/transaction/bet", bet(token, "b1"))
    assert late == "RS_ERROR_TRANSACTION_ROLLED_BACK"
    assert operator.balance("alice", "INR") == 1_000_000
    assert operator.bets() == []
    assert operator.violations == []


async def test_win_naming_rolled_back_bet(operator: Hub88Operator, game: Game, token: str) -> None:
    await game.status("/transaction/bet", bet(token, "b1"))
    await game.status("/transaction/rollback", rollback(token, "rb1", "b1"))
    refused = await game.status("/transaction/win", win(token, "w1", "b1", 500_000))
    assert refused == "RS_ERROR_TRANSACTION_ROLLED_BACK"
    assert operator.balance("alice", "INR") == 1_000_000
    assert any(v.startswith("win names a rolled-back bet") for v in operator.violations)


async def test_settled_bets_cannot_end_again(
    operator: Hub88Operator, game: Game, token: str
) -> None:
    await game.status("/transaction/bet", bet(token, "b1"))
    await game.status("/transaction/bet", bet(token, "b2"))
    await game.status("/transaction/win", win(token, "w1", "b1", 0))
    assert await game.status("/transaction/win", win(token, "w2", "b1", 9)) == "RS_ERROR_UNKNOWN"
    late = await game.status("/transaction/rollback", rollback(token, "rb1", "b2"))
    assert late == "RS_ERROR_UNKNOWN"
    assert operator.balance("alice", "INR") == 800_000
    assert [v.split(":")[0] for v in operator.violations] == [
        "bet ended twice",
        "rollback after the round was closed",
        "rollback of a settled bet",
    ]


async def test_bet_after_the_round_closed_is_noted(
    operator: Hub88Operator, game: Game, token: str
) -> None:
    await game.status("/transaction/bet", bet(token, "b1"))
    await game.status("/transaction/win", win(token, "w1", "b1", 0))
    assert await game.status("/transaction/bet", bet(token, "b2")) == "RS_OK"
    assert operator.violations == ["bet b2 arrived for round r1 of alice, already closed"]


async def test_unknown_reference_for_a_win(operator: Hub88Operator, game: Game, token: str) -> None:
    assert (
        await game.status("/transaction/win", win(token, "w1", "nope", 5))
        == "RS_ERROR_TRANSACTION_DOES_NOT_EXIST"
    )
    assert operator.transactions() == []
    assert len(operator.violations) == 1


async def test_bad_signature_applies_nothing(
    operator: Hub88Operator, game: Game, token: str
) -> None:
    refused = await game.call("/transaction/bet", bet(token, "b1"), key=OTHER_KEY)
    assert refused.json()["status"] == "RS_ERROR_INVALID_SIGNATURE"
    assert refused.json()["balance"] == 0  # an unverified caller learns nothing
    body = json.dumps({**bet(token, "b2"), "request_uuid": "q"}).encode()
    signature = _signature(GAME_KEY, body)
    tampered = body.replace(b"100000", b"100001")
    response = await game.raw("/transaction/bet", tampered, {"X-Hub88-Signature": signature})
    assert response.json()["status"] == "RS_ERROR_INVALID_SIGNATURE"
    assert operator.balance("alice", "INR") == 1_000_000
    assert operator.transactions() == []
    assert sum(v.startswith("bad signature") for v in operator.violations) == 2
    assert [r["signature_ok"] for r in operator.requests] == [False, False]


async def test_unsigned_request(operator: Hub88Operator, game: Game, token: str) -> None:
    body = json.dumps({**bet(token, "b1"), "request_uuid": "q-9"}).encode()
    response = await game.raw("/transaction/bet", body, {"Content-Type": "application/json"})
    assert response.json()["status"] == "RS_ERROR_INVALID_SIGNATURE"
    assert response.json()["request_uuid"] == "q-9"
    assert operator.transactions() == []
    assert operator.violations[0].startswith("unsigned request")


async def test_a_rolled_over_key_is_accepted() -> None:
    async with hub88_operator([_pem(OTHER_KEY), _pem(GAME_KEY)]) as both:
        token = both.add_player("alice", "INR", 10)
        async with httpx.AsyncClient() as client:
            game = Game(both, client)
            assert await game.status("/user/balance", _balance(token)) == "RS_OK"
            response = await game.call("/user/balance", _balance(token), key=OTHER_KEY)
            assert response.json()["status"] == "RS_OK"


def _balance(token: str) -> dict[str, Any]:
    return {"user": "alice", "token": token, "game_code": "teenpatti"}


@pytest.mark.parametrize("amount", [356000.0, "356000", True, -1, 2**63])
async def test_amount_must_be_an_int64(
    operator: Hub88Operator, game: Game, token: str, amount: Any
) -> None:
    assert await game.status("/transaction/bet", bet(token, "b1", amount)) == "RS_ERROR_WRONG_TYPES"
    assert operator.balance("alice", "INR") == 1_000_000
    if isinstance(amount, float | str):
        assert operator.violations[0].startswith("amounts are int64, never floats")


async def test_float_written_as_integer_text_is_still_a_float(
    operator: Hub88Operator, game: Game, token: str
) -> None:
    body = json.dumps({**bet(token, "b1"), "request_uuid": "q"}).replace("100000", "1e5")
    assert "1e5" in body
    response = await game.raw(
        "/transaction/bet",
        body.encode(),
        {"X-Hub88-Signature": _signature(GAME_KEY, body.encode())},
    )
    assert response.json()["status"] == "RS_ERROR_WRONG_TYPES"


async def test_syntax(operator: Hub88Operator, game: Game, token: str) -> None:
    missing = {k: v for k, v in bet(token, "b1").items() if k != "round"}
    assert await game.status("/transaction/bet", missing) == "RS_ERROR_WRONG_SYNTAX"
    body = b'{"user":"alice","user":"bob","token":"t","game_code":"g","request_uuid":"q"}'
    response = await game.raw(
        "/user/balance", body, {"X-Hub88-Signature": _signature(GAME_KEY, body)}
    )
    assert response.json()["status"] == "RS_ERROR_WRONG_SYNTAX"
    wrong_type = {**bet(token, "b1"), "round_closed": "false"}
    assert await game.status("/transaction/bet", wrong_type) == "RS_ERROR_WRONG_TYPES"
    assert operator.transactions() == []
    assert len(operator.violations) == 4  # the duplicate-key body also had no Content-Type


async def test_wrong_currency_and_wrong_user(
    operator: Hub88Operator, game: Game, token: str
) -> None:
    in_eur = {**bet(token, "b1"), "currency": "EUR"}
    assert await game.status("/transaction/bet", in_eur) == "RS_ERROR_WRONG_CURRENCY"
    as_bob = bet(token, "b2", user="bob")
    assert await game.status("/transaction/bet", as_bob) == "RS_ERROR_INVALID_TOKEN"
    assert await game.status("/user/balance", _balance("made-up")) == "RS_ERROR_INVALID_TOKEN"
    assert operator.transactions() == []
    assert len(operator.violations) == 2  # a made-up token on a balance call is the player's


async def test_not_enough_money(operator: Hub88Operator, game: Game, token: str) -> None:
    response = await game.call("/transaction/bet", bet(token, "b1", 1_000_001))
    assert response.json()["status"] == "RS_ERROR_NOT_ENOUGH_MONEY"
    assert response.json()["balance"] == 1_000_000
    assert await game.status("/transaction/bet", bet(token, "b2", 1_000_000)) == "RS_OK"
    assert operator.balance("alice", "INR") == 0


async def test_expired_token(operator: Hub88Operator, game: Game, token: str) -> None:
    await game.status("/transaction/bet", bet(token, "b1"))
    await game.status("/transaction/bet", bet(token, "b2"))
    operator.expire_token(token)
    assert await game.status("/user/balance", _balance(token)) == "RS_ERROR_TOKEN_EXPIRED"
    assert await game.status("/transaction/bet", bet(token, "b3")) == "RS_ERROR_TOKEN_EXPIRED"
    assert await game.status("/transaction/rollback", rollback(token, "rb2", "b2")) == "RS_OK"
    assert await game.status("/transaction/win", win(token, "w1", "b1", 300_000)) == "RS_OK"
    assert operator.balance("alice", "INR") == 1_200_000
    assert operator.check() == []


async def test_hold_applies_at_once_and_answers_late(
    operator: Hub88Operator, game: Game, token: str
) -> None:
    operator.hold_next("/transaction/bet", 0.3)
    started = time.monotonic()
    answer = asyncio.create_task(game.call("/transaction/bet", bet(token, "b1")))
    while not operator.transactions():
        assert not answer.done()
        await asyncio.sleep(0.01)
    assert operator.balance("alice", "INR") == 900_000
    response = await answer
    assert time.monotonic() - started >= 0.3
    assert response.json()["status"] == "RS_OK"
    # only the next one: the fault is used up (the counterpart's own queue, read directly:
    # an upper bound on the time would fail on a busy machine)
    assert not operator._faults["/transaction/bet"]
    assert await game.status("/transaction/bet", bet(token, "b2")) == "RS_OK"


async def test_lost_answer_is_applied(operator: Hub88Operator, game: Game, token: str) -> None:
    operator.lose_answer_next("/transaction/bet")
    lost = await game.call("/transaction/bet", bet(token, "b1"))
    assert lost.status_code == 500
    assert operator.balance("alice", "INR") == 900_000
    assert operator.requests[-1]["http_status"] == 500
    assert await game.status("/transaction/rollback", rollback(token, "rb1", "b1")) == "RS_OK"
    assert operator.balance("alice", "INR") == 1_000_000


async def test_fail_applies_nothing(operator: Hub88Operator, game: Game, token: str) -> None:
    operator.fail_next("/transaction/win", count=2)
    await game.status("/transaction/bet", bet(token, "b1"))
    for _ in range(2):
        assert (await game.call("/transaction/win", win(token, "w1", "b1", 7))).status_code == 503
    assert operator.balance("alice", "INR") == 900_000
    assert await game.status("/transaction/win", win(token, "w1", "b1", 7)) == "RS_OK"
    assert operator.balance("alice", "INR") == 900_007


async def test_refuse_applies_nothing(operator: Hub88Operator, game: Game, token: str) -> None:
    operator.refuse_next("/transaction/bet", "RS_ERROR_LIMIT_REACHED")
    refused = await game.call("/transaction/bet", bet(token, "b1"))
    assert refused.json()["status"] == "RS_ERROR_LIMIT_REACHED"
    assert refused.json()["balance"] == 1_000_000
    assert operator.transactions() == []
    with pytest.raises(ValueError):
        operator.refuse_next("/transaction/bet", "RS_ERROR_MADE_UP")


async def test_answer_signed_badly(operator: Hub88Operator, game: Game, token: str) -> None:
    operator.sign_badly_next("/transaction/bet")
    response = await game.call("/transaction/bet", bet(token, "b1"))
    key = serialization.load_pem_public_key(operator.public_key_pem.encode())
    assert isinstance(key, rsa.RSAPublicKey)
    with pytest.raises(InvalidSignature):
        key.verify(
            base64.b64decode(response.headers["X-Hub88-Signature"]),
            response.content,
            padding.PKCS1v15(),
            hashes.SHA256(),
        )
    assert operator.balance("alice", "INR") == 900_000


async def test_check_finds_open_bets(operator: Hub88Operator, game: Game, token: str) -> None:
    await game.status("/transaction/bet", bet(token, "b1"))
    problems = operator.check()
    assert problems == [
        "bet b1 of alice in round r1 was never ended (no win, no round close, no rollback)",
        "round r1 of alice was never closed (no win with round_closed true)",
    ]
