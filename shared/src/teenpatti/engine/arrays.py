"""Vectorised (numpy) versions of the rules, for enumeration and throughput.

Cards are numbered 0-51 as `Card.index`: rank index (deuce 0 … ace 12) * 4 + suit index.
`classify_six_card_sets` gives the same answer as `bonus.six_card_bonus_hand` (tests compare
them) as a category code: 0 no bonus hand, 1 three of a kind … 7 royal flush
(`SixCardCategory.code`).

The classifier works on three features of a set of cards, all sums or ORs of per-card values,
so a feature of five cards can be extended by a sixth in one operation (the PAR sheet uses that):
- `packed`: the rank histogram, 3 bits per rank (count of rank r at bits 3r..3r+2);
- `rank_mask`: 13 bits, one per rank present;
- per suit, the 13-bit mask of the ranks held in that suit.
"""

from __future__ import annotations

from functools import cache
from math import comb

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
CodeArray = npt.NDArray[np.uint8]

RANK_COUNT = 13
SUIT_COUNT = 4
CARD_COUNT = 52

_CARD_RANK = np.arange(CARD_COUNT, dtype=np.int64) // SUIT_COUNT
_CARD_SUIT = np.arange(CARD_COUNT, dtype=np.int64) % SUIT_COUNT
CARD_PACKED: IntArray = np.left_shift(np.int64(1), 3 * _CARD_RANK)
CARD_RANK_BIT: IntArray = np.left_shift(np.int64(1), _CARD_RANK)
# CARD_SUIT_BIT[s, c]: the rank bit of card c if it is of suit s, else 0.
CARD_SUIT_BIT: IntArray = np.where(
    _CARD_SUIT[np.newaxis, :] == np.arange(SUIT_COUNT)[:, np.newaxis], CARD_RANK_BIT, 0
).astype(np.int64)

_LOW_BITS = sum(1 << (3 * r) for r in range(RANK_COUNT))  # bit 0 of every 3-bit count
_ROYAL_MASK = 0b1_1111_0000_0000  # 10 J Q K A
_MASK_COUNT = 1 << RANK_COUNT


def _straight_table() -> npt.NDArray[np.bool_]:
    # Rules README: ordinary poker straights, A-2-3-4-5 included (ace low), no wrap K-A-2.
    windows = [0b11111 << low for low in range(RANK_COUNT - 4)] + [0b1_0000_0000_1111]
    masks = np.arange(_MASK_COUNT, dtype=np.int64)
    table = np.zeros(_MASK_COUNT, dtype=np.bool_)
    for window in windows:
        table |= (masks & window) == window
    return table


STRAIGHT_BY_RANK_MASK = _straight_table()


def _suit_category_table() -> CodeArray:
    # For the ranks held in one suit: 0 fewer than five, else the bonus code of the best
    # suited five: 3 flush, 6 straight flush, 7 royal flush (royal when 10-J-Q-K-A are held).
    masks = np.arange(_MASK_COUNT, dtype=np.int64)
    held = np.bitwise_count(masks)
    table = np.zeros(_MASK_COUNT, dtype=np.uint8)
    table[held >= 5] = 3
    table[(held >= 5) & STRAIGHT_BY_RANK_MASK] = 6
    table[(held >= 5) & ((masks & _ROYAL_MASK) == _ROYAL_MASK)] = 7
    return table


SUITED_CODE_BY_RANK_MASK = _suit_category_table()


def classify_features(
    packed: IntArray, rank_mask: IntArray, suit_masks: list[IntArray]
) -> CodeArray:
    """Bonus code of each set of six cards from its features (see the module docstring)."""
    low = packed & _LOW_BITS
    middle = (packed >> 1) & _LOW_BITS
    high = (packed >> 2) & _LOW_BITS  # count 4: a rank's count never exceeds four
    at_least_three = high | (middle & low)
    at_least_two = high | middle
    ranks_with_three = np.bitwise_count(at_least_three)
    ranks_with_two = np.bitwise_count(at_least_two)

    trips = ranks_with_three >= 1
    # Full house: two ranks of three, or a rank of three and another of at least two.
    full_house = (ranks_with_three >= 2) | (trips & (ranks_with_two >= 2))
    straight = STRAIGHT_BY_RANK_MASK[rank_mask]
    suited = SUITED_CODE_BY_RANK_MASK[suit_masks[0]]
    for mask in suit_masks[1:]:
        np.maximum(suited, SUITED_CODE_BY_RANK_MASK[mask], out=suited)
    # Each flag says "some five of the six make this hand"; the best is the highest code.
    # Flush codes: 3 flush, 6 straight flush, 7 royal flush (see SUITED_CODE_BY_RANK_MASK).
    code: CodeArray = np.asarray(trips, dtype=np.uint8)
    np.maximum(code, straight.astype(np.uint8) * np.uint8(2), out=code)
    np.maximum(code, full_house.astype(np.uint8) * np.uint8(4), out=code)
    np.maximum(code, (high != 0).astype(np.uint8) * np.uint8(5), out=code)
    np.maximum(code, suited, out=code)
    return code


def classify_six_card_sets(card_indices: npt.ArrayLike) -> CodeArray:
    """Bonus code (0-7) for each row of six card indices (rows must hold distinct cards)."""
    cards = np.asarray(card_indices, dtype=np.int64)
    if cards.ndim != 2 or cards.shape[1] != 6:
        raise ValueError(f"expected an (n, 6) array of card indices, got shape {cards.shape}")
    if cards.size and (cards.min() < 0 or cards.max() >= CARD_COUNT):
        raise ValueError("card indices must be in 0..51")
    packed = CARD_PACKED[cards].sum(axis=1)
    rank_mask = np.bitwise_or.reduce(CARD_RANK_BIT[cards], axis=1)
    suit_masks = [CARD_SUIT_BIT[suit][cards].sum(axis=1) for suit in range(SUIT_COUNT)]
    return classify_features(packed, rank_mask, suit_masks)


@cache
def combinations_array(n: int, k: int) -> npt.NDArray[np.uint8]:
    """All k-subsets of range(n) as rows of ascending values, rows in lexicographic order."""
    result = _combinations(n, k, {})
    assert result.shape == (comb(n, k), k)
    result.flags.writeable = False
    return result


def _combinations(
    n: int, k: int, memo: dict[tuple[int, int], npt.NDArray[np.uint8]]
) -> npt.NDArray[np.uint8]:
    if (n, k) in memo:
        return memo[n, k]
    if k == 0:
        return np.zeros((1, 0), dtype=np.uint8)
    blocks = [np.zeros((0, k), dtype=np.uint8)]
    for first in range(n - k + 1):
        rest = _combinations(n - first - 1, k - 1, memo) + np.uint8(first + 1)
        head = np.full((rest.shape[0], 1), first, dtype=np.uint8)
        blocks.append(np.hstack([head, rest]))
    memo[n, k] = result = np.vstack(blocks)
    return result
