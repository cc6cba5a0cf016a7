"""`teenpatti rebuild settlement`'s fold, pure: the settled bets and rounds its statements
state, a reversal included, and where the stream disagrees with itself."""

from __future__ import annotations

import json
from datetime import timedelta

from settlement_service.domain import decide, reverse
from settlement_service.rebuild import fold
from teenpatti.events import Event
from teenpatti.events.catalog import BetsReversed, ReversalTotals, RoundReversed
from tests.unit.settlement.test_domain import NOW, bet, facts, settled

REVERSED_AT = NOW + timedelta(hours=1)
REASON = "misread (asked by supervisor-1, confirmed by supervisor-2)"


def a_reversed_round() -> tuple[list[Event], list[Event]]:
    bets = [bet("player_a", 1000), bet("tie", 300), bet("six_card_bonus", 50, currency="USD")]
    settlement = settled(decide(facts(bets), bets, NOW))
    reversal = reverse(settlement.parts, settlement.round, REASON, REVERSED_AT)
    return settlement.events, reversal.events


def test_a_reversed_round_is_rebuilt_with_its_reversal() -> None:
    settlement, reversal = a_reversed_round()

    bets, rounds, disagreements = fold([*settlement, *reversal])

    assert disagreements == []
    assert [(row[8], row[9], row[12], row[13]) for row in bets] == [
        ("won", 1950, NOW, REVERSED_AT),
        ("lost", 0, NOW, REVERSED_AT),
        ("won", 550, NOW, REVERSED_AT),
    ]
    ((round_id, table_id, settled_at, _, reason, reversed_at, totals),) = rounds
    assert (round_id, table_id, settled_at, reason, reversed_at) == (
        "T1-000001",
        "T1",
        NOW,
        REASON,
        REVERSED_AT,
    )
    assert json.loads(totals) == {
        "INR": {"refunded": 1300, "reversed": 1950},
        "USD": {"refunded": 50, "reversed": 550},
    }


def test_a_round_not_reversed_has_none_of_it() -> None:
    settlement, _ = a_reversed_round()

    bets, rounds, disagreements = fold(settlement)

    assert disagreements == []
    assert {row[13] for row in bets} == {None}
    assert rounds[0][4:] == (None, None, None)


def test_a_reversal_that_is_not_the_settlement_reversed_is_a_disagreement() -> None:
    settlement, reversal = a_reversed_round()
    part, summary = reversal
    assert isinstance(part, BetsReversed) and isinstance(summary, RoundReversed)
    # a line that reverses less than its bet returned, and totals that do not add up
    lines = [line.model_dump() for line in part.bets]
    lines[0]["returned"] = 1900
    tampered = BetsReversed.model_validate({**part.model_dump(), "bets": lines})
    bigger = summary.model_copy(
        update={"totals": {**summary.totals, "USD": ReversalTotals(refunded=50, reversed=551)}}
    )

    _, _, disagreements = fold([*settlement, tampered, bigger])

    assert len(disagreements) == 2, disagreements
    assert f"reverses bet {lines[0]['bet_id']} as won returning 1900 INR" in disagreements[0]
    assert disagreements[1].startswith("round T1-000001: RoundReversed states 3 bets")
