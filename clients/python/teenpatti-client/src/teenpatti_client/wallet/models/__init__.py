"""Contains all the data models used in inputs/outputs"""

from .balances_public import BalancesPublic
from .bet_line import BetLine
from .bet_page_public import BetPagePublic
from .bet_public import BetPublic
from .bet_public_bet_type import BetPublicBetType
from .bet_public_outcome_type_0 import BetPublicOutcomeType0
from .bet_public_status import BetPublicStatus
from .bet_round_public import BetRoundPublic
from .bet_round_public_status import BetRoundPublicStatus
from .bet_type_stakes_public import BetTypeStakesPublic
from .correction_public import CorrectionPublic
from .daily_corrections_public import DailyCorrectionsPublic
from .daily_currency_public import DailyCurrencyPublic
from .daily_report_public import DailyReportPublic
from .game_public import GamePublic
from .game_public_status import GamePublicStatus
from .game_public_winner_type_0 import GamePublicWinnerType0
from .games_public import GamesPublic
from .hand_public import HandPublic
from .operator_answer_public import OperatorAnswerPublic
from .problem import Problem
from .round_book_public import RoundBookPublic
from .round_book_public_status import RoundBookPublicStatus
from .round_book_public_total_stake import RoundBookPublicTotalStake
from .round_stakes_public import RoundStakesPublic
from .round_stakes_public_by_currency import RoundStakesPublicByCurrency
from .round_stakes_public_by_currency_additional_property import (
    RoundStakesPublicByCurrencyAdditionalProperty,
)
from .round_stakes_public_status import RoundStakesPublicStatus
from .session_create import SessionCreate
from .session_create_language import SessionCreateLanguage
from .session_launch import SessionLaunch
from .session_launched_public import SessionLaunchedPublic
from .session_launched_public_language import SessionLaunchedPublicLanguage
from .session_opened_public import SessionOpenedPublic
from .session_public import SessionPublic
from .session_public_language import SessionPublicLanguage
from .session_public_status import SessionPublicStatus
from .slip_bet_public import SlipBetPublic
from .slip_bet_public_bet_type import SlipBetPublicBetType
from .slip_create import SlipCreate
from .slip_public import SlipPublic
from .transaction_page_public import TransactionPagePublic
from .transaction_public import TransactionPublic
from .transaction_public_kind import TransactionPublicKind
from .transaction_public_status import TransactionPublicStatus
from .transaction_public_wallet import TransactionPublicWallet
from .transfer_create import TransferCreate
from .transfer_public import TransferPublic
from .wager_public import WagerPublic
from .wager_public_bet_type import WagerPublicBetType
from .wager_public_outcome_type_0 import WagerPublicOutcomeType0

__all__ = (
    "BalancesPublic",
    "BetLine",
    "BetPagePublic",
    "BetPublic",
    "BetPublicBetType",
    "BetPublicOutcomeType0",
    "BetPublicStatus",
    "BetRoundPublic",
    "BetRoundPublicStatus",
    "BetTypeStakesPublic",
    "CorrectionPublic",
    "DailyCorrectionsPublic",
    "DailyCurrencyPublic",
    "DailyReportPublic",
    "GamePublic",
    "GamePublicStatus",
    "GamePublicWinnerType0",
    "GamesPublic",
    "HandPublic",
    "OperatorAnswerPublic",
    "Problem",
    "RoundBookPublic",
    "RoundBookPublicStatus",
    "RoundBookPublicTotalStake",
    "RoundStakesPublic",
    "RoundStakesPublicByCurrency",
    "RoundStakesPublicByCurrencyAdditionalProperty",
    "RoundStakesPublicStatus",
    "SessionCreate",
    "SessionCreateLanguage",
    "SessionLaunch",
    "SessionLaunchedPublic",
    "SessionLaunchedPublicLanguage",
    "SessionOpenedPublic",
    "SessionPublic",
    "SessionPublicLanguage",
    "SessionPublicStatus",
    "SlipBetPublic",
    "SlipBetPublicBetType",
    "SlipCreate",
    "SlipPublic",
    "TransactionPagePublic",
    "TransactionPublic",
    "TransactionPublicKind",
    "TransactionPublicStatus",
    "TransactionPublicWallet",
    "TransferCreate",
    "TransferPublic",
    "WagerPublic",
    "WagerPublicBetType",
    "WagerPublicOutcomeType0",
)
