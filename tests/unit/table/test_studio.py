"""The table against a one-person configuration and a studio in trouble, pure: limits and pay
tables approved by a second supervisor however they come, the studio's video lost and
restored, and rounds held while a service a round needs is not ready (docs/decisions/0086)."""

from __future__ import annotations

from datetime import timedelta

from table_service.adapters.snapshots import SNAPSHOT_SCHEMA_VERSION, snapshot_of
from table_service.adapters.snapshots import state_from_snapshot as from_snapshot
from table_service.adapters.views import state_view
from table_service.domain.attention import held_for_people, needs_person
from table_service.domain.clock import decide_clock, decide_open_round, next_clock_time
from table_service.domain.decisions import (
    decide_close_table,
    decide_pause,
    decide_video_lost,
    decide_video_restored,
    needs_approval,
)
from table_service.domain.state import TableConfig, TableState, terms_of
from teenpatti.events.catalog import (
    ConfigChangeProposed,
    RoundCancelled,
    RoundOpened,
    RoundPaused,
    RoundsHeld,
    RoundsReleased,
    TableOpened,
    VideoLost,
    VideoRestored,
)

from .test_control import (
    PUBLISHED,
    T0,
    TIMEOUT,
    apply,
    approved,
    betting,
    command,
    dealing,
    decide,
    limits,
    opened,
)

LATER = T0 + timedelta(minutes=5)


# ------------------------------------------------------------------ four eyes on terms
def test_a_new_table_waits_for_a_second_supervisor_even_on_the_published_pay_table() -> None:
    [proposed] = decide(TableState("T1"), command())
    assert isinstance(proposed, ConfigChangeProposed)
    assert apply(TableState("T1"), [proposed]).status.value == "unknown"


def test_reopening_with_other_limits_takes_two_and_on_approved_ones_takes_one() -> None:
    state = apply(opened(), decide_close_table(opened(), "alice", "night"))
    # finding 2 of issue 33: a maximum 2,000,000 times higher, applied alone by reopening
    [proposed] = decide(state, command(limits=limits(maximum=50_000 * 2_000_000)))
    assert isinstance(proposed, ConfigChangeProposed)
    [reopened] = decide(state, command(name="Salon"), "carol")
    assert isinstance(reopened, TableOpened) and reopened.approved_by is None


def test_a_live_change_back_to_approved_terms_takes_one_supervisor() -> None:
    wide = command(limits=limits(maximum=90_000))
    state = apply(opened(), approved(opened(), wide))
    [back] = decide(state, command(), "carol")
    assert isinstance(back, TableOpened) and back.approved_by is None


def test_terms_are_limits_and_pay_table_and_an_old_one_person_opening_approves_nothing() -> None:
    config = TableConfig("T", 15, 5, apply(opened(), []).config.limits, PUBLISHED)  # type: ignore[union-attr]
    assert terms_of(config.limits, config.paytable) == terms_of(config.limits, dict(PUBLISHED))
    old = TableOpened(
        table_id="T1",
        name="T",
        betting_seconds=15,
        result_pause_seconds=5,
        limits=config.limits,
        paytable=PUBLISHED,
        actor="alice",
    )
    state = apply(TableState("T1"), [old])  # a stream written before decision 0086
    assert state.status.value == "open" and state.approved_terms == ()
    assert needs_approval(state, config)
    assert not needs_approval(opened(), config)


# ------------------------------------------------------------------ the studio's video
def test_video_lost_in_betting_cancels_the_round_and_no_round_opens_until_restored() -> None:
    state = betting()
    lost = decide_video_lost(state, "dealer-1", "encoder down")
    assert [type(e) for e in lost] == [VideoLost, RoundCancelled]
    cancelled = lost[1]
    assert isinstance(cancelled, RoundCancelled) and cancelled.cards_dealt == 0
    assert "video lost before the first card" in cancelled.reason
    state = apply(state, lost)
    assert decide_video_lost(state, "dealer-1", "again") == []  # reported twice: no change
    assert decide_clock(state, LATER, TIMEOUT) == []
    assert next_clock_time(state, TIMEOUT) is None
    assert needs_person(state)
    [held] = held_for_people(state, LATER, TIMEOUT, timedelta(minutes=10))
    assert held.kind == "video_lost" and held.facts["reported_by"] == "dealer-1"
    assert state_view(state)["video_lost"]["reason"] == "encoder down"  # type: ignore[index]

    [restored] = decide_video_restored(state, "dealer-1", "")
    assert isinstance(restored, VideoRestored)
    state = apply(state, [restored])
    assert decide_video_restored(state, "dealer-1", "") == []
    [round_opened] = decide_clock(state, LATER, TIMEOUT)
    assert isinstance(round_opened, RoundOpened) and round_opened.number == 2


def test_video_lost_after_betting_before_the_first_card_cancels_too() -> None:
    lost = decide_video_lost(dealing(), "dealer-1", "stream down")
    assert [type(e) for e in lost] == [VideoLost, RoundCancelled]


def test_a_started_round_plays_on_when_the_video_is_lost() -> None:
    state = dealing(["AS", "KD"])
    [lost] = decide_video_lost(state, "dealer-1", "stream down")
    assert isinstance(lost, VideoLost)
    state = apply(state, [lost])
    assert state.round_in_play is not None and not state.round_in_play.paused


def test_the_dealer_pauses_like_a_supervisor() -> None:
    [paused] = decide_pause(betting(), "dealer-1", "card fell")
    assert isinstance(paused, RoundPaused) and paused.actor == "dealer-1"


# ------------------------------------------------------------------ rounds held
def test_rounds_are_held_while_a_service_is_not_ready_and_released_with_the_next_round() -> None:
    state = opened()
    first = T0 + timedelta(seconds=1)
    [held] = decide_open_round(state, first, ("wallet not ready",))
    assert isinstance(held, RoundsHeld) and held.reasons == ["wallet not ready"]
    state = apply(state, [held], first)
    assert decide_open_round(state, LATER, ("wallet not ready",)) == []  # said once
    assert next_clock_time(state, TIMEOUT) is None  # the clock asks the services again
    [problem] = held_for_people(state, LATER, TIMEOUT, timedelta(minutes=10))
    assert problem.kind == "rounds_held" and problem.since == first
    other = decide_open_round(state, LATER, ("wallet not ready", "settlement unreachable"))
    assert [type(e) for e in other] == [RoundsHeld]
    released = decide_open_round(state, LATER)
    assert [type(e) for e in released] == [RoundsReleased, RoundOpened]
    state = apply(state, released, LATER)
    assert state.held == () and not needs_person(state)


def test_the_new_state_round_trips_through_a_snapshot() -> None:
    state = apply(betting(), decide_video_lost(betting(), "dealer-1", "down"), LATER)
    state = apply(state, [RoundsHeld(table_id="T1", reasons=["wallet not ready"])], LATER)
    assert state.approved_terms and state.video_lost is not None
    assert from_snapshot(snapshot_of(state), SNAPSHOT_SCHEMA_VERSION) == state
