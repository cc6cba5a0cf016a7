"""What the game side asks an operator's wallet (in our terms: minor units, our ids) and the
three ways a call can end. A protocol adapter turns a call into its dialect's request and
reads the answer back into an outcome."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


@dataclass(frozen=True, slots=True)
class BalanceCall:
    user: str
    token: str
    # not sent: the currency the session was opened in, which the answer must carry
    currency: str


@dataclass(frozen=True, slots=True)
class BetCall:
    """A debit; `transaction_uuid` is its idempotency key (the slip id), the same on every
    attempt. `amount` in minor units of `currency`."""

    user: str
    token: str
    transaction_uuid: str
    round: str
    amount: int
    currency: str
    round_closed: bool = False
    bet: str | None = None
    meta: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class WinCall:
    """A credit settling the bet `reference_transaction_uuid`; `amount` may be 0 (a loss)."""

    user: str
    token: str
    transaction_uuid: str
    reference_transaction_uuid: str
    round: str
    amount: int
    currency: str
    round_closed: bool = False
    bet: str | None = None
    meta: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class RollbackCall:
    """Undo the bet `reference_transaction_uuid`; the operator uses that bet's amount."""

    user: str
    token: str
    transaction_uuid: str
    reference_transaction_uuid: str
    round: str
    # not sent: the bet's currency, which the answer must carry
    currency: str


Call = BalanceCall | BetCall | WinCall | RollbackCall


# what an operator's wallet says it did (Hub88's status codes, which our outcomes keep)
class Status(StrEnum):
    RS_OK = "RS_OK"
    RS_ERROR_UNKNOWN = "RS_ERROR_UNKNOWN"
    RS_ERROR_INVALID_PARTNER = "RS_ERROR_INVALID_PARTNER"
    RS_ERROR_INVALID_TOKEN = "RS_ERROR_INVALID_TOKEN"
    RS_ERROR_INVALID_GAME = "RS_ERROR_INVALID_GAME"
    RS_ERROR_WRONG_CURRENCY = "RS_ERROR_WRONG_CURRENCY"
    RS_ERROR_NOT_ENOUGH_MONEY = "RS_ERROR_NOT_ENOUGH_MONEY"
    RS_ERROR_USER_DISABLED = "RS_ERROR_USER_DISABLED"
    RS_ERROR_INVALID_SIGNATURE = "RS_ERROR_INVALID_SIGNATURE"
    RS_ERROR_TOKEN_EXPIRED = "RS_ERROR_TOKEN_EXPIRED"
    RS_ERROR_WRONG_SYNTAX = "RS_ERROR_WRONG_SYNTAX"
    RS_ERROR_WRONG_TYPES = "RS_ERROR_WRONG_TYPES"
    RS_ERROR_DUPLICATE_TRANSACTION = "RS_ERROR_DUPLICATE_TRANSACTION"
    RS_ERROR_TRANSACTION_DOES_NOT_EXIST = "RS_ERROR_TRANSACTION_DOES_NOT_EXIST"
    RS_ERROR_LIMIT_REACHED = "RS_ERROR_LIMIT_REACHED"
    RS_ERROR_TRANSACTION_ROLLED_BACK = "RS_ERROR_TRANSACTION_ROLLED_BACK"


@dataclass(frozen=True, slots=True)
class Answered:
    """The operator answered, signed and well formed. `status` says what it did; `balance`
    is the player's balance after it, in minor units of `currency`."""

    status: Status
    balance: int
    currency: str
    raw: dict[str, Any]
    request_uuid: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "RS_OK"


@dataclass(frozen=True, slots=True)
class NoAnswer:
    """No answer to read: a timeout, a connection error, an HTTP status other than 200, or a
    body cut off in transit. The call may or may not have been applied.
    `reason`: "timeout" | "connection" | "http_status" | "unreadable"."""

    reason: str
    detail: str = ""
    request_uuid: str = ""


@dataclass(frozen=True, slots=True)
class BadAnswer:
    """An answer that cannot be trusted or understood; the call may or may not have been
    applied. `reason` names what was wrong (`BAD_ANSWER_REASONS`), `raw` is the body as
    received, `detail` says it in a sentence."""

    reason: str
    raw: bytes
    detail: str = ""
    request_uuid: str = ""


CallOutcome = Answered | NoAnswer | BadAnswer

BAD_ANSWER_REASONS = (
    "oversized",  # a body larger than anyone's answer
    "unsigned",  # no signature header
    "wrong_signature",  # a signature that none of the operator's keys verifies
    "malformed",  # not a JSON object, or a field missing or of the wrong type
    "unknown_status",  # a status the protocol does not define
    "wrong_request_uuid",  # the answer to another request
    "wrong_user",  # another player's balance
    "other_currency",  # a balance in another currency than the call's
    "negative_balance",
    "absurd_balance",  # beyond int64, or not a whole number of the currency's minor units
)


@dataclass(frozen=True, slots=True)
class Expected:
    """What an answer must echo to be the answer to this request."""

    request_uuid: str
    user: str
    currency: str
