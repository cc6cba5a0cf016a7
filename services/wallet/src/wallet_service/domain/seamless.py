"""The seamless wallet's rules, pure: what an operator's answer to a slip's bet means for
the slip, and what an answer to an owed win or rollback means for the call
(docs/decisions/0066-seamless-slips-and-owed-calls.md).

No I/O here: the outcomes of `teenpatti.seamless` are passed in.
"""

from __future__ import annotations

from dataclasses import dataclass

from teenpatti.seamless.calls import Answered, BadAnswer, CallOutcome, NoAnswer, Status

from .betting import BettingClosedError, InsufficientFundsError, WalletError

# a call's status in `operator_calls`
PENDING, OK, REFUSED, FAILED = "pending", "ok", "refused", "failed"


class LimitReachedError(WalletError):
    code = "limit_reached"


class UserDisabledError(WalletError):
    code = "user_disabled"


class TokenExpiredError(WalletError):
    """The operator refuses the player's session token (expired or not valid)."""

    code = "token_expired"


class OperatorUnavailableError(WalletError):
    """No answer from the operator's wallet server (or none can be asked): the bet is rolled
    back."""

    code = "operator_unavailable"


class OperatorRefusedError(WalletError):
    """Another refusal of the operator; `status` names it."""

    code = "operator_refused"


class BadOperatorAnswerError(WalletError):
    """An answer that cannot be trusted or read; `reason` names what was wrong."""

    code = "bad_operator_answer"


class SeamlessOperatorError(WalletError):
    """A deposit for a seamless operator's player: its money stays with the operator."""

    code = "seamless_operator"


class SlipPendingError(WalletError):
    """A slip under this Idempotency-Key is still waiting for its operator's answer."""

    code = "slip_pending"


# A refusal that says the bet was declined (nothing applied): no rollback. Only
# RS_ERROR_UNKNOWN leaves it open whether the debit happened, so it is rolled back.
_DECLINED: dict[Status, type[WalletError]] = {
    Status.RS_ERROR_NOT_ENOUGH_MONEY: InsufficientFundsError,
    Status.RS_ERROR_LIMIT_REACHED: LimitReachedError,
    Status.RS_ERROR_USER_DISABLED: UserDisabledError,
    Status.RS_ERROR_TOKEN_EXPIRED: TokenExpiredError,
    Status.RS_ERROR_INVALID_TOKEN: TokenExpiredError,
}


@dataclass(frozen=True, slots=True)
class BetVerdict:
    """What a bet's outcome means for its slip: accepted (`refusal` None) or refused with
    `refusal`; `roll_back` when the debit may have happened; `call_status` of the bet's row."""

    refusal: WalletError | None
    roll_back: bool
    call_status: str


def judge_bet(outcome: CallOutcome, *, round_open: bool, round_id: str) -> BetVerdict:
    """The slip's fate from its bet's outcome and whether its round is still open for
    betting once the answer is in (issue 22, item 2; operator-wallet.md, semantics 2, 6)."""
    match outcome:
        case Answered(status=Status.RS_OK):
            if round_open:
                return BetVerdict(None, roll_back=False, call_status=OK)
            return BetVerdict(
                BettingClosedError(
                    f"betting on round {round_id} closed while the operator took the bet;"
                    " it is rolled back"
                ),
                roll_back=True,
                call_status=OK,
            )
        case Answered(status=status):
            declined = _DECLINED.get(status)
            detail = f"the operator refused the bet: {status.value}"
            if declined is not None:
                return BetVerdict(declined(detail, operator_status=status.value), False, REFUSED)
            # RS_ERROR_UNKNOWN: the operator may have debited: undo it
            return BetVerdict(
                OperatorRefusedError(detail, operator_status=status.value),
                roll_back=status is Status.RS_ERROR_UNKNOWN,
                call_status=REFUSED,
            )
        case NoAnswer(reason=reason, detail=detail):
            return BetVerdict(
                OperatorUnavailableError(
                    f"no answer from the operator's wallet ({reason}: {detail}); the bet is"
                    " rolled back",
                    reason=reason,
                ),
                roll_back=True,
                call_status=FAILED,
            )
        case BadAnswer(reason=reason, detail=detail):
            return BetVerdict(
                BadOperatorAnswerError(
                    f"the operator's answer is not usable ({reason}: {detail}); the bet is"
                    " rolled back",
                    reason=reason,
                ),
                roll_back=True,
                call_status=FAILED,
            )
    raise AssertionError(f"not an outcome: {outcome!r}")


# refusals of an owed win or rollback that retrying cannot fix: a person must look
_UNFIXABLE = frozenset(
    {
        Status.RS_ERROR_TRANSACTION_DOES_NOT_EXIST,
        Status.RS_ERROR_DUPLICATE_TRANSACTION,
        Status.RS_ERROR_INVALID_SIGNATURE,
        Status.RS_ERROR_TRANSACTION_ROLLED_BACK,
    }
)


@dataclass(frozen=True, slots=True)
class OwedVerdict:
    """What an attempt of an owed win or rollback leads to: `status` ok, failed, or still
    pending (tried again after a backoff); `error` says why when not ok."""

    status: str
    error: str | None
    bad_answer: bool = False


def judge_owed(
    outcome: CallOutcome, *, bad_answers_before: int, bad_answer_limit: int
) -> OwedVerdict:
    """An owed call is retried until RS_OK (operator-wallet.md, semantics 3), except what
    retrying cannot fix (issue 22, item 3)."""
    match outcome:
        case Answered(status=Status.RS_OK):
            return OwedVerdict(OK, None)
        case Answered(status=status) if status in _UNFIXABLE:
            return OwedVerdict(FAILED, f"the operator refused it: {status.value}")
        case Answered(status=status):
            return OwedVerdict(PENDING, f"the operator answered {status.value}")
        case NoAnswer(reason=reason, detail=detail):
            return OwedVerdict(PENDING, f"no answer ({reason}: {detail})")
        case BadAnswer(reason=reason, detail=detail):
            error = f"an unusable answer ({reason}: {detail})"
            if bad_answers_before + 1 >= bad_answer_limit:
                return OwedVerdict(FAILED, f"{error}, {bad_answers_before + 1} times", True)
            return OwedVerdict(PENDING, error, True)
    raise AssertionError(f"not an outcome: {outcome!r}")
