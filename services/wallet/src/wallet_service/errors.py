"""The wallet's refusals, declared once: every refusal a use case raises, by its code, with
the HTTP status it is answered with (docs/services/wallet.md). The service's `errors=` turns
a refusal into its status from here; a slip's refusal is stored under its Idempotency-Key
with the same status and raised again from its stored body."""

from __future__ import annotations

from typing import Any

from .domain.betting import (
    AboveMaximumError,
    BalanceLimitError,
    BelowMinimumError,
    BettingClosedError,
    CurrencyNotAcceptedError,
    ExposureLimitError,
    IdempotencyKeyReusedError,
    InsufficientFundsError,
    InvalidBetError,
    InvalidCursorError,
    TransferIdReusedError,
    UnknownBetError,
    UnknownRoundError,
    WalletError,
)
from .domain.seamless import (
    BadOperatorAnswerError,
    LimitReachedError,
    OperatorRefusedError,
    OperatorUnavailableError,
    SeamlessOperatorError,
    SlipPendingError,
    TokenExpiredError,
    UserDisabledError,
)
from .domain.sessions import SessionMismatchError, UnknownSessionError

REFUSAL_STATUS: dict[type[WalletError], int] = {
    UnknownRoundError: 404,
    UnknownBetError: 404,
    UnknownSessionError: 404,
    BettingClosedError: 409,
    InsufficientFundsError: 409,
    LimitReachedError: 409,
    OperatorRefusedError: 409,
    SlipPendingError: 409,
    SeamlessOperatorError: 409,
    UserDisabledError: 403,
    TokenExpiredError: 403,
    BadOperatorAnswerError: 502,
    OperatorUnavailableError: 503,
    CurrencyNotAcceptedError: 422,
    BelowMinimumError: 422,
    AboveMaximumError: 422,
    ExposureLimitError: 422,
    InvalidBetError: 422,
    IdempotencyKeyReusedError: 422,
    TransferIdReusedError: 422,
    BalanceLimitError: 422,
    InvalidCursorError: 422,
    SessionMismatchError: 422,
}
_BY_CODE: dict[str, type[WalletError]] = {cls.code: cls for cls in REFUSAL_STATUS}
_STATUS_BY_CODE: dict[str, int] = {cls.code: status for cls, status in REFUSAL_STATUS.items()}


def status_of(error: WalletError) -> int:
    """The HTTP status a refusal is answered with (422 for one not declared here)."""
    return _STATUS_BY_CODE.get(error.code, 422)


def stored_refusal(error: WalletError) -> dict[str, Any]:
    """A refusal as stored under a slip's Idempotency-Key."""
    return {"code": error.code, "detail": error.detail, "extra": error.extra}


def refusal_from(stored: dict[str, Any]) -> WalletError:
    """A stored refusal, to raise again when its key is asked again."""
    return _BY_CODE[stored["code"]](stored["detail"], **stored.get("extra", {}))
