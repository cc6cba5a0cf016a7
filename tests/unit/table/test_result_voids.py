"""A round voided after its result, pure: two supervisors within the correction window, the
request kept in the table's state until it is confirmed or rejected, the refusals with their
codes, the roadmap row of a voided round, and what the table holds for a person."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from table_service.adapters.snapshots import (
    SNAPSHOT_SCHEMA_VERSION,
    snapshot_of,
    state_from_snapshot,
)
from table_service.domain.attention import held_for_people, needs_person
from table_service.domain.decisions import (
    FourEyesError,
    RoundConflictError,
    TableCommandError,
    UnknownRoundError,
    UnknownTableError,
    decide_cancel,
    decide_close_table,
    decide_reject_void_result,
    decide_scan,
    decide_void_result,
)
from table_service.domain.results import CANCELLED, VOIDED, RoundRecord, ended_rounds
from table_service.domain.state import ResultVoidRequest, TableState, evolve, evolve_all
from teenpatti.events import Event
from teenpatti.events.catalog import (
    ResultVoidRejected,
    ResultVoidRequested,
    RoundVoided,
    registry,
)

from .test_control import T0, TIMEOUT, apply, dealing, scan

CARDS = ["AS", "KD", "AH", "KC", "2S", "3D"]  # Player A's pair of aces beats B's kings
WINDOW = timedelta(hours=24)
CLOSED_AT = T0 + timedelta(seconds=15)  # when `dealing` deals its cards


def closed_round() -> tuple[TableState, RoundRecord]:
    """A table whose first round closed with CARDS, and that round's roadmap row."""
    before = dealing(CARDS[:5])
    events = decide_scan(before, scan(CARDS[5]), CLOSED_AT)
    [record] = ended_rounds(before, events, CLOSED_AT)
    return apply(before, events, CLOSED_AT), record


def void(
    state: TableState,
    record: RoundRecord | None,
    actor: str,
    reason: str = "misread",
    now: datetime = CLOSED_AT + timedelta(minutes=5),
    round_id: str = "T1-000001",
) -> list[Event]:
    return decide_void_result(state, round_id, record, actor, reason, now, WINDOW)


# ------------------------------------------------------------------ two supervisors
def test_the_first_void_is_a_request_and_another_supervisor_confirms_it() -> None:
    state, record = closed_round()
    assert (record.status, record.winner) == ("closed", "player_a")

    [requested] = void(state, record, "alice", "A1 was the AC, misread as AS")
    assert requested == ResultVoidRequested(
        round_id="T1-000001", table_id="T1", actor="alice", reason="A1 was the AC, misread as AS"
    )
    asked_at = CLOSED_AT + timedelta(minutes=5)
    state = apply(state, [requested], asked_at)
    assert state.result_voids == {
        "T1-000001": ResultVoidRequest("alice", "A1 was the AC, misread as AS", asked_at)
    }
    assert state.round is not None and state.round.result is not None  # the result stands

    with pytest.raises(FourEyesError) as same:
        void(state, record, "alice", "again")
    assert same.value.code == "same_supervisor"
    assert "another supervisor must confirm it" in same.value.detail

    [voided] = void(state, record, "bob", "seen on camera")
    assert voided == RoundVoided(
        round_id="T1-000001",
        table_id="T1",
        requested_by="alice",
        actor="bob",
        reason="A1 was the AC, misread as AS (confirmed: seen on camera)",
        closed_at=CLOSED_AT,
        cards=CARDS,
        player_a_hand="pair",
        player_b_hand="pair",
        winner="player_a",
        six_card_bonus_hand=record.six_card_bonus_hand,
    )
    after = apply(state, [voided], asked_at)
    assert after.result_voids == {}
    assert after.round == state.round  # a table-level change: the last round is untouched


def test_a_voided_round_is_recorded_with_the_result_it_voided_and_not_voided_twice() -> None:
    state, record = closed_round()
    state = apply(state, void(state, record, "alice"))
    voided_at = CLOSED_AT + timedelta(hours=1)
    events = void(state, record, "bob", now=voided_at)
    [row] = ended_rounds(state, events, voided_at)
    assert row == RoundRecord(
        table_id="T1",
        round_id="T1-000001",
        number=1,
        status=VOIDED,
        ended_at=CLOSED_AT,
        cards=tuple(CARDS),
        player_a_hand="pair",
        player_b_hand="pair",
        winner="player_a",
        six_card_bonus_hand=record.six_card_bonus_hand,
        stream_version=state.version + 1,
        voided_at=voided_at,
        void_reason="misread (confirmed: misread)",
    )
    state = apply(state, events, voided_at)
    for actor in ("alice", "bob", "carol"):
        with pytest.raises(RoundConflictError) as twice:
            void(state, row, actor)
        assert twice.value.code == "already_voided"
        assert voided_at.isoformat() in twice.value.detail


def test_any_supervisor_rejects_a_request_the_one_who_asked_included() -> None:
    state, record = closed_round()
    state = apply(state, void(state, record, "alice", "misread"))
    for actor in ("alice", "bob"):
        [rejected] = decide_reject_void_result(state, "T1-000001", actor, "the card was right")
        assert rejected == ResultVoidRejected(
            round_id="T1-000001",
            table_id="T1",
            actor=actor,
            requested_by="alice",
            reason="the card was right",
        )
    state = apply(state, [rejected])
    assert state.result_voids == {}
    with pytest.raises(RoundConflictError) as nothing:
        decide_reject_void_result(state, "T1-000001", "bob", "again")
    assert nothing.value.code == "no_void_requested"
    # after a rejection, a void is a new request again, by anyone
    assert [type(e) for e in void(state, record, "bob")] == [ResultVoidRequested]


# ------------------------------------------------------------------ refusals
def test_the_correction_window_closes_requests_and_confirmations() -> None:
    state, record = closed_round()
    closes_at = CLOSED_AT + WINDOW
    assert void(state, record, "alice", now=closes_at)  # up to the window's end
    with pytest.raises(RoundConflictError) as late:
        void(state, record, "alice", now=closes_at + timedelta(microseconds=1))
    assert late.value.code == "correction_window_passed"
    assert closes_at.isoformat() in late.value.detail and "24 h" in late.value.detail
    assert late.value.extra == {"closes_at": closes_at.isoformat(), "window_hours": 24}

    state = apply(state, void(state, record, "alice", now=closes_at - timedelta(hours=1)))
    with pytest.raises(RoundConflictError) as confirmed_late:
        void(state, record, "bob", now=closes_at + timedelta(seconds=1))
    assert confirmed_late.value.code == "correction_window_passed"
    # the request still waits: rejecting it is always possible
    assert decide_reject_void_result(state, "T1-000001", "bob", "too late")


def test_only_an_ended_round_of_the_table_with_a_result_is_voided() -> None:
    state, record = closed_round()
    with pytest.raises(UnknownTableError):
        void(TableState("T9"), None, "alice", round_id="T9-000001")
    with pytest.raises(UnknownTableError):
        decide_reject_void_result(TableState("T9"), "T9-000001", "alice", "x")
    for missing in ("T1-000002", "garbage"):
        with pytest.raises(UnknownRoundError) as unknown:
            void(state, None, "alice", round_id=missing)
        assert unknown.value.code == "no_such_round" and missing in unknown.value.detail
    other_table = RoundRecord(**{**record.__dict__, "table_id": "T2", "round_id": "T2-000001"})
    with pytest.raises(UnknownRoundError):
        void(state, other_table, "alice", round_id="T2-000001")

    cancelled = RoundRecord(
        **{**record.__dict__, "status": CANCELLED, "winner": None, "player_a_hand": None}
    )
    with pytest.raises(RoundConflictError) as refunded:
        void(state, cancelled, "alice")
    assert refunded.value.code == "round_cancelled"
    assert "refunded already" in refunded.value.detail


def test_a_round_in_play_has_no_result_to_void_yet() -> None:
    state = dealing(["AS", "KD"])
    with pytest.raises(RoundConflictError) as in_play:
        void(state, None, "alice")
    assert in_play.value.code == "no_result_yet"
    assert "POST /tables/T1/cancel" in in_play.value.detail
    # cancelled before its result: refunded already, nothing left to void
    state = apply(state, decide_cancel(state, "alice", "misdeal"))
    confirmed = decide_cancel(state, "bob", "agreed")
    [row] = ended_rounds(state, confirmed, T0)
    state = apply(state, confirmed)
    with pytest.raises(TableCommandError) as cancelled:
        void(state, row, "alice")
    assert cancelled.value.code == "round_cancelled"


# ------------------------------------------------------------------ the state
def test_the_fold_copies_the_requests_only_when_they_change() -> None:
    state, record = closed_round()
    asked = apply(state, void(state, record, "alice"))
    [closing] = decide_close_table(asked, "bob", "end of day")
    unrelated = evolve(asked, closing, T0)
    moved = evolve(
        asked,
        ResultVoidRejected(
            round_id="T1-000009", table_id="T1", actor="bob", requested_by="x", reason="none"
        ),
        T0,
    )
    assert moved.version == asked.version + 1
    assert moved.result_voids is asked.result_voids  # nothing to remove: not copied
    assert unrelated.result_voids is asked.result_voids
    two = evolve_all(
        asked,
        [ResultVoidRequested(round_id="T1-000000", table_id="T1", actor="bob", reason="r")],
        T0,
    )
    assert list(two.result_voids) == ["T1-000001", "T1-000000"]
    assert list(asked.result_voids) == ["T1-000001"]  # the state before is unchanged


def test_a_pending_request_round_trips_through_a_snapshot_and_the_store() -> None:
    state, record = closed_round()
    asked = apply(state, void(state, record, "alice"), CLOSED_AT + timedelta(seconds=1))
    text = json.dumps(json.loads(snapshot_of(asked)), sort_keys=True)
    assert state_from_snapshot(text, SNAPSHOT_SCHEMA_VERSION) == asked
    [event] = void(asked, record, "bob")
    stored = registry.decode(
        event.event_type, event.schema_version, json.loads(event.model_dump_json())
    )
    assert stored == event


def test_a_table_holds_a_result_void_for_a_second_supervisor() -> None:
    state, record = closed_round()
    assert not needs_person(state)
    asked_at = CLOSED_AT + timedelta(minutes=1)
    state = apply(state, void(state, record, "alice", "misread"), asked_at)
    assert needs_person(state)
    [held] = held_for_people(state, asked_at, TIMEOUT, timedelta(minutes=10))
    assert (held.kind, held.round_id, held.since) == (
        "result_void_requested",
        "T1-000001",
        asked_at,
    )
    assert held.facts == {"requested_by": "alice"}
    assert held.actions == [
        "POST /tables/T1/rounds/T1-000001/void",
        "POST /tables/T1/rounds/T1-000001/void/reject",
    ]
    state = apply(state, decide_reject_void_result(state, "T1-000001", "alice", "withdrawn"))
    assert not needs_person(state)
