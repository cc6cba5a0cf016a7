"""The settlement rule, pure: digest, totals, readiness, and what settling a round says.

Expected amounts are worked out by hand from the published pay table, not with the engine.
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import pytest
from pydantic import ValidationError

from settlement_service.domain import (
    Held,
    PlacedBet,
    RoundFacts,
    SealedBook,
    Settle,
    Waiting,
    currency_totals,
    decide,
    format_fraction,
    readiness,
    stake_by_currency,
)
from teenpatti.events.catalog import (
    MAX_MINOR_UNITS,
    MAX_STAKE,
    SETTLEMENT_PART,
    BetSettled,
    BetsSettled,
    CurrencyTotals,
    RoundClosed,
    book_digest,
    registry,
)

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
_SECONDS = itertools.count()
PUBLISHED: dict[str, Any] = {
    "name": "published",
    "player_a": "0.95",
    "player_b": "0.95",
    "tie": "50",
    "pair_plus_a": {
        "trail_of_aces": "50",
        "trail": "40",
        "straight_flush": "30",
        "straight": "6",
        "flush": "3",
        "pair": "1",
    },
    "pair_plus_b": {
        "trail_of_aces": "50",
        "trail": "40",
        "straight_flush": "30",
        "straight": "6",
        "flush": "3",
        "pair": "1",
    },
    "six_card_bonus": {
        "royal_flush": "1000",
        "straight_flush": "200",
        "four_of_a_kind": "100",
        "full_house": "20",
        "flush": "15",
        "straight": "10",
        "three_of_a_kind": "7",
    },
}

# A: 9S 9H 8C (pair of nines) beats B: 10C 7D 6S (ten high); all six make 6-7-8-9-10.
A_WINS_PAIR_BONUS_STRAIGHT = RoundClosed(
    round_id="T1-000001",
    table_id="T1",
    cards=["9S", "10C", "9H", "7D", "8C", "6S"],
    player_a_hand="pair",
    player_b_hand="high_card",
    winner="player_a",
    six_card_bonus_hand="straight",
)
# K-9-7 against K-9-7 in other suits; six cards make only two pair.
TIE = RoundClosed(
    round_id="T1-000001",
    table_id="T1",
    cards=["KS", "KH", "9D", "9C", "7C", "7S"],
    player_a_hand="high_card",
    player_b_hand="high_card",
    winner="tie",
    six_card_bonus_hand=None,
)
# A: 2C 5D 9H (nine high) loses to B: QS QH QD (trail of queens); six cards: three queens.
B_WINS_TRAIL = RoundClosed(
    round_id="T1-000001",
    table_id="T1",
    cards=["2C", "QS", "5D", "QH", "9H", "QD"],
    player_a_hand="high_card",
    player_b_hand="trail",
    winner="player_b",
    six_card_bonus_hand="three_of_a_kind",
)


def bet(bet_type: str, stake: int, currency: str = "INR", operator: str = "op-1") -> PlacedBet:
    return PlacedBet(
        bet_id=uuid4(),
        round_id="T1-000001",
        table_id="T1",
        operator_id=operator,
        player_id="p-1",
        bet_type=bet_type,
        stake=stake,
        currency=currency,
        placed_at=NOW - timedelta(seconds=60) + timedelta(microseconds=next(_SECONDS)),
    )


def book_of(bets: list[PlacedBet]) -> SealedBook:
    return SealedBook(len(bets), book_digest(b.bet_id for b in bets), stake_by_currency(bets))


def facts(
    bets: list[PlacedBet],
    *,
    result: RoundClosed | None = A_WINS_PAIR_BONUS_STRAIGHT,
    cancel_reason: str | None = None,
    paytable: dict[str, Any] | None = PUBLISHED,
    book: SealedBook | None = None,
) -> RoundFacts:
    return RoundFacts(
        round_id="T1-000001",
        table_id="T1",
        paytable=paytable,
        result=result,
        cancel_reason=cancel_reason,
        book=book if book is not None else book_of(bets),
    )


def settled(decision: object) -> Settle:
    assert isinstance(decision, Settle), decision
    return decision


def lines(decision: Settle) -> list[tuple[str, int, str, int, str, str | None]]:
    return [
        (b.bet_type, b.stake, b.outcome, b.returned, b.fraction_kept, b.odds) for b in decision.bets
    ]


# ------------------------------------------------------------------------------ digest
def test_digest_is_sha256_of_the_sorted_ids_joined_by_commas() -> None:
    first = UUID("00000000-0000-4000-8000-000000000002")
    second = UUID("00000000-0000-4000-8000-000000000001")
    expected = hashlib.sha256(
        b"00000000-0000-4000-8000-000000000001,00000000-0000-4000-8000-000000000002"
    ).hexdigest()
    assert book_digest([first, second]) == expected
    assert book_digest([str(second), str(first).upper()]) == expected


def test_digest_of_an_empty_book_is_the_hash_of_nothing() -> None:
    assert book_digest([]) == hashlib.sha256(b"").hexdigest()


# ------------------------------------------------------------------------------ totals
def test_totals_per_currency_with_the_house_result() -> None:
    totals = currency_totals([("INR", 100, 195), ("INR", 50, 0), ("USD", 10, 0)])
    assert totals == {
        "INR": CurrencyTotals(stake=150, returned=195, house_result=-45),
        "USD": CurrencyTotals(stake=10, returned=0, house_result=10),
    }


def test_totals_of_nothing_are_empty() -> None:
    assert currency_totals([]) == {}


@pytest.mark.parametrize(
    ("numerator", "denominator", "text"),
    [(0, 1, "0"), (19, 20, "19/20"), (1, 2, "1/2"), (10, 1, "10/1")],
)
def test_fractions_are_written_p_over_q(numerator: int, denominator: int, text: str) -> None:
    from fractions import Fraction

    assert format_fraction(Fraction(numerator, denominator)) == text


# --------------------------------------------------------------------------- readiness
def test_waits_for_the_book() -> None:
    bets = [bet("tie", 100)]
    ready = readiness(
        RoundFacts("T1-000001", "T1", PUBLISHED, A_WINS_PAIR_BONUS_STRAIGHT, None, None), bets
    )
    assert isinstance(ready, Waiting)


def test_waits_for_the_last_bet_of_the_book() -> None:
    bets = [bet("tie", 100), bet("player_a", 200)]
    assert readiness(facts(bets[:1], book=book_of(bets)), bets[:1]) == Waiting(
        "1 of 2 bets received"
    )


def test_waits_for_the_result_once_every_bet_is_there() -> None:
    bets = [bet("tie", 100)]
    assert isinstance(readiness(facts(bets, result=None), bets), Waiting)


def test_ready_with_result_book_and_every_bet() -> None:
    bets = [bet("tie", 100), bet("player_a", 200, "USD")]
    assert readiness(facts(bets), bets) is None
    assert readiness(facts(bets, result=None, cancel_reason="void"), bets) is None


def test_more_bets_than_the_book_holds_the_round() -> None:
    bets = [bet("tie", 100), bet("player_a", 200)]
    ready = readiness(facts(bets, book=book_of(bets[:1])), bets)
    assert isinstance(ready, Held)
    assert ready.kind == "bets_exceed_book"


def test_other_bets_than_the_book_names_hold_the_round() -> None:
    bets = [bet("tie", 100)]
    other = [bet("tie", 100)]
    ready = readiness(facts(bets, book=book_of(other)), bets)
    assert isinstance(ready, Held)
    assert ready.kind == "digest_mismatch"
    assert isinstance(decide(facts(bets, book=book_of(other)), bets, NOW), Held)


def test_other_stakes_than_the_book_holds_the_round() -> None:
    bets = [bet("tie", 100)]
    book = SealedBook(1, book_digest([bets[0].bet_id]), {"INR": 99})
    ready = readiness(facts(bets, book=book), bets)
    assert isinstance(ready, Held)
    assert ready.kind == "stake_mismatch"


# ----------------------------------------------------------------------------- settling
def test_every_bet_type_pays_per_the_published_table() -> None:
    bets = [
        bet("player_a", 1000),  # wins 0.95:1: 1000 + 950
        bet("player_b", 500),  # loses
        bet("tie", 300),  # loses
        bet("pair_plus_a", 200),  # pair pays 1:1: 200 + 200
        bet("pair_plus_b", 100),  # high card loses
        bet("six_card_bonus", 100),  # straight pays 10:1: 100 + 1000
    ]
    decision = settled(decide(facts(bets), bets, NOW))
    assert lines(decision) == [
        ("player_a", 1000, "won", 1950, "0", "19/20"),
        ("player_b", 500, "lost", 0, "0", None),
        ("tie", 300, "lost", 0, "0", None),
        ("pair_plus_a", 200, "won", 400, "0", "1/1"),
        ("pair_plus_b", 100, "lost", 0, "0", None),
        ("six_card_bonus", 100, "won", 1100, "0", "10/1"),
    ]
    assert decision.round.totals == {
        "INR": CurrencyTotals(stake=2200, returned=3450, house_result=-1250)
    }
    assert decision.round.bet_count == 6
    assert not decision.round.cancelled
    assert decision.round.settled_at == NOW
    assert decision.paytable_source == "round"
    assert decision.events[-1] is decision.round


def test_b_trail_pays_pair_plus_b_and_the_bonus_three_of_a_kind() -> None:
    bets = [
        bet("player_b", 100),  # 100 + 95
        bet("player_a", 100),
        bet("pair_plus_a", 100),
        bet("pair_plus_b", 100),  # trail 40:1: 100 + 4000
        bet("six_card_bonus", 100),  # three of a kind 7:1: 100 + 700
    ]
    decision = settled(decide(facts(bets, result=B_WINS_TRAIL), bets, NOW))
    assert [(b.outcome, b.returned) for b in decision.bets] == [
        ("won", 195),
        ("lost", 0),
        ("lost", 0),
        ("won", 4100),
        ("won", 800),
    ]


def test_a_tie_pushes_player_bets_and_pays_the_tie_50_to_1() -> None:
    bets = [bet("player_a", 200), bet("player_b", 300), bet("tie", 100), bet("pair_plus_a", 50)]
    decision = settled(decide(facts(bets, result=TIE), bets, NOW))
    assert lines(decision) == [
        ("player_a", 200, "push", 200, "0", None),
        ("player_b", 300, "push", 300, "0", None),
        ("tie", 100, "won", 5100, "0", "50/1"),
        ("pair_plus_a", 50, "lost", 0, "0", None),
    ]


@pytest.mark.parametrize(
    ("stake", "returned", "kept"),
    [
        (101, 196, "19/20"),  # 101 x 19/20 = 95 19/20
        (10, 19, "1/2"),  # 9 1/2
        (1, 1, "19/20"),  # 0 19/20: still won, the stake comes back
        (20, 39, "0"),  # exactly 19
    ],
)
def test_0_95_to_1_rounds_down_and_keeps_the_fraction(stake: int, returned: int, kept: str) -> None:
    bets = [bet("player_a", stake)]
    decision = settled(decide(facts(bets), bets, NOW))
    assert lines(decision) == [("player_a", stake, "won", returned, kept, "19/20")]


def test_a_cancelled_round_refunds_every_bet() -> None:
    bets = [bet("player_a", 100), bet("tie", 7, "USD"), bet("six_card_bonus", 30)]
    decision = settled(decide(facts(bets, result=None, cancel_reason="no dealer"), bets, NOW))
    assert [(b.outcome, b.returned, b.fraction_kept, b.odds) for b in decision.bets] == [
        ("refunded", 100, "0", None),
        ("refunded", 7, "0", None),
        ("refunded", 30, "0", None),
    ]
    assert decision.round.cancelled
    assert decision.paytable_source == "none"
    assert decision.round.totals == {
        "INR": CurrencyTotals(stake=130, returned=130, house_result=0),
        "USD": CurrencyTotals(stake=7, returned=7, house_result=0),
    }


def test_a_round_without_bets_settles() -> None:
    decision = settled(decide(facts([]), [], NOW))
    assert decision.bets == []
    assert decision.parts == ()
    assert decision.round.bet_count == 0
    assert decision.round.totals == {}


def test_each_players_bets_come_together_in_the_order_placed() -> None:
    # slips placed in turn by three players (of two operators): each player's bets end up
    # together in the lines, so a player's returns travel in one part and one BetsPaid
    placed = [
        bet("player_a", 100 + n, operator=operator)
        for n, operator in enumerate(["op-2", "op-1", "op-1"] * 4)
    ]
    bets = [replace(b, player_id=f"p-{n % 3}") for n, b in enumerate(placed)]
    decision = settled(decide(facts(bets), bets, NOW))
    owners = [(line.operator_id, line.player_id) for line in decision.bets]
    assert owners == [("op-1", "p-1")] * 4 + [("op-1", "p-2")] * 4 + [("op-2", "p-0")] * 4
    stakes = [line.stake for line in decision.bets]
    assert stakes == [101, 104, 107, 110, 102, 105, 108, 111, 100, 103, 106, 109]


def test_a_round_is_emitted_in_parts_of_at_most_a_thousand_bets_in_its_order() -> None:
    types = ("player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus")
    bets = [bet(types[n % 6], 100 + n) for n in range(2 * SETTLEMENT_PART + 1)]
    decision = settled(decide(facts(bets), bets, NOW))
    *parts, summary = decision.events
    assert summary == decision.round
    assert [len(p.bets) for p in parts if isinstance(p, BetsSettled)] == [1_000, 1_000, 1]
    lines = [line for p in parts if isinstance(p, BetsSettled) for line in p.bets]
    assert lines == list(decision.bets)  # every bet once, in the round's order, as settled
    each = [bet for p in parts if isinstance(p, BetsSettled) for bet in p.each()]
    assert [bet.model_dump(exclude={"round_id", "table_id"}) for bet in each] == [
        line.model_dump() for line in lines
    ]
    assert {(bet.round_id, bet.table_id) for bet in each} == {("T1-000001", "T1")}
    assert {(p.round_id, p.table_id) for p in parts if isinstance(p, BetsSettled)} == {
        ("T1-000001", "T1")
    }


def test_a_round_without_bets_emits_only_its_summary() -> None:
    decision = settled(decide(facts([]), [], NOW))
    assert decision.events == [decision.round]


def test_a_full_part_of_the_longest_ids_stays_well_under_a_kafka_record() -> None:
    longest = "x" * 100  # the operator API takes ids of up to 100 characters
    line = BetSettled(
        bet_id=uuid4(),
        operator_id=longest,
        player_id=longest,
        bet_type="six_card_bonus",
        stake=MAX_STAKE,  # the largest numbers a line may carry
        currency="INR",
        outcome="won",
        returned=MAX_MINOR_UNITS,
        fraction_kept="999999/1000000",
        odds="1000",
    )
    (part,) = BetsSettled.parts("T1-000001", "T1", [line] * SETTLEMENT_PART)
    size = len(part.model_dump_json())
    assert size < 512 * 1024 < 1_048_588  # Kafka's default largest record: 1 MiB + 12 bytes
    assert registry.decode_json("BetsSettled", 1, part.model_dump_json()) == part


def test_a_part_refuses_more_than_a_thousand_bets_and_none() -> None:
    one = [bet("tie", 100)]
    (part, _) = settled(decide(facts(one), one, NOW)).events
    assert isinstance(part, BetsSettled)
    with pytest.raises(ValidationError):
        BetsSettled(round_id="T1-000001", table_id="T1", bets=[])
    with pytest.raises(ValidationError):
        BetsSettled(round_id="T1-000001", table_id="T1", bets=part.bets * (SETTLEMENT_PART + 1))


def test_the_rounds_own_pay_table_is_used() -> None:
    variant = {**PUBLISHED, "name": "x", "tie": "40", "player_a": "9/10"}
    bets = [bet("player_a", 100)]
    decision = settled(decide(facts(bets, paytable=variant), bets, NOW))
    assert lines(decision) == [("player_a", 100, "won", 190, "0", "9/10")]


def test_without_round_opened_the_published_table_is_used_and_noted() -> None:
    bets = [bet("six_card_bonus", 100)]
    decision = settled(decide(facts(bets, paytable=None), bets, NOW))
    assert decision.paytable_source == "published_fallback"
    assert lines(decision) == [("six_card_bonus", 100, "won", 1100, "0", "10/1")]


def test_an_invalid_pay_table_holds_the_round() -> None:
    bets = [bet("tie", 100)]
    decision = decide(facts(bets, paytable={**PUBLISHED, "tie": "-1"}), bets, NOW)
    assert isinstance(decision, Held)
    assert decision.kind == "invalid_paytable"


def test_a_result_that_disagrees_with_its_cards_holds_the_round() -> None:
    wrong = A_WINS_PAIR_BONUS_STRAIGHT.model_copy(update={"winner": "player_b"})
    bets = [bet("player_b", 100)]
    decision = decide(facts(bets, result=wrong), bets, NOW)
    assert isinstance(decision, Held)
    assert decision.kind == "result_mismatch"
    no_bonus = A_WINS_PAIR_BONUS_STRAIGHT.model_copy(update={"six_card_bonus_hand": None})
    assert isinstance(decide(facts(bets, result=no_bonus), bets, NOW), Held)


def test_cards_the_engine_refuses_hold_the_round() -> None:
    twice = A_WINS_PAIR_BONUS_STRAIGHT.model_copy(
        update={"cards": ["9S", "9S", "9H", "7D", "8C", "6S"]}
    )
    bets = [bet("tie", 100)]
    decision = decide(facts(bets, result=twice), bets, NOW)
    assert isinstance(decision, Held)
    assert decision.kind == "invalid_result"


# ------------------------------------------------------------------- parts built, not re-validated
def every_kind_of_bet() -> list[PlacedBet]:
    """Bets of every type, several stakes (ones the 0.95 odds round) and two currencies, two
    operators and many players, past a part's edge: every kind of line a part can hold."""
    types = ("player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus")
    return [
        replace(
            bet(types[n % 6], (1, 10, 101, 1000, MAX_STAKE)[n % 5], ("INR", "USD")[n % 2]),
            operator_id=f"op-{n % 2}",
            player_id=f"p-{n % 37}",
        )
        for n in range(SETTLEMENT_PART + 230)
    ]


@pytest.mark.parametrize(
    ("result", "cancel_reason"),
    [(A_WINS_PAIR_BONUS_STRAIGHT, None), (TIE, None), (B_WINS_TRAIL, None), (None, "no dealer")],
)
def test_a_built_part_is_the_part_validation_builds(
    result: RoundClosed | None, cancel_reason: str | None
) -> None:
    bets = every_kind_of_bet()
    round_facts = facts(bets, result=result, cancel_reason=cancel_reason)
    built = settled(decide(round_facts, bets, NOW))
    validated = settled(decide(round_facts, bets, NOW, check_every_line=True))
    assert len(built.parts) == 2
    for part, checked in zip(built.parts, validated.parts, strict=True):
        assert part == checked
        assert part.model_dump_json() == checked.model_dump_json()
        assert part.model_fields_set == checked.model_fields_set
        assert [line.model_fields_set for line in part.bets] == [
            line.model_fields_set for line in checked.bets
        ]
        # as the wallet decodes it, and validated afresh from its own fields
        assert registry.decode_json("BetsSettled", 1, part.model_dump_json()) == part
        assert BetsSettled.model_validate(part.model_dump()) == part


def test_a_kind_of_line_no_consumer_takes_is_refused_when_the_round_is_decided() -> None:
    # one line of each kind (type, stake, currency) is validated whole: here an operator id a
    # database edit emptied, on the only line of its kind
    bets = [bet("player_a", 100), bet("player_a", 100), bet("tie", 10, operator="")]
    with pytest.raises(ValidationError, match="operator_id"):
        decide(facts(bets, book=book_of(bets)), bets, NOW)
