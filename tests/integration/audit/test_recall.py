"""The auditor's full game recall (`teenpatti recall`) of rounds the four running services
played: a round with a bet of every type lists its bets, the sealed book, each read and
card in dealing order, the result, each settlement line and payment, in order of time; a
round voided mid-deal shows the void and the refunds; an unknown round is an error."""

from __future__ import annotations

import asyncio
import io
import json
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest

from teenpatti.cli import main
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.devrun import endpoints
from tests.e2e.conftest import running_system
from tests.e2e.driver import SECOND_SUPERVISOR_KEY, Studio

pytestmark = pytest.mark.timeout(240)

STORES = ("table", "scanner", "wallet", "settlement")
PLAYED = ["AS", "KS", "AC", "KH", "AD", "2D"]  # A: trail of aces, B: pair; bonus full house
STAKES = {
    "player_a": 1_001,
    "player_b": 1_000,
    "tie": 1_000,
    "pair_plus_a": 1_000,
    "pair_plus_b": 1_000,
    "six_card_bonus": 1_000,
}


async def betting_round(studio: Studio, table_id: str) -> str:
    """A round whose betting has at least a second left."""
    after = 0
    while True:
        opened = await studio.next_round(table_id, after=after)
        closes = datetime.fromisoformat(str(opened["betting_closes_at"]))
        if (closes - datetime.now(UTC)).total_seconds() > 1.0:
            return str(opened["round_id"])
        after = int(str(opened["_position"]))


async def recall(database_args: list[str], round_id: str, *options: str) -> tuple[int, str, str]:
    """`teenpatti recall` as a command (in a thread: it runs its own event loop)."""
    out, err = io.StringIO(), io.StringIO()
    argv = ["recall", round_id, *database_args, *options]
    status = await asyncio.to_thread(main, argv, io.StringIO(), out, err)
    return status, out.getvalue(), err.getvalue()


def of(events: list[dict[str, Any]], event_type: str) -> list[dict[str, Any]]:
    return [e for e in events if e["event_type"] == event_type]


def index_of(events: list[dict[str, Any]], event_type: str) -> int:
    return next(i for i, e in enumerate(events) if e["event_type"] == event_type)


async def test_a_played_round_and_a_voided_one_are_recalled_event_by_event(
    infrastructure: InfrastructureSettings,
) -> None:
    async with running_system(infrastructure) as system:
        studio = Studio(endpoints(system.services))
        table_id, player = f"R{uuid.uuid4().hex[:6].upper()}", f"p-{uuid.uuid4().hex[:8]}"
        try:
            await studio.open_table(table_id, betting_seconds=2.5)
            await studio.deposit("operator-1", player, 100_000)
            played = await betting_round(studio, table_id)
            placed = await studio.bet("operator-1", player, played, STAKES)
            assert placed.status_code == 201, placed.text
            await studio.wait_for(table_id, "BettingClosed", round_id=played)
            misread = await studio.scan(table_id, "A?")
            assert misread.json()["status"] == "rescan"
            await studio.deal(table_id, PLAYED)
            paid = await studio.paid_bets("operator-1", player, played, count=6)

            voided = await betting_round(studio, table_id)
            placed = await studio.bet("operator-1", player, voided, {"tie": 500, "player_b": 700})
            assert placed.status_code == 201, placed.text
            await studio.wait_for(table_id, "BettingClosed", round_id=voided)
            await studio.deal(table_id, ["QS", "QH"])
            assert (await studio.command(table_id, "cancel", "scanner fault")).status_code == 202
            confirmed = await studio.command(
                table_id, "cancel", "agreed", key=SECOND_SUPERVISOR_KEY
            )
            assert confirmed.status_code == 200, confirmed.text
            refunded = await studio.paid_bets("operator-1", player, voided, count=2)
            await studio.close_table(table_id)
        finally:
            await studio.close()
        env = system._env  # the databases the system was started with
        databases = [
            argument
            for store in STORES
            for argument in (f"--{store}-db", env[f"TP_{store.upper()}_DATABASE"])
        ]

        # ------------------------------------------------------------ the played round
        status, out, err = await recall(databases, played, "--json")
        assert (status, err) == (0, "")
        body = json.loads(out)
        assert (body["round_id"], body["table_id"], body["status"]) == (played, table_id, "closed")
        events = body["events"]
        times = [datetime.fromisoformat(e["at"]) for e in events]
        assert times == sorted(times)
        assert {e["service"] for e in events} == {
            "table",
            "scanner-gateway",
            "wallet",
            "settlement",
        }
        assert events[0]["event_type"] == "RoundOpened"
        dealt = of(events, "CardDealt")
        assert [(d["facts"]["position"], d["facts"]["card"]) for d in dealt] == list(
            zip(["A1", "B1", "A2", "B2", "A3", "B3"], PLAYED, strict=True)
        )
        assert all(d["service"] == "table" for d in dealt)
        scans = of(events, "CardScanned")
        assert [s["facts"]["card"] for s in scans] == PLAYED
        assert all(s["service"] == "scanner-gateway" for s in scans)
        for scan, card in zip(scans, dealt, strict=True):  # each read before its card
            assert scan["facts"]["scan_id"] == card["facts"]["scan_id"]
            assert events.index(scan) < events.index(card)
        [rejected] = of(events, "ScanRejected")
        assert rejected["facts"]["raw"] == "A?"
        assert index_of(events, "BettingClosed") < events.index(rejected) < events.index(dealt[0])

        [slip] = of(events, "BetsPlaced")
        assert slip["service"] == "wallet"
        assert {b["bet_type"]: b["stake"] for b in slip["facts"]["bets"]} == STAKES
        assert events.index(slip) < index_of(events, "BettingClosed")
        [book] = of(events, "BetBookClosed")
        assert book["facts"]["bet_count"] == 6
        assert book["facts"]["total_stake"] == {"INR": sum(STAKES.values())}
        [result] = of(events, "RoundClosed")
        assert result["facts"]["winner"] == "player_a"
        assert result["facts"]["six_card_bonus_hand"] == "full_house"
        assert events.index(result) > events.index(dealt[-1])

        settled = [line for e in of(events, "BetsSettled") for line in e["facts"]["bets"]]
        returned = {b["bet_type"]: b["returned"] for b in paid}
        assert {s["bet_type"]: s["returned"] for s in settled} == returned
        payments = [line for e in of(events, "BetsPaid") for line in e["facts"]["bets"]]
        assert sorted(p["amount"] for p in payments) == sorted(returned.values())
        [round_settled] = of(events, "RoundSettled")
        assert round_settled["facts"]["cancelled"] is False
        first_settlement = index_of(events, "BetsSettled")
        assert events.index(result) < first_settlement < index_of(events, "BetsPaid")
        assert body["counts"] == {
            service: sum(e["service"] == service for e in events)
            for service in ("table", "scanner-gateway", "wallet", "settlement")
        }

        # the same, for people
        status, text, _ = await recall(databases, played)
        assert status == 0
        lines = text.splitlines()
        assert lines[0].startswith(f"teenpatti recall {played}: table {table_id}, round ")
        assert len(lines) == 2 + len(events) + 1
        assert "A1 AS dealt" in text and "B3 2D dealt" in text
        assert "winner player_a; 6 card bonus full_house" in text
        assert "pair_plus_a won INR 51,000" in text  # trail of aces 50:1 on 1,000
        assert lines[-1].startswith(f"{len(events)} events (table ")

        # ------------------------------------------------------------ the voided round
        status, out, _ = await recall(databases, voided, "--json")
        assert status == 0
        body = json.loads(out)
        assert body["status"] == "cancelled"
        events = body["events"]
        kinds = [e["event_type"] for e in events]
        assert [d["facts"]["card"] for d in of(events, "CardDealt")] == ["QS", "QH"]
        [asked] = of(events, "VoidRequested")
        [void] = of(events, "RoundCancelled")
        assert (asked["facts"]["actor"], void["facts"]["actor"]) == ("supervisor-1", "supervisor-2")
        assert void["facts"]["cards_dealt"] == 2
        assert kinds.index("VoidRequested") < kinds.index("RoundCancelled")
        assert "RoundClosed" not in kinds
        refunds = [line for e in of(events, "BetsPaid") for line in e["facts"]["bets"]]
        assert sorted((r["outcome"], r["amount"]) for r in refunds) == [
            ("refunded", 500),
            ("refunded", 700),
        ]
        assert {(b["outcome"], b["returned"]) for b in refunded} == {
            ("refunded", 500),
            ("refunded", 700),
        }
        assert all(
            kinds.index("RoundCancelled") < i for i, k in enumerate(kinds) if k == "BetsPaid"
        )
        [round_settled] = of(events, "RoundSettled")
        assert round_settled["facts"]["cancelled"] is True
        status, text, _ = await recall(databases, voided)
        assert status == 0
        assert "void asked by supervisor-1 after 2 cards: scanner fault" in text
        assert "round void, every bet refunded; by supervisor-2 after 2 cards" in text
        assert "tie refunded INR 500" in text

        # ------------------------------------------------------------ no such round
        status, out, err = await recall(databases, f"{table_id}-999999")
        assert (status, out) == (1, "")
        assert f"no round {table_id}-999999 was ever opened" in err
