"""A round voided after its result, at a transfer wallet on the real stack: settlement's
reversal (`BetsReversed`) is checked against what the wallet paid and waits for the table's
`RoundVoided`; each player's stakes are refunded and winnings taken back, never below a zero
balance (the rest a shortfall, shown and owed, never lost); a redelivery moves nothing; a
forged reversal is parked; the rebuild from the wallet's events still equals the live
tables."""

from __future__ import annotations

import asyncio
import io
import os
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import pytest

from teenpatti import cli
from teenpatti.events.catalog import (
    SETTLEMENT_EVENTS,
    TABLE_EVENTS,
    BetReversed,
    BetsCorrected,
    BetsReversed,
    RoundVoided,
)
from tests.integration.services import count_of, of_type
from wallet_service.config import WalletSettings
from wallet_service.rebuild import rebuild

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
    published,
    send,
    wait_for_round,
    wallet,
)
from .test_payments import settled

ROUND = "T1-000001"
CARDS = ["AS", "2D", "AH", "3C", "KD", "9S"]  # Player A's pair beats Player B's high card
SUPERVISOR = {"X-Api-Key": "dev-supervisor-key"}


def voided() -> RoundVoided:
    closed = {"player_a_hand": "pair", "player_b_hand": "high_card", "winner": "player_a"}
    return RoundVoided(
        round_id=ROUND,
        table_id="T1",
        requested_by="sup-ana",
        actor="sup-ben",
        reason="A2 was read as AH; the card on the felt is 4H",
        closed_at=datetime.now(UTC),
        cards=CARDS,
        six_card_bonus_hand=None,
        **closed,
    )


def reversal(bets: list[tuple[dict[str, Any], str, int]]) -> BetsReversed:
    return BetsReversed(
        round_id=ROUND,
        table_id="T1",
        bets=[
            BetReversed(
                bet_id=UUID(bet["bet_id"]),
                operator_id="operator-1",
                player_id=bet["player_id"],
                bet_type=bet["bet_type"],
                stake=bet["stake"],
                currency="INR",
                outcome=outcome,
                returned=returned,
                refunded=bet["stake"],
            )
            for bet, outcome, returned in bets
        ],
    )


async def settle_cli(
    monkeypatch: pytest.MonkeyPatch, wallet_database: str, *argv: str
) -> tuple[int, str, str]:
    monkeypatch.setenv("TP_WALLET_DATABASE", wallet_database)
    monkeypatch.setenv("TP_ENV", os.environ.get("TP_ENV", "dev"))
    out, err = io.StringIO(), io.StringIO()
    status = await asyncio.to_thread(
        cli.main, ["operators", "correction-settled", *argv], None, out, err
    )
    return status, out.getvalue(), err.getvalue()


async def test_a_void_after_the_result_refunds_stakes_takes_winnings_back_and_shows_a_shortfall(
    wallet_settings: WalletSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, ROUND)
        await deposit(client, "p1", 5_000)
        await deposit(client, "p2", 1_000)
        p1 = (await place(client, "p1", ROUND, [("player_a", 1_000), ("tie", 200)])).json()
        p2 = (await place(client, "p2", ROUND, [("player_b", 500)])).json()
        views = {}
        for player, slip in (("p1", p1), ("p2", p2)):
            for bet in slip["bets"]:
                views[(player, bet["bet_type"])] = {
                    **bet,
                    "player_id": player,
                    "round_id": ROUND,
                    "table_id": "T1",
                    "currency": "INR",
                }
        await close_betting(wallet_settings, ROUND)
        await wait_for_round(client, ROUND, "sealed")
        await close_round(wallet_settings, client, ROUND, CARDS)
        results = [
            (views[("p1", "player_a")], "won", 1_950),
            (views[("p1", "tie")], "lost", 0),
            (views[("p2", "player_b")], "lost", 0),
        ]
        for bet, outcome, returned in results:
            await send(
                wallet_settings,
                SETTLEMENT_EVENTS,
                settled(bet, "operator-1", outcome, returned),
                table_id="T1",
            )

        async def paid() -> bool:
            return await balances(client, "p1") == {"INR": 5_750}

        await eventually(paid, what="p1's winnings")
        # p1 takes most of the winnings out before the void
        out = await client.post(
            "/players/p1/withdrawals",
            json={"transfer_id": "w1", "currency": "INR", "amount": 5_500},
            headers=OPERATOR_1,
        )
        assert out.json()["balance"] == 250

        # settlement's reversal arrives before the table's void: it waits for it
        await send(wallet_settings, SETTLEMENT_EVENTS, reversal(results), table_id="T1")
        await asyncio.sleep(1.0)
        assert await balances(client, "p1") == {"INR": 250}
        await send(wallet_settings, TABLE_EVENTS, voided(), table_id="T1")

        async def corrected() -> bool:
            return await balances(client, "p2") == {"INR": 1_000}

        await eventually(corrected, what="p2's stake refunded")
        # p1: 1,200 refunded less 1,950 taken back is -750; the balance covers 250
        assert await balances(client, "p1") == {"INR": 0}

        events = await published(wallet_settings, count_of("BetsCorrected", 2))
        corrections = {
            e.player_id: e for e in of_type(events, "BetsCorrected") if isinstance(e, BetsCorrected)
        }
        assert {
            player: (e.net, e.applied, e.shortfall, e.balance_after)
            for player, e in corrections.items()
        } == {"p1": (-750, -250, 500, 0), "p2": (500, 500, 0, 1_000)}

        problems = (await client.get("/problems", headers=SUPERVISOR)).json()["items"]
        (shortfall,) = [p for p in problems if p["kind"] == "correction_shortfall"]
        assert shortfall["round_id"] == ROUND
        assert shortfall["facts"]["player_id"] == "p1"
        assert shortfall["facts"]["shortfall"] == 500

        moves = (
            await client.get("/transactions", params={"round_id": ROUND}, headers=OPERATOR_1)
        ).json()["items"]
        shown = {
            m["player_id"]: (m["amount"], m["applied"], m["shortfall"], m["status"])
            for m in moves
            if m["kind"] == "correction"
        }
        assert shown == {"p1": (-750, -250, 500, "shortfall"), "p2": (500, 500, 0, "ok")}
        day = datetime.now(UTC).date().isoformat()
        report = (
            await client.get("/reports/daily", params={"date": day}, headers=OPERATOR_1)
        ).json()
        (inr,) = report["currencies"]
        assert inr["corrections"] == {
            "bets": 3,
            "net": -250,
            "applied": 250,
            "shortfall": 500,
            "listed": 0,
        }

        games = (await client.get("/players/p1/games", headers=OPERATOR_1)).json()["games"]
        (game,) = games
        assert (game["status"], game["winner"], game["cards"]) == ("voided", "player_a", CARDS)
        assert game["correction"] == {"refunded": 1_200, "reversed": 1_950, "net": -750}

        # a redelivered reversal moves nothing; a forged one is parked
        await send(wallet_settings, SETTLEMENT_EVENTS, reversal(results), table_id="T1")
        forged = reversal([(views[("p2", "player_b")], "won", 975)])
        await send(wallet_settings, SETTLEMENT_EVENTS, forged, table_id="T1")

        async def parked() -> bool:
            async with database(wallet_settings) as connection:
                return bool(
                    await connection.fetchval(
                        "SELECT count(*) FROM parked_events WHERE error LIKE '%BetsReversed%'"
                    )
                )

        await eventually(parked, what="the forged reversal to be parked", timeout=60)
        assert await balances(client, "p1") == {"INR": 0}
        assert await balances(client, "p2") == {"INR": 1_000}

        async with database(wallet_settings) as connection:
            house = await connection.fetchval(
                "SELECT sum(amount) FROM wallet_ledger WHERE account = 'house'"
            )
            accounts = await connection.fetchval("SELECT sum(balance) FROM wallet_accounts")
            twice = await connection.fetchval(
                "SELECT count(*) FROM wallet_corrections GROUP BY round_id, player_id"
                " ORDER BY count(*) DESC LIMIT 1"
            )
        # every unit accounted for: what came in, less what went out, is in the accounts
        # and the house; the shortfall is owed, listed above
        assert accounts + house == 5_000 + 1_000 - 5_500
        assert twice == 1

        status, text, err = await settle_cli(
            monkeypatch,
            wallet_settings.wallet_database,
            ROUND,
            "p1",
            "--operator",
            "operator-1",
            "--reason",
            "collected from the player's next deposit",
            "--by",
            "payments-desk",
        )
        assert status == 0, err
        assert "shortfall 500 settled" in text
        problems = (await client.get("/problems", headers=SUPERVISOR)).json()["items"]
        assert not [p for p in problems if p["kind"] == "correction_shortfall"]
        again = await settle_cli(
            monkeypatch,
            wallet_settings.wallet_database,
            ROUND,
            "p1",
            "--operator",
            "operator-1",
            "--reason",
            "again",
        )
        assert again[0] == 2 and "nothing of round" in again[2]

        async with database(wallet_settings) as connection:
            rebuilt = await rebuild(connection)
        assert rebuilt.equal, rebuilt
