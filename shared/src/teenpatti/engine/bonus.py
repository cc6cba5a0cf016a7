"""The 6 Card Bonus hand: the best five-card poker hand from the six dealt cards.

Rules README "Bets": ordinary five-card poker. A-2-3-4-5 is a straight (five-high), suited
A-K-Q-J-10 is the Royal flush, the three-card sequence list does not apply; Three of a Kind or
better pays, two pair, one pair and high card lose (no bonus hand: `None`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from teenpatti.engine.cards import Card, require_distinct_cards


class SixCardCategory(StrEnum):
    # Rules, "Hand rankings for 6 Card Bonus", declared high to low.
    ROYAL_FLUSH = "royal_flush"
    STRAIGHT_FLUSH = "straight_flush"
    FOUR_OF_A_KIND = "four_of_a_kind"
    FULL_HOUSE = "full_house"
    FLUSH = "flush"
    STRAIGHT = "straight"
    THREE_OF_A_KIND = "three_of_a_kind"

    @property
    def code(self) -> int:
        """Higher is stronger: three of a kind 1 … royal flush 7; 0 means no bonus hand."""
        return _CATEGORY_CODE[self]


_CATEGORY_CODE = {category: 7 - i for i, category in enumerate(SixCardCategory)}
SIX_CARD_CATEGORY_BY_CODE: dict[int, SixCardCategory] = {
    code: category for category, code in _CATEGORY_CODE.items()
}


@dataclass(frozen=True)
class SixCardBonusHand:
    category: SixCardCategory
    cards: tuple[Card, ...]  # the best five, as a dealer would lay them out


def six_card_bonus_hand(cards: Sequence[Card]) -> SixCardBonusHand | None:
    """The best five of the six cards if it is Three of a Kind or better, else `None`."""
    require_distinct_cards(cards, 6)
    return best_five_of_distinct_six(cards)


def best_five_of_distinct_six(cards: Sequence[Card]) -> SixCardBonusHand | None:
    """`six_card_bonus_hand` for six cards already known to be distinct."""
    # Ranks as indices (deuce 0 … ace 12) and suits as indices 0-3, from `Card.index`.
    rank_counts = [0] * 13
    suit_counts = [0] * 4
    rank_bits = 0
    for card in cards:
        rank_counts[card.index >> 2] += 1
        suit_counts[card.index & 3] += 1
        rank_bits |= 1 << (card.index >> 2)
    if max(suit_counts) < 5 and max(rank_counts) < 3 and _straight_top(rank_bits) is None:
        return None  # no flush, no three of a kind, no straight: nothing better (92.7% of deals)

    by_rank = sorted(cards, key=_card_index, reverse=True)
    flush_suit = next((suit for suit, n in enumerate(suit_counts) if n >= 5), None)
    if flush_suit is not None:
        suited = [card for card in by_rank if card.index & 3 == flush_suit]
        top = _straight_top(_bits(suited))
        if top is not None:
            # Rules: Royal flush is suited A-K-Q-J-10; any other suited run is a straight flush.
            category = SixCardCategory.ROYAL_FLUSH if top == 13 else SixCardCategory.STRAIGHT_FLUSH
            return SixCardBonusHand(category, _run(suited, top))

    quads = [rank for rank, n in enumerate(rank_counts) if n == 4]
    if quads:
        four = [card for card in by_rank if card.index >> 2 == quads[0]]
        kicker = next(card for card in by_rank if card.index >> 2 != quads[0])
        return SixCardBonusHand(SixCardCategory.FOUR_OF_A_KIND, (*four, kicker))

    trips = [rank for rank, n in enumerate(rank_counts) if n >= 3]
    if trips:
        pairs = [rank for rank, n in enumerate(rank_counts) if n >= 2 and rank != trips[-1]]
        if pairs:
            # 3-3 or 3-2-1: the higher trips over the best other pair (the rest is unused).
            three = [card for card in by_rank if card.index >> 2 == trips[-1]]
            two = [card for card in by_rank if card.index >> 2 == pairs[-1]][:2]
            return SixCardBonusHand(SixCardCategory.FULL_HOUSE, (*three, *two))

    if flush_suit is not None:
        suited = [card for card in by_rank if card.index & 3 == flush_suit]
        return SixCardBonusHand(SixCardCategory.FLUSH, tuple(suited[:5]))

    top = _straight_top(rank_bits)
    if top is not None:
        return SixCardBonusHand(SixCardCategory.STRAIGHT, _run(by_rank, top))

    if trips:
        three = [card for card in by_rank if card.index >> 2 == trips[-1]]
        kickers = [card for card in by_rank if card.index >> 2 != trips[-1]][:2]
        return SixCardBonusHand(SixCardCategory.THREE_OF_A_KIND, (*three, *kickers))
    return None


# Rules README: ordinary poker straights; the ace plays high (A-K-Q-J-10) or low (A-2-3-4-5),
# never in the middle (no K-A-2-3-4). Positions: 0 ace-low, 1 deuce … 13 ace-high; a straight
# is named by the position of its top card (4: five-high … 13: ace-high).
_STRAIGHT_WINDOWS = [(top, 0b11111 << (top - 4)) for top in range(13, 3, -1)]


def _straight_top(rank_bits: int) -> int | None:
    positions = (rank_bits << 1) | (rank_bits >> 12 & 1)
    for top, window in _STRAIGHT_WINDOWS:
        if positions & window == window:
            return top
    return None


def _run(high_to_low: Sequence[Card], top: int) -> tuple[Card, ...]:
    """One card of each rank of the straight whose top position is `top`, high to low."""
    first_of_rank: dict[int, Card] = {}
    for card in high_to_low:
        first_of_rank.setdefault(card.index >> 2, card)
    return tuple(first_of_rank[(position - 1) % 13] for position in range(top, top - 5, -1))


def _bits(cards: Sequence[Card]) -> int:
    bits = 0
    for card in cards:
        bits |= 1 << (card.index >> 2)
    return bits


def _card_index(card: Card) -> int:
    return card.index
