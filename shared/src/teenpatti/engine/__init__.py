"""The Teen Patti 20-20 rules engine: a functional core with no I/O.

Specification: the published rules and their README (docs/rules-engine.md explains how this code
reads them). Money is integer minor units; odds are exact fractions.
"""

from teenpatti.engine.arrays import classify_six_card_sets
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
from teenpatti.engine.par import (
    DEFAULT_RTP_FLOOR,
    STATED_MAX_RTP,
    BetPar,
    DealCounts,
    ParSheet,
    ReturnLine,
    count_deals,
    par_sheet,
    parse_rtp_floor,
)
from teenpatti.engine.par_report import format_par_sheet, par_sheet_to_mapping
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
from teenpatti.engine.settlement import Bet, BetOutcome, BetSettlement, pay_winnings, settle_bet

__all__ = [
    "DECK",
    "DEFAULT_RTP_FLOOR",
    "PUBLISHED_PAY_TABLE",
    "SEQUENCES_HIGH_TO_LOW",
    "STATED_MAX_RTP",
    "Bet",
    "BetOutcome",
    "BetPar",
    "BetSettlement",
    "BetType",
    "CancelledRound",
    "Card",
    "CardCountError",
    "DealCounts",
    "DuplicateCardError",
    "InvalidBetError",
    "InvalidCardError",
    "InvalidPayTableError",
    "InvalidRtpFloorError",
    "PairPlusOdds",
    "ParSheet",
    "PayTable",
    "Rank",
    "ReturnLine",
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
    "card_from_index",
    "classify_six_card_sets",
    "compare_hands",
    "count_deals",
    "evaluate_three_card_hand",
    "format_par_sheet",
    "par_sheet",
    "par_sheet_to_mapping",
    "parse_card",
    "parse_cards",
    "parse_rtp_floor",
    "pay_table_from_json",
    "pay_table_from_mapping",
    "pay_table_to_mapping",
    "pay_winnings",
    "resolve_hands",
    "resolve_round",
    "settle_bet",
    "six_card_bonus_hand",
]
