"""Contains all the data models used in inputs/outputs"""

from .bet_settlement_public import BetSettlementPublic
from .bet_settlement_public_status import BetSettlementPublicStatus
from .bet_with_round_public import BetWithRoundPublic
from .bet_with_round_public_status import BetWithRoundPublicStatus
from .currency_totals import CurrencyTotals
from .problem import Problem
from .result_public import ResultPublic
from .reversal_totals import ReversalTotals
from .round_settlement_public import RoundSettlementPublic
from .round_settlement_public_reversal_totals import RoundSettlementPublicReversalTotals
from .round_settlement_public_status import RoundSettlementPublicStatus
from .round_settlement_public_totals import RoundSettlementPublicTotals
from .round_summary_public import RoundSummaryPublic
from .round_summary_public_status import RoundSummaryPublicStatus

__all__ = (
    "BetSettlementPublic",
    "BetSettlementPublicStatus",
    "BetWithRoundPublic",
    "BetWithRoundPublicStatus",
    "CurrencyTotals",
    "Problem",
    "ResultPublic",
    "ReversalTotals",
    "RoundSettlementPublic",
    "RoundSettlementPublicReversalTotals",
    "RoundSettlementPublicStatus",
    "RoundSettlementPublicTotals",
    "RoundSummaryPublic",
    "RoundSummaryPublicStatus",
)
