"""Contains all the data models used in inputs/outputs"""

from .bet_par_view import BetParView
from .clock_share import ClockShare
from .config_view import ConfigView
from .config_view_limits import ConfigViewLimits
from .config_view_limits_additional_property import ConfigViewLimitsAdditionalProperty
from .config_view_paytable import ConfigViewPaytable
from .dealt_card_view import DealtCardView
from .hand_public import HandPublic
from .par_outcome_view import ParOutcomeView
from .par_sheet_public import ParSheetPublic
from .par_sheet_public_paytable import ParSheetPublicPaytable
from .pending_change_view import PendingChangeView
from .pending_change_view_rtp import PendingChangeViewRtp
from .problem import Problem
from .result_page import ResultPage
from .result_view import ResultView
from .result_void_view import ResultVoidView
from .round_result_public import RoundResultPublic
from .round_view import RoundView
from .stake_limit_view import StakeLimitView
from .table_list import TableList
from .table_public import TablePublic
from .table_summary import TableSummary
from .video_lost_view import VideoLostView

__all__ = (
    "BetParView",
    "ClockShare",
    "ConfigView",
    "ConfigViewLimits",
    "ConfigViewLimitsAdditionalProperty",
    "ConfigViewPaytable",
    "DealtCardView",
    "HandPublic",
    "ParOutcomeView",
    "ParSheetPublic",
    "ParSheetPublicPaytable",
    "PendingChangeView",
    "PendingChangeViewRtp",
    "Problem",
    "ResultPage",
    "ResultView",
    "ResultVoidView",
    "RoundResultPublic",
    "RoundView",
    "StakeLimitView",
    "TableList",
    "TablePublic",
    "TableSummary",
    "VideoLostView",
)
