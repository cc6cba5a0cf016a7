"""Snapshots of the table state: the state read back from a snapshot, then the events after
it, is exactly the state a full replay gives; a snapshot that cannot be read is refused."""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any
from uuid import uuid4

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_service.adapters.snapshots import (
    SNAPSHOT_SCHEMA_VERSION,
    SnapshotError,
    snapshot_of,
    state_from_snapshot,
)
from table_service.domain.clock import decide_clock
from table_service.domain.decisions import (
    ConfigPolicy,
    OpenTable,
    TableCommandError,
    decide_approve_change,
    decide_cancel,
    decide_close_table,
    decide_open_table,
    decide_pause,
    decide_resume,
    decide_scan,
)
from table_service.domain.state import RoundPhase, TableState, TableStatus, evolve
from table_service.rtp import exact_rtp
from teenpatti.events import Event
from teenpatti.events.catalog import CardScanned, registry

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
TIMEOUT = timedelta(seconds=120)
BET_TYPES = ("player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus")
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
DECK = [f"{rank}{suit}" for suit in "SHDC" for rank in RANKS]

History = list[tuple[Event, datetime]]


# ------------------------------------------------------------------ playing a table
@dataclass
class Table:
    """Plays commands against the pure domain as the service does: decide at `now`, and
    record the events with `now` as the time they occurred."""

    now: datetime = T0
    state: TableState = field(default_factory=lambda: TableState("T1"))
    history: History = field(default_factory=list)

    def wait(self, microseconds: int) -> None:
        self.now += timedelta(microseconds=microseconds)

    def do(self, events: list[Event]) -> None:
        for event in events:
            self.state = evolve(self.state, event, self.now)
            self.history.append((event, self.now))

    def tick(self) -> None:
        self.do(decide_clock(self.state, self.now, TIMEOUT))

    def open(self, betting_seconds: float, **limits: int) -> None:
        per_bet = {bet: {"min": 100, "max": limits.get(bet, 50_000)} for bet in BET_TYPES}
        command = OpenTable(
            table_id="T1",
            name="Salon ü",
            betting_seconds=betting_seconds,
            result_pause_seconds=0.3,
            limits={"EUR": per_bet, "INR": per_bet},
        )
        # a limits change of an open table is only proposed (decision 0057): the history
        # holds pending changes too
        policy = ConfigPolicy(exact_rtp, Decimal("97.50"), max_currencies=20)
        self.attempt(decide_open_table, command, "supervisor-1", policy, uuid4())
        pending = self.state.pending_change
        if pending is not None and self.state.status is not TableStatus.OPEN:
            # to open at all, new terms take a second supervisor (docs/decisions/0086)
            self.attempt(decide_approve_change, pending.change_id, "supervisor-2", policy)

    def scan(self, card: str) -> None:
        scanned = CardScanned(
            scan_id=uuid4(),
            device_id="D1",
            table_id="T1",
            round_id=None,
            sequence=1,
            card=card,
            raw=card,
            scanned_at=T0,
        )
        self.do(decide_scan(self.state, scanned, self.now))

    def attempt(self, decision: Any, *args: Any) -> None:
        with contextlib.suppress(TableCommandError):
            self.do(decision(self.state, *args))


@st.composite
def round_plans(draw: st.DrawFn) -> dict[str, Any]:
    us = st.integers(min_value=0, max_value=3_000_000)  # up to 3 s, in microseconds
    return {
        "gaps": draw(st.lists(us, min_size=12, max_size=12)),
        "pause_in_betting": draw(st.sampled_from([None, "resume", "timeout", "cancel"])),
        "scan_closes_betting": draw(st.booleans()),
        "cards": draw(st.integers(min_value=0, max_value=6)),
        "duplicate_at": draw(st.none() | st.integers(min_value=1, max_value=5)),
        "deck_offset": draw(st.integers(min_value=0, max_value=45)),
        "after": draw(st.sampled_from([None, None, "reconfigure", "close"])),
        "betting_seconds": draw(st.sampled_from([0.5, 2.0, 7.25, 15.0, 1 / 3])),
        "reason": draw(st.text(max_size=20)),
    }


def play(plans: list[dict[str, Any]]) -> History:
    table = Table()
    table.open(betting_seconds=1.5)
    for plan in plans:
        gaps = iter(plan["gaps"])
        if table.state.status.value == "closed":
            table.open(betting_seconds=plan["betting_seconds"], tie=40_000)
        table.wait(next(gaps) + 400_000)  # past the result pause
        table.tick()  # RoundOpened
        r = table.state.round
        assert r is not None and r.phase is RoundPhase.BETTING
        pause = plan["pause_in_betting"]
        if pause is not None:
            table.wait(next(gaps))
            table.attempt(decide_pause, "supervisor-1", plan["reason"] or "camera")
            table.wait(next(gaps))
            if pause == "resume":
                table.attempt(decide_resume, "supervisor-1", table.now)
            elif pause == "cancel":
                table.attempt(decide_cancel, "supervisor-1", "misdeal")
            else:
                table.wait(int(TIMEOUT.total_seconds() * 1_000_000))
                table.tick()  # RoundCancelled by the system
        if table.state.round_in_play is not None:
            closes_at = table.state.round_in_play.betting_closes_at
            assert closes_at is not None
            table.now = max(table.now, closes_at) + timedelta(microseconds=next(gaps))
            if not plan["scan_closes_betting"]:
                table.tick()  # BettingClosed
            cards = DECK[plan["deck_offset"] : plan["deck_offset"] + plan["cards"]]
            for index, card in enumerate(cards):
                if index == plan["duplicate_at"]:
                    table.scan(cards[0])  # refused, and the round paused
                    table.wait(next(gaps))
                    table.attempt(decide_resume, "supervisor-1", table.now)
                table.wait(next(gaps) // 4)
                table.scan(card)
            if table.state.round_in_play is not None:  # fewer than six cards: void it
                table.wait(next(gaps))
                table.attempt(decide_cancel, "supervisor-2", plan["reason"] or "void")
                table.attempt(decide_cancel, "supervisor-1", "confirmed")  # two once started
        if plan["after"] == "reconfigure":
            table.open(betting_seconds=plan["betting_seconds"])
        elif plan["after"] == "close":
            table.attempt(decide_close_table, "supervisor-1", "end of day")
            table.scan("AS")  # refused: the table is closed
    return table.history


# ------------------------------------------------------------------ reading it back
def stored(event: Event) -> Event:
    """The event as a replay reads it from the store (JSON, decoded by the registry)."""
    return registry.decode(
        event.event_type, event.schema_version, json.loads(event.model_dump_json())
    )


def replay(state: TableState, history: History) -> TableState:
    for event, at in history:
        state = evolve(state, stored(event), at)
    return state


def through_jsonb(state: TableState) -> TableState:
    """Snapshot, to JSON and back as Postgres jsonb gives it (keys reordered), read back."""
    text = json.dumps(json.loads(snapshot_of(state)), sort_keys=True)
    return state_from_snapshot(text, SNAPSHOT_SCHEMA_VERSION)


@settings(max_examples=40, deadline=None)
@given(st.lists(round_plans(), min_size=1, max_size=8), st.data())
def test_snapshot_and_tail_give_the_state_of_a_full_replay(
    plans: list[dict[str, Any]], data: st.DataObject
) -> None:
    history = play(plans)
    full = replay(TableState("T1"), history)
    assert full.version == len(history)
    cuts = data.draw(
        st.lists(st.integers(min_value=1, max_value=len(history)), min_size=1, max_size=6)
    )
    for cut in {*cuts, len(history)}:
        at_cut = replay(TableState("T1"), history[:cut])
        restored = through_jsonb(at_cut)
        assert restored == at_cut
        assert replay(restored, history[cut:]) == full


def test_every_state_of_a_long_session_round_trips() -> None:
    plans: list[dict[str, Any]] = [
        {
            "gaps": [123_457 * (n + 1) for n in range(12)],
            "pause_in_betting": [None, "resume", "timeout", "cancel"][i % 4],
            "scan_closes_betting": i % 3 == 0,
            "cards": [6, 6, 3, 0, 6][i % 5],
            "duplicate_at": [None, 2, None, 4][i % 4],
            "deck_offset": i % 40,
            "after": [None, "reconfigure", None, "close"][i % 4],
            "betting_seconds": 2.5,
            "reason": "",
        }
        for i in range(24)
    ]
    history = play(plans)
    kinds = {event.event_type for event, _ in history}
    assert {"RoundClosed", "RoundCancelled", "RoundPaused", "RoundResumed"} <= kinds
    assert {"CardRefused", "TableClosed", "BettingClosed", "CardDealt"} <= kinds
    state = TableState("T1")
    for event, at in history:
        state = evolve(state, stored(event), at)
        assert through_jsonb(state) == state
    assert state == replay(TableState("T1"), history)


def test_a_snapshot_of_another_schema_is_refused() -> None:
    state = replay(TableState("T1"), play([]))
    with pytest.raises(SnapshotError, match="schema"):
        state_from_snapshot(snapshot_of(state), SNAPSHOT_SCHEMA_VERSION + 1)


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d.pop("table_id"),
        lambda d: d["round"].pop("opened_at"),
        lambda d: d.update(version="7"),
        lambda d: d.update(status="half-open"),
        lambda d: d["config"].update(betting_seconds=True),
        lambda d: d["config"]["limits"]["EUR"]["tie"].update(min=0),
        lambda d: d["config"]["limits"]["EUR"].update(lucky={"min": 1, "max": 2}),
        lambda d: d["config"]["limits"].update(euro=d["config"]["limits"]["EUR"]),
        lambda d: d["round"].update(opened_at="yesterday"),
        lambda d: d["round"].update(scan_ids=["not-a-uuid"]),
        lambda d: d["round"].update(cards=[["A1"]]),
        lambda d: d["round"].update(paused="no"),
        lambda d: d["round"].update(betting_remaining=1.5),
        lambda d: d.clear(),
    ],
)
def test_a_damaged_snapshot_is_refused(damage: Any) -> None:
    plan = {
        "gaps": [0] * 12,
        "pause_in_betting": None,
        "scan_closes_betting": False,
        "cards": 2,
        "duplicate_at": None,
        "deck_offset": 0,
        "after": None,
        "betting_seconds": 1.0,
        "reason": "",
    }
    history = play([plan])
    in_play = replay(TableState("T1"), history[:-1])  # before the void: two cards dealt
    text = snapshot_of(in_play)
    assert state_from_snapshot(text, SNAPSHOT_SCHEMA_VERSION) == in_play
    data = json.loads(text)
    damage(data)
    with pytest.raises(SnapshotError):
        state_from_snapshot(json.dumps(data), SNAPSHOT_SCHEMA_VERSION)
    for unreadable in ("[]", "", '{"table_id": "T1"'):
        with pytest.raises(SnapshotError):
            state_from_snapshot(unreadable, SNAPSHOT_SCHEMA_VERSION)
