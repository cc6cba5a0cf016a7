"""A voided round's settlement reversed, pure: each line as settled, its stake refunded and
what it returned taken back, in the settlement's order and parts; totals per currency."""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import ValidationError

from settlement_service.domain import (
    REASON_LENGTH,
    PlacedBet,
    Settle,
    decide,
    reverse,
    void_reason,
)
from teenpatti.events.catalog import (
    SETTLEMENT_PART,
    BetReversed,
    ReversalTotals,
    RoundReversed,
)
from tests.unit.settlement.test_domain import NOW, bet, facts, settled

REVERSED_AT = NOW + timedelta(hours=1)
REASON = "A1 was the 9 of clubs (asked by supervisor-1, confirmed by supervisor-2)"


def a_settlement(bets: list[PlacedBet], *, cancel_reason: str | None = None) -> Settle:
    return settled(decide(facts(bets, cancel_reason=cancel_reason), bets, NOW))


def test_each_line_is_reversed_as_settled_with_its_stake_refunded() -> None:
    # A wins with a pair, the six cards make a straight (test_domain's A_WINS_PAIR_BONUS_STRAIGHT)
    bets = [
        bet("player_a", 1000),  # won 1950
        bet("tie", 300),  # lost
        bet("six_card_bonus", 50, currency="USD"),  # straight 10:1: won 550
    ]
    settlement = a_settlement(bets)

    reversal = reverse(settlement.parts, settlement.round, REASON, REVERSED_AT)

    (part,) = reversal.parts
    assert (part.round_id, part.table_id) == ("T1-000001", "T1")
    assert [
        (line.bet_id, line.bet_type, line.stake, line.currency, line.outcome, line.returned)
        for line in part.bets
    ] == [
        (line.bet_id, line.bet_type, line.stake, line.currency, line.outcome, line.returned)
        for line in settlement.bets
    ]
    assert [(line.outcome, line.returned, line.refunded) for line in part.bets] == [
        ("won", 1950, 1000),
        ("lost", 0, 300),
        ("won", 550, 50),
    ]
    assert reversal.round == RoundReversed(
        round_id="T1-000001",
        table_id="T1",
        bet_count=3,
        totals={
            "INR": ReversalTotals(refunded=1300, reversed=1950),
            "USD": ReversalTotals(refunded=50, reversed=550),
        },
        reason=REASON,
        reversed_at=REVERSED_AT,
    )
    assert reversal.events == [part, reversal.round]
    assert reversal.bet_ids == [b.bet_id for b in settlement.bets]


def test_a_large_settlement_is_reversed_in_the_same_parts() -> None:
    bets = [
        bet("player_a", 100) if n % 2 else bet("tie", 10) for n in range(2 * SETTLEMENT_PART + 1)
    ]
    settlement = a_settlement(bets)

    reversal = reverse(settlement.parts, settlement.round, REASON, REVERSED_AT)

    assert [len(part.bets) for part in reversal.parts] == [SETTLEMENT_PART, SETTLEMENT_PART, 1]
    assert [[b.bet_id for b in part.bets] for part in reversal.parts] == [
        [b.bet_id for b in part.bets] for part in settlement.parts
    ]
    # 1,000 Player A bets of 100 won 195 each; 1,001 Tie bets of 10 lost
    assert reversal.round.bet_count == len(bets)
    assert reversal.round.totals == {
        "INR": ReversalTotals(refunded=1000 * 100 + 1001 * 10, reversed=1000 * 195)
    }


def test_a_round_settled_as_cancelled_has_nothing_to_reverse() -> None:
    bets = [bet("player_a", 100), bet("tie", 10)]
    settlement = a_settlement(bets, cancel_reason="voided: two results")
    assert settlement.round.cancelled

    reversal = reverse(settlement.parts, settlement.round, REASON, REVERSED_AT)

    assert reversal.parts == ()
    assert (reversal.round.bet_count, reversal.round.totals) == (0, {})
    assert reversal.events == [reversal.round]


def test_a_round_without_bets_reverses_to_its_summary_alone() -> None:
    settlement = a_settlement([])

    reversal = reverse(settlement.parts, settlement.round, REASON, REVERSED_AT)

    assert reversal.events == [reversal.round]
    assert (reversal.round.bet_count, reversal.round.totals) == (0, {})


def test_a_reversed_line_refunds_the_whole_stake() -> None:
    (line,) = a_settlement([bet("tie", 10)]).bets
    fields = line.model_dump(exclude={"fraction_kept", "odds"})
    assert BetReversed.model_validate({**fields, "refunded": 10}).refunded == 10
    with pytest.raises(ValidationError, match="refunded in full"):
        BetReversed.model_validate({**fields, "refunded": 9})


def test_the_void_reason_names_both_supervisors_and_fits_round_reversed() -> None:
    assert void_reason("A1 was the 9 of clubs", "supervisor-1", "supervisor-2") == REASON
    long = void_reason("x" * 1100, "s" * 100, "t" * 100)
    assert len(long) == REASON_LENGTH
    assert long.endswith(f"… (asked by {'s' * 100}, confirmed by {'t' * 100})")
    RoundReversed(
        round_id="T1-000001",
        table_id="T1",
        bet_count=0,
        totals={},
        reason=long,
        reversed_at=NOW,
    )
