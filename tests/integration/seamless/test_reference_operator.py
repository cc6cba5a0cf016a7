"""The reference operator (teenpatti_tools.operator) against the real Postgres: the wallet
protocol's rules as /work/shared/operator-wallet.md gives them, its admin API, each fault
switch, and money on its side (balances = deposits - bets + wins + rollbacks)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from itertools import count
from pathlib import Path
from typing import Any
from uuid import uuid4

import asyncpg
import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey

from teenpatti.seamless.signing import (
    SIGNATURE_HEADER,
    PrivateKey,
    PublicKey,
    generate_private_key,
    load_public_key,
    public_key_pem,
    sign,
    verify,
)
from teenpatti_tools.devrun import free_port
from teenpatti_tools.operator.app import ADMIN_TOKEN_HEADER, OperatorServerConfig, create_app
from teenpatti_tools.operator.control import launched
from teenpatti_tools.operator.faults import FaultPlan

ADMIN_TOKEN = "test-admin-token"
INR = "INR"
FUNDS = 1_000_000_000  # 10,000.00 INR in protocol units
_uuids = count(1)


def new_uuid() -> str:
    return f"{uuid4()}-{next(_uuids)}"


@pytest.fixture(scope="module")
def game_key() -> PrivateKey:
    return generate_private_key()


@pytest.fixture(scope="module")
def operator_key() -> PrivateKey:
    return generate_private_key()


@dataclass
class Operator:
    """The reference operator in process, and what a test does with it."""

    client: httpx.AsyncClient
    game_key: PrivateKey
    operator_key: PrivateKey | PublicKey  # the private half where the test made it
    app_state: Any
    app: Any = None

    async def call(
        self,
        path: str,
        body: dict[str, Any],
        *,
        key: PrivateKey | None = None,
        raw: bytes | None = None,
    ) -> httpx.Response:
        content = raw if raw is not None else json.dumps(body).encode()
        signature = sign(key or self.game_key, content)
        return await self.client.post(path, content=content, headers={SIGNATURE_HEADER: signature})

    @property
    def operator_public_key(self) -> PublicKey:
        key = self.operator_key
        return key.public_key() if isinstance(key, RSAPrivateKey) else key

    async def answer(self, path: str, body: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        response = await self.call(path, body, **kwargs)
        assert response.status_code == 200, response.text
        assert verify(
            [self.operator_public_key], response.content, response.headers[SIGNATURE_HEADER]
        ), "the answer is not signed by the operator's key"
        answer: dict[str, Any] = response.json()
        assert answer["request_uuid"] == body["request_uuid"]
        return answer

    async def admin(self, method: str, path: str, **kwargs: Any) -> Any:
        response = await self.client.request(
            method, f"/admin{path}", headers={ADMIN_TOKEN_HEADER: ADMIN_TOKEN}, **kwargs
        )
        assert response.status_code < 300, response.text
        return response.json()

    async def player(
        self, funds: int = FUNDS, currency: str = INR, ttl_seconds: float = 3600
    ) -> Player:
        user = f"player-{new_uuid()}"
        await self.admin("PUT", f"/users/{user}", json={})
        if funds:
            await self.admin(
                "POST", f"/users/{user}/deposits", json={"currency": currency, "amount": funds}
            )
        issued = await self.admin(
            "POST",
            "/tokens",
            json={"user": user, "currency": currency, "ttl_seconds": ttl_seconds},
        )
        return Player(user, issued["token"], currency)

    async def balance_of(self, player: Player) -> int:
        view = await self.admin("GET", f"/users/{player.user}")
        return int(view["balances"].get(player.currency, 0))

    async def transactions(self, **params: Any) -> list[dict[str, Any]]:
        page = await self.admin("GET", "/transactions", params=params)
        return list(page["transactions"])

    async def faults(self, *switches: dict[str, Any], seed: int = 0) -> dict[str, Any]:
        plan: dict[str, Any] = await self.admin(
            "PUT", "/faults", json={"seed": seed, "switches": list(switches)}
        )
        return plan

    async def settled(self) -> None:
        """Bounded wait until no call is still being applied after its caller left."""
        for _ in range(500):
            if not self.app_state.detached:
                return
            await asyncio.sleep(0.01)
        raise AssertionError("a held call was never applied")


@dataclass(frozen=True)
class Player:
    user: str
    token: str
    currency: str

    def balance(self) -> dict[str, Any]:
        return {
            "user": self.user,
            "token": self.token,
            "game_code": "teenpatti-2020",
            "request_uuid": new_uuid(),
        }

    def bet(
        self, amount: int, transaction_uuid: str | None = None, round_id: str = "round-1"
    ) -> dict[str, Any]:
        return {
            **self.balance(),
            "transaction_uuid": transaction_uuid or new_uuid(),
            "round": round_id,
            "round_closed": False,
            "amount": amount,
            "currency": self.currency,
            "bet": "player_a",
            "meta": {"table": "t1"},
        }

    def win(
        self, bet: dict[str, Any], amount: int, transaction_uuid: str | None = None
    ) -> dict[str, Any]:
        return {
            **self.bet(amount, transaction_uuid, bet["round"]),
            "round_closed": True,
            "reference_transaction_uuid": bet["transaction_uuid"],
        }

    def rollback(
        self, reference: str, transaction_uuid: str | None = None, round_id: str = "round-1"
    ) -> dict[str, Any]:
        return {
            **self.balance(),
            "transaction_uuid": transaction_uuid or new_uuid(),
            "reference_transaction_uuid": reference,
            "round": round_id,
        }


@pytest.fixture
async def operator(
    database: str, game_key: PrivateKey, operator_key: PrivateKey
) -> AsyncIterator[Operator]:
    config = OperatorServerConfig(
        dsn=database,
        private_key=operator_key,
        game_public_keys=[game_key.public_key()],
        admin_token=ADMIN_TOKEN,
    )
    app = create_app(config)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://operator", timeout=10
        ) as client,
    ):
        operator = Operator(client, game_key, operator_key, app.state.operator, app)
        yield operator
        # every test ends with the money on the operator's side adding up
        check = await operator.admin("GET", "/check")
        assert check["ok"], check


# ------------------------------------------------------------------------------ the rules
async def test_a_bet_debits_a_win_credits_and_each_answer_is_signed(operator: Operator) -> None:
    player = await operator.player()
    bet = player.bet(356_000)  # 3.56 INR
    answered = await operator.answer("/transaction/bet", bet)
    assert answered == {
        "user": player.user,
        "status": "RS_OK",
        "request_uuid": bet["request_uuid"],
        "currency": INR,
        "balance": FUNDS - 356_000,
    }
    win = player.win(bet, 712_000)
    assert (await operator.answer("/transaction/win", win))["balance"] == FUNDS + 356_000
    balance = await operator.answer("/user/balance", player.balance())
    assert (balance["status"], balance["balance"]) == ("RS_OK", FUNDS + 356_000)
    [debit, credit] = await operator.transactions(round="round-1", user=player.user)
    assert (debit["kind"], debit["amount"], debit["answer"]["status"]) == ("bet", 356_000, "RS_OK")
    assert (credit["kind"], credit["reference_transaction_uuid"], credit["round_closed"]) == (
        "win",
        bet["transaction_uuid"],
        True,
    )


async def test_a_zero_win_closes_a_lost_round(operator: Operator) -> None:
    player = await operator.player()
    bet = player.bet(100_000)
    await operator.answer("/transaction/bet", bet)
    answered = await operator.answer("/transaction/win", player.win(bet, 0))
    assert (answered["status"], answered["balance"]) == ("RS_OK", FUNDS - 100_000)


async def test_a_repeat_with_the_same_data_moves_nothing_and_other_data_is_a_duplicate(
    operator: Operator,
) -> None:
    player = await operator.player()
    bet = player.bet(500_000)
    await operator.answer("/transaction/bet", bet)
    # another attempt: a new request_uuid and token are not "other data"
    repeat = {**bet, "request_uuid": new_uuid()}
    answered = await operator.answer("/transaction/bet", repeat)
    assert (answered["status"], answered["balance"]) == ("RS_OK", FUNDS - 500_000)
    other = {**bet, "request_uuid": new_uuid(), "amount": 600_000}
    answered = await operator.answer("/transaction/bet", other)
    assert answered["status"] == "RS_ERROR_DUPLICATE_TRANSACTION"
    # the same id for a win is other data too
    win = player.win(bet, 1_000_000, transaction_uuid=bet["transaction_uuid"])
    assert (await operator.answer("/transaction/win", win))["status"] == (
        "RS_ERROR_DUPLICATE_TRANSACTION"
    )
    win = player.win(bet, 1_000_000)
    await operator.answer("/transaction/win", win)
    again = await operator.answer("/transaction/win", {**win, "request_uuid": new_uuid()})
    assert (again["status"], again["balance"]) == ("RS_OK", FUNDS + 500_000)
    assert await operator.balance_of(player) == FUNDS + 500_000
    assert len(await operator.transactions(user=player.user)) == 2


async def test_a_win_for_a_bet_never_seen_is_refused(operator: Operator) -> None:
    player = await operator.player()
    unseen = player.bet(100_000)
    answered = await operator.answer("/transaction/win", player.win(unseen, 200_000))
    assert (answered["status"], answered["balance"]) == (
        "RS_ERROR_TRANSACTION_DOES_NOT_EXIST",
        FUNDS,
    )
    # another player's bet is not this player's either
    other = await operator.player()
    bet = other.bet(100_000)
    await operator.answer("/transaction/bet", bet)
    answered = await operator.answer("/transaction/win", player.win(bet, 200_000))
    assert answered["status"] == "RS_ERROR_TRANSACTION_DOES_NOT_EXIST"
    assert await operator.transactions(user=player.user) == []


async def test_a_rollback_refunds_the_bet_once_and_the_bet_cannot_be_won_or_repeated(
    operator: Operator,
) -> None:
    player = await operator.player()
    bet = player.bet(250_000)
    await operator.answer("/transaction/bet", bet)
    rollback = player.rollback(bet["transaction_uuid"])
    answered = await operator.answer("/transaction/rollback", rollback)
    assert (answered["status"], answered["balance"], answered["currency"]) == ("RS_OK", FUNDS, INR)
    again = await operator.answer("/transaction/rollback", {**rollback, "request_uuid": new_uuid()})
    assert (again["status"], again["balance"]) == ("RS_OK", FUNDS)
    another = await operator.answer(
        "/transaction/rollback", player.rollback(bet["transaction_uuid"])
    )
    assert another["status"] == "RS_ERROR_TRANSACTION_ROLLED_BACK"
    won = await operator.answer("/transaction/win", player.win(bet, 500_000))
    assert won["status"] == "RS_ERROR_TRANSACTION_ROLLED_BACK"
    repeated = await operator.answer("/transaction/bet", {**bet, "request_uuid": new_uuid()})
    assert repeated["status"] == "RS_ERROR_TRANSACTION_ROLLED_BACK"
    assert await operator.balance_of(player) == FUNDS
    [debit, refund] = await operator.transactions(user=player.user)
    assert debit["rolled_back_by"] == rollback["transaction_uuid"]
    assert (refund["kind"], refund["amount"], refund["tombstone"]) == ("rollback", 250_000, False)


async def test_a_rollback_of_an_unknown_bet_is_a_tombstone_that_refuses_the_late_bet(
    operator: Operator,
) -> None:
    player = await operator.player()
    late = player.bet(300_000)
    rollback = player.rollback(late["transaction_uuid"])
    answered = await operator.answer("/transaction/rollback", rollback)
    assert (answered["status"], answered["balance"]) == ("RS_OK", FUNDS)
    refused = await operator.answer("/transaction/bet", late)
    assert (refused["status"], refused["balance"]) == ("RS_ERROR_TRANSACTION_ROLLED_BACK", FUNDS)
    [tombstone] = await operator.transactions(user=player.user)
    assert (tombstone["kind"], tombstone["amount"], tombstone["tombstone"]) == ("rollback", 0, True)
    assert tombstone["reference_transaction_uuid"] == late["transaction_uuid"]


async def test_a_bet_a_win_settled_cannot_be_rolled_back(operator: Operator) -> None:
    player = await operator.player()
    bet = player.bet(100_000)
    await operator.answer("/transaction/bet", bet)
    await operator.answer("/transaction/win", player.win(bet, 0))
    answered = await operator.answer(
        "/transaction/rollback", player.rollback(bet["transaction_uuid"])
    )
    assert (answered["status"], answered["balance"]) == (
        "RS_ERROR_TRANSACTION_DOES_NOT_EXIST",
        FUNDS - 100_000,
    )


async def test_a_bet_above_the_balance_or_the_limit_or_of_a_disabled_player_is_refused(
    operator: Operator,
) -> None:
    player = await operator.player(funds=1_000_000)
    poor = await operator.answer("/transaction/bet", player.bet(1_000_001))
    assert (poor["status"], poor["balance"]) == ("RS_ERROR_NOT_ENOUGH_MONEY", 1_000_000)
    await operator.admin("PUT", f"/users/{player.user}", json={"bet_limit": 200_000})
    limited = await operator.answer("/transaction/bet", player.bet(200_001))
    assert limited["status"] == "RS_ERROR_LIMIT_REACHED"
    bet = player.bet(200_000)
    assert (await operator.answer("/transaction/bet", bet))["status"] == "RS_OK"
    await operator.admin("PUT", f"/users/{player.user}", json={"disabled": True})
    disabled = await operator.answer("/transaction/bet", player.bet(1))
    assert disabled["status"] == "RS_ERROR_USER_DISABLED"
    # the money it owes a disabled player is still paid
    won = await operator.answer("/transaction/win", player.win(bet, 400_000))
    assert (won["status"], won["balance"]) == ("RS_OK", 1_200_000)
    assert len(await operator.transactions(user=player.user)) == 2


async def test_an_expired_token_refuses_bets_but_takes_wins_and_rollbacks(
    operator: Operator,
) -> None:
    fresh = await operator.player()
    bet = fresh.bet(100_000)
    other = fresh.bet(100_000, round_id="round-2")  # a round the win does not close
    await operator.answer("/transaction/bet", bet)
    await operator.answer("/transaction/bet", other)
    expired = await operator.admin(
        "POST", "/tokens", json={"user": fresh.user, "currency": INR, "ttl_seconds": 0}
    )
    player = Player(fresh.user, expired["token"], INR)
    assert (await operator.answer("/transaction/bet", player.bet(1)))["status"] == (
        "RS_ERROR_TOKEN_EXPIRED"
    )
    assert (await operator.answer("/user/balance", player.balance()))["status"] == (
        "RS_ERROR_TOKEN_EXPIRED"
    )
    assert (await operator.answer("/transaction/win", player.win(bet, 300_000)))["status"] == (
        "RS_OK"
    )
    rolled = await operator.answer(
        "/transaction/rollback", player.rollback(other["transaction_uuid"], round_id="round-2")
    )
    assert (rolled["status"], rolled["balance"]) == ("RS_OK", FUNDS + 200_000)


async def test_a_win_closing_the_round_settles_every_open_bet_of_the_players_round(
    operator: Operator,
) -> None:
    player = await operator.player()
    named, undone, last, unnamed = (player.bet(n * 100_000) for n in (1, 2, 3, 4))
    elsewhere = player.bet(50_000, round_id="round-2")
    for bet in (named, undone, last, unnamed, elsewhere):
        assert (await operator.answer("/transaction/bet", bet))["status"] == "RS_OK"
    # a win not closing the round settles the bet it names only
    open_win = {**player.win(named, 0), "round_closed": False}
    assert (await operator.answer("/transaction/win", open_win))["status"] == "RS_OK"
    rolled = await operator.answer(
        "/transaction/rollback", player.rollback(undone["transaction_uuid"])
    )
    assert (rolled["status"], rolled["balance"]) == ("RS_OK", FUNDS - 850_000)
    # one win closing the round: it settles the bet it names and every other one still open
    closing = await operator.answer("/transaction/win", player.win(last, 600_000))
    assert (closing["status"], closing["balance"]) == ("RS_OK", FUNDS - 250_000)
    refused = await operator.answer(
        "/transaction/rollback", player.rollback(unnamed["transaction_uuid"])
    )
    assert (refused["status"], refused["balance"]) == (
        "RS_ERROR_TRANSACTION_DOES_NOT_EXIST",
        FUNDS - 250_000,
    )
    # a bet of another round of the player's stays open
    rolled = await operator.answer(
        "/transaction/rollback", player.rollback(elsewhere["transaction_uuid"], round_id="round-2")
    )
    assert (rolled["status"], rolled["balance"]) == ("RS_OK", FUNDS - 200_000)


async def test_an_unknown_or_foreign_token_and_another_currency_are_refused(
    operator: Operator,
) -> None:
    player = await operator.player()
    other = await operator.player()
    unknown = Player(player.user, "no-such-token", INR)
    assert (await operator.answer("/transaction/bet", unknown.bet(1)))["status"] == (
        "RS_ERROR_INVALID_TOKEN"
    )
    foreign = Player(player.user, other.token, INR)
    assert (await operator.answer("/transaction/bet", foreign.bet(1)))["status"] == (
        "RS_ERROR_INVALID_TOKEN"
    )
    dollars = Player(player.user, player.token, "USD")
    answered = await operator.answer("/transaction/bet", dollars.bet(1))
    assert (answered["status"], answered["currency"], answered["balance"]) == (
        "RS_ERROR_WRONG_CURRENCY",
        "USD",
        0,
    )
    assert await operator.transactions(user=player.user) == []


async def test_a_request_not_signed_by_the_game_side_is_refused_and_applies_nothing(
    operator: Operator,
) -> None:
    player = await operator.player()
    bet = player.bet(100_000)
    stranger = await operator.answer("/transaction/bet", bet, key=generate_private_key())
    assert stranger["status"] == "RS_ERROR_INVALID_SIGNATURE"
    unsigned = await operator.client.post("/transaction/bet", json=bet)
    assert unsigned.json()["status"] == "RS_ERROR_INVALID_SIGNATURE"
    # the signature covers the bytes as sent: the same JSON spaced otherwise is other bytes
    signed = json.dumps(bet).encode()
    respaced = json.dumps(bet, indent=1).encode()
    response = await operator.client.post(
        "/transaction/bet",
        content=respaced,
        headers={SIGNATURE_HEADER: sign(operator.game_key, signed)},
    )
    assert response.json()["status"] == "RS_ERROR_INVALID_SIGNATURE"
    # and the bytes as sent, in any spacing, are what is verified
    assert (await operator.answer("/transaction/bet", bet, raw=respaced))["status"] == "RS_OK"
    assert len(await operator.transactions(user=player.user)) == 1


async def test_two_game_keys_are_valid_during_a_rollover(
    database: str, game_key: PrivateKey, operator_key: PrivateKey
) -> None:
    new_key = generate_private_key()
    app = create_app(
        OperatorServerConfig(
            dsn=database,
            private_key=operator_key,
            game_public_keys=[game_key.public_key(), new_key.public_key()],
            admin_token=ADMIN_TOKEN,
        )
    )
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://o") as client,
    ):
        operator = Operator(client, game_key, operator_key, app.state.operator)
        player = await operator.player()
        assert (await operator.answer("/user/balance", player.balance()))["status"] == "RS_OK"
        answered = await operator.answer("/user/balance", player.balance(), key=new_key)
        assert answered["status"] == "RS_OK"
        stranger = await operator.answer("/user/balance", player.balance(), key=operator_key)
        assert stranger["status"] == "RS_ERROR_INVALID_SIGNATURE"


async def test_malformed_requests_are_wrong_syntax_or_wrong_types(operator: Operator) -> None:
    player = await operator.player()
    bet = player.bet(100_000)
    not_json = await operator.call("/transaction/bet", bet, raw=b"{not json")
    assert (not_json.status_code, not_json.json()["status"]) == (200, "RS_ERROR_WRONG_SYNTAX")
    missing = {key: value for key, value in bet.items() if key != "amount"}
    assert (await operator.answer("/transaction/bet", missing))["status"] == "RS_ERROR_WRONG_SYNTAX"
    for wrong in ({"amount": "100000"}, {"amount": 1.5}, {"amount": -1}, {"round_closed": "no"}):
        answered = await operator.answer("/transaction/bet", {**bet, **wrong})
        assert answered["status"] == "RS_ERROR_WRONG_TYPES", wrong
    assert await operator.transactions(user=player.user) == []


# ------------------------------------------------------------------------------ admin API
async def test_the_admin_api_needs_its_token(operator: Operator) -> None:
    for headers in ({}, {ADMIN_TOKEN_HEADER: "wrong"}):
        response = await operator.client.get("/admin/transactions", headers=headers)
        assert response.status_code == 401
        assert response.json()["code"] == "admin_token_required"


async def test_transactions_by_round_and_time_range_page_by_cursor(operator: Operator) -> None:
    player = await operator.player()
    bets = [player.bet(1_000, round_id=f"round-{n % 2}") for n in range(5)]
    for bet in bets:
        await operator.answer("/transaction/bet", bet)
    first = await operator.admin("GET", "/transactions", params={"limit": 2})
    second = await operator.admin(
        "GET", "/transactions", params={"limit": 2, "cursor": first["next_cursor"]}
    )
    third = await operator.admin(
        "GET", "/transactions", params={"limit": 2, "cursor": second["next_cursor"]}
    )
    pages = first["transactions"] + second["transactions"] + third["transactions"]
    assert [t["transaction_uuid"] for t in pages] == [b["transaction_uuid"] for b in bets]
    assert third["next_cursor"] is None
    even = await operator.transactions(round="round-0")
    assert [t["transaction_uuid"] for t in even] == [b["transaction_uuid"] for b in bets[::2]]
    middle = pages[2]["created_at"]
    since = await operator.transactions(**{"from": middle})
    assert since[0]["transaction_uuid"] == bets[2]["transaction_uuid"]
    until = await operator.transactions(to=middle)
    assert [t["transaction_uuid"] for t in until] == [b["transaction_uuid"] for b in bets[:2]]


async def test_the_money_check_finds_a_balance_that_does_not_add_up(
    operator: Operator, database: str
) -> None:
    player = await operator.player()
    bet = player.bet(400_000)
    await operator.answer("/transaction/bet", bet)
    await operator.answer("/transaction/win", player.win(bet, 800_000))
    lost = player.bet(100_000, round_id="round-2")
    await operator.answer("/transaction/bet", lost)
    await operator.answer(
        "/transaction/rollback", player.rollback(lost["transaction_uuid"], round_id="round-2")
    )
    check = await operator.admin("GET", "/check")
    assert check["ok"]
    [row] = [row for row in check["balances"] if row["user"] == player.user]
    assert row == {
        "user": player.user,
        "currency": INR,
        "balance": FUNDS + 400_000,
        "deposits": FUNDS,
        "expected": FUNDS + 400_000,
        "ok": True,
    }
    connection = await asyncpg.connect(database)
    try:
        await connection.execute(
            "UPDATE balances SET balance = balance + 1 WHERE user_id = $1", player.user
        )
        assert not (await operator.admin("GET", "/check"))["ok"]
        await connection.execute(
            "UPDATE balances SET balance = balance - 1 WHERE user_id = $1", player.user
        )
    finally:
        await connection.close()


async def test_concurrent_repeats_of_one_bet_debit_once(operator: Operator) -> None:
    player = await operator.player()
    bet = player.bet(700_000)
    answers = await asyncio.gather(
        *(
            operator.answer("/transaction/bet", {**bet, "request_uuid": new_uuid()})
            for _ in range(8)
        )
    )
    assert {answer["status"] for answer in answers} == {"RS_OK"}
    assert await operator.balance_of(player) == FUNDS - 700_000


# ------------------------------------------------------------------------------ faults
async def test_latency_delays_the_answer_and_changes_nothing_else(operator: Operator) -> None:
    player = await operator.player()
    await operator.faults({"kind": "latency", "seconds": 0.005, "probability": 1})
    answered = await operator.answer("/transaction/bet", player.bet(100_000))
    assert (answered["status"], answered["balance"]) == ("RS_OK", FUNDS - 100_000)
    [switch] = (await operator.admin("GET", "/faults"))["switches"]
    assert switch["fired"] == 1


async def test_an_error_answers_5xx_and_applies_nothing(operator: Operator) -> None:
    player = await operator.player()
    await operator.faults({"kind": "error", "http_status": 503, "next": 1, "calls": ["win"]})
    bet = player.bet(100_000)
    await operator.answer("/transaction/bet", bet)  # not a win: untouched
    win = player.win(bet, 300_000)
    response = await operator.call("/transaction/win", win)
    assert response.status_code == 503
    assert await operator.balance_of(player) == FUNDS - 100_000
    retried = await operator.answer("/transaction/win", {**win, "request_uuid": new_uuid()})
    assert (retried["status"], retried["balance"]) == ("RS_OK", FUNDS + 200_000)


async def test_a_lost_answer_applies_the_change_and_a_retry_finds_it_done(
    operator: Operator,
) -> None:
    player = await operator.player()
    bet = player.bet(100_000)
    await operator.answer("/transaction/bet", bet)
    await operator.faults({"kind": "lost", "next": 1, "calls": ["win"]})
    win = player.win(bet, 300_000)
    response = await operator.call("/transaction/win", win)
    assert response.status_code == 500
    assert await operator.balance_of(player) == FUNDS + 200_000
    retried = await operator.answer("/transaction/win", {**win, "request_uuid": new_uuid()})
    assert (retried["status"], retried["balance"]) == ("RS_OK", FUNDS + 200_000)
    assert len(await operator.transactions(user=player.user)) == 2


async def test_a_refusal_answers_its_status_and_applies_nothing(operator: Operator) -> None:
    player = await operator.player()
    await operator.faults(
        {"kind": "refuse", "status": "RS_ERROR_LIMIT_REACHED", "next": 2, "calls": ["bet"]}
    )
    for _ in range(2):
        refused = await operator.answer("/transaction/bet", player.bet(100_000))
        assert (refused["status"], refused["balance"]) == ("RS_ERROR_LIMIT_REACHED", FUNDS)
    assert (await operator.answer("/transaction/bet", player.bet(100_000)))["status"] == "RS_OK"
    assert len(await operator.transactions(user=player.user)) == 1


async def test_a_wrong_signature_on_its_side_fails_verification_but_the_change_is_applied(
    operator: Operator,
) -> None:
    player = await operator.player()
    await operator.faults({"kind": "bad_signature", "next": 1})
    bet = player.bet(100_000)
    response = await operator.call("/transaction/bet", bet)
    assert response.status_code == 200
    assert response.json()["status"] == "RS_OK"
    assert not verify(
        [operator.operator_public_key], response.content, response.headers[SIGNATURE_HEADER]
    )
    assert await operator.balance_of(player) == FUNDS - 100_000


async def test_a_timeout_holds_the_call_past_the_caller_and_then_applies_it(
    operator: Operator,
) -> None:
    player = await operator.player()
    await operator.faults({"kind": "timeout", "seconds": 0.5, "next": 1, "calls": ["bet"]})
    bet = player.bet(100_000)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(operator.call("/transaction/bet", bet), timeout=0.05)
    await operator.settled()
    assert await operator.balance_of(player) == FUNDS - 100_000
    [debit] = await operator.transactions(user=player.user)
    assert debit["transaction_uuid"] == bet["transaction_uuid"]


async def test_a_timeout_applied_first_holds_only_the_answer(operator: Operator) -> None:
    player = await operator.player()
    await operator.faults(
        {"kind": "timeout", "seconds": 5, "applied_first": True, "next": 1, "calls": ["bet"]}
    )
    bet = player.bet(100_000)
    call = asyncio.create_task(operator.call("/transaction/bet", bet))
    # applied while its answer is still held: a bounded poll of the operator's list
    for _ in range(500):
        if await operator.transactions(user=player.user):
            break
        await asyncio.sleep(0.01)
    assert not call.done()
    call.cancel()
    assert await operator.balance_of(player) == FUNDS - 100_000
    [debit] = await operator.transactions(user=player.user)
    assert debit["transaction_uuid"] == bet["transaction_uuid"]


async def test_a_bet_held_past_its_rollback_is_refused_when_it_arrives(
    operator: Operator,
) -> None:
    player = await operator.player()
    await operator.faults({"kind": "timeout", "seconds": 0.5, "next": 1, "calls": ["bet"]})
    bet = player.bet(100_000)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(operator.call("/transaction/bet", bet), timeout=0.05)
    # the game side gave up on the bet and rolls it back before the operator sees it
    rollback = player.rollback(bet["transaction_uuid"])
    assert (await operator.answer("/transaction/rollback", rollback))["status"] == "RS_OK"
    await operator.settled()
    assert await operator.balance_of(player) == FUNDS
    [tombstone] = await operator.transactions(user=player.user)
    assert (tombstone["kind"], tombstone["tombstone"]) == ("rollback", True)


async def test_a_seeded_probability_fires_the_same_calls_every_time(operator: Operator) -> None:
    player = await operator.player()
    switch = {"kind": "error", "probability": 0.5, "calls": ["balance"]}

    async def pattern() -> list[bool]:
        await operator.faults(switch, seed=7)
        fired = []
        for _ in range(20):
            response = await operator.call("/user/balance", player.balance())
            fired.append(response.status_code == 500)
        return fired

    first = await pattern()
    assert await pattern() == first
    assert 0 < sum(first) < 20
    described = await operator.admin("GET", "/faults")
    assert described["switches"][0]["fired"] == sum(first)
    cleared = await operator.admin("DELETE", "/faults")
    assert cleared["switches"] == []


async def test_a_fault_switch_needs_exactly_one_trigger(operator: Operator) -> None:
    response = await operator.client.put(
        "/admin/faults",
        headers={ADMIN_TOKEN_HEADER: ADMIN_TOKEN},
        json={"switches": [{"kind": "error", "probability": 1, "next": 1}]},
    )
    assert response.status_code == 422


# ------------------------------------------------------------------------------ the process
@pytest.mark.parametrize("workers", [1, 2])
async def test_the_process_serves_the_protocol_and_keeps_its_state_across_a_kill(
    database: str, game_key: PrivateKey, tmp_path: Path, workers: int
) -> None:
    latency = FaultPlan.model_validate(
        {"seed": 1, "switches": [{"kind": "latency", "seconds": 0.001, "probability": 1}]}
    )
    async with launched(
        public_key_pem(game_key),
        port=free_port(),
        folder=tmp_path,
        database=database.rsplit("/", 1)[1].split("?")[0],
        faults=latency,
        workers=workers,
    ) as launched_operator:
        operator_key_public = load_public_key(launched_operator.public_key_pem)
        async with httpx.AsyncClient(base_url=launched_operator.url, timeout=10) as client:
            operator = Operator(client, game_key, operator_key_public, None)
            admin = launched_operator.admin
            token = await admin.player("player-p", INR, FUNDS)
            player = Player("player-p", token, INR)
            bets = [player.bet(100_000) for _ in range(4)]
            for n, bet in enumerate(bets, start=1):
                answered = await operator.answer("/transaction/bet", bet)
                assert (answered["status"], answered["balance"]) == ("RS_OK", FUNDS - n * 100_000)
            # each worker has the switches of --faults; the admin API sees the one it reaches
            [switch] = (await admin.faults())["switches"]
            assert switch["kind"] == "latency"
            assert switch["fired"] == 4 if workers == 1 else switch["fired"] <= 4

            launched_operator.kill()
            # a crash of the whole server: no worker of it is left answering
            async with httpx.AsyncClient(base_url=launched_operator.url, timeout=5) as fresh:
                with pytest.raises(httpx.ConnectError):
                    await fresh.get("/healthz")
            await launched_operator.restart()
            again = await operator.answer(
                "/transaction/bet", {**bets[0], "request_uuid": new_uuid()}
            )
            assert (again["status"], again["balance"]) == ("RS_OK", FUNDS - 400_000)
            listed = await admin.transactions(user="player-p", page_size=3)
            assert [t["transaction_uuid"] for t in listed] == [b["transaction_uuid"] for b in bets]
            assert (await admin.check())["ok"]


# ------------------------------------------------------------------------------ the game side
async def test_the_game_sides_client_and_the_reference_operator_agree(
    operator: Operator,
) -> None:
    """The game side's client (teenpatti.seamless.client), in minor units, against this
    server: every outcome reads as the protocol says, including each fault's."""
    from teenpatti.seamless.calls import (
        Answered,
        BadAnswer,
        BetCall,
        NoAnswer,
        RollbackCall,
        WinCall,
    )
    from teenpatti.seamless.client import OperatorWalletClient
    from teenpatti.seamless.config import OperatorConfig, WalletMode

    player = await operator.player()
    config = OperatorConfig(
        operator_id="operator-1",
        mode=WalletMode.SEAMLESS,
        base_url="http://operator",
        public_keys=(public_key_pem(operator.operator_key).decode(),),
        timeout_seconds=1,
    )
    transport = httpx.ASGITransport(app=operator.app)
    funds = FUNDS // 1_000  # minor units of INR

    def bet(amount: int) -> BetCall:
        return BetCall(player.user, player.token, new_uuid(), "round-9", amount, INR)

    async with OperatorWalletClient(operator.game_key, transport=transport) as client:
        placed = bet(356)
        outcome = await client.bet(config, placed)
        assert isinstance(outcome, Answered)
        assert (outcome.status, outcome.balance, outcome.currency) == ("RS_OK", funds - 356, INR)
        win = WinCall(
            player.user, player.token, new_uuid(), placed.transaction_uuid, "round-9", 712, INR
        )
        outcome = await client.win(config, win)
        assert isinstance(outcome, Answered) and outcome.balance == funds + 356
        unseen = RollbackCall(player.user, player.token, new_uuid(), new_uuid(), "round-9", INR)
        outcome = await client.rollback(config, unseen)
        assert isinstance(outcome, Answered) and outcome.status == "RS_OK"

        await operator.faults({"kind": "lost", "next": 1}, {"kind": "bad_signature", "next": 1})
        lost = await client.bet(config, bet(100))
        assert isinstance(lost, NoAnswer) and lost.reason == "http_status"
        badly_signed = await client.bet(config, bet(100))
        assert isinstance(badly_signed, BadAnswer) and badly_signed.reason == "wrong_signature"
        await operator.faults({"kind": "timeout", "seconds": 1.5, "next": 1})
        held = await client.bet(config, bet(100))
        assert isinstance(held, NoAnswer) and held.reason == "timeout"
        await operator.settled()

    async with OperatorWalletClient(generate_private_key(), transport=transport) as stranger:
        refused = await stranger.rollback(
            config,
            RollbackCall(
                player.user, player.token, new_uuid(), placed.transaction_uuid, "round-9", INR
            ),
        )
        assert isinstance(refused, Answered)
        assert (refused.status, refused.currency) == ("RS_ERROR_INVALID_SIGNATURE", INR)
    # the lost, the badly signed and the held bet were all applied
    assert await operator.balance_of(player) == FUNDS + 356_000 - 300_000
