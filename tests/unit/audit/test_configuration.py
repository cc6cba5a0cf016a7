"""The audit's checks of the table's control: every round is played under a pay table that
an approved configuration of its table names, a started round is voided by two supervisors
(docs/decisions/0057), and no card is dealt after one was exposed during betting until the
deck is replaced (0058)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from uuid import uuid4

from teenpatti.audit.checks import History, Scope, check_history
from teenpatti.engine import PUBLISHED_PAY_TABLE, pay_table_to_mapping
from teenpatti.events import Event
from teenpatti.events.catalog import (
    CardDealt,
    CardMarkedWrong,
    CardRefused,
    CardsWithdrawn,
    DeckReplaced,
    RoundCancelled,
    RoundOpened,
    RoundResumed,
    StakeLimit,
    TableOpened,
    VoidRequested,
)

from .test_checks import T0, rows_of

PUBLISHED = pay_table_to_mapping(PUBLISHED_PAY_TABLE)
CUSTOM = PUBLISHED | {"tie": "40"}
LIMITS: Any = {
    "EUR": {
        bet: StakeLimit(min=1, max=100)
        for bet in ("player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus")
    }
}


def opened(
    paytable: dict[str, Any],
    actor: str = "alice",
    approved_by: str | None = None,
    limits: Any = LIMITS,
) -> Event:
    return TableOpened(
        table_id="T1",
        name="T",
        betting_seconds=10,
        result_pause_seconds=1,
        limits=limits,
        paytable=paytable,
        actor=actor,
        approved_by=approved_by,
    )


def round_opened(number: int, paytable: dict[str, Any]) -> Event:
    return RoundOpened(
        round_id=f"T1-{number:06d}",
        table_id="T1",
        number=number,
        opened_at=T0,
        betting_closes_at=T0 + timedelta(seconds=10),
        limits=LIMITS,
        paytable=paytable,
    )


def codes(events: list[Event], check: str = "config") -> list[str]:
    history = History()
    for row in rows_of("table", "table-T1", events):
        history.add(row)
    outcome = check_history(history, Scope(), T0 + timedelta(days=1))
    return [finding.code for finding in outcome.findings if finding.check == check]


ROUND = "T1-000001"


def dealt(card: str, position: Any = "A1") -> Event:
    return CardDealt(round_id=ROUND, table_id="T1", position=position, card=card, scan_id=uuid4())


def exposed() -> Event:
    return CardRefused(
        table_id="T1",
        round_id=ROUND,
        scan_id=uuid4(),
        card=None,
        reason="betting_open",
        detail="read during betting",
    )


def cancelled(actor: str, cards: int) -> Event:
    return RoundCancelled(round_id=ROUND, table_id="T1", actor=actor, reason="x", cards_dealt=cards)


def control(events: list[Event]) -> set[str]:
    wanted = {
        "dealt_after_exposure",
        "single_supervisor_void",
        "dealt_while_held",
        "single_supervisor_rescan",
    }
    return {code for code in codes([round_opened(1, PUBLISHED), *events], "result")} & wanted


def test_a_card_dealt_after_an_exposure_without_a_new_deck_is_a_finding() -> None:
    replaced = DeckReplaced(round_id=ROUND, table_id="T1", actor="alice", reason="new deck")
    assert control([exposed(), replaced, dealt("AS")]) == set()
    assert control([exposed(), dealt("AS")]) == {"dealt_after_exposure"}


def test_a_started_round_voided_by_one_supervisor_is_a_finding() -> None:
    request = VoidRequested(round_id=ROUND, table_id="T1", actor="alice", reason="x", cards_dealt=1)
    assert control([dealt("AS"), request, cancelled("bob", 1)]) == set()
    assert control([cancelled("alice", 0)]) == set()  # before the first card one suffices
    assert control([dealt("AS"), cancelled("alice", 1)]) == {"single_supervisor_void"}
    assert control([dealt("AS"), request, cancelled("alice", 1)]) == {"single_supervisor_void"}


def test_a_card_dealt_under_a_void_request_or_a_card_marked_wrong_is_a_finding() -> None:
    request = VoidRequested(round_id=ROUND, table_id="T1", actor="alice", reason="x", cards_dealt=1)
    marked = CardMarkedWrong(
        round_id=ROUND, table_id="T1", actor="alice", position="A1", reason="misread"
    )
    resumed = RoundResumed(round_id=ROUND, table_id="T1", actor="bob", betting_closes_at=None)
    assert control([dealt("AS"), request, resumed, dealt("KS", "B1")]) == set()
    assert control([dealt("AS"), request, dealt("KS", "B1")]) == {"dealt_while_held"}
    assert control([dealt("AS"), marked, dealt("KS", "B1")]) == {"dealt_while_held"}


def test_cards_taken_back_by_the_one_who_marked_them_wrong_is_a_finding() -> None:
    marked = CardMarkedWrong(
        round_id=ROUND, table_id="T1", actor="alice", position="A1", reason="misread"
    )

    def withdrawn(actor: str) -> Event:
        return CardsWithdrawn(
            round_id=ROUND,
            table_id="T1",
            actor=actor,
            marked_by="alice",
            positions=["A1"],
            reason="deal again",
        )

    resumed = RoundResumed(round_id=ROUND, table_id="T1", actor="bob", betting_closes_at=None)
    again = [dealt("AS"), marked, withdrawn("bob"), resumed, dealt("AH")]
    assert control(again) == set()
    assert control([dealt("AS"), marked, withdrawn("alice"), resumed, dealt("AH")]) == {
        "single_supervisor_rescan"
    }


def test_rounds_under_the_published_or_an_approved_pay_table_are_clean() -> None:
    assert codes([opened(PUBLISHED, approved_by="bob"), round_opened(1, PUBLISHED)]) == []
    approved = opened(CUSTOM, "alice", approved_by="bob")
    assert codes([approved, round_opened(1, CUSTOM)]) == []
    # reopened later on the pay table it was approved for: one supervisor suffices
    assert codes([approved, opened(CUSTOM, "carol"), round_opened(1, CUSTOM)]) == []


def test_a_round_under_a_pay_table_no_approved_configuration_names_is_a_finding() -> None:
    assert codes([opened(CUSTOM, "alice"), round_opened(1, CUSTOM)]) == [
        "unapproved_config",
        "unapproved_paytable",
    ]
    published = opened(PUBLISHED, approved_by="bob")
    assert codes([published, round_opened(1, CUSTOM)]) == ["unapproved_paytable"]


def test_limits_and_a_pay_table_no_second_supervisor_approved_for_the_table_are_a_finding() -> None:
    """Docs/decisions/0086: on any pay table, a table's limits are approved by a second
    supervisor once; reopened on them later, one suffices."""
    wider = {"EUR": {bet: StakeLimit(min=1, max=200_000_000) for bet in LIMITS["EUR"]}}
    approved = opened(PUBLISHED, "alice", approved_by="bob")
    assert codes([opened(PUBLISHED, "alice")]) == ["unapproved_config"]
    assert codes([approved, opened(PUBLISHED, "carol")]) == []
    assert codes([approved, opened(PUBLISHED, "carol", limits=wider)]) == ["unapproved_config"]
    assert codes([approved, opened(PUBLISHED, "carol", "bob", limits=wider)]) == []


def test_a_change_approved_by_its_own_proposer_is_a_finding_and_approves_nothing() -> None:
    assert codes([opened(CUSTOM, "alice", approved_by="alice"), round_opened(1, CUSTOM)]) == [
        "self_approved",
        "unapproved_config",
        "unapproved_paytable",
    ]
