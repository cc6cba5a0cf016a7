"""What the player view and the studio console read of rounds played, across the four running
services on the real stack: a player's last games (won and voided mid-deal) with the exact
amounts and balances the wallet recorded, a round's stakes across operators, and the table
scanner's last reads with a misread among them."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from teenpatti_tools.simulator import SUPERVISOR_KEY

from .driver import SECOND_SUPERVISOR_KEY, Studio
from .test_rounds import betting_round

SUPERVISOR = {"X-Api-Key": SUPERVISOR_KEY}
# A: a pair of aces; B: 9 high
WON = ["AS", "2D", "AH", "3C", "KD", "9S"]


async def settled_games(
    studio: Studio, operator: str, player: str, count: int
) -> list[dict[str, Any]]:
    """The player's last games once `count` of them have their balance after the round."""
    async with asyncio.timeout(30):
        while True:
            found = await studio.games(operator, player)
            if sum(g["balance_after"] is not None for g in found) >= count:
                return found
            await asyncio.sleep(0.2)


async def test_last_games_stakes_and_scans_of_rounds_played(studio: Studio) -> None:
    table_id = f"E{uuid.uuid4().hex[:6].upper()}"
    alice, bob = f"p-{uuid.uuid4().hex[:8]}", f"p-{uuid.uuid4().hex[:8]}"
    await studio.open_table(table_id, betting_seconds=8.0)
    await studio.deposit("operator-1", alice, 100_000)
    await studio.deposit("operator-2", bob, 10_000)

    # a round won, with another operator's player at the table
    first = str((await betting_round(studio, table_id))["round_id"])
    alice_slip = await studio.bet("operator-1", alice, first, {"player_a": 1_000, "tie": 200})
    assert alice_slip.status_code == 201, alice_slip.text
    assert (await studio.bet("operator-2", bob, first, {"player_a": 500})).status_code == 201
    stakes = await studio.http.get(
        f"{studio.urls.wallet}/rounds/{first}/stakes", headers=SUPERVISOR
    )
    assert stakes.status_code == 200, stakes.text
    assert stakes.json()["status"] in ("open", "sealed")  # betting may have closed meanwhile
    assert stakes.json() == {
        "round_id": first,
        "table_id": table_id,
        "status": stakes.json()["status"],
        "by_currency": {
            "INR": {"player_a": {"bets": 2, "staked": 1_500}, "tie": {"bets": 1, "staked": 200}}
        },
    }
    await studio.wait_for(table_id, "BettingClosed", round_id=first)
    misread = await studio.scan(table_id, "A?")
    assert misread.json()["status"] == "rescan"
    await studio.deal(table_id, WON)
    await studio.wait_for(table_id, "RoundClosed", round_id=first)
    # paid before the next slip: a balance after is the player's balance at its payment, so a
    # slip of the next round taken first would be in it
    await settled_games(studio, "operator-1", alice, 1)

    # the next round (the table opens it by itself), voided after two cards
    second = str((await betting_round(studio, table_id))["round_id"])
    voided_slip = await studio.bet("operator-1", alice, second, {"six_card_bonus": 900})
    assert voided_slip.status_code == 201, voided_slip.text
    await studio.wait_for(table_id, "BettingClosed", round_id=second)
    await studio.deal(table_id, ["QS", "QH"])
    assert (await studio.command(table_id, "cancel", "scanner fault")).status_code == 202
    confirmed = await studio.command(table_id, "cancel", "agreed", key=SECOND_SUPERVISOR_KEY)
    assert confirmed.status_code == 200, confirmed.text
    await studio.wait_for(table_id, "RoundCancelled", round_id=second)

    voided, won = await settled_games(studio, "operator-1", alice, 2)
    # A wins 1:0.95 (1,950 back on 1,000); the tie bet is lost
    after_won = 100_000 - 1_200 + 1_950
    placed = {b["bet_type"]: b["bet_id"] for b in alice_slip.json()["bets"]}
    assert won == {
        "round_id": first,
        "table_id": table_id,
        "status": "closed",
        "ended_at": won["ended_at"],
        "cards": WON,
        "player_a": {"cards": ["AS", "AH", "KD"], "hand": "pair"},
        "player_b": {"cards": ["2D", "3C", "9S"], "hand": "high_card"},
        "winner": "player_a",
        "six_card_bonus_hand": None,
        "currency": "INR",
        "wagers": [
            {
                "bet_id": placed["player_a"],
                "bet_type": "player_a",
                "stake": 1_000,
                "returned": 1_950,
                "outcome": "won",
            },
            {
                "bet_id": placed["tie"],
                "bet_type": "tie",
                "stake": 200,
                "returned": 0,
                "outcome": "lost",
            },
        ],
        "staked": 1_200,
        "returned": 1_950,
        "balance_before": 100_000,
        "balance_after": after_won,
        "voided_at": None,
        "correction": None,
    }
    assert won["ended_at"] is not None
    assert {k: voided[k] for k in ("round_id", "status", "cards", "player_a", "winner")} == {
        "round_id": second,
        "status": "cancelled",
        "cards": ["QS", "QH"],
        "player_a": None,
        "winner": None,
    }
    assert [(w["stake"], w["returned"], w["outcome"]) for w in voided["wagers"]] == [
        (900, 900, "refunded")
    ]
    assert (voided["balance_before"], voided["balance_after"]) == (after_won, after_won)
    assert await studio.balance("operator-1", alice) == after_won
    # bob's game is his own, with his operator's key only
    assert [g["round_id"] for g in await studio.games("operator-2", bob)] == [first]
    assert await studio.games("operator-1", bob) == []

    # the scanner's last reads: the two voided round's cards, the six, the misread
    scans = await studio.http.get(
        f"{studio.urls.scanner}/tables/{table_id}/scans", params={"limit": 9}, headers=SUPERVISOR
    )
    assert scans.status_code == 200, scans.text
    reads = scans.json()["scans"]
    assert [(r["raw"], r["verdict"], r["position"]) for r in reads] == [
        ("QH", "accepted", "B1"),
        ("QS", "accepted", "A1"),
        *[
            (card, "accepted", pos)
            for card, pos in reversed(list(zip(WON, POSITIONS, strict=True)))
        ],
        ("sealed", "rejected", None),  # the table never showed a misread's value
    ]
    assert (reads[-1]["status"], reads[-1]["reason"]) == ("rescan", "unreadable")
    (device,) = scans.json()["devices"]
    assert (device["device_id"], device["status"]) == (f"scanner-{table_id}", "active")
    await studio.close_table(table_id)


POSITIONS = ["A1", "B1", "A2", "B2", "A3", "B3"]
