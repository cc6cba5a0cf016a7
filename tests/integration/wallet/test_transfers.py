"""Deposits and withdrawals: idempotent by transfer id, never below zero, per operator."""

from __future__ import annotations

import asyncio

import httpx

from teenpatti.events.catalog import FundsDeposited, FundsWithdrawn
from tests.integration.services import of_type
from wallet_service.config import WalletSettings

from .helpers import OPERATOR_1, OPERATOR_2, balances, database, published, wallet


async def test_deposits_and_withdrawals(wallet_settings: WalletSettings) -> None:
    async with wallet(wallet_settings) as client:

        async def transfer(
            kind: str, transfer_id: str, amount: object, currency: str = "INR"
        ) -> httpx.Response:
            return await client.post(
                f"/players/p1/{kind}",
                json={"transfer_id": transfer_id, "currency": currency, "amount": amount},
                headers=OPERATOR_1,
            )

        first = await transfer("deposits", "d1", 1_000)
        assert first.status_code == 200, first.text
        assert first.json()["balance"] == 1_000

        # the same transfer again is the same answer, and nothing moves
        again = await transfer("deposits", "d1", 1_000)
        assert again.status_code == 200
        assert again.json() == first.json()
        assert await balances(client, "p1") == {"INR": 1_000}

        # the same transfer id with another body is refused
        reused = await transfer("deposits", "d1", 2_000)
        assert reused.status_code == 422
        assert reused.json()["code"] == "transfer_id_reused"
        as_withdrawal = await transfer("withdrawals", "d1", 1_000)
        assert as_withdrawal.json()["code"] == "transfer_id_reused"

        withdrawn = await transfer("withdrawals", "w1", 300)
        assert withdrawn.status_code == 200, withdrawn.text
        assert withdrawn.json()["balance"] == 700

        too_much = await transfer("withdrawals", "w2", 701)
        assert too_much.status_code == 409
        assert too_much.json()["code"] == "insufficient_funds"
        assert too_much.headers["content-type"] == "application/problem+json"
        # a refused withdrawal leaves its id free: after a deposit, it goes through
        assert (await transfer("deposits", "d2", 1)).status_code == 200
        assert (await transfer("withdrawals", "w2", 701)).json()["balance"] == 0

        assert (await transfer("deposits", "d3", 500, "EUR")).json()["balance"] == 500
        assert await balances(client, "p1") == {"EUR": 500, "INR": 0}

        # bad input: problems, not errors
        for amount in (0, -5, 10.5, "100", True):
            bad = await transfer("deposits", "d9", amount)
            assert bad.status_code == 422, amount
            assert bad.json()["code"] == "invalid_request"
        assert (await transfer("deposits", "d9", 10, "inr")).status_code == 422
        assert (await client.get("/players/p:1/balances", headers=OPERATOR_1)).status_code == 422

        # keys: none, unknown, and a role that is not an operator
        assert (await client.get("/players/p1/balances")).json()["code"] == "missing_api_key"
        wrong = await client.get("/players/p1/balances", headers={"X-Api-Key": "nope"})
        assert wrong.status_code == 401
        dealer = await client.get("/players/p1/balances", headers={"X-Api-Key": "dev-dealer-key"})
        assert dealer.status_code == 403

        # another operator's player of the same id is another player
        assert await balances(client, "p1", OPERATOR_2) == {}
        refused = await client.post(
            "/players/p1/withdrawals",
            json={"transfer_id": "w1", "currency": "EUR", "amount": 1},
            headers=OPERATOR_2,
        )
        assert refused.json()["code"] == "insufficient_funds"

        events = await published(wallet_settings, lambda seen: len(seen) >= 5)
        deposited = of_type(events, "FundsDeposited")
        withdrawn_events = of_type(events, "FundsWithdrawn")
        assert [e.amount for e in deposited if isinstance(e, FundsDeposited)] == [1_000, 1, 500]
        assert [
            (e.amount, e.balance_after) for e in withdrawn_events if isinstance(e, FundsWithdrawn)
        ] == [(300, 700), (701, 0)]


async def test_concurrent_retries_of_one_deposit_credit_once(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        answers = await asyncio.gather(
            *(
                client.post(
                    "/players/p7/deposits",
                    json={"transfer_id": "same", "currency": "INR", "amount": 250},
                    headers=OPERATOR_1,
                )
                for _ in range(10)
            )
        )
        assert {a.status_code for a in answers} == {200}
        assert {a.json()["balance"] for a in answers} == {250}
        assert await balances(client, "p7") == {"INR": 250}
        async with database(wallet_settings) as connection:
            entries = await connection.fetchval(
                "SELECT count(*) FROM wallet_ledger WHERE reference = 'transfer:same'"
            )
        assert entries == 1


async def test_a_deposit_beyond_what_an_account_holds_is_refused_and_records_nothing(
    wallet_settings: WalletSettings,
) -> None:
    most = 2**63 - 1  # a Postgres bigint: the largest balance an account holds
    async with wallet(wallet_settings) as client:
        await deposit_to(client, "rich", 1_000)
        async with database(wallet_settings) as connection:
            # the account brought near its bound the only way there is, short of ~10^3
            # deposits of the largest amount a deposit takes
            await connection.execute(
                "UPDATE wallet_accounts SET balance = $1 WHERE player_id = 'rich'", most - 10
            )
        answer = await client.post(
            "/players/rich/deposits",
            json={"transfer_id": "too-much", "currency": "INR", "amount": 11},
            headers=OPERATOR_1,
        )
        assert answer.status_code == 422, answer.text
        assert answer.json()["code"] == "balance_limit_exceeded"
        assert await balances(client, "rich") == {"INR": most - 10}
        async with database(wallet_settings) as connection:
            recorded = await connection.fetchval(
                "SELECT count(*) FROM wallet_transfers WHERE transfer_id = 'too-much'"
            )
        assert recorded == 0


async def deposit_to(client: httpx.AsyncClient, player: str, amount: int) -> None:
    answer = await client.post(
        f"/players/{player}/deposits",
        json={"transfer_id": f"d-{player}-{amount}", "currency": "INR", "amount": amount},
        headers=OPERATOR_1,
    )
    assert answer.status_code == 200, answer.text
