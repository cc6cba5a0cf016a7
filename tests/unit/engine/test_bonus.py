from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from teenpatti.engine import (
    DECK,
    Card,
    CardCountError,
    DuplicateCardError,
    SixCardBonusHand,
    SixCardCategory,
    six_card_bonus_hand,
)
from teenpatti.engine.arrays import classify_six_card_sets
from teenpatti.engine.par import DealCounts

from .helpers import cards

B = SixCardCategory
six_cards = st.lists(st.sampled_from(DECK), min_size=6, max_size=6, unique=True)


def bonus(text: str) -> SixCardCategory | None:
    result = six_card_bonus_hand(cards(text))
    return None if result is None else result.category


def code_of(category: SixCardCategory | None) -> int:
    return 0 if category is None else category.code


# The examples of the rules (five cards each) with a sixth card that does not improve them.
@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("A♠ K♠ Q♠ J♠ 10♠ 2♦", B.ROYAL_FLUSH),
        ("K♠ Q♠ J♠ 10♠ 9♠ 2♦", B.STRAIGHT_FLUSH),
        ("K♠ K♥ K♣ K♦ A♦ 2♣", B.FOUR_OF_A_KIND),
        ("K♠ K♥ K♣ Q♥ Q♣ 2♦", B.FULL_HOUSE),
        ("9♥ 8♥ 5♥ 3♥ 2♥ K♣", B.FLUSH),
        ("6♠ 5♥ 4♣ 3♦ 2♠ 9♣", B.STRAIGHT),
        ("K♠ K♥ K♣ 7♥ 5♦ 2♣", B.THREE_OF_A_KIND),
    ],
)
def test_the_examples_of_the_rules(text: str, category: SixCardCategory) -> None:
    assert bonus(text) is category


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("AS 2H 3D 4C 5S 9H", B.STRAIGHT),  # README: the wheel A-2-3-4-5 is a straight
        ("AS 2S 3S 4S 5S 9H", B.STRAIGHT_FLUSH),  # a suited wheel is a straight flush, not royal
        ("KS AH 2D 3C 4S 9H", None),  # K-A-2-3-4 does not wrap
        ("AS KH QD JC 10S 2H", B.STRAIGHT),  # ace high, unsuited
        ("AS KS QS JS 10S 9S", B.ROYAL_FLUSH),  # the royal beats the K-high straight flush
        ("9S 10S JS QS KS 8S", B.STRAIGHT_FLUSH),  # six suited in a row: the higher run
        ("AS KS QS JS 9S 10H", B.FLUSH),  # a flush beats the straight in the same six
        ("KS KH KC QS QH QC", B.FULL_HOUSE),  # two trails make a full house
        ("KS KH KC KD QS QH", B.FOUR_OF_A_KIND),  # quads beat the full house
        ("KS KH KC 2S 2H 9D", B.FULL_HOUSE),
        ("KS KH QC QS 2H 2D", None),  # three pairs are only two pair
        ("KS KH QC JS 2H 3D", None),  # one pair
        ("KS JH 9C 7S 5H 3D", None),  # high card
        ("AS 2S 3S 4S 9S 5H", B.FLUSH),  # flush beats the wheel straight in the same cards
        ("7S 8H 9D 10C JS QH", B.STRAIGHT),
        ("2C 3C 4C 5C 6C 7C", B.STRAIGHT_FLUSH),
    ],
)
def test_best_five_of_six_with_ordinary_poker_rules(
    text: str, category: SixCardCategory | None
) -> None:
    assert bonus(text) is category


def test_the_best_five_are_laid_out() -> None:
    assert six_card_bonus_hand(cards("KS KH KC 7H 5D 2C")) == SixCardBonusHand(
        B.THREE_OF_A_KIND, cards("KS KH KC 7H 5D")
    )
    assert six_card_bonus_hand(cards("KS KH KC QS QH QC")) == SixCardBonusHand(
        B.FULL_HOUSE, cards("KS KH KC QS QH")
    )
    wheel = six_card_bonus_hand(cards("AS 2H 3D 4C 5S 9H"))
    assert wheel is not None and wheel.cards == cards("5S 4C 3D 2H AS")
    royal = six_card_bonus_hand(cards("9S 10S JS QS KS AS"))
    assert royal is not None and royal.cards == cards("AS KS QS JS 10S")


def test_exactly_six_distinct_cards() -> None:
    with pytest.raises(CardCountError):
        six_card_bonus_hand(cards("AS KS QS JS 10S"))
    with pytest.raises(DuplicateCardError):
        six_card_bonus_hand(cards("AS KS QS JS 10S AS"))


@given(six_cards, st.permutations(list(range(6))))
def test_independent_of_card_order(hand_cards: list[Card], order: list[int]) -> None:
    original = six_card_bonus_hand(hand_cards)
    shuffled = six_card_bonus_hand([hand_cards[i] for i in order])
    assert (original and original.category) == (shuffled and shuffled.category)


@given(six_cards)
def test_vectorised_classifier_agrees_with_the_scalar_one(hand_cards: list[Card]) -> None:
    codes = classify_six_card_sets([[card.index for card in hand_cards]])
    expected = six_card_bonus_hand(hand_cards)
    assert int(codes[0]) == code_of(expected and expected.category)


def test_vectorised_classifier_agrees_on_a_large_random_sample() -> None:
    rng = random.Random(20_20)
    sample = [rng.sample(DECK, 6) for _ in range(20_000)]
    # Plus hands built to hit every category, rarest first.
    sample += [list(cards(text)) for text in SPECIAL_SETS]
    codes = classify_six_card_sets([[card.index for card in row] for row in sample])
    for row, code in zip(sample, codes.tolist(), strict=True):
        expected = six_card_bonus_hand(row)
        assert code == code_of(expected and expected.category), row


SPECIAL_SETS = [
    "AS KS QS JS 10S 9S",
    "AH KH QH JH 10H 2C",
    "5D 4D 3D 2D AD KD",
    "6C 5C 4C 3C 2C AC",
    "9S 9H 9D 9C 2S 2H",
    "9S 9H 9D 2C 2S 2H",
    "9S 9H 9D 8C 8S 7H",
    "AS 2H 3D 4C 5S 5H",
    "AS 2S 3S 4S 6S 5H",
    "10H JH QH KH AD 9H",
]


def test_vectorised_classifier_checks_its_input() -> None:
    with pytest.raises(ValueError, match=r"\(n, 6\)"):
        classify_six_card_sets([[0, 1, 2, 3, 4]])
    with pytest.raises(ValueError, match=r"0\.\.51"):
        classify_six_card_sets([[0, 1, 2, 3, 4, 52]])
    assert classify_six_card_sets(np.zeros((0, 6), dtype=np.int64)).shape == (0,)


def test_published_counts_of_all_20358520_six_card_sets(deal_counts: DealCounts) -> None:
    # Published best-five-of-six counts (e.g. Wizard of Odds), reproduced by enumeration.
    assert deal_counts.six_card_sets == {
        B.ROYAL_FLUSH: 188,
        B.STRAIGHT_FLUSH: 1_656,
        B.FOUR_OF_A_KIND: 14_664,
        B.FULL_HOUSE: 165_984,
        B.FLUSH: 205_792,
        B.STRAIGHT: 361_620,
        B.THREE_OF_A_KIND: 732_160,
        None: 18_876_456,  # two pair 2,532,816 + pair 9,730,740 + high card 6,612,900
    }
    assert sum(deal_counts.six_card_sets.values()) == 20_358_520


def test_treys_agrees_on_a_random_sample() -> None:
    treys = pytest.importorskip("treys")
    evaluator = treys.Evaluator()
    by_class = {
        0: B.ROYAL_FLUSH,
        1: B.STRAIGHT_FLUSH,
        2: B.FOUR_OF_A_KIND,
        3: B.FULL_HOUSE,
        4: B.FLUSH,
        5: B.STRAIGHT,
        6: B.THREE_OF_A_KIND,
    }
    rng = random.Random(7)
    for row in [rng.sample(DECK, 6) for _ in range(3_000)] + [
        list(cards(text)) for text in SPECIAL_SETS
    ]:
        ints = [treys.Card.new(_treys_text(card)) for card in row]
        score = evaluator.evaluate(ints[:2], ints[2:])
        expected = by_class.get(evaluator.get_rank_class(score))
        got = six_card_bonus_hand(row)
        assert (got and got.category) == expected, row


def _treys_text(card: Card) -> str:
    rank = "T" if card.rank.label == "10" else card.rank.label
    return rank + card.suit.value.lower()
