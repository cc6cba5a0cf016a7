"""The table's pure domain: decisions and state, with time passed in."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any
from uuid import uuid4

import pytest

from table_service.adapters.views import state_view
from table_service.domain.clock import (
    decide_auto_cancel,
    decide_clock,
    decide_close_betting,
    decide_open_round,
    needs_clock,
    next_clock_time,
)
from table_service.domain.decisions import (
    ConfigPolicy,
    InvalidTableConfigError,
    OpenTable,
    RoundConflictError,
    UnknownTableError,
    decide_approve_change,
    decide_cancel,
    decide_close_table,
    decide_pause,
    decide_reject_change,
    decide_replace_deck,
    decide_resume,
    decide_scan,
)
from table_service.domain.decisions import decide_open_table as decide_open_or_propose
from table_service.domain.state import (
    SYSTEM_ACTOR,
    RoundPhase,
    TableState,
    TableStatus,
    evolve,
    evolve_all,
    fold,
    round_id_for,
)
from table_service.rtp import exact_rtp
from teenpatti import engine
from teenpatti.events import Event
from teenpatti.events.catalog import (
    BettingClosed,
    CardDealt,
    CardRefused,
    CardScanned,
    ConfigChangeProposed,
    RoundCancelled,
    RoundClosed,
    RoundOpened,
    RoundPaused,
    RoundResumed,
    TableClosed,
    TableOpened,
    VoidRequested,
)

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
POLICY = ConfigPolicy(rtp_of=exact_rtp, rtp_ceiling_percent=Decimal("97.50"), max_currencies=20)
TIMEOUT = timedelta(seconds=120)
BET_TYPES = ("player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus")
CARDS = ["AS", "KS", "AH", "KH", "AD", "2C"]


def limits(**override: Any) -> dict[str, Any]:
    per_bet: dict[str, Any] = {bet: {"min": 100, "max": 50_000} for bet in BET_TYPES}
    per_bet.update(override)
    return {"EUR": per_bet}


def command(**override: Any) -> OpenTable:
    values: dict[str, Any] = {
        "table_id": "T1",
        "name": "Table one",
        "betting_seconds": 15,
        "result_pause_seconds": 5,
        "limits": limits(),
        "paytable": None,
    }
    values.update(override)
    return OpenTable(**values)


def decide_open_table(state: TableState, command: OpenTable, actor: str) -> list[Event]:
    """Open under the default policy: terms not approved for the table yet are proposed and
    approved by another supervisor (docs/decisions/0057, 0086); the proposal is left out."""
    events = decide_open_or_propose(state, command, actor, POLICY, uuid4())
    if events and isinstance(events[0], ConfigChangeProposed):
        proposed = evolve_all(state, events, T0)
        return decide_approve_change(proposed, events[0].change_id, f"not-{actor}", POLICY)
    return events


def apply(state: TableState, events: list[Event], at: datetime) -> TableState:
    return evolve_all(state, events, at)


def opened_table() -> TableState:
    state = TableState("T1")
    return apply(state, decide_open_table(state, command(), "supervisor-1"), T0)


def betting_round(at: datetime = T0) -> TableState:
    state = opened_table()
    return apply(state, decide_open_round(state, at), at)


def dealing_round(at: datetime = T0) -> TableState:
    state = betting_round(at)
    closes = at + timedelta(seconds=15)
    return apply(state, decide_close_betting(state, closes), closes)


def scan(card: str, table_id: str = "T1") -> CardScanned:
    return CardScanned(
        scan_id=uuid4(),
        device_id="D1",
        table_id=table_id,
        round_id=None,  # the table's screening (domain/scanners.py) is tested on its own
        sequence=1,
        card=card,
        raw=card,
        scanned_at=T0,
    )


def deal(state: TableState, cards: list[str], at: datetime) -> TableState:
    for card in cards:
        state = apply(state, decide_scan(state, scan(card), at), at)
    return state


# ------------------------------------------------------------------ opening a table
def test_opening_a_table_records_its_config_with_the_published_paytable() -> None:
    [event] = decide_open_table(TableState("T1"), command(), "supervisor-1")

    assert isinstance(event, TableOpened)
    assert event.actor == "supervisor-1"
    assert event.table_id == "T1"
    assert event.paytable == engine.pay_table_to_mapping(engine.PUBLISHED_PAY_TABLE)
    assert set(event.limits["EUR"]) == set(BET_TYPES)
    assert event.limits["EUR"]["tie"].min == 100


def test_opening_again_with_the_same_config_does_nothing_but_a_new_config_reconfigures() -> None:
    state = opened_table()

    assert decide_open_table(state, command(), "supervisor-2") == []
    [event] = decide_open_table(state, command(betting_seconds=20), "supervisor-2")
    assert isinstance(event, TableOpened) and event.betting_seconds == 20


def test_a_custom_paytable_is_validated_by_the_engine_and_stored_normalised() -> None:
    custom = engine.pay_table_to_mapping(engine.PUBLISHED_PAY_TABLE) | {"tie": "45:1"}
    [event] = decide_open_or_propose(
        TableState("T1"), command(paytable=custom), "s", POLICY, uuid4()
    )

    # a new table's terms wait for a second supervisor
    assert isinstance(event, ConfigChangeProposed)
    assert event.paytable["tie"] == "45"


@pytest.mark.parametrize(
    ("override", "code"),
    [
        ({"table_id": "bad id"}, "invalid_table_id"),
        ({"table_id": "-T1"}, "invalid_table_id"),
        ({"name": "   "}, "invalid_name"),
        ({"betting_seconds": 0}, "invalid_timing"),
        ({"betting_seconds": 601}, "invalid_timing"),
        ({"result_pause_seconds": -1}, "invalid_timing"),
        ({"limits": {}}, "invalid_limits"),
        ({"limits": {"EUR": []}}, "invalid_limits"),
        ({"limits": {"eur": limits()["EUR"]}}, "invalid_currency"),
        ({"limits": limits(baccarat={"min": 1, "max": 2})}, "unknown_bet_type"),
        (
            {"limits": {"EUR": {b: {"min": 1, "max": 2} for b in BET_TYPES[:5]}}},
            "bet_type_not_priced",
        ),
        ({"limits": limits(tie={"min": 0, "max": 10})}, "invalid_stake_limit"),
        ({"limits": limits(tie={"min": 1.5, "max": 10})}, "invalid_stake_limit"),
        ({"limits": limits(tie={"min": True, "max": 10})}, "invalid_stake_limit"),
        ({"limits": limits(tie={"min": 1})}, "invalid_stake_limit"),
        ({"limits": limits(tie={"min": 500, "max": 100})}, "min_above_max"),
        ({"paytable": {"player_a": "0.95"}}, "invalid_paytable"),
    ],
)
def test_an_invalid_config_is_refused_with_the_specific_problem(
    override: dict[str, Any], code: str
) -> None:
    with pytest.raises(InvalidTableConfigError) as refused:
        decide_open_table(TableState("T1"), command(**override), "s")
    assert refused.value.code == code


def test_a_limit_for_a_second_currency_must_price_every_bet_too() -> None:
    two = limits() | {"INR": {"tie": {"min": 1, "max": 2}}}
    with pytest.raises(InvalidTableConfigError) as refused:
        decide_open_table(TableState("T1"), command(limits=two), "s")
    assert refused.value.code == "bet_type_not_priced"
    assert "limits.INR" in refused.value.detail


# ------------------------------------------------------------------ the clock
def test_an_open_table_opens_its_first_round_at_once() -> None:
    state = opened_table()

    [event] = decide_clock(state, T0, TIMEOUT)
    assert isinstance(event, RoundOpened)
    assert event.round_id == "T1-000001" == round_id_for("T1", 1)
    assert event.number == 1
    assert event.opened_at == T0
    assert event.betting_closes_at == T0 + timedelta(seconds=15)
    assert state.config is not None and event.limits == state.config.limits
    assert next_clock_time(state, TIMEOUT) is not None


def test_betting_closes_at_the_deadline_and_not_before() -> None:
    state = betting_round()
    deadline = T0 + timedelta(seconds=15)

    assert decide_clock(state, deadline - timedelta(milliseconds=1), TIMEOUT) == []
    assert next_clock_time(state, TIMEOUT) == deadline
    [event] = decide_clock(state, deadline, TIMEOUT)
    assert event == BettingClosed(round_id="T1-000001", table_id="T1", closed_at=deadline)


def test_while_dealing_the_clock_waits_for_the_cards() -> None:
    state = dealing_round()

    assert state.round is not None and state.round.phase is RoundPhase.DEALING
    assert decide_clock(state, T0 + timedelta(hours=1), TIMEOUT) == []
    assert next_clock_time(state, TIMEOUT) is None


def test_the_next_round_opens_after_the_result_pause() -> None:
    end = T0 + timedelta(seconds=30)
    state = deal(dealing_round(), CARDS, end)
    assert state.round is not None and state.round.phase is RoundPhase.CLOSED

    assert next_clock_time(state, TIMEOUT) == end + timedelta(seconds=5)
    assert decide_clock(state, end + timedelta(seconds=4.9), TIMEOUT) == []
    [event] = decide_clock(state, end + timedelta(seconds=5), TIMEOUT)
    assert isinstance(event, RoundOpened)
    assert (event.number, event.round_id) == (2, "T1-000002")


def test_a_reconfiguration_applies_from_the_next_round() -> None:
    state = betting_round()
    state = apply(state, decide_open_table(state, command(betting_seconds=30), "s"), T0)

    assert state.round is not None and state.round.betting_closes_at == T0 + timedelta(seconds=15)
    state = deal(
        apply(state, decide_close_betting(state, T0 + timedelta(seconds=15)), T0), CARDS, T0
    )
    [event] = decide_open_round(state, T0 + timedelta(seconds=5))
    assert isinstance(event, RoundOpened)
    assert event.betting_closes_at == T0 + timedelta(seconds=35)


def test_a_closed_table_finishes_its_round_then_opens_no_more() -> None:
    state = dealing_round()
    [closed] = decide_close_table(state, "supervisor-1", "end of shift")
    assert closed == TableClosed(table_id="T1", actor="supervisor-1", reason="end of shift")
    state = apply(state, [closed], T0)

    assert needs_clock(state)  # the round in play still plays out
    state = deal(state, CARDS, T0)
    assert state.round is not None and state.round.phase is RoundPhase.CLOSED
    assert decide_clock(state, T0 + timedelta(hours=1), TIMEOUT) == []
    assert not needs_clock(state)
    with pytest.raises(RoundConflictError) as refused:
        decide_close_table(state, "supervisor-1", "again")
    assert refused.value.code == "table_already_closed"


# ------------------------------------------------------------------ scans
def test_six_scans_deal_in_order_and_the_sixth_closes_the_round_with_the_engines_result() -> None:
    state = dealing_round()
    positions = []
    for card in CARDS[:5]:
        [event] = decide_scan(state, scan(card), T0)
        assert isinstance(event, CardDealt)
        positions.append(event.position)
        state = apply(state, [event], T0)
    dealt, closed = decide_scan(state, scan(CARDS[5]), T0)

    assert isinstance(dealt, CardDealt) and isinstance(closed, RoundClosed)
    assert [*positions, dealt.position] == ["A1", "B1", "A2", "B2", "A3", "B3"]
    result = engine.resolve_round(engine.parse_cards(CARDS))
    assert closed.cards == CARDS
    assert closed.winner == result.winner.value == "player_a"
    assert closed.player_a_hand == result.player_a.category.value == "trail_of_aces"
    assert closed.player_b_hand == result.player_b.category.value
    assert closed.six_card_bonus_hand == "full_house"


def test_a_round_without_a_six_card_bonus_hand_closes_with_none() -> None:
    cards = ["2S", "3H", "5D", "7C", "9S", "JH"]
    state = deal(dealing_round(), cards[:5], T0)
    _, closed = decide_scan(state, scan(cards[5]), T0)

    assert isinstance(closed, RoundClosed)
    assert closed.six_card_bonus_hand is None
    assert closed.winner == engine.resolve_round(engine.parse_cards(cards)).winner.value


def refusal(events: list[Event]) -> CardRefused:
    assert isinstance(events[0], CardRefused)
    return events[0]


def test_a_scan_for_a_table_never_opened_is_refused_as_unknown_table() -> None:
    [event] = decide_scan(TableState("T9"), scan("AS", "T9"), T0)
    assert isinstance(event, CardRefused)
    assert (event.reason, event.round_id, event.table_id) == ("unknown_table", None, "T9")


def test_a_scan_with_no_round_dealing_is_refused_without_its_value() -> None:
    assert refusal(decide_scan(opened_table(), scan("AS"), T0)).reason == "no_round_dealing"
    finished = deal(dealing_round(), CARDS, T0)
    refused = refusal(decide_scan(finished, scan("QS"), T0))
    # it may be the next round's first card: its value is sealed (decision 0058)
    assert (refused.reason, refused.round_id, refused.card) == (
        "no_round_dealing",
        "T1-000001",
        None,
    )


def test_a_scan_on_a_closed_table_is_refused() -> None:
    state = opened_table()
    state = apply(state, decide_close_table(state, "s", "done"), T0)
    assert refusal(decide_scan(state, scan("AS"), T0)).reason == "table_closed"


def test_a_scan_while_betting_is_open_is_sealed_and_pauses_the_exposed_round() -> None:
    state = betting_round()
    read = scan("AS")
    refused, paused = decide_scan(state, read, T0 + timedelta(seconds=14))
    assert refused == CardRefused(
        table_id="T1",
        round_id="T1-000001",
        scan_id=read.scan_id,
        card=None,
        reason="betting_open",
        detail=refused.detail,
    )
    assert isinstance(paused, RoundPaused) and paused.actor == SYSTEM_ACTOR
    assert "AS" not in refused.detail + paused.reason
    after = apply(state, [refused, paused], T0 + timedelta(seconds=14))
    assert after.round is not None and after.round.exposed and after.round.paused


def test_a_scan_after_the_deadline_closes_betting_then_deals() -> None:
    state = betting_round()
    late = T0 + timedelta(seconds=15, milliseconds=1)
    closed, dealt = decide_scan(state, scan("AS"), late)

    assert closed == BettingClosed(round_id="T1-000001", table_id="T1", closed_at=late)
    assert isinstance(dealt, CardDealt) and dealt.position == "A1"


@pytest.mark.parametrize("dealing", [False, True])
def test_a_scan_while_paused_is_refused(dealing: bool) -> None:
    state = dealing_round() if dealing else betting_round()
    state = apply(state, decide_pause(state, "s", "check"), T0)
    refused = refusal(decide_scan(state, scan("AS"), T0 + timedelta(hours=1)))
    # paused during betting, the card is exposed all the same: sealed, the round marked
    assert (refused.reason, refused.card) == (
        ("round_paused", "AS") if dealing else ("betting_open", None)
    )


def test_a_duplicate_card_is_refused_and_pauses_the_round_for_the_system() -> None:
    state = deal(dealing_round(), ["AS", "KS"], T0)
    refused, paused = decide_scan(state, scan("AS"), T0)

    assert isinstance(refused, CardRefused) and refused.reason == "duplicate_card"
    assert "A1" in refused.detail
    assert isinstance(paused, RoundPaused) and paused.actor == SYSTEM_ACTOR
    state = apply(state, [refused, paused], T0)
    assert state.round is not None and state.round.paused
    # a started round is never cancelled by the clock
    assert decide_clock(state, T0 + timedelta(days=1), TIMEOUT) == []


def test_the_same_scan_delivered_twice_is_dealt_once() -> None:
    state = dealing_round()
    once = scan("AS")
    state = apply(state, decide_scan(state, once, T0), T0)
    assert decide_scan(state, once, T0) == []


# ------------------------------------------------------------------ pause, resume, cancel
def test_pausing_during_betting_stops_the_clock_and_resume_gives_the_remaining_time() -> None:
    state = betting_round()  # closes at T0 + 15 s
    paused_at = T0 + timedelta(seconds=10)
    [pause] = decide_pause(state, "supervisor-1", "camera down")
    assert pause == RoundPaused(
        round_id="T1-000001", table_id="T1", actor="supervisor-1", reason="camera down"
    )
    state = apply(state, [pause], paused_at)
    assert state.round is not None
    assert state.round.betting_remaining == timedelta(seconds=5)
    assert decide_close_betting(state, T0 + timedelta(seconds=60)) == []

    resumed_at = T0 + timedelta(seconds=70)
    [resume] = decide_resume(state, "supervisor-2", resumed_at)
    assert resume == RoundResumed(
        round_id="T1-000001",
        table_id="T1",
        actor="supervisor-2",
        betting_closes_at=resumed_at + timedelta(seconds=5),
    )
    state = apply(state, [resume], resumed_at)
    assert decide_clock(state, resumed_at + timedelta(seconds=4.9), TIMEOUT) == []
    [closed] = decide_clock(state, resumed_at + timedelta(seconds=5), TIMEOUT)
    assert isinstance(closed, BettingClosed)


def test_a_pause_after_the_deadline_leaves_no_betting_time() -> None:
    state = betting_round()
    state = apply(state, decide_pause(state, "s", "late"), T0 + timedelta(seconds=20))
    [resume] = decide_resume(state, "s", T0 + timedelta(seconds=30))
    assert isinstance(resume, RoundResumed)
    assert resume.betting_closes_at == T0 + timedelta(seconds=30)


def test_pausing_and_resuming_twice_keeps_the_remaining_time() -> None:
    state = betting_round()
    state = apply(state, decide_pause(state, "s", "1"), T0 + timedelta(seconds=5))  # 10 s left
    state = apply(state, decide_resume(state, "s", T0 + timedelta(seconds=50)), T0)
    state = apply(state, decide_pause(state, "s", "2"), T0 + timedelta(seconds=54))  # 6 s left
    [resume] = decide_resume(state, "s", T0 + timedelta(seconds=100))
    assert isinstance(resume, RoundResumed)
    assert resume.betting_closes_at == T0 + timedelta(seconds=106)


def test_resuming_while_dealing_sets_no_deadline() -> None:
    state = deal(dealing_round(), ["AS"], T0)
    state = apply(state, decide_pause(state, "s", "card fell"), T0)
    [resume] = decide_resume(state, "s", T0)
    assert isinstance(resume, RoundResumed) and resume.betting_closes_at is None
    state = apply(state, [resume], T0)
    [dealt] = decide_scan(state, scan("KS"), T0)
    assert isinstance(dealt, CardDealt) and dealt.position == "B1"


@pytest.mark.parametrize("dealing", [False, True])
def test_a_round_paused_before_its_first_card_is_cancelled_by_the_system_after_the_timeout(
    dealing: bool,
) -> None:
    state = dealing_round() if dealing else betting_round()
    paused_at = T0 + timedelta(seconds=20)
    state = apply(state, decide_pause(state, "s", "shuffler jam"), paused_at)

    assert next_clock_time(state, TIMEOUT) == paused_at + TIMEOUT
    assert decide_auto_cancel(state, paused_at + TIMEOUT - timedelta(microseconds=1), TIMEOUT) == []
    [cancel] = decide_clock(state, paused_at + TIMEOUT, TIMEOUT)
    assert isinstance(cancel, RoundCancelled)
    assert (cancel.actor, cancel.cards_dealt, cancel.round_id) == (SYSTEM_ACTOR, 0, "T1-000001")
    assert "shuffler jam" in cancel.reason


def test_a_started_round_paused_is_never_cancelled_automatically() -> None:
    state = deal(dealing_round(), ["AS"], T0)
    state = apply(state, decide_pause(state, "s", "dispute"), T0)

    assert decide_auto_cancel(state, T0 + timedelta(days=7), TIMEOUT) == []
    assert next_clock_time(state, TIMEOUT) is None


def test_a_resumed_round_is_not_cancelled_by_an_old_pause() -> None:
    state = betting_round()
    state = apply(state, decide_pause(state, "s", "x"), T0)
    state = apply(state, decide_resume(state, "s", T0 + timedelta(seconds=100)), T0)
    assert decide_auto_cancel(state, T0 + timedelta(seconds=500), TIMEOUT) == []


def test_a_supervisor_cancels_before_the_first_card_and_voids_after_it() -> None:
    before = betting_round()
    [cancel] = decide_cancel(before, "supervisor-1", "no dealer")
    assert cancel == RoundCancelled(
        round_id="T1-000001", table_id="T1", actor="supervisor-1", reason="no dealer", cards_dealt=0
    )

    started = deal(dealing_round(), ["AS", "KS", "AH"], T0)
    [request, paused] = decide_cancel(started, "supervisor-1", "misdeal")
    assert isinstance(request, VoidRequested) and request.cards_dealt == 3
    assert isinstance(paused, RoundPaused) and paused.actor == "supervisor-1"
    started = apply(started, [request, paused], T0)
    [void] = decide_cancel(started, "supervisor-2", "seen on camera")
    assert isinstance(void, RoundCancelled) and void.cards_dealt == 3
    assert void.actor == "supervisor-2" and "supervisor-1" in void.reason
    after = apply(started, [void], T0)
    assert after.round is not None and after.round.phase is RoundPhase.CANCELLED
    assert refusal(decide_scan(after, scan("KH"), T0)).reason == "no_round_dealing"
    # the next round follows after the result pause
    [opened] = decide_clock(after, T0 + timedelta(seconds=5), TIMEOUT)
    assert isinstance(opened, RoundOpened) and opened.number == 2


def test_a_paused_round_can_be_cancelled() -> None:
    state = deal(dealing_round(), ["AS"], T0)
    state = apply(state, decide_pause(state, "s", "x"), T0)
    state = apply(state, decide_cancel(state, "s", "void"), T0)
    [cancel] = decide_cancel(state, "t", "void")
    assert isinstance(cancel, RoundCancelled) and cancel.cards_dealt == 1


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ("pause", "nothing_to_pause"),
        ("resume", "nothing_to_resume"),
        ("cancel", "nothing_to_cancel"),
    ],
)
def test_nothing_to_pause_resume_or_cancel_names_the_phase(action: str, code: str) -> None:
    finished = deal(dealing_round(), CARDS, T0)
    for state, phase in ((opened_table(), "open"), (finished, "closed")):
        with pytest.raises(RoundConflictError) as refused:
            _command(action, state)
        assert (refused.value.code, refused.value.extra["phase"]) == (code, phase)


def test_resuming_a_round_that_is_not_paused_and_pausing_twice_are_refused() -> None:
    state = betting_round()
    with pytest.raises(RoundConflictError) as not_paused:
        decide_resume(state, "s", T0)
    assert not_paused.value.code == "nothing_to_resume"
    state = apply(state, decide_pause(state, "s", "x"), T0)
    with pytest.raises(RoundConflictError) as twice:
        decide_pause(state, "s", "y")
    assert (twice.value.code, twice.value.extra["phase"]) == ("round_already_paused", "betting")


@pytest.mark.parametrize("action", ["pause", "resume", "cancel", "close"])
def test_commands_on_a_table_never_opened_are_refused_as_unknown(action: str) -> None:
    with pytest.raises(UnknownTableError) as refused:
        _command(action, TableState("T9"))
    assert refused.value.code == "unknown_table"


def _command(action: str, state: TableState) -> list[Event]:
    match action:
        case "pause":
            return decide_pause(state, "s", "r")
        case "resume":
            return decide_resume(state, "s", T0)
        case "cancel":
            return decide_cancel(state, "s", "r")
        case _:
            return decide_close_table(state, "s", "r")


# ------------------------------------------------------------------ state
def test_the_state_follows_the_stream_and_its_view_is_json() -> None:
    state = deal(dealing_round(), CARDS[:2], T0 + timedelta(seconds=16))

    assert state.version == 5  # TableOpened, RoundOpened, BettingClosed, 2 x CardDealt
    assert state.status is TableStatus.OPEN
    assert state.phase == "dealing"
    assert state.round is not None and state.round.first_card_at == T0 + timedelta(seconds=16)
    view = json.loads(json.dumps(state_view(state)))
    assert view["round"]["cards"] == [
        {"position": "A1", "card": "AS"},
        {"position": "B1", "card": "KS"},
    ]
    assert view["config"]["limits"]["EUR"]["tie"] == {"min": 100, "max": 50_000}
    assert view["version"] == 5


def a_long_history() -> list[tuple[Event, datetime]]:
    """Every kind of table event, each with the time it was recorded: a round paused and
    resumed during betting and during dealing, a refused card, a round closed, one
    cancelled, a reconfiguration and the table's close."""
    history: list[tuple[Event, datetime]] = []
    state = TableState("T1")

    def record(events: list[Event], at: datetime) -> None:
        nonlocal state
        for event in events:
            history.append((event, at))
            state = evolve_all(state, [event], at)

    at = T0
    record(decide_open_table(state, command(), "supervisor-1"), at)
    record(decide_open_round(state, at), at)
    record(decide_pause(state, "supervisor-1", "spill"), at + timedelta(seconds=5))
    record(
        decide_resume(state, "supervisor-1", at + timedelta(seconds=9)), at + timedelta(seconds=9)
    )
    at += timedelta(seconds=30)
    record(decide_close_betting(state, at), at)
    record(decide_scan(state, scan("AS"), at), at)
    record(decide_scan(state, scan("AS"), at), at)  # refused: a duplicate; pauses the round
    record(decide_resume(state, "supervisor-1", at), at)
    for card in CARDS[1:]:
        record(decide_scan(state, scan(card), at), at)
    record(decide_open_table(state, command(betting_seconds=20), "supervisor-2"), at)
    narrow = command(limits=limits(tie={"min": 1, "max": 9}))
    record(decide_open_or_propose(state, narrow, "s1", POLICY, uuid4()), at)
    assert state.pending_change is not None
    record(decide_reject_change(state, state.pending_change.change_id, "s2", "no"), at)
    at += timedelta(seconds=10)
    record(decide_open_round(state, at), at)
    record(decide_scan(state, scan("QS"), at), at)  # exposed during betting: paused
    record(decide_replace_deck(state, "supervisor-2", "new deck"), at)
    record(decide_cancel(state, "supervisor-2", "shoe"), at)
    record(decide_close_table(state, "supervisor-2", "end of shift"), at)
    return history


def test_fold_is_evolve_one_event_at_a_time_and_changes_no_state_it_is_given() -> None:
    history = a_long_history()
    states = [TableState("T1")]
    for event, at in history:
        states.append(evolve(states[-1], event, at))
    copies = [copy.deepcopy(state) for state in states]

    assert {type(event) for event, _ in history} >= {
        TableOpened,
        RoundOpened,
        RoundPaused,
        RoundResumed,
        BettingClosed,
        CardDealt,
        CardRefused,
        RoundClosed,
        RoundCancelled,
        TableClosed,
    }
    for start, state in enumerate(states):
        assert fold(state, history[start:]) == states[-1]
    assert states == copies  # folding in place touched only its own copies
    assert states[-1].version == len(history)
    assert states[-1].status is TableStatus.CLOSED
