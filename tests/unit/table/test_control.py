"""The table's game control, pure: the RTP ceiling and configuration bounds, four eyes on
pay tables, limits and voids, a card exposed during betting, a stalled deal, and what a
table holds for a person (docs/decisions/0057, 0058, 0059)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from typing import Any
from uuid import uuid4

import pytest

from table_service.domain.attention import held_for_people, needs_person
from table_service.domain.clock import (
    decide_clock,
    decide_close_betting,
    decide_open_round,
    next_clock_time,
)
from table_service.domain.decisions import (
    ConfigPolicy,
    FourEyesError,
    InvalidTableConfigError,
    OpenTable,
    RoundConflictError,
    decide_approve_change,
    decide_cancel,
    decide_mark_wrong,
    decide_open_table,
    decide_reject_change,
    decide_replace_deck,
    decide_rescan,
    decide_resume,
    decide_scan,
    proposed_again,
    rtp_percent,
    table_config,
)
from table_service.domain.state import SYSTEM_ACTOR, RoundPhase, TableState, evolve_all
from table_service.rtp import exact_rtp
from teenpatti import engine
from teenpatti.events import Event
from teenpatti.events.catalog import (
    CardMarkedWrong,
    CardRefused,
    CardScanned,
    CardsWithdrawn,
    ConfigChangeProposed,
    ConfigChangeRejected,
    DeckReplaced,
    RoundCancelled,
    RoundOpened,
    RoundPaused,
    RoundResumed,
    TableOpened,
    VoidRequested,
)

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
TIMEOUT = timedelta(seconds=120)
STALL = timedelta(seconds=60)
BET_TYPES = ("player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus")
POLICY = ConfigPolicy(rtp_of=exact_rtp, rtp_ceiling_percent=Decimal("97.50"), max_currencies=3)
PUBLISHED = engine.pay_table_to_mapping(engine.PUBLISHED_PAY_TABLE)


def limits(maximum: int = 50_000, currencies: tuple[str, ...] = ("EUR",)) -> dict[str, Any]:
    return {c: {bet: {"min": 100, "max": maximum} for bet in BET_TYPES} for c in currencies}


def command(**override: Any) -> OpenTable:
    values: dict[str, Any] = {
        "table_id": "T1",
        "name": "Table one",
        "betting_seconds": 15,
        "result_pause_seconds": 5,
        "limits": limits(),
        "paytable": None,
    }
    return OpenTable(**(values | override))


def decide(state: TableState, cmd: OpenTable, actor: str = "alice") -> list[Event]:
    return decide_open_table(state, cmd, actor, POLICY, uuid4())


def apply(state: TableState, events: list[Event], at: datetime = T0) -> TableState:
    return evolve_all(state, events, at)


def approved(
    state: TableState, cmd: OpenTable, actor: str = "alice", approver: str = "bob"
) -> list[Event]:
    """`cmd` by `actor`, and `approver`'s approval when it needs one (docs/decisions/0086)."""
    events = decide(state, cmd, actor)
    if events and isinstance(events[0], ConfigChangeProposed):
        proposed = apply(state, events)
        events += decide_approve_change(proposed, events[0].change_id, approver, POLICY)
    return events


def opened() -> TableState:
    state = TableState("T1")
    return apply(state, approved(state, command()))


def betting() -> TableState:
    state = opened()
    return apply(state, decide_open_round(state, T0))


def dealing(cards: list[str] = ()) -> TableState:  # type: ignore[assignment]
    state = betting()
    closes = T0 + timedelta(seconds=15)
    state = apply(state, decide_close_betting(state, closes), closes)
    for card in cards:
        state = apply(state, decide_scan(state, scan(card), closes), closes)
    return state


def scan(card: str) -> CardScanned:
    return CardScanned(
        scan_id=uuid4(),
        device_id="D1",
        table_id="T1",
        round_id=None,
        sequence=1,
        card=card,
        raw=card,
        scanned_at=T0,
    )


# ------------------------------------------------------------------ the RTP ceiling
def test_the_published_pay_table_is_at_the_rules_maximum_rtp_as_the_rules_state_it() -> None:
    rtp = exact_rtp(engine.PUBLISHED_PAY_TABLE)
    # exactly 97.5028%: the rules' "97.50%" at two decimals, so it opens
    assert rtp["player_a"] > Fraction(975, 1000)
    assert rtp_percent(rtp["player_a"]) == Decimal("97.50")
    [_, event] = approved(TableState("T1"), command())
    assert isinstance(event, TableOpened)


def test_a_pay_table_above_the_ceiling_is_refused_naming_the_bet_its_rtp_and_the_ceiling() -> None:
    generous = PUBLISHED | {"tie": "10000:1"}
    with pytest.raises(InvalidTableConfigError) as refused:
        decide(TableState("T1"), command(paytable=generous))
    error = refused.value
    assert error.code == "rtp_above_ceiling"
    assert error.extra["bet_type"] == "tie" and error.extra["ceiling_percent"] == "97.50"
    assert Decimal(error.extra["rtp_percent"]) > 100
    assert "tie" in error.detail and "97.50%" in error.detail


def test_the_ceiling_is_a_setting_and_a_lower_one_refuses_the_published_table() -> None:
    strict = ConfigPolicy(exact_rtp, Decimal("95.00"), max_currencies=3)
    with pytest.raises(InvalidTableConfigError) as refused:
        decide_open_table(TableState("T1"), command(), "alice", strict, uuid4())
    assert refused.value.extra["bet_type"] == "player_a"


def test_a_table_prices_at_most_the_allowed_number_of_currencies() -> None:
    many = limits(currencies=("EUR", "USD", "INR", "GBP"))
    with pytest.raises(InvalidTableConfigError) as refused:
        decide(TableState("T1"), command(limits=many))
    assert refused.value.code == "too_many_currencies"


# ------------------------------------------------------------------ four eyes on changes
def test_a_limits_change_of_an_open_table_is_proposed_and_applies_once_approved() -> None:
    state = opened()
    [proposed] = decide(state, command(limits=limits(maximum=90_000)), "alice")
    assert isinstance(proposed, ConfigChangeProposed) and proposed.actor == "alice"
    assert set(proposed.rtp) == set(BET_TYPES)
    state = apply(state, [proposed])
    assert state.config is not None and state.config.limits == opened().config.limits  # type: ignore[union-attr]

    with pytest.raises(FourEyesError) as same:
        decide_approve_change(state, proposed.change_id, "alice", POLICY)
    assert same.value.code == "same_supervisor"

    [approved] = decide_approve_change(state, proposed.change_id, "bob", POLICY)
    assert isinstance(approved, TableOpened)
    assert (approved.actor, approved.approved_by) == ("alice", "bob")
    state = apply(state, [approved])
    assert state.pending_change is None
    [round_opened] = decide_open_round(state, T0)
    assert isinstance(round_opened, RoundOpened)
    assert round_opened.limits["EUR"]["tie"].max == 90_000


def test_a_change_applies_from_the_next_round_not_to_the_round_in_play() -> None:
    state = betting()
    [proposed] = decide(state, command(limits=limits(maximum=90_000)), "alice")
    state = apply(
        state,
        [
            proposed,
            *decide_approve_change(apply(state, [proposed]), proposed.change_id, "bob", POLICY),
        ],
    )
    assert state.round is not None and state.round.limits["EUR"]["tie"].max == 50_000


def test_a_pay_table_other_than_the_published_one_needs_two_even_to_open() -> None:
    custom = PUBLISHED | {"tie": "40:1"}
    [proposed] = decide(TableState("T1"), command(paytable=custom))
    assert isinstance(proposed, ConfigChangeProposed)
    state = apply(TableState("T1"), [proposed])
    assert state.status.value == "unknown"  # nothing opens on one supervisor's word
    [approved] = decide_approve_change(state, proposed.change_id, "bob", POLICY)
    assert isinstance(approved, TableOpened) and approved.paytable["tie"] == "40"


def test_renaming_or_retiming_an_open_table_needs_one_supervisor() -> None:
    [event] = decide(opened(), command(name="Salon", betting_seconds=20))
    assert isinstance(event, TableOpened) and event.approved_by is None


def test_a_rename_meanwhile_leaves_a_proposed_change_waiting() -> None:
    state = opened()
    [proposed] = decide(state, command(limits=limits(maximum=90_000)))
    state = apply(state, [proposed])
    state = apply(state, decide(state, command(name="Salon")))
    assert state.pending_change is not None
    assert state.pending_change.change_id == proposed.change_id


def test_one_change_waits_at_a_time_and_a_rejected_one_never_applies() -> None:
    state = opened()
    [proposed] = decide(state, command(limits=limits(maximum=90_000)))
    state = apply(state, [proposed])
    with pytest.raises(RoundConflictError) as pending:
        decide(state, command(limits=limits(maximum=70_000)), "carol")
    assert pending.value.code == "change_pending"
    [rejected] = decide_reject_change(state, proposed.change_id, "alice", "typo")
    assert isinstance(rejected, ConfigChangeRejected)
    state = apply(state, [rejected])
    with pytest.raises(RoundConflictError) as gone:
        decide_approve_change(state, proposed.change_id, "bob", POLICY)
    assert gone.value.code == "no_such_change"


def test_the_same_proposal_sent_again_is_the_change_that_waits() -> None:
    state = opened()
    [proposed] = decide(state, command(limits=limits(maximum=90_000)))
    state = apply(state, [proposed])
    assert decide(state, command(limits=limits(maximum=90_000))) == []
    assert state.pending_change is not None
    assert proposed_again(
        state, table_config(command(limits=limits(maximum=90_000)), POLICY)[0], "alice"
    )
    for other, actor in (
        (command(limits=limits(maximum=90_000)), "carol"),
        (command(limits=limits(maximum=80_000)), "alice"),
    ):
        with pytest.raises(RoundConflictError) as pending:
            decide(state, other, actor)
        assert pending.value.code == "change_pending"


# ------------------------------------------------------------------ an exposed card
def test_an_exposed_round_resumes_only_after_the_deck_is_replaced() -> None:
    state = betting()
    state = apply(state, decide_scan(state, scan("AS"), T0 + timedelta(seconds=3)))
    with pytest.raises(RoundConflictError) as refused:
        decide_resume(state, "alice", T0)
    assert refused.value.code == "card_exposed"
    [replaced] = decide_replace_deck(state, "alice", "new deck shuffled")
    assert isinstance(replaced, DeckReplaced)
    state = apply(state, [replaced])
    [resumed] = decide_resume(state, "alice", T0 + timedelta(seconds=10))
    assert isinstance(resumed, RoundResumed) and resumed.betting_closes_at is not None
    with pytest.raises(RoundConflictError):
        decide_replace_deck(apply(state, [resumed]), "alice", "again")


def test_an_exposed_round_before_its_first_card_is_cancelled_by_one_supervisor() -> None:
    state = betting()
    state = apply(state, decide_scan(state, scan("AS"), T0))
    [cancelled] = decide_cancel(state, "alice", "card exposed")
    assert isinstance(cancelled, RoundCancelled) and cancelled.cards_dealt == 0


def test_a_second_card_read_while_exposed_is_sealed_too_without_another_pause() -> None:
    state = betting()
    state = apply(state, decide_scan(state, scan("AS"), T0))
    [refused] = decide_scan(state, scan("KD"), T0)
    assert isinstance(refused, CardRefused) and refused.card is None


# ------------------------------------------------------------------ two supervisors to void
def test_voiding_a_started_round_takes_a_request_and_another_supervisors_confirmation() -> None:
    state = dealing(["AS"])
    [request, paused] = decide_cancel(state, "alice", "misdeal")
    assert isinstance(request, VoidRequested) and isinstance(paused, RoundPaused)
    state = apply(state, [request, paused])
    assert state.round_in_play is not None and state.round_in_play.paused
    with pytest.raises(FourEyesError):
        decide_cancel(state, "alice", "again")
    [void] = decide_cancel(state, "bob", "agreed")
    assert isinstance(void, RoundCancelled) and void.actor == "bob"


def test_a_void_requested_pauses_the_deal_at_once_so_no_card_closes_the_round_under_it() -> None:
    state = dealing(["AS", "KS", "AH", "KH", "AD"])
    requested, paused = decide_cancel(state, "alice", "misdeal")
    assert isinstance(requested, VoidRequested) and isinstance(paused, RoundPaused)
    assert paused.reason == "void requested by alice: misdeal"
    state = apply(state, [requested, paused])
    [refused] = decide_scan(state, scan("2C"), T0)
    assert isinstance(refused, CardRefused) and refused.reason == "round_paused"
    state = apply(state, [refused])
    assert state.round is not None and state.round.phase is RoundPhase.DEALING
    with pytest.raises(FourEyesError):
        decide_cancel(state, "alice", "again")
    [void] = decide_cancel(state, "bob", "agreed")
    assert isinstance(void, RoundCancelled) and void.cards_dealt == 5


def test_a_resume_withdraws_a_void_request_and_the_deal_goes_on() -> None:
    state = dealing(["AS", "KS", "AH", "KH", "AD"])
    state = apply(state, decide_cancel(state, "alice", "misdeal"))
    state = apply(state, decide_resume(state, "bob", T0))
    assert state.round is not None and state.round.void_requested_by is None
    # a cancel now is a new request, not a confirmation of the withdrawn one
    assert [type(e) for e in decide_cancel(state, "bob", "still")] == [VoidRequested, RoundPaused]
    state = apply(state, decide_scan(state, scan("2C"), T0))
    assert state.round is not None and state.round.phase is RoundPhase.CLOSED


def test_a_card_marked_wrong_pauses_the_round_until_another_supervisor_resumes_or_two_void() -> (
    None
):
    state = dealing(["AS", "KS", "AH"])
    marked, paused = decide_mark_wrong(state, "alice", "B1", "misread: the card is KC")
    assert isinstance(marked, CardMarkedWrong) and (marked.position, marked.actor) == (
        "B1",
        "alice",
    )
    assert isinstance(paused, RoundPaused) and "B1" in paused.reason
    state = apply(state, [marked, paused])
    [refused] = decide_scan(state, scan("2C"), T0)
    assert isinstance(refused, CardRefused) and refused.reason == "round_paused"
    held = {h.kind: h for h in held_for_people(state, T0, TIMEOUT, timedelta(minutes=10))}
    assert held["card_marked_wrong"].facts == {"position": "B1", "marked_by": "alice"}
    # the one who marked it cannot clear it alone
    with pytest.raises(FourEyesError) as same:
        decide_resume(state, "alice", T0)
    assert same.value.code == "same_supervisor"
    with pytest.raises(RoundConflictError) as again:
        decide_mark_wrong(state, "bob", "A1", "also")
    assert again.value.code == "card_already_marked"
    # another supervisor lets the card stand: the deal goes on
    resumed = apply(state, decide_resume(state, "bob", T0))
    assert resumed.round is not None and resumed.round.marked_wrong is None
    assert not resumed.round.paused
    # or two void it
    state = apply(state, decide_cancel(state, "alice", "B1 was misread"))
    [void] = decide_cancel(state, "bob", "agreed")
    assert isinstance(void, RoundCancelled)


def test_a_second_supervisor_takes_back_the_wrong_card_and_those_after_it_to_deal_again() -> None:
    state = dealing(["AS", "KS", "AH", "KH"])
    state = apply(state, decide_mark_wrong(state, "alice", "B1", "KS was KC"))
    with pytest.raises(FourEyesError):
        decide_rescan(state, "alice", "alone", T0)
    withdrawn, resumed = decide_rescan(state, "bob", "deal again from B1", T0)
    assert isinstance(withdrawn, CardsWithdrawn) and isinstance(resumed, RoundResumed)
    assert (withdrawn.positions, withdrawn.marked_by, resumed.actor) == (
        ["B1", "A2", "B2"],
        "alice",
        "bob",
    )
    state = apply(state, [withdrawn, resumed])
    assert state.round is not None and state.round.dealt_cards == ("AS",)
    assert state.round.marked_wrong is None and not state.round.paused
    # the next read is dealt at B1; a card taken back may be dealt again
    state = apply(state, decide_scan(state, scan("KS"), T0))
    assert state.round is not None and state.round.cards[-1] == ("B1", "KS")
    with pytest.raises(RoundConflictError) as nothing:
        decide_rescan(state, "bob", "again", T0)
    assert nothing.value.code == "nothing_marked_wrong"


def test_only_a_dealt_card_of_a_round_in_play_is_marked_wrong() -> None:
    state = dealing(["AS"])
    with pytest.raises(RoundConflictError) as undealt:
        decide_mark_wrong(state, "alice", "B1", "not yet dealt")
    assert undealt.value.code == "card_not_dealt"
    with pytest.raises(RoundConflictError) as none:
        decide_mark_wrong(opened(), "alice", "A1", "no round")
    assert none.value.code == "nothing_to_mark_wrong"


# ------------------------------------------------------------------ a stalled deal
def test_a_deal_without_its_next_card_pauses_itself_and_is_never_cancelled_by_time() -> None:
    state = dealing(["AS"])
    dealt_at = T0 + timedelta(seconds=15)
    assert next_clock_time(state, TIMEOUT, STALL) == dealt_at + STALL
    assert decide_clock(state, dealt_at + STALL - timedelta(microseconds=1), TIMEOUT, STALL) == []
    [paused] = decide_clock(state, dealt_at + STALL, TIMEOUT, STALL)
    assert isinstance(paused, RoundPaused) and paused.actor == SYSTEM_ACTOR
    assert "B1" in paused.reason
    state = apply(state, [paused], dealt_at + STALL)
    assert decide_clock(state, dealt_at + timedelta(days=1), TIMEOUT, STALL) == []
    assert next_clock_time(state, TIMEOUT, STALL) is None


def test_a_resumed_deal_gets_the_whole_stall_time_again() -> None:
    state = dealing(["AS"])
    stalled_at = T0 + timedelta(seconds=15) + STALL
    state = apply(state, decide_clock(state, stalled_at, TIMEOUT, STALL), stalled_at)
    later = stalled_at + timedelta(minutes=5)
    state = apply(state, decide_resume(state, "alice", later), later)
    assert next_clock_time(state, TIMEOUT, STALL) == later + STALL


# ------------------------------------------------------------------ held for a person
def test_a_table_holds_for_people_its_paused_exposed_voided_and_proposed_business() -> None:
    assert not needs_person(opened())
    state = dealing(["AS"])
    stalled = T0 + timedelta(hours=1)
    state = apply(state, decide_clock(state, stalled, TIMEOUT, STALL), stalled)
    state = apply(state, decide_cancel(state, "alice", "misdeal"))
    state = apply(state, decide(state, command(limits=limits(maximum=70_000))))
    assert needs_person(state)
    soon = held_for_people(
        state, T0 + timedelta(hours=1, minutes=1), TIMEOUT, timedelta(minutes=10)
    )
    late = held_for_people(state, T0 + timedelta(hours=2), TIMEOUT, timedelta(minutes=10))
    kinds = {held.kind: held for held in late}
    assert set(kinds) == {"paused_round", "void_requested", "config_change_pending"}
    assert kinds["paused_round"].facts["overdue"] is True
    assert {held.kind: held for held in soon}["paused_round"].facts["overdue"] is False
    assert "POST /tables/T1/cancel" in kinds["void_requested"].actions

    exposed = betting()
    exposed = apply(exposed, decide_scan(exposed, scan("AS"), T0))
    [card, paused] = held_for_people(exposed, T0, TIMEOUT, timedelta(minutes=10))
    assert (card.kind, paused.kind) == ("exposed_card", "paused_round")
    assert "cancels_at" in paused.facts
    assert all("AS" not in held.detail for held in (card, paused))
