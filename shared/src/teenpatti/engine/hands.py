"""Three-card hands of Player A and Player B: category and the total order of the rules.

Strength is a pair (category order, tie-break ranks) compared as a tuple, so the order is total
by construction. Two hands have equal strength exactly when they have the same category and
the same ranks: that is the rules' tie.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache

from teenpatti.engine.cards import Card, Rank, require_distinct_cards


class ThreeCardCategory(StrEnum):
    # Rules README "Hands": Trail of Aces > Trail > Straight flush > Straight > Flush > Pair
    # > High card. Declared high to low.
    TRAIL_OF_ACES = "trail_of_aces"
    TRAIL = "trail"
    STRAIGHT_FLUSH = "straight_flush"
    STRAIGHT = "straight"
    FLUSH = "flush"
    PAIR = "pair"
    HIGH_CARD = "high_card"

    @property
    def order(self) -> int:
        """Higher is stronger: high card 0 … trail of aces 6."""
        return _CATEGORY_ORDER[self]


_CATEGORY_ORDER = {category: 6 - i for i, category in enumerate(ThreeCardCategory)}

# Rules README "Hands": sequences rank A-K-Q, A-2-3, K-Q-J, Q-J-10, …, 4-3-2, high to low.
# K-A-2 (and any other wrap) is not in the list, so it is not a sequence.
SEQUENCES_HIGH_TO_LOW: tuple[frozenset[Rank], ...] = (
    frozenset({Rank.ACE, Rank.KING, Rank.QUEEN}),
    frozenset({Rank.ACE, Rank.TWO, Rank.THREE}),
    *(frozenset({Rank(top), Rank(top - 1), Rank(top - 2)}) for top in range(13, 3, -1)),
)
_SEQUENCE_STRENGTH = {
    ranks: len(SEQUENCES_HIGH_TO_LOW) - i for i, ranks in enumerate(SEQUENCES_HIGH_TO_LOW)
}


@dataclass(frozen=True, order=True)
class ThreeCardStrength:
    category_order: int
    tiebreak: tuple[int, ...]


@dataclass(frozen=True)
class ThreeCardHand:
    cards: tuple[Card, Card, Card]
    category: ThreeCardCategory
    strength: ThreeCardStrength


def evaluate_three_card_hand(cards: Sequence[Card]) -> ThreeCardHand:
    require_distinct_cards(cards, 3)
    return evaluate_distinct_three(cards)


def evaluate_distinct_three(cards: Sequence[Card]) -> ThreeCardHand:
    """`evaluate_three_card_hand` for three cards already known to be distinct."""
    first, second, third = cards
    suited = first.suit is second.suit is third.suit
    high, middle, low = sorted((first.index, second.index, third.index), reverse=True)
    category, strength = _classify_ranks(high >> 2, middle >> 2, low >> 2, suited)
    return ThreeCardHand(cards=(first, second, third), category=category, strength=strength)


@cache
def _classify_ranks(
    high: int, middle: int, low: int, suited: bool
) -> tuple[ThreeCardCategory, ThreeCardStrength]:
    # Rank indices (deuce 0) high to low; a cache of the rules code below (at most 910 entries).
    ranks = (Rank(high + 2), Rank(middle + 2), Rank(low + 2))
    category, tiebreak = classify_three_ranks(ranks, suited)
    return category, ThreeCardStrength(category.order, tiebreak)


def classify_three_ranks(
    ranks: tuple[Rank, Rank, Rank], suited: bool
) -> tuple[ThreeCardCategory, tuple[int, ...]]:
    """Category and tie-break from the ranks and whether all three share a suit.

    Rules: "Suits of individual cards are not used in the determination of winning hands";
    a suit only matters through `suited` (flush, straight flush).
    """
    high_to_low = tuple(sorted(ranks, reverse=True))
    counts = Counter(high_to_low)
    sequence = _SEQUENCE_STRENGTH.get(frozenset(high_to_low)) if len(counts) == 3 else None
    if len(counts) == 1:
        # Rules: Three of a Kind (A) is its own pattern above Three of a Kind (2-K);
        # "Three K's beats three Q's".
        rank = high_to_low[0]
        category = ThreeCardCategory.TRAIL_OF_ACES if rank is Rank.ACE else ThreeCardCategory.TRAIL
        return category, (int(rank),)
    if sequence is not None:
        # Rules README: sequences rank by the list, not by their highest card.
        category = ThreeCardCategory.STRAIGHT_FLUSH if suited else ThreeCardCategory.STRAIGHT
        return category, (sequence,)
    if suited:
        # Rules: flushes compare the highest card, then the second, then the third.
        return ThreeCardCategory.FLUSH, tuple(int(rank) for rank in high_to_low)
    if len(counts) == 2:
        # Rules: "K-K-Q beats K-K-9": the pair first, then the odd card.
        pair = next(rank for rank, count in counts.items() if count == 2)
        kicker = next(rank for rank, count in counts.items() if count == 1)
        return ThreeCardCategory.PAIR, (int(pair), int(kicker))
    # Rules: high card compares the highest card, then the second, then the third.
    return ThreeCardCategory.HIGH_CARD, tuple(int(rank) for rank in high_to_low)


def compare_hands(first: ThreeCardHand, second: ThreeCardHand) -> int:
    """1 if `first` wins, -1 if `second` wins, 0 for a tie."""
    if first.strength > second.strength:
        return 1
    if first.strength < second.strength:
        return -1
    return 0
