"""The Hub88 operator wallet protocol on the wire (/work/shared/operator-wallet.md): its
requests and answer, its status codes, its amounts, and the adapter that turns our calls
into its requests and its answers into outcomes.

Amounts and balances are int64 in protocol units, the currency amount x 100,000 (3.56 INR is
356000); our minor units convert exactly both ways or not at all. An answer is trusted only
once its signature verifies over the bytes as received, and only if it is the answer to the
request sent: its `request_uuid`, `user` and (when it applied the call) `currency` echo the
request's (docs/decisions/0064-the-operator-wallet-wire.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from teenpatti.currencies import UnknownCurrencyError, exponent
from teenpatti.seamless.calls import (
    Answered,
    BadAnswer,
    BalanceCall,
    BetCall,
    Call,
    Expected,
    RollbackCall,
    Status,
    WinCall,
)
from teenpatti.seamless.signing import SIGNATURE_HEADER, PublicKey, verify

# --- amounts -------------------------------------------------------------------------------

INT64_MAX = 2**63 - 1
PROTOCOL_DECIMALS = 5
_CURRENCY = re.compile(r"^[A-Z]{3}$")


class AmountError(ValueError):
    """An amount that has no exact value on the other side, or is not an amount at all."""


def currency_decimals(currency: str) -> int:
    """The decimals of the currency's minor unit (ISO 4217, the one table teenpatti.currencies);
    a currency outside it has no exact amount here."""
    if not _CURRENCY.fullmatch(currency):
        raise AmountError(f"{currency!r} is not an ISO 4217 currency code")
    try:
        return exponent(currency)
    except UnknownCurrencyError as error:
        raise AmountError(str(error)) from None


def _factor(currency: str) -> int:
    return int(10 ** (PROTOCOL_DECIMALS - currency_decimals(currency)))


def _whole(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise AmountError(f"{what} {value!r} is not an integer")
    if not -INT64_MAX - 1 <= value <= INT64_MAX:
        raise AmountError(f"{what} {value} is beyond int64")
    return value


def to_protocol(minor: int, currency: str) -> int:
    """Minor units of `currency` as protocol units (x 1,000 for a two-decimal currency)."""
    return _whole(_whole(minor, "amount") * _factor(currency), "amount in protocol units")


def from_protocol(units: int, currency: str) -> int:
    """Protocol units as minor units of `currency`; refuses a fraction of a minor unit."""
    quotient, remainder = divmod(_whole(units, "protocol amount"), _factor(currency))
    if remainder:
        raise AmountError(f"{units} protocol units is not a whole number of {currency} minor units")
    return quotient


# --- the wire ------------------------------------------------------------------------------

BALANCE_PATH = "/user/balance"
BET_PATH = "/transaction/bet"
WIN_PATH = "/transaction/win"
ROLLBACK_PATH = "/transaction/rollback"

Int64 = Annotated[int, Field(ge=-INT64_MAX - 1, le=INT64_MAX)]
Units = Annotated[int, Field(ge=0, le=INT64_MAX)]
CurrencyCode = Annotated[str, Field(pattern=r"^[A-Z]{3}$")]


class _Wire(BaseModel):
    # "Unknown fields are ignored by both sides"; types are strict: never a float amount
    model_config = ConfigDict(frozen=True, extra="ignore", strict=True)


class BalanceRequest(_Wire):
    user: str
    token: str
    game_code: str
    request_uuid: str


class BetRequest(BalanceRequest):
    transaction_uuid: str
    round: str
    round_closed: bool
    amount: Units
    currency: CurrencyCode
    bet: str | None = None
    meta: dict[str, Any] | None = None


class WinRequest(BetRequest):
    reference_transaction_uuid: str


class RollbackRequest(BalanceRequest):
    transaction_uuid: str
    reference_transaction_uuid: str
    round: str


class Answer(_Wire):
    """Every answer's body. `status` stays a string here: an unknown one is named as such."""

    user: str
    status: str
    request_uuid: str
    currency: CurrencyCode
    balance: int


Request = BalanceRequest | BetRequest | WinRequest | RollbackRequest


def encode(message: _Wire) -> bytes:
    """The body bytes to sign and send: compact JSON, no floats."""
    return message.model_dump_json().encode()


# --- the adapter ---------------------------------------------------------------------------


class Hub88Adapter:
    """Our calls as Hub88 requests, Hub88 answers as outcomes."""

    signature_header = SIGNATURE_HEADER

    def request(self, call: Call, game_code: str, request_uuid: str) -> tuple[str, Request]:
        """The path and the request for one attempt of `call`."""
        who = {"user": call.user, "token": call.token, "game_code": game_code}
        match call:
            case BalanceCall():
                return BALANCE_PATH, BalanceRequest(**who, request_uuid=request_uuid)
            case BetCall():
                return BET_PATH, BetRequest(
                    **who,
                    request_uuid=request_uuid,
                    transaction_uuid=call.transaction_uuid,
                    round=call.round,
                    round_closed=call.round_closed,
                    amount=to_protocol(call.amount, call.currency),
                    currency=call.currency,
                    bet=call.bet,
                    meta=dict(call.meta) if call.meta is not None else None,
                )
            case WinCall():
                return WIN_PATH, WinRequest(
                    **who,
                    request_uuid=request_uuid,
                    transaction_uuid=call.transaction_uuid,
                    reference_transaction_uuid=call.reference_transaction_uuid,
                    round=call.round,
                    round_closed=call.round_closed,
                    amount=to_protocol(call.amount, call.currency),
                    currency=call.currency,
                    bet=call.bet,
                    meta=dict(call.meta) if call.meta is not None else None,
                )
            case RollbackCall():
                return ROLLBACK_PATH, RollbackRequest(
                    **who,
                    request_uuid=request_uuid,
                    transaction_uuid=call.transaction_uuid,
                    reference_transaction_uuid=call.reference_transaction_uuid,
                    round=call.round,
                )

    def read_answer(
        self,
        body: bytes,
        signature: str | None,
        public_keys: Sequence[PublicKey],
        expected: Expected,
    ) -> Answered | BadAnswer:
        """The outcome an HTTP 200 body stands for; anything untrustworthy is a BadAnswer."""

        def bad(reason: str, detail: str) -> BadAnswer:
            return BadAnswer(reason, body, detail, expected.request_uuid)

        # the signature first, over the bytes as received: nothing unsigned is parsed
        if not signature:
            return bad("unsigned", f"the answer has no {SIGNATURE_HEADER} header")
        if not verify(public_keys, body, signature):
            return bad("wrong_signature", "none of the operator's keys verifies the answer")
        try:
            fields = json.loads(body)
        except (UnicodeDecodeError, ValueError) as error:
            return bad("malformed", f"the answer is not JSON: {error}")
        if not isinstance(fields, dict):
            return bad("malformed", "the answer is not a JSON object")
        try:
            answer = Answer.model_validate(fields)
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(str(part) for part in problem['loc'])}: {problem['msg']}"
                for problem in error.errors()
            )
            return bad("malformed", f"the answer's fields are wrong: {problems}")
        if answer.request_uuid != expected.request_uuid:
            return bad(
                "wrong_request_uuid",
                f"request_uuid {answer.request_uuid!r} answers another request than"
                f" {expected.request_uuid!r}",
            )
        try:
            status = Status(answer.status)
        except ValueError:
            return bad("unknown_status", f"status {answer.status!r} is not in the protocol")
        if answer.user != expected.user:
            return bad("wrong_user", f"user {answer.user!r} is not {expected.user!r}")
        # a refusal may name the player's own currency (RS_ERROR_WRONG_CURRENCY); an applied
        # call's balance must be in the call's
        if status is Status.RS_OK and answer.currency != expected.currency:
            return bad(
                "other_currency",
                f"a balance in {answer.currency}, the call was in {expected.currency}",
            )
        if answer.balance < 0:
            return bad("negative_balance", f"balance {answer.balance} is negative")
        try:
            balance = from_protocol(answer.balance, answer.currency)
        except AmountError as error:
            return bad("absurd_balance", f"balance: {error}")
        return Answered(status, balance, answer.currency, fields, expected.request_uuid)
