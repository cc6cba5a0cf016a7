"""The seamless wallet's wire: the game side calls an operator's wallet server for every
bet, win and rollback, signed, and reads its answers strictly (docs/operators.md)."""

from teenpatti.seamless.calls import (
    BAD_ANSWER_REASONS,
    Answered,
    BadAnswer,
    BalanceCall,
    BetCall,
    CallOutcome,
    NoAnswer,
    RollbackCall,
    Status,
    WinCall,
)
from teenpatti.seamless.client import OperatorWalletClient
from teenpatti.seamless.config import Adapter, OperatorConfig, WalletMode, WinPer
from teenpatti.seamless.hub88 import AmountError, from_protocol, to_protocol
from teenpatti.seamless.signing import SigningKeyError, load_private_key, load_public_key

__all__ = [
    "BAD_ANSWER_REASONS",
    "Adapter",
    "AmountError",
    "Answered",
    "BadAnswer",
    "BalanceCall",
    "BetCall",
    "CallOutcome",
    "NoAnswer",
    "OperatorConfig",
    "OperatorWalletClient",
    "RollbackCall",
    "SigningKeyError",
    "Status",
    "WalletMode",
    "WinCall",
    "WinPer",
    "from_protocol",
    "load_private_key",
    "load_public_key",
    "to_protocol",
]
