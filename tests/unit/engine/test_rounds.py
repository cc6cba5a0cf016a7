from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from teenpatti.engine import (
    DECK,
    Card,
    CardCountError,
    DuplicateCardError,
    SixCardCategory,
    ThreeCardCategory,
    Winner,
    resolve_hands,
    resolve_round,
)

from .helpers import cards

six_cards = st.lists(st.sampled_from(DECK), min_size=6, max_size=6, unique=True)


def test_cards_are_dealt_alternately_a1_b1_a2_b2_a3_b3() -> None:
    result = resolve_round(cards("AS 2D KS 3C QS 4H"))
    assert result.player_a.cards == cards("AS KS QS")
    assert result.player_b.cards == cards("2D 3C 4H")
    assert result.player_a.category is ThreeCardCategory.STRAIGHT_FLUSH
    assert result.player_b.category is ThreeCardCategory.STRAIGHT
    assert result.winner is Winner.PLAYER_A
    assert result.six_card_bonus is None
    assert result.dealt == cards("AS 2D KS 3C QS 4H")


def test_resolve_hands_is_the_same_round() -> None:
    assert resolve_hands(cards("AS KS QS"), cards("2D 3C 4H")) == resolve_round(
        cards("AS 2D KS 3C QS 4H")
    )


def test_player_b_wins_and_the_bonus_uses_all_six_cards() -> None:
    result = resolve_hands(cards("10H 10D 9C"), cards("10S 10C 2D"))
    assert result.winner is Winner.PLAYER_A  # pair of tens, 9 kicker beats 2 kicker
    assert result.six_card_bonus is not None
    assert result.six_card_bonus.category is SixCardCategory.FOUR_OF_A_KIND
    result = resolve_hands(cards("2H 3D 5C"), cards("AS 4H 4C"))
    assert result.winner is Winner.PLAYER_B
    assert result.six_card_bonus is not None
    assert result.six_card_bonus.category is SixCardCategory.STRAIGHT  # A-2-3-4-5 wheel


def test_a_tie() -> None:
    result = resolve_hands(cards("KS 9H 7D"), cards("KH 9C 7S"))
    assert result.winner is Winner.TIE


def test_six_distinct_cards_are_required() -> None:
    with pytest.raises(CardCountError, match="expected 6 cards, got 5"):
        resolve_round(cards("AS 2D KS 3C QS"))
    with pytest.raises(DuplicateCardError):
        resolve_round(cards("AS 2D KS 3C QS AS"))
    with pytest.raises(DuplicateCardError):
        resolve_hands(cards("AS KS QS"), cards("AS 3C 4H"))


@given(six_cards)
def test_the_result_depends_only_on_the_six_cards(dealt: list[Card]) -> None:
    assert resolve_round(dealt) == resolve_round(tuple(dealt))


@given(six_cards, st.permutations([0, 2, 4]), st.permutations([1, 3, 5]))
def test_the_order_within_a_hand_does_not_matter(
    dealt: list[Card], a_order: list[int], b_order: list[int]
) -> None:
    reordered = list(dealt)
    reordered[0::2] = [dealt[i] for i in a_order]
    reordered[1::2] = [dealt[i] for i in b_order]
    first, second = resolve_round(dealt), resolve_round(reordered)
    assert first.winner is second.winner
    assert first.player_a.strength == second.player_a.strength
    assert first.player_b.strength == second.player_b.strength
    assert (first.six_card_bonus and first.six_card_bonus.category) == (
        second.six_card_bonus and second.six_card_bonus.category
    )


@given(six_cards)
def test_swapping_the_hands_swaps_the_winner(dealt: list[Card]) -> None:
    result = resolve_round(dealt)
    swapped = resolve_hands(dealt[1::2], dealt[0::2])
    expected = {
        Winner.PLAYER_A: Winner.PLAYER_B,
        Winner.PLAYER_B: Winner.PLAYER_A,
        Winner.TIE: Winner.TIE,
    }
    assert swapped.winner is expected[result.winner]
    assert (swapped.six_card_bonus and swapped.six_card_bonus.category) == (
        result.six_card_bonus and result.six_card_bonus.category
    )
