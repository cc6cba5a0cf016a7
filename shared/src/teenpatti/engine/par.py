"""PAR sheet: exact counts over every possible deal, and each bet's RTP as an exact fraction.

The deal space is every ordered pair (A, B) of disjoint three-card hands:
22,100 × C(49, 3) = 22,100 × 18,424 = 407,170,400 deals, all equally likely after a shuffle.
Nothing here samples; every number is a count.

- Main game: every one of the 22,100 hands gets a strength index from the rules code itself
  (`hands.classify_three_ranks`). For each hand A, the hands B disjoint from A that are weaker,
  equal or stronger are counted by inclusion–exclusion over the cards B shares with A:
  disjoint(<s) = all(<s) − Σ_card containing(card, <s) + Σ_card-pair containing(pair, <s)
  (the one hand containing all three cards of A is A itself, which is not below A).
- Pair +: a hand's category does not depend on the other hand, so each of the 22,100 hands
  appears in exactly 18,424 deals for either seat.
- 6 Card Bonus: every six-card set (C(52, 6) = 20,358,520) is classified with numpy; each set is
  dealt as exactly C(6, 3) = 20 ordered splits into A and B, and 20,358,520 × 20 = 407,170,400.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from math import comb

import numpy as np
import numpy.typing as npt

from teenpatti.engine.arrays import (
    CARD_COUNT,
    CARD_PACKED,
    CARD_RANK_BIT,
    CARD_SUIT_BIT,
    SUIT_COUNT,
    classify_features,
    combinations_array,
)
from teenpatti.engine.bonus import SixCardCategory
from teenpatti.engine.cards import DECK
from teenpatti.engine.errors import InvalidRtpFloorError
from teenpatti.engine.hands import ThreeCardCategory, classify_three_ranks
from teenpatti.engine.paytable import BetType, PayTable
from teenpatti.engine.rounds import Winner

THREE_CARD_HANDS = comb(52, 3)  # 22,100
DEALS_PER_THREE_CARD_HAND = comb(49, 3)  # 18,424 hands for the other seat
DEALS = THREE_CARD_HANDS * DEALS_PER_THREE_CARD_HAND  # 407,170,400
SIX_CARD_SETS = comb(52, 6)  # 20,358,520
DEALS_PER_SIX_CARD_SET = comb(6, 3)  # 20
assert SIX_CARD_SETS * DEALS_PER_SIX_CARD_SET == DEALS

# Rules, "Supplementary": "The maximum RTP of the game is 97.50%".
STATED_MAX_RTP = Fraction(975, 1000)
# Our choice (the rules set no floor): flag any bet returning less than 90%.
DEFAULT_RTP_FLOOR = Fraction(9, 10)

Progress = Callable[[str, int, int], None]  # (stage, done, total)
_CHUNK_ROWS = 1 << 20


@dataclass(frozen=True)
class DealCounts:
    deals: int
    outcomes: dict[Winner, int]  # over all deals
    # Over all deals, keyed by Player A's category: how the round ends.
    outcomes_by_player_a_hand: dict[ThreeCardCategory, dict[Winner, int]]
    three_card_hands: dict[ThreeCardCategory, int]  # over the 22,100 hands
    six_card_sets: dict[SixCardCategory | None, int]  # over the 20,358,520 sets; None: no bonus


@dataclass(frozen=True)
class ReturnLine:
    """One way a bet returns money: `deals` deals return `returned_per_unit` per unit staked."""

    event: str  # "win", "push", or the hand that pays ("straight", "royal_flush", …)
    odds: Fraction | None  # None for a push (stake back, no winnings)
    deals: int
    probability: Fraction
    returned_per_unit: Fraction  # 1 + odds, or 1 for a push
    contribution: Fraction  # probability × returned_per_unit: the line's share of the RTP


@dataclass(frozen=True)
class BetPar:
    bet_type: BetType
    rtp: Fraction  # expected amount returned per unit staked (pushes return the stake)
    house_edge: Fraction  # 1 − rtp
    hit_frequency: Fraction  # probability the bet wins (pays winnings)
    push_frequency: Fraction  # probability the stake just comes back
    rtp_excluding_pushes: Fraction  # expected return of a bet that is decided (won or lost)
    below_floor: bool
    lines: tuple[ReturnLine, ...]


@dataclass(frozen=True)
class ParSheet:
    pay_table: PayTable
    counts: DealCounts
    rtp_floor: Fraction
    bets: tuple[BetPar, ...]

    def bet(self, bet_type: BetType) -> BetPar:
        return next(bet for bet in self.bets if bet.bet_type is bet_type)


def par_sheet(
    pay_table: PayTable,
    counts: DealCounts | None = None,
    rtp_floor: Fraction = DEFAULT_RTP_FLOOR,
    progress: Progress | None = None,
) -> ParSheet:
    """The PAR sheet of a pay table; pass `counts` (from `count_deals`) to reuse them."""
    if not 0 <= rtp_floor <= 1:
        raise InvalidRtpFloorError(f"the RTP floor must be between 0 and 1, got {rtp_floor}")
    counts = counts if counts is not None else count_deals(progress)
    bets = tuple(_bet_par(bet_type, pay_table, counts, rtp_floor) for bet_type in BetType)
    return ParSheet(pay_table=pay_table, counts=counts, rtp_floor=rtp_floor, bets=bets)


def count_deals(progress: Progress | None = None) -> DealCounts:
    """Exact counts over every deal: outcomes, three-card hands and six-card bonus hands."""
    report = progress or _silent
    report("three-card hands", 0, 1)
    outcomes, by_category, three_card = _count_main_game()
    report("three-card hands", 1, 1)
    six_card = count_six_card_sets(report)
    return DealCounts(
        deals=DEALS,
        outcomes=outcomes,
        outcomes_by_player_a_hand=by_category,
        three_card_hands=three_card,
        six_card_sets=six_card,
    )


@dataclass(frozen=True)
class Matchups:
    """For each of the 22,100 hands (as Player A): how many of the 18,424 hands disjoint from it
    are weaker, equal (a tie) or stronger."""

    hands: npt.NDArray[np.uint8]  # (22100, 3) card indices, rows in lexicographic order
    strength: npt.NDArray[np.int64]  # dense strength index: 0 weakest; equal index = tie
    category_order: npt.NDArray[np.int64]  # ThreeCardCategory.order of each hand
    weaker: npt.NDArray[np.int64]
    equal: npt.NDArray[np.int64]
    stronger: npt.NDArray[np.int64]


def three_card_strengths() -> tuple[
    npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.int64]
]:
    """All 22,100 hands (rows of card indices), each hand's strength index (0 = weakest,
    equal index = tie) and each hand's `ThreeCardCategory.order`, from the rules code."""
    hands = combinations_array(CARD_COUNT, 3)
    memo: dict[tuple[int, int, int, bool], tuple[int, tuple[int, ...]]] = {}
    keys: list[tuple[int, tuple[int, ...]]] = []
    for first, second, third in hands.tolist():
        cards = (DECK[first], DECK[second], DECK[third])
        suited = cards[0].suit == cards[1].suit == cards[2].suit
        memo_key = (cards[0].rank, cards[1].rank, cards[2].rank, suited)
        key = memo.get(memo_key)
        if key is None:
            category, tiebreak = classify_three_ranks(
                (cards[0].rank, cards[1].rank, cards[2].rank), suited
            )
            key = memo[memo_key] = (category.order, tiebreak)
        keys.append(key)
    index_of = {key: i for i, key in enumerate(sorted(set(keys)))}
    strengths = np.array([index_of[key] for key in keys], dtype=np.int64)
    orders = np.array([key[0] for key in keys], dtype=np.int64)
    return hands, strengths, orders


def disjoint_matchups() -> Matchups:
    """Weaker / equal / stronger counts of every hand against all hands disjoint from it."""
    hands, strength, category_order = three_card_strengths()
    levels = int(strength.max()) + 1
    cards = hands.astype(np.int64)

    # How many hands have each strength: in all, containing a given card, containing a pair.
    total = np.bincount(strength, minlength=levels)
    by_card = np.zeros(CARD_COUNT * levels, dtype=np.int64)
    for column in range(3):
        by_card += np.bincount(cards[:, column] * levels + strength, minlength=by_card.size)
    pair_id = np.full((CARD_COUNT, CARD_COUNT), -1, dtype=np.int64)
    pairs = combinations_array(CARD_COUNT, 2)
    pair_id[pairs[:, 0], pairs[:, 1]] = np.arange(pairs.shape[0])
    hand_pairs = [pair_id[cards[:, i], cards[:, j]] for i, j in ((0, 1), (0, 2), (1, 2))]
    by_pair = np.zeros(pairs.shape[0] * levels, dtype=np.int64)
    for ids in hand_pairs:
        by_pair += np.bincount(ids * levels + strength, minlength=by_pair.size)
    by_card_2d = by_card.reshape(CARD_COUNT, levels)
    by_pair_2d = by_pair.reshape(pairs.shape[0], levels)

    def below(histogram: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        return np.cumsum(histogram, axis=-1) - histogram  # strictly weaker

    total_below, card_below, pair_below = below(total), below(by_card_2d), below(by_pair_2d)

    # Inclusion–exclusion over the cards of A: B must share none of them.
    weaker = total_below[strength].copy()
    equal = total[strength] - 1  # the triple term: A itself holds all three of A's cards
    for column in range(3):
        weaker -= card_below[cards[:, column], strength]
        equal -= by_card_2d[cards[:, column], strength]
    for ids in hand_pairs:
        weaker += pair_below[ids, strength]
        equal += by_pair_2d[ids, strength]
    stronger = DEALS_PER_THREE_CARD_HAND - weaker - equal
    assert int(min(weaker.min(), equal.min(), stronger.min())) >= 0
    return Matchups(hands, strength, category_order, weaker, equal, stronger)


def _count_main_game() -> tuple[
    dict[Winner, int], dict[ThreeCardCategory, dict[Winner, int]], dict[ThreeCardCategory, int]
]:
    matchups = disjoint_matchups()
    by_category: dict[ThreeCardCategory, dict[Winner, int]] = {}
    hand_counts: dict[ThreeCardCategory, int] = {}
    for category in ThreeCardCategory:
        mask = matchups.category_order == category.order
        hand_counts[category] = int(mask.sum())
        by_category[category] = {
            Winner.PLAYER_A: int(matchups.weaker[mask].sum()),
            Winner.PLAYER_B: int(matchups.stronger[mask].sum()),
            Winner.TIE: int(matchups.equal[mask].sum()),
        }
    outcomes = {winner: sum(counts[winner] for counts in by_category.values()) for winner in Winner}
    assert sum(outcomes.values()) == DEALS
    assert outcomes[Winner.PLAYER_A] == outcomes[Winner.PLAYER_B]  # the seats are symmetric
    return outcomes, by_category, hand_counts


def count_six_card_sets(progress: Progress | None = None) -> dict[SixCardCategory | None, int]:
    """Bonus category of each of the C(52, 6) six-card sets, counted by enumeration.

    Each set is its smallest card plus one five-card combination of the higher cards; the
    features of all C(52, 5) five-card combinations are computed once and extended by the
    smallest card, so the six-card features cost one operation each.
    """
    report = progress or _silent
    fives = combinations_array(CARD_COUNT, 5)
    packed = CARD_PACKED[fives].sum(axis=1)
    rank_mask = np.bitwise_or.reduce(CARD_RANK_BIT[fives], axis=1).astype(np.uint16)
    suit_masks = [
        CARD_SUIT_BIT[suit][fives].sum(axis=1).astype(np.uint16) for suit in range(SUIT_COUNT)
    ]
    rows = fives.shape[0]
    histogram = np.zeros(8, dtype=np.int64)
    done = 0
    for smallest in range(CARD_COUNT - 5):
        # Five-card combinations of cards above `smallest` are the last C(51 - smallest, 5) rows.
        start = rows - comb(CARD_COUNT - 1 - smallest, 5)
        rank_bit, suit = int(CARD_RANK_BIT[smallest]), smallest % SUIT_COUNT
        for low in range(start, rows, _CHUNK_ROWS):
            chunk = slice(low, min(rows, low + _CHUNK_ROWS))
            codes = classify_features(
                packed[chunk] + int(CARD_PACKED[smallest]),
                rank_mask[chunk] | rank_bit,
                [
                    suit_masks[s][chunk] | rank_bit if s == suit else suit_masks[s][chunk]
                    for s in range(SUIT_COUNT)
                ],
            )
            histogram += np.bincount(codes, minlength=8)
            done += codes.shape[0]
        report("six-card sets", done, SIX_CARD_SETS)
    assert done == SIX_CARD_SETS == int(histogram.sum())
    result: dict[SixCardCategory | None, int] = {
        category: int(histogram[category.code]) for category in SixCardCategory
    }
    result[None] = int(histogram[0])
    return result


def parse_rtp_floor(text: str) -> Fraction:
    """An RTP floor from "0.9", "9/10" or "90%" (a bare number above 1 is refused as ambiguous)."""
    cleaned = text.strip()
    try:
        value = Fraction(cleaned[:-1].strip()) / 100 if cleaned.endswith("%") else Fraction(cleaned)
    except (ValueError, ZeroDivisionError):
        raise InvalidRtpFloorError(
            f"{text!r} is not an RTP floor: use a fraction such as 0.9 or a percentage such as 90%"
        ) from None
    if not cleaned.endswith("%") and value > 1:
        raise InvalidRtpFloorError(
            f"RTP floor {text!r} is above 1: write 0.975 or 97.5% for 97.5 per cent"
        )
    if not 0 <= value <= 1:
        raise InvalidRtpFloorError(f"RTP floor {text!r} must be between 0% and 100%")
    return value


def _bet_par(
    bet_type: BetType, pay_table: PayTable, counts: DealCounts, rtp_floor: Fraction
) -> BetPar:
    lines: list[ReturnLine] = []

    def add(event: str, odds: Fraction | None, deals: int) -> None:
        probability = Fraction(deals, counts.deals)
        returned = Fraction(1) if odds is None else 1 + odds
        lines.append(ReturnLine(event, odds, deals, probability, returned, probability * returned))

    match bet_type:
        case BetType.PLAYER_A | BetType.PLAYER_B:
            seat = Winner.PLAYER_A if bet_type is BetType.PLAYER_A else Winner.PLAYER_B
            seat_odds = pay_table.player_a if seat is Winner.PLAYER_A else pay_table.player_b
            add("win", seat_odds, counts.outcomes[seat])
            # Rules README "Outcome": on a tie, bets on Player A and Player B are refunded.
            add("push", None, counts.outcomes[Winner.TIE])
        case BetType.TIE:
            add("win", pay_table.tie, counts.outcomes[Winner.TIE])
        case BetType.PAIR_PLUS_A | BetType.PAIR_PLUS_B:
            table = (
                pay_table.pair_plus_a if bet_type is BetType.PAIR_PLUS_A else pay_table.pair_plus_b
            )
            for category in ThreeCardCategory:
                hand_odds = table.odds_for(category)
                if hand_odds is not None:
                    hands = counts.three_card_hands[category]
                    add(category.value, hand_odds, hands * DEALS_PER_THREE_CARD_HAND)
        case BetType.SIX_CARD_BONUS:
            for bonus in SixCardCategory:
                sets = counts.six_card_sets[bonus]
                add(
                    bonus.value,
                    pay_table.six_card_bonus.odds_for(bonus),
                    sets * DEALS_PER_SIX_CARD_SET,
                )

    rtp = sum((line.contribution for line in lines), Fraction(0))
    wins = [line for line in lines if line.odds is not None]
    pushes = sum(line.deals for line in lines if line.odds is None)
    decided = counts.deals - pushes
    return BetPar(
        bet_type=bet_type,
        rtp=rtp,
        house_edge=1 - rtp,
        hit_frequency=sum((line.probability for line in wins), Fraction(0)),
        push_frequency=Fraction(pushes, counts.deals),
        rtp_excluding_pushes=Fraction(
            sum(line.deals * line.returned_per_unit for line in wins), decided
        ),
        below_floor=rtp < rtp_floor,
        lines=tuple(lines),
    )


def _silent(stage: str, done: int, total: int) -> None:
    return None
