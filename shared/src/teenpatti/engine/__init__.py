"""The Teen Patti 20-20 rules engine: a functional core with no I/O.

Specification: the published rules and their README (docs/rules-engine.md explains how this code
reads them). Money is integer minor units; odds are exact fractions.

The PAR analysis (`par`, `par_report`, `arrays`) needs numpy and is imported from its own
modules, never from here: a service that imports the engine does not load numpy.
"""

from teenpatti.engine.bonus import SixCardBonusHand, SixCardCategory, six_card_bonus_hand
from teenpatti.engine.cards import DECK, Card, Rank, Suit, card_from_index, parse_card, parse_cards
from teenpatti.engine.errors import (
    CardCountError,
    DuplicateCardError,
    InvalidBetError,
    InvalidCardError,
    InvalidPayTableError,
    InvalidRtpFloorError,
    RulesEngineError,
)
from teenpatti.engine.hands import (
    SEQUENCES_HIGH_TO_LOW,
    ThreeCardCategory,
    ThreeCardHand,
    ThreeCardStrength,
    compare_hands,
    evaluate_three_card_hand,
)
from teenpatti.engine.paytable import (
    PUBLISHED_PAY_TABLE,
    BetType,
    PairPlusOdds,
    PayTable,
    SixCardBonusOdds,
    pay_table_from_json,
    pay_table_from_mapping,
    pay_table_to_mapping,
)
from teenpatti.engine.rounds import (
    CancelledRound,
    RoundResult,
    Winner,
    resolve_hands,
    resolve_round,
)
from teenpatti.engine.settlement import (
    Bet,
    BetOutcome,
    BetRule,
    BetSettlement,
    bet_rule,
    pay_winnings,
    settle_bet,
)

__all__ = [
    "DECK",
    "PUBLISHED_PAY_TABLE",
    "SEQUENCES_HIGH_TO_LOW",
    "Bet",
    "BetOutcome",
    "BetRule",
    "BetSettlement",
    "BetType",
    "CancelledRound",
    "Card",
    "CardCountError",
    "DuplicateCardError",
    "InvalidBetError",
    "InvalidCardError",
    "InvalidPayTableError",
    "InvalidRtpFloorError",
    "PairPlusOdds",
    "PayTable",
    "Rank",
    "RoundResult",
    "RulesEngineError",
    "SixCardBonusHand",
    "SixCardBonusOdds",
    "SixCardCategory",
    "Suit",
    "ThreeCardCategory",
    "ThreeCardHand",
    "ThreeCardStrength",
    "Winner",
    "bet_rule",
    "card_from_index",
    "compare_hands",
    "evaluate_three_card_hand",
    "parse_card",
    "parse_cards",
    "pay_table_from_json",
    "pay_table_from_mapping",
    "pay_table_to_mapping",
    "pay_winnings",
    "resolve_hands",
    "resolve_round",
    "settle_bet",
    "six_card_bonus_hand",
]
