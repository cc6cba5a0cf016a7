"""The wallet pays a settled bet only what it computes itself with the rules engine, from the
round's cards and pay table: a forged `BetsSettled` is parked and pays nothing, shown to a
supervisor, and the genuine settlement still pays, exactly; one that comes before the
round's result waits for it."""

from __future__ import annotations

import asyncio
from typing import Any

from teenpatti.events.catalog import SETTLEMENT_EVENTS, BetsSettled
from wallet_service.config import WalletSettings

from .helpers import (
    OPERATOR_1,
    balances,
    close_betting,
    close_round,
    database,
    deposit,
    eventually,
    open_round,
    place,
    send,
    wait_for_round,
    wallet,
)
from .test_payments import CARDS, line

ROUND = "T1-000001"
SUPERVISOR = {"X-Api-Key": "dev-supervisor-key"}


async def bets_of(client: Any, placed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [(await client.get(f"/bets/{b['bet_id']}", headers=OPERATOR_1)).json() for b in placed]


async def test_a_forged_settlement_with_an_inflated_amount_pays_nothing_and_the_genuine_one_pays(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, ROUND)
        await deposit(client, "p1", 5_000)
        response = await place(client, "p1", ROUND, [("player_a", 1_000), ("tie", 200)])
        assert response.status_code == 201, response.text
        a, tie = await bets_of(client, response.json()["bets"])
        await close_betting(wallet_settings, ROUND)
        await wait_for_round(client, ROUND, "sealed")
        await close_round(wallet_settings, client, ROUND, CARDS)  # Player A wins

        # the bet as it is, the round closed: only the amounts are forged
        forged = BetsSettled(
            round_id=ROUND,
            table_id="T1",
            bets=[line(a, "operator-1", "won", 2_000), line(tie, "operator-1", "lost", 0)],
        )
        await send(wallet_settings, SETTLEMENT_EVENTS, forged, table_id="T1")

        async def parked() -> bool:
            async with database(wallet_settings) as connection:
                return bool(await connection.fetchval("SELECT count(*) FROM parked_events"))

        await eventually(parked, what="the forged settlement to be parked", timeout=60)
        assert await balances(client, "p1") == {"INR": 5_000 - 1_200}
        assert {b["status"] for b in await bets_of(client, [a, tie])} == {"placed"}

        # a supervisor sees why; an operator may not look
        assert (await client.get("/problems", headers=OPERATOR_1)).status_code == 403
        shown = await client.get("/problems", headers=SUPERVISOR)
        assert shown.status_code == 200, shown.text
        assert shown.json()["service"] == "wallet"
        (problem,) = shown.json()["items"]
        assert problem["kind"] == "parked_event"
        assert problem["facts"]["event_type"] == "BetsSettled"
        assert problem["facts"]["topic"].endswith(SETTLEMENT_EVENTS)
        assert problem["detail"].startswith("PayoutMismatchError: ")
        assert f"bet {a['bet_id']}" in problem["detail"]
        assert (
            "says won returning 2000, the wallet computes won returning 1950" in (problem["detail"])
        )

        genuine = BetsSettled(
            round_id=ROUND,
            table_id="T1",
            bets=[line(a, "operator-1", "won", 1_950), line(tie, "operator-1", "lost", 0)],
        )
        await send(wallet_settings, SETTLEMENT_EVENTS, genuine, table_id="T1")

        async def paid() -> bool:
            return {b["status"] for b in await bets_of(client, [a, tie])} == {"paid"}

        await eventually(paid, what="the genuine settlement to be paid")
        assert await balances(client, "p1") == {"INR": 5_000 - 1_200 + 1_950}
        assert [(b["outcome"], b["returned"]) for b in await bets_of(client, [a, tie])] == [
            ("won", 1_950),
            ("lost", 0),
        ]
        assert len((await client.get("/problems", headers=SUPERVISOR)).json()["items"]) == 1


async def test_a_settlement_before_the_wallet_holds_the_result_waits_for_it(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, ROUND)
        await deposit(client, "p1", 5_000)
        response = await place(client, "p1", ROUND, [("player_a", 1_000)])
        assert response.status_code == 201, response.text
        (a,) = await bets_of(client, response.json()["bets"])
        await close_betting(wallet_settings, ROUND)
        await wait_for_round(client, ROUND, "sealed")

        # settlement got the result first (table.events is another topic, another consumer)
        early = BetsSettled(
            round_id=ROUND, table_id="T1", bets=[line(a, "operator-1", "won", 1_950)]
        )
        await send(wallet_settings, SETTLEMENT_EVENTS, early, table_id="T1")
        await asyncio.sleep(3)  # the consumer meets it, and waits: neither paid nor parked
        assert (await client.get(f"/bets/{a['bet_id']}", headers=OPERATOR_1)).json()[
            "status"
        ] == "placed"
        async with database(wallet_settings) as connection:
            assert await connection.fetchval("SELECT count(*) FROM parked_events") == 0

        await close_round(wallet_settings, client, ROUND, CARDS)

        async def paid() -> bool:
            bet = await client.get(f"/bets/{a['bet_id']}", headers=OPERATOR_1)
            return bool(bet.json()["status"] == "paid")

        await eventually(paid, what="the early settlement to be paid once the result is in")
        assert await balances(client, "p1") == {"INR": 5_000 - 1_000 + 1_950}
        async with database(wallet_settings) as connection:
            assert await connection.fetchval("SELECT count(*) FROM parked_events") == 0
