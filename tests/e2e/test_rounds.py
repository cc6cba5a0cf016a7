"""Rounds from betting to paid, across the four running services, on the real stack."""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import UTC, datetime
from typing import Any

import websockets

from teenpatti_tools.devrun import ServiceProcesses
from teenpatti_tools.simulator import OPERATOR_KEYS, SUPERVISOR_KEY

from .driver import SECOND_SUPERVISOR_KEY, Studio


def table() -> str:
    return f"E{uuid.uuid4().hex[:6].upper()}"


def player() -> str:
    return f"p-{uuid.uuid4().hex[:8]}"


async def betting_round(studio: Studio, table_id: str) -> dict[str, object]:
    """A round whose betting has at least a second left (a fresh one if needed)."""
    after = 0
    while True:
        opened = await studio.next_round(table_id, after=after)
        closes = datetime.fromisoformat(str(opened["betting_closes_at"]))
        if (closes - datetime.now(UTC)).total_seconds() > 1.0:
            return opened
        after = int(str(opened["_position"]))


async def test_every_bet_type_pays_per_the_pay_table(studio: Studio) -> None:
    table_id, alice = table(), player()
    await studio.open_table(table_id, betting_seconds=2.5)
    await studio.deposit("operator-1", alice, 100_000)
    opened = await betting_round(studio, table_id)
    round_id = str(opened["round_id"])
    stakes = {
        "player_a": 1001,
        "player_b": 1000,
        "tie": 1000,
        "pair_plus_a": 1000,
        "pair_plus_b": 1000,
        "six_card_bonus": 1000,
    }
    placed = await studio.bet("operator-1", alice, round_id, stakes)
    assert placed.status_code == 201, placed.text
    await studio.wait_for(table_id, "BettingClosed", round_id=round_id)

    # A: A-A-A (trail of aces), B: K-K-2 (pair); the six cards make a full house.
    await studio.deal(table_id, ["AS", "KS", "AC", "KH", "AD", "2D"])
    closed = await studio.wait_for(table_id, "RoundClosed", round_id=round_id)
    assert (closed["winner"], closed["player_a_hand"], closed["player_b_hand"]) == (
        "player_a",
        "trail_of_aces",
        "pair",
    )
    assert closed["six_card_bonus_hand"] == "full_house"

    bets = await studio.paid_bets("operator-1", alice, round_id, count=6)
    returned = {b["bet_type"]: b["returned"] for b in bets}
    assert returned == {
        "player_a": 1001 + 950,  # 0.95:1 on 1001 is 950.95: rounded down
        "player_b": 0,
        "tie": 0,
        "pair_plus_a": 1000 + 50 * 1000,  # trail of aces 50:1
        "pair_plus_b": 1000 + 1000,  # pair 1:1
        "six_card_bonus": 1000 + 20 * 1000,  # full house 20:1
    }
    assert await studio.balance("operator-1", alice) == 100_000 - sum(stakes.values()) + sum(
        returned.values()
    )
    summary = (await studio.settlement("operator-1", round_id)).json()
    assert summary["status"] == "settled"
    await studio.close_table(table_id)


async def test_a_tie_refunds_player_bets_and_pays_the_tie(studio: Studio) -> None:
    table_id, bob = table(), player()
    await studio.open_table(table_id, betting_seconds=2.5)
    await studio.deposit("operator-2", bob, 50_000)
    round_id = str((await betting_round(studio, table_id))["round_id"])
    stakes = {"player_a": 1000, "player_b": 1001, "tie": 200, "pair_plus_a": 100}
    assert (await studio.bet("operator-2", bob, round_id, stakes)).status_code == 201
    await studio.wait_for(table_id, "BettingClosed", round_id=round_id)

    # K-9-7 against K-9-7 in other suits: a tie. The six cards are two pair: no bonus.
    await studio.deal(table_id, ["KS", "KH", "9H", "9D", "7D", "7C"])
    closed = await studio.wait_for(table_id, "RoundClosed", round_id=round_id)
    assert closed["winner"] == "tie"

    bets = await studio.paid_bets("operator-2", bob, round_id, count=4)
    outcome = {b["bet_type"]: (b["outcome"], b["returned"]) for b in bets}
    assert outcome == {
        "player_a": ("push", 1000),
        "player_b": ("push", 1001),
        "tie": ("won", 200 + 50 * 200),
        "pair_plus_a": ("lost", 0),
    }
    await studio.close_table(table_id)


async def test_pause_and_resume_refuse_scans_while_paused(studio: Studio) -> None:
    table_id = table()
    await studio.open_table(table_id, betting_seconds=1.0)
    opened = await studio.next_round(table_id)
    round_id = str(opened["round_id"])
    await studio.wait_for(table_id, "BettingClosed", round_id=round_id)
    await studio.deal(table_id, ["2S"])

    assert (await studio.command(table_id, "pause", "card fell")).status_code == 200
    await studio.wait_for(table_id, "RoundPaused", round_id=round_id)
    refused = await studio.scan(table_id, "3S")
    assert refused.json()["status"] == "refused"
    assert refused.json()["reason"] == "round_paused"

    assert (await studio.command(table_id, "resume")).status_code == 200
    await studio.wait_for(table_id, "RoundResumed", round_id=round_id)
    answers = await studio.deal(table_id, ["3S", "4S", "5S", "6S", "7S"])
    assert [a["status"] for a in answers] == ["registered"] * 5
    closed = await studio.wait_for(table_id, "RoundClosed", round_id=round_id)
    assert closed["cards"] == ["2S", "3S", "4S", "5S", "6S", "7S"]
    await studio.close_table(table_id)


async def test_cancel_before_the_first_card_refunds_everything(studio: Studio) -> None:
    table_id, carol = table(), player()
    await studio.open_table(table_id, betting_seconds=3.0)
    await studio.deposit("operator-1", carol, 10_000)
    round_id = str((await betting_round(studio, table_id))["round_id"])
    assert (
        await studio.bet("operator-1", carol, round_id, {"tie": 500, "player_a": 700})
    ).status_code == 201
    assert await studio.balance("operator-1", carol) == 8_800

    assert (await studio.command(table_id, "cancel", "shoe problem")).status_code == 200
    cancelled = await studio.wait_for(table_id, "RoundCancelled", round_id=round_id)
    assert cancelled["reason"] == "shoe problem"

    bets = await studio.paid_bets("operator-1", carol, round_id, count=2)
    assert {(b["outcome"], b["returned"]) for b in bets} == {("refunded", 500), ("refunded", 700)}
    assert await studio.balance("operator-1", carol) == 10_000
    await studio.close_table(table_id)


async def test_a_supervisor_void_after_the_first_card_refunds_everything(studio: Studio) -> None:
    table_id, dave = table(), player()
    await studio.open_table(table_id, betting_seconds=2.0)
    await studio.deposit("operator-2", dave, 10_000)
    round_id = str((await betting_round(studio, table_id))["round_id"])
    assert (
        await studio.bet("operator-2", dave, round_id, {"six_card_bonus": 900})
    ).status_code == 201
    await studio.wait_for(table_id, "BettingClosed", round_id=round_id)
    await studio.deal(table_id, ["QS", "QH"])

    # a started round: one supervisor asks, another confirms (decision 0057)
    assert (await studio.command(table_id, "cancel", "scanner fault")).status_code == 202
    confirmed = await studio.command(table_id, "cancel", "agreed", key=SECOND_SUPERVISOR_KEY)
    assert confirmed.status_code == 200, confirmed.text
    await studio.wait_for(table_id, "RoundCancelled", round_id=round_id)
    (bet,) = await studio.paid_bets("operator-2", dave, round_id, count=1)
    assert (bet["outcome"], bet["returned"]) == ("refunded", 900)
    assert await studio.balance("operator-2", dave) == 10_000
    await studio.close_table(table_id)


async def test_a_duplicate_card_pauses_the_round(studio: Studio) -> None:
    table_id = table()
    await studio.open_table(table_id, betting_seconds=1.0)
    round_id = str((await studio.next_round(table_id))["round_id"])
    await studio.wait_for(table_id, "BettingClosed", round_id=round_id)
    await studio.deal(table_id, ["JS", "JH"])

    reread = await studio.scan(table_id, "JH")  # the scanner read the same card twice
    assert reread.json()["status"] == "registered", "absorbed: answered like the first read"
    await asyncio.sleep(2.5)  # outside the gateway's duplicate-read window
    duplicate = await studio.scan(table_id, "JS")
    assert duplicate.json()["status"] == "refused"
    assert duplicate.json()["reason"] == "duplicate_card"
    paused = await studio.wait_for(table_id, "RoundPaused", round_id=round_id)
    assert paused["actor"] == "system"

    await studio.command(table_id, "resume")
    await studio.deal(table_id, ["2C", "3C", "4C", "5C"])
    closed = await studio.wait_for(table_id, "RoundClosed", round_id=round_id)
    assert closed["cards"] == ["JS", "JH", "2C", "3C", "4C", "5C"]
    await studio.close_table(table_id)


async def test_a_misread_is_rescanned_and_scans_during_betting_are_refused(
    studio: Studio,
) -> None:
    table_id = table()
    await studio.open_table(table_id, betting_seconds=2.0)
    round_id = str((await betting_round(studio, table_id))["round_id"])

    early = await studio.scan(table_id, "AS")
    assert (early.json()["status"], early.json()["reason"]) == ("refused", "betting_open")
    # the card was seen before betting closed: the round waits for a new deck (decision 0058)
    await studio.wait_for(table_id, "RoundPaused", round_id=round_id)
    assert (await studio.command(table_id, "replace-deck", "new deck")).status_code == 200
    assert (await studio.command(table_id, "resume")).status_code == 200

    await studio.wait_for(table_id, "BettingClosed", round_id=round_id)
    misread = await studio.scan(table_id, "A?")
    assert misread.json()["status"] == "rescan"
    assert misread.json()["reason"]
    answers = await studio.deal(table_id, ["AS", "2H", "3D", "4C", "5S", "6H"])
    assert [a.get("position") for a in answers] == ["A1", "B1", "A2", "B2", "A3", "B3"]
    await studio.wait_for(table_id, "RoundClosed", round_id=round_id)
    await studio.close_table(table_id)


async def test_bets_racing_the_close_are_either_in_the_book_or_refused(studio: Studio) -> None:
    table_id, erin = table(), player()
    await studio.open_table(table_id, betting_seconds=1.5)
    await studio.deposit("operator-1", erin, 1_000_000)
    opened = await betting_round(studio, table_id)
    round_id = str(opened["round_id"])
    closes = datetime.fromisoformat(str(opened["betting_closes_at"]))
    await asyncio.sleep(max(0.0, (closes - datetime.now(UTC)).total_seconds() - 0.3))

    async def one_bet() -> int:
        return (await studio.bet("operator-1", erin, round_id, {"player_b": 100})).status_code

    statuses: list[int] = []
    for _ in range(12):  # 12 waves of 5 bets across the deadline
        statuses += await asyncio.gather(*(one_bet() for _ in range(5)))
        await asyncio.sleep(0.05)
    accepted = statuses.count(201)
    assert accepted > 0 and statuses.count(409) > 0, statuses
    assert set(statuses) <= {201, 409}

    await studio.wait_for(table_id, "BettingClosed", round_id=round_id)
    await studio.deal(table_id, ["8S", "9S", "8H", "9H", "2C", "3D"])
    bets = await studio.paid_bets("operator-1", erin, round_id, count=accepted)
    assert len(bets) == accepted, "every accepted bet, and only those, was booked and settled"
    await studio.close_table(table_id)


async def test_refusals_idempotency_and_operator_isolation(studio: Studio) -> None:
    table_id, frank = table(), player()
    await studio.open_table(table_id, betting_seconds=3.0)
    await studio.deposit("operator-1", frank, 1_000)
    round_id = str((await betting_round(studio, table_id))["round_id"])

    poor = await studio.bet("operator-1", frank, round_id, {"player_a": 900, "tie": 200})
    assert (poor.status_code, poor.json()["code"]) == (409, "insufficient_funds")
    over = await studio.bet("operator-1", frank, round_id, {"player_a": 100_001})
    assert over.json()["code"] == "above_maximum"
    under = await studio.bet("operator-1", frank, round_id, {"player_a": 99})
    assert under.json()["code"] == "below_minimum"
    unknown = await studio.bet(
        "operator-1", frank, "NOPE-000001", {"player_a": 100}, wait_for_round=False
    )
    assert unknown.json()["code"] == "unknown_round"
    assert await studio.balance("operator-1", frank) == 1_000, "refused slips debit nothing"

    key = str(uuid.uuid4())
    first = await studio.bet("operator-1", frank, round_id, {"player_a": 300}, key=key)
    again = await studio.bet("operator-1", frank, round_id, {"player_a": 300}, key=key)
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json()
    other_body = await studio.bet("operator-1", frank, round_id, {"player_a": 400}, key=key)
    assert other_body.json()["code"] == "idempotency_key_reused"
    assert await studio.balance("operator-1", frank) == 700

    # operator-2 sees nothing of operator-1's player
    assert await studio.balance("operator-2", frank) == 0
    assert await studio.history("operator-2", frank) == []

    # a scanner that was never registered is refused
    stranger = await studio.scan(table_id, "AS", device=("scanner-nobody", "forged"))
    assert stranger.status_code == 401
    await studio.close_table(table_id)


async def test_the_table_service_killed_mid_round_finishes_it_once(
    studio: Studio, system: ServiceProcesses
) -> None:
    table_id, gina = table(), player()
    await studio.open_table(table_id, betting_seconds=2.0)
    await studio.deposit("operator-1", gina, 10_000)
    round_id = str((await betting_round(studio, table_id))["round_id"])
    assert (await studio.bet("operator-1", gina, round_id, {"player_a": 1_000})).status_code == 201
    await studio.wait_for(table_id, "BettingClosed", round_id=round_id)
    await studio.deal(table_id, ["AS", "2D", "AH"])

    table_service = next(s for s in system.services if s.name == "table")
    system.kill("table")
    await system.processes["table"].wait()
    await system.start(table_service)

    await studio.deal(table_id, ["3D", "AD", "4D"])  # may wait for the new owner: pending
    closed = await studio.wait_for(table_id, "RoundClosed", round_id=round_id, timeout=60)
    assert closed["cards"] == ["AS", "2D", "AH", "3D", "AD", "4D"]
    assert closed["winner"] == "player_a"
    (bet,) = await studio.paid_bets("operator-1", gina, round_id, count=1)
    assert (bet["outcome"], bet["returned"]) == ("won", 1_950)
    assert await studio.balance("operator-1", gina) == 10_000 - 1_000 + 1_950
    events = await studio.events(table_id)
    assert (
        sum(
            e["event_type"] == "RoundClosed" and e["payload"]["round_id"] == round_id
            for e in events
        )
        == 1
    )
    await studio.close_table(table_id)


async def test_a_players_feed_resumed_after_a_disconnect_gets_what_it_missed(
    studio: Studio, system: ServiceProcesses
) -> None:
    table_id, hana = table(), player()
    await studio.open_table(table_id, betting_seconds=2.0)
    await studio.deposit("operator-2", hana, 5_000)
    table_url = next(s.url for s in system.services if s.name == "table")
    key = OPERATOR_KEYS["operator-2"]
    feed = f"{table_url.replace('http', 'ws')}/tables/{table_id}/feed?"
    key_header = {"X-Api-Key": key}  # never in the URL

    # The player watches until its bet is placed and betting has closed, then drops.
    seen: list[dict[str, Any]] = []
    async with websockets.connect(f"{feed}after=0", additional_headers=key_header) as connection:
        async with asyncio.timeout(30):
            while not any(e["event_type"] == "RoundOpened" for e in seen):
                seen.append(json.loads(await connection.recv()))
        opened = next(e for e in seen if e["event_type"] == "RoundOpened")
        round_id = opened["payload"]["round_id"]
        assert (
            await studio.bet("operator-2", hana, round_id, {"player_b": 1_000})
        ).status_code == 201
        async with asyncio.timeout(30):
            while seen[-1]["event_type"] != "BettingClosed":
                seen.append(json.loads(await connection.recv()))
    last_seen = seen[-1]["position"]

    # While it is away the round is dealt and closed.
    await studio.deal(table_id, ["2S", "AS", "3H", "AH", "5D", "AD"])
    await studio.wait_for(table_id, "RoundClosed", round_id=round_id)

    missed: list[dict[str, Any]] = []
    async with websockets.connect(
        f"{feed}after={last_seen}", additional_headers=key_header
    ) as connection:
        async with asyncio.timeout(30):
            while not any(e["event_type"] == "RoundClosed" for e in missed):
                missed.append(json.loads(await connection.recv()))
    positions = [e["position"] for e in seen + missed]
    assert positions == list(range(positions[0], positions[0] + len(positions))), (
        "no gap, no repeat"
    )
    assert [e["event_type"] for e in missed] == ["CardDealt"] * 6 + ["RoundClosed"]
    closed = missed[-1]["payload"]
    assert (closed["round_id"], closed["winner"]) == (round_id, "player_b")

    # and its bet history shows the final result and its payout
    (bet,) = await studio.paid_bets("operator-2", hana, round_id, count=1)
    assert (bet["outcome"], bet["returned"]) == ("won", 1_950)
    await studio.close_table(table_id)


async def test_a_round_voided_after_its_result_refunds_every_stake_and_takes_winnings_back(
    studio: Studio,
) -> None:
    table_id, erin, finn = table(), player(), player()
    await studio.open_table(table_id, betting_seconds=2.0)
    await studio.deposit("operator-2", erin, 10_000)
    await studio.deposit("operator-2", finn, 10_000)
    round_id = str((await betting_round(studio, table_id))["round_id"])
    assert (await studio.bet("operator-2", erin, round_id, {"player_a": 1_000})).status_code == 201
    assert (await studio.bet("operator-2", finn, round_id, {"player_b": 1_000})).status_code == 201
    await studio.wait_for(table_id, "BettingClosed", round_id=round_id)
    await studio.deal(table_id, ["AS", "KS", "AC", "KH", "AD", "2D"])  # A: trail of aces
    await studio.wait_for(table_id, "RoundClosed", round_id=round_id)
    await studio.paid_bets("operator-2", erin, round_id, count=1)
    await studio.paid_bets("operator-2", finn, round_id, count=1)
    assert await studio.balance("operator-2", erin) == 10_000 - 1_000 + 1_950

    # found after the result: one supervisor asks, the same one cannot confirm, another does
    void = f"rounds/{round_id}/void"
    asked = await studio.command(table_id, void, "A3 was read as AD; the card is 4D")
    assert asked.status_code == 202, asked.text
    again = await studio.command(table_id, void, "confirming my own")
    assert again.status_code == 403, again.text
    confirmed = await studio.command(table_id, void, "seen on video", key=SECOND_SUPERVISOR_KEY)
    assert confirmed.status_code == 200, confirmed.text
    voided = await studio.wait_for(table_id, "RoundVoided", round_id=round_id)
    assert voided["cards"] == ["AS", "KS", "AC", "KH", "AD", "2D"]

    async def both_refunded() -> bool:
        return [await studio.balance("operator-2", p) for p in (erin, finn)] == [10_000] * 2

    async with asyncio.timeout(30):
        while not await both_refunded():
            await asyncio.sleep(0.2)
    # settlement states the reversal; the roadmap and the last games show both results
    settled = (await studio.settlement("operator-2", round_id)).json()
    assert settled["voided"] and settled["reversed_at"] is not None
    assert settled["reversal_totals"] == {"INR": {"refunded": 2_000, "reversed": 1_950}}
    assert {(b["outcome"], b["returned"], b["reversed"]) for b in settled["bets"]} == {
        ("won", 1_950, True),
        ("lost", 0, True),
    }
    roadmap = await studio.http.get(
        f"{studio.urls.table}/tables/{table_id}/results", headers={"X-Api-Key": SUPERVISOR_KEY}
    )
    (row,) = [r for r in roadmap.json()["results"] if r["round_id"] == round_id]
    assert (row["status"], row["winner"], row["voided_at"] is not None) == (
        "voided",
        "player_a",
        True,
    )
    (game,) = await studio.games("operator-2", erin)
    assert (game["status"], game["winner"]) == ("voided", "player_a")
    assert game["correction"] == {"refunded": 1_000, "reversed": 1_950, "net": -950}
    await studio.close_table(table_id)
