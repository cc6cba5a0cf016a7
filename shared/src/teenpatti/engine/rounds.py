"""The result of a round from its six dealt cards."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from teenpatti.engine.bonus import SixCardBonusHand, best_five_of_distinct_six
from teenpatti.engine.cards import Card, require_distinct_cards
from teenpatti.engine.hands import ThreeCardHand, compare_hands, evaluate_distinct_three


class Winner(StrEnum):
    PLAYER_A = "player_a"
    PLAYER_B = "player_b"
    TIE = "tie"


@dataclass(frozen=True)
class RoundResult:
    dealt: tuple[Card, ...]  # in dealing order: A1 B1 A2 B2 A3 B3
    player_a: ThreeCardHand
    player_b: ThreeCardHand
    winner: Winner
    six_card_bonus: SixCardBonusHand | None  # None: best five is below Three of a Kind


@dataclass(frozen=True)
class CancelledRound:
    """A void round (rules README "When things go wrong"): every bet is refunded in full."""

    reason: str = ""


def resolve_round(dealt: Sequence[Card]) -> RoundResult:
    """The result from the six cards in dealing order A1 B1 A2 B2 A3 B3."""
    require_distinct_cards(dealt, 6)
    # Rules: cards go to the two hands alternately, from A's first card to B's third.
    player_a = evaluate_distinct_three(dealt[0::2])
    player_b = evaluate_distinct_three(dealt[1::2])
    return RoundResult(
        dealt=tuple(dealt),
        player_a=player_a,
        player_b=player_b,
        winner=_winner(player_a, player_b),
        # Rules: the 6 Card Bonus uses all six dealt cards, whichever hand they went to.
        six_card_bonus=best_five_of_distinct_six(dealt),
    )


def resolve_hands(player_a: Sequence[Card], player_b: Sequence[Card]) -> RoundResult:
    """The same result from the two hands, as if dealt A1 B1 A2 B2 A3 B3."""
    require_distinct_cards(player_a, 3)
    require_distinct_cards(player_b, 3)
    return resolve_round([card for pair in zip(player_a, player_b, strict=True) for card in pair])


def _winner(player_a: ThreeCardHand, player_b: ThreeCardHand) -> Winner:
    # Rules README "Outcome": a tie is the same category and the same ranks (equal strength).
    match compare_hands(player_a, player_b):
        case 1:
            return Winner.PLAYER_A
        case -1:
            return Winner.PLAYER_B
        case _:
            return Winner.TIE
