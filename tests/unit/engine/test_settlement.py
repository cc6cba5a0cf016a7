from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from teenpatti.engine import (
    DECK,
    PUBLISHED_PAY_TABLE,
    Bet,
    BetOutcome,
    BetSettlement,
    BetType,
    CancelledRound,
    Card,
    InvalidBetError,
    PayTable,
    RoundResult,
    bet_rule,
    resolve_hands,
    resolve_round,
    settle_bet,
)

from .helpers import cards


def round_of(player_a: str, player_b: str) -> RoundResult:
    return resolve_hands(cards(player_a), cards(player_b))


A_WINS = round_of("AS KS QS", "2D 3C 4H")  # straight flush vs straight, no bonus
TIED = round_of("KS 9H 7D", "KH 9C 7S")  # high card tie
# an operator's table whose odds split units on other lines than the published one's
SPLITTING_TABLE = dataclasses.replace(
    PUBLISHED_PAY_TABLE, tie=Fraction(101, 2), player_b=Fraction(97, 100)
)


def settle(
    bet_type: BetType, result: RoundResult | CancelledRound, stake: int = 100
) -> BetSettlement:
    return settle_bet(Bet(bet_type, stake, "INR"), result)


def test_player_bets_win_at_0_95_to_1_and_lose() -> None:
    assert settle(BetType.PLAYER_A, A_WINS) == BetSettlement(
        Bet(BetType.PLAYER_A, 100, "INR"), BetOutcome.WON, 195, Fraction(0), Fraction(19, 20)
    )
    assert settle(BetType.PLAYER_B, A_WINS) == BetSettlement(
        Bet(BetType.PLAYER_B, 100, "INR"), BetOutcome.LOST, 0, Fraction(0), None
    )
    b_wins = round_of("2D 3C 4H", "AS KS QS")
    assert settle(BetType.PLAYER_B, b_wins).returned == 195
    assert settle(BetType.PLAYER_A, b_wins).outcome is BetOutcome.LOST


def test_a_tie_pushes_the_player_bets_and_pays_the_tie_bet_50_to_1() -> None:
    for bet_type in (BetType.PLAYER_A, BetType.PLAYER_B):
        settled = settle(bet_type, TIED)
        assert (settled.outcome, settled.returned, settled.fraction_kept) == (
            BetOutcome.PUSH,
            100,
            0,
        )
    assert settle(BetType.TIE, TIED).returned == 5_100
    assert settle(BetType.TIE, A_WINS).outcome is BetOutcome.LOST


@pytest.mark.parametrize(
    ("player_a", "player_b", "returned_a", "returned_b"),
    [
        ("AS AH AD", "2S 3H 5D", 5_100, 0),  # trail of aces 50:1
        ("KS KH KD", "AS AH AD", 4_100, 5_100),  # trail 40:1, paid although A loses
        ("AS 2S 3S", "QH JH 10H", 3_100, 3_100),  # straight flush 30:1
        ("AS 2H 3D", "QH JC 10H", 700, 700),  # straight 6:1
        ("9H 7H 5H", "KC 8C 2C", 400, 400),  # flush 3:1
        ("4D 4H 2S", "9S 9C 3D", 200, 200),  # pair 1:1
        ("QH 9C 7S", "KD 10H 8C", 0, 0),  # high card loses
    ],
)
def test_every_pair_plus_line(
    player_a: str, player_b: str, returned_a: int, returned_b: int
) -> None:
    result = round_of(player_a, player_b)
    assert settle(BetType.PAIR_PLUS_A, result).returned == returned_a
    assert settle(BetType.PAIR_PLUS_B, result).returned == returned_b


@pytest.mark.parametrize(
    ("player_a", "player_b", "returned"),
    [
        ("AS QS 10S", "KS JS 2D", 100_100),  # royal flush 1,000:1
        ("9S JS KS", "10S QS 2D", 20_100),  # straight flush 200:1
        ("KS KH 2C", "KC KD AD", 10_100),  # four of a kind 100:1
        ("KS KH QC", "KC QH 2D", 2_100),  # full house 20:1
        ("9H 5H 2H", "8H 3H KC", 1_600),  # flush 15:1
        ("6S 4C 2S", "5H 3D 9C", 1_100),  # straight 10:1
        ("AS 2H 4C", "3D 5S 9C", 1_100),  # the wheel is a straight
        ("KS KC 5D", "KH 7H 2C", 800),  # three of a kind 7:1
        ("KS KC 5D", "QH QC 2C", 0),  # two pair loses
        ("KS 9C 5D", "QH 7C 2C", 0),  # high card loses
    ],
)
def test_every_six_card_bonus_line(player_a: str, player_b: str, returned: int) -> None:
    assert settle(BetType.SIX_CARD_BONUS, round_of(player_a, player_b)).returned == returned


def test_a_cancelled_round_refunds_every_bet_in_full() -> None:
    for bet_type in BetType:
        settled = settle(bet_type, CancelledRound("scanner failure before the first card"), 137)
        assert (settled.outcome, settled.returned, settled.fraction_kept, settled.odds) == (
            BetOutcome.REFUNDED,
            137,
            0,
            None,
        )


@pytest.mark.parametrize(
    ("stake", "returned", "kept"),
    [
        (1, 1, Fraction(19, 20)),  # 0.95 of a unit: nothing paid, 0.95 kept
        (10, 19, Fraction(1, 2)),  # 9.5 → 9
        (19, 37, Fraction(1, 20)),  # 18.05 → 18
        (20, 39, Fraction(0)),  # 19 exactly
        (100, 195, Fraction(0)),
        (12_345, 24_072, Fraction(3, 4)),  # 11,727.75 → 11,727
    ],
)
def test_winnings_are_rounded_down_and_the_fraction_kept_is_recorded(
    stake: int, returned: int, kept: Fraction
) -> None:
    settled = settle(BetType.PLAYER_A, A_WINS, stake)
    assert (settled.returned, settled.fraction_kept) == (returned, kept)


@given(st.integers(min_value=1, max_value=10**12))
def test_every_unit_is_accounted_for(stake: int) -> None:
    settled = settle(BetType.PLAYER_A, A_WINS, stake)
    assert settled.returned - stake + settled.fraction_kept == stake * Fraction(19, 20)
    assert 0 <= settled.fraction_kept < 1
    assert isinstance(settled.returned, int)


def test_an_operator_table_with_odds_that_split_a_unit() -> None:
    table = dataclasses.replace(PUBLISHED_PAY_TABLE, tie=Fraction(101, 2))
    settled = settle_bet(Bet(BetType.TIE, 3, "EUR"), TIED, table)
    assert (settled.returned, settled.fraction_kept, settled.odds) == (
        3 + 151,
        Fraction(1, 2),
        Fraction(101, 2),
    )


@pytest.mark.parametrize(
    ("stake", "currency", "reason"),
    [
        (0, "INR", "must be positive"),
        (-5, "INR", "must be positive"),
        (1.5, "INR", "integer number of minor units"),
        (True, "INR", "integer number of minor units"),
        (100, "inr", "ISO 4217"),
        (100, "RUPEES", "ISO 4217"),
    ],
)
def test_a_bet_is_validated(stake: object, currency: str, reason: str) -> None:
    with pytest.raises(InvalidBetError, match=reason):
        Bet(BetType.PLAYER_A, stake, currency)  # type: ignore[arg-type]


def test_an_unknown_bet_type_is_refused() -> None:
    with pytest.raises(InvalidBetError, match="unknown bet type"):
        Bet("player_c", 100, "INR")  # type: ignore[arg-type]


@given(
    st.permutations(list(DECK)).map(lambda deck: tuple(deck[:6])),
    st.sampled_from(list(BetType)),
    st.integers(min_value=1, max_value=10**12),
    st.sampled_from([PUBLISHED_PAY_TABLE, SPLITTING_TABLE]),
)
def test_a_bet_types_rule_settles_each_of_its_bets_as_settle_bet_does(
    dealt: tuple[Card, ...], bet_type: BetType, stake: int, pay_table: PayTable
) -> None:
    # the wallet checks a batch's returns with one rule per type and round (bet_rule)
    result = resolve_round(dealt)
    for round_ in (result, CancelledRound("cancelled")):
        settled = settle_bet(Bet(bet_type, stake, "INR"), round_, pay_table)
        rule = bet_rule(bet_type, round_, pay_table)
        assert (rule.outcome, rule.odds) == (settled.outcome, settled.odds)
        assert rule.returned(stake) == settled.returned
