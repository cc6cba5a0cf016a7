from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from teenpatti.engine import (
    DECK,
    SEQUENCES_HIGH_TO_LOW,
    Card,
    CardCountError,
    DuplicateCardError,
    Suit,
    ThreeCardCategory,
    ThreeCardHand,
    compare_hands,
    evaluate_three_card_hand,
)

from .helpers import cards, hand

C = ThreeCardCategory

three_cards = st.lists(st.sampled_from(DECK), min_size=3, max_size=3, unique=True)
suit_permutations = st.permutations(list(Suit))


def beats(first: str, second: str) -> bool:
    return compare_hands(hand(first), hand(second)) == 1 and (
        compare_hands(hand(second), hand(first)) == -1
    )


def ties(first: str, second: str) -> bool:
    return compare_hands(hand(first), hand(second)) == 0


# The examples of the rules (en.txt), with the README's corrections.
@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("A♠ A♦ A♣", C.TRAIL_OF_ACES),
        ("K♠ K♥ K♣", C.TRAIL),
        ("K♠ Q♠ J♠", C.STRAIGHT_FLUSH),  # README: the English `J♣` is a typo
        ("K♣ Q♦ J♥", C.STRAIGHT),
        ("9♥ 7♥ 5♥", C.FLUSH),
        ("4♦ 4♥ 2♠", C.PAIR),
        ("Q♥ 9♣ 7♠", C.HIGH_CARD),
    ],
)
def test_the_examples_of_the_rules(text: str, category: ThreeCardCategory) -> None:
    assert hand(text).category is category


def test_the_typo_as_printed_is_a_straight_not_a_straight_flush() -> None:
    assert hand("K♠ Q♠ J♣").category is C.STRAIGHT


def test_same_type_examples_of_the_rules() -> None:
    assert beats("KS KH KC", "QS QH QC")  # "Three K's beats three Q's"
    assert beats("QH JH 10H", "10S 9S 8S")  # "Q-J-10 flush beats 10-9-8 flush" (suited runs)
    assert beats("QH JH 9H", "10S 9S 7S")  # and as plain flushes
    assert beats("KS KH QC", "KD KC 9S")  # "K-K-Q beats K-K-9"


def test_the_order_of_categories() -> None:
    # README: Trail of Aces > Trail > Straight flush > Straight > Flush > Pair > High card.
    ladder = [
        "AS AH AD",  # trail of aces
        "2S 2H 2D",  # the lowest trail still beats …
        "AS KS QS",  # … the highest straight flush
        "4D 3D 2D",  # the lowest straight flush beats …
        "AS KH QD",  # … the highest straight
        "4S 3H 2D",  # the lowest straight beats …
        "AS KS JS",  # … the highest flush
        "5H 3H 2H",  # the lowest flush beats …
        "AS AH KD",  # … the highest pair
        "2S 2H 3D",  # the lowest pair beats …
        "AS KH JD",  # … the highest high card
        "5S 3H 2D",  # the lowest high card
    ]
    for higher, lower in itertools.pairwise(ladder):
        assert beats(higher, lower), (higher, lower)
    assert [hand(text).category for text in ladder[::2]] == [
        C.TRAIL_OF_ACES,
        C.STRAIGHT_FLUSH,
        C.STRAIGHT,
        C.FLUSH,
        C.PAIR,
        C.HIGH_CARD,
    ]


def test_a23_is_second_only_to_akq() -> None:
    # README: A-K-Q, A-2-3, K-Q-J, Q-J-10, …, 4-3-2.
    assert beats("AS KH QD", "AH 2S 3C")
    assert beats("AH 2S 3C", "KS QH JD")
    assert beats("AS 2S 3S", "KD QD JD")
    assert beats("AC KC QC", "AS 2S 3S")
    assert beats("KS QH JD", "QS JH 10D")
    assert beats("5S 4H 3D", "4S 3H 2D")
    assert hand("3C AH 2S").category is C.STRAIGHT  # card order does not matter


def test_the_sequence_list_has_twelve_entries_high_to_low() -> None:
    assert len(SEQUENCES_HIGH_TO_LOW) == 12
    straights = [
        hand(
            " ".join(f"{rank.label}{suit}" for rank, suit in zip(sorted(ranks), "SHD", strict=True))
        )
        for ranks in SEQUENCES_HIGH_TO_LOW
    ]
    assert all(h.category is C.STRAIGHT for h in straights)
    for higher, lower in itertools.pairwise(straights):
        assert compare_hands(higher, lower) == 1


@pytest.mark.parametrize("text", ["KS AH 2D", "2C KD AS", "AH 2S KC"])
def test_k_a_2_is_not_a_sequence(text: str) -> None:
    assert hand(text).category is C.HIGH_CARD
    assert beats("4S 3H 2D", text)  # the lowest straight beats it
    assert beats("AS KH 3D", text)  # and so does A-K-3 (K-A-2 is just A-K-2 high)


def test_k_a_2_suited_is_a_flush_and_loses_to_any_straight() -> None:
    assert hand("KS AS 2S").category is C.FLUSH
    assert beats("4S 3H 2D", "KS AS 2S")
    assert hand("KS AH 2D").category is C.HIGH_CARD


def test_same_category_tie_breaks() -> None:
    assert beats("AS AH AD", "KS KH KD")
    assert beats("AS QS 3S", "AH JH 10H")  # flush: highest card, then second …
    assert beats("AS QS 4S", "AH QH 3H")  # … then third
    assert beats("AS AH 2D", "KS KH QD")  # pair first
    assert beats("9S 9H 3D", "9D 9C 2S")  # then the odd card
    assert beats("AS 9H 3D", "KS QH 9C")  # high card: highest …
    assert beats("KS 9H 4D", "KH 9C 3S")  # … then second, then third
    assert beats("3S 3H 2D", "AS KH JD")  # the lowest pair beats the best high card


def test_ties_happen_when_the_rules_say_so() -> None:
    # README: same category and same ranks, e.g. K-9-7 vs K-9-7, or A-2-3 vs A-2-3.
    assert ties("KS 9H 7D", "KH 9C 7S")
    assert ties("AS 2H 3D", "AH 2D 3C")
    assert ties("9S 9H 4D", "9D 9C 4S")
    assert ties("AS 2S 3S", "AH 2H 3H")  # straight flushes of the same sequence
    assert ties("KH 9H 7H", "KS 9S 7S")  # flushes with the same ranks
    assert not ties("KH 9H 7H", "KS 9D 7S")  # a flush beats the same ranks unsuited


def test_suits_never_break_a_tie() -> None:
    for suits in itertools.permutations("SHDC", 3):
        other = " ".join(f"{rank}{suit}" for rank, suit in zip("K97", suits, strict=True))
        assert ties("KS 9H 7D", other)


def test_a_hand_needs_three_distinct_cards() -> None:
    with pytest.raises(CardCountError):
        evaluate_three_card_hand(cards("AS KS"))
    with pytest.raises(DuplicateCardError):
        evaluate_three_card_hand(cards("AS KS AS"))


def test_published_counts_of_all_22100_hands() -> None:
    hands = [evaluate_three_card_hand(combo) for combo in itertools.combinations(DECK, 3)]
    assert len(hands) == 22_100
    assert Counter(h.category for h in hands) == {
        C.TRAIL_OF_ACES: 4,
        C.TRAIL: 48,  # three of a kind: 52 in all
        C.STRAIGHT_FLUSH: 48,
        C.STRAIGHT: 720,
        C.FLUSH: 1_096,
        C.PAIR: 3_744,
        C.HIGH_CARD: 16_440,
    }
    # 13 trails + 12 + 12 sequences + 274 flushes + 156 pairs + 274 high cards
    assert len({h.strength for h in hands}) == 741


# Properties of the order.


@given(three_cards, three_cards)
def test_order_is_antisymmetric(first: list[Card], second: list[Card]) -> None:
    a, b = evaluate_three_card_hand(first), evaluate_three_card_hand(second)
    assert compare_hands(a, b) == -compare_hands(b, a)
    assert compare_hands(a, a) == 0


@given(three_cards, three_cards, three_cards)
def test_order_is_total_and_transitive(x: list[Card], y: list[Card], z: list[Card]) -> None:
    a, b, c = (evaluate_three_card_hand(h) for h in (x, y, z))
    assert compare_hands(a, b) in (-1, 0, 1)
    if compare_hands(a, b) >= 0 and compare_hands(b, c) >= 0:
        assert compare_hands(a, c) >= 0
    if compare_hands(a, b) == 0 and compare_hands(b, c) == 0:
        assert compare_hands(a, c) == 0


@given(three_cards, st.permutations([0, 1, 2]))
def test_independent_of_card_order(texts: list[Card], order: list[int]) -> None:
    shuffled = [texts[i] for i in order]
    original, reordered = evaluate_three_card_hand(texts), evaluate_three_card_hand(shuffled)
    assert (original.category, original.strength) == (reordered.category, reordered.strength)


@given(three_cards, suit_permutations)
def test_renaming_suits_changes_nothing(hand_cards: list[Card], suits: list[Suit]) -> None:
    rename = dict(zip(Suit, suits, strict=True))
    renamed = [Card(card.rank, rename[card.suit]) for card in hand_cards]
    assert evaluate_three_card_hand(renamed).strength == (
        evaluate_three_card_hand(hand_cards).strength
    )


@given(three_cards, st.lists(st.sampled_from(list(Suit)), min_size=3, max_size=3))
def test_suits_matter_only_through_a_flush(hand_cards: list[Card], suits: list[Suit]) -> None:
    resuited = [Card(card.rank, suit) for card, suit in zip(hand_cards, suits, strict=True)]
    if len(set(resuited)) < 3:
        return  # not three distinct cards
    original, other = evaluate_three_card_hand(hand_cards), evaluate_three_card_hand(resuited)
    if _suited(original) == _suited(other):
        assert original.strength == other.strength


@given(three_cards, three_cards)
def test_a_tie_means_identical_rank_patterns(first: list[Card], second: list[Card]) -> None:
    a, b = evaluate_three_card_hand(first), evaluate_three_card_hand(second)
    same_pattern = a.category is b.category and _ranks(a) == _ranks(b)
    assert (compare_hands(a, b) == 0) == same_pattern


def _ranks(h: ThreeCardHand) -> list[int]:
    return sorted(card.rank for card in h.cards)


def _suited(h: ThreeCardHand) -> bool:
    return len({card.suit for card in h.cards}) == 1
