"""The seamless wallet's rules, pure: what an operator's answer to a slip's bet means for the
slip, what an answer to an owed win or rollback means for the call, and a payment that
credits no seamless account (no servers)."""

from __future__ import annotations

from uuid import UUID

import pytest

from teenpatti.seamless import Answered, BadAnswer, NoAnswer, Status
from tests.unit.wallet.test_payment import ROUNDS, bet, held_bets, line, part
from wallet_service.domain.betting import BettingClosedError, InsufficientFundsError
from wallet_service.domain.payment import pay, payout, plan_payment, settling
from wallet_service.domain.seamless import (
    FAILED,
    OK,
    PENDING,
    REFUSED,
    BadOperatorAnswerError,
    LimitReachedError,
    OperatorRefusedError,
    OperatorUnavailableError,
    TokenExpiredError,
    UserDisabledError,
    judge_bet,
    judge_owed,
)


def answered(status: Status) -> Answered:
    return Answered(status, 1_000, "INR", {"status": status.value})


def test_rs_ok_takes_the_slip_while_the_round_is_open() -> None:
    verdict = judge_bet(answered(Status.RS_OK), round_open=True, round_id="R1")
    assert (verdict.refusal, verdict.roll_back, verdict.call_status) == (None, False, OK)


def test_rs_ok_after_betting_closed_refuses_the_slip_and_rolls_the_debit_back() -> None:
    verdict = judge_bet(answered(Status.RS_OK), round_open=False, round_id="R1")
    assert isinstance(verdict.refusal, BettingClosedError)
    assert (verdict.roll_back, verdict.call_status) == (True, OK)


@pytest.mark.parametrize(
    ("status", "refusal"),
    [
        (Status.RS_ERROR_NOT_ENOUGH_MONEY, InsufficientFundsError),
        (Status.RS_ERROR_LIMIT_REACHED, LimitReachedError),
        (Status.RS_ERROR_USER_DISABLED, UserDisabledError),
        (Status.RS_ERROR_TOKEN_EXPIRED, TokenExpiredError),
        (Status.RS_ERROR_INVALID_TOKEN, TokenExpiredError),
        (Status.RS_ERROR_INVALID_SIGNATURE, OperatorRefusedError),
        (Status.RS_ERROR_DUPLICATE_TRANSACTION, OperatorRefusedError),
        (Status.RS_ERROR_TRANSACTION_ROLLED_BACK, OperatorRefusedError),
    ],
)
def test_a_declined_bet_is_refused_with_the_operators_reason_and_not_rolled_back(
    status: Status, refusal: type[Exception]
) -> None:
    verdict = judge_bet(answered(status), round_open=True, round_id="R1")
    assert type(verdict.refusal) is refusal
    assert (verdict.roll_back, verdict.call_status) == (False, REFUSED)
    assert verdict.refusal is not None
    assert verdict.refusal.extra["operator_status"] == status.value


def test_an_unknown_error_may_have_debited_so_it_is_rolled_back() -> None:
    verdict = judge_bet(answered(Status.RS_ERROR_UNKNOWN), round_open=True, round_id="R1")
    assert isinstance(verdict.refusal, OperatorRefusedError)
    assert verdict.roll_back


def test_no_answer_or_a_bad_answer_refuses_the_slip_and_rolls_the_bet_back() -> None:
    lost = judge_bet(NoAnswer("timeout", "no answer within 3 s"), round_open=True, round_id="R")
    assert isinstance(lost.refusal, OperatorUnavailableError)
    assert (lost.roll_back, lost.call_status) == (True, FAILED)
    bad = judge_bet(
        BadAnswer("wrong_request_uuid", b"{}", "another request"), round_open=True, round_id="R"
    )
    assert isinstance(bad.refusal, BadOperatorAnswerError)
    assert bad.refusal.extra == {"reason": "wrong_request_uuid"}
    assert (bad.roll_back, bad.call_status) == (True, FAILED)


@pytest.mark.parametrize(
    "outcome",
    [
        NoAnswer("http_status", "HTTP 503"),
        answered(Status.RS_ERROR_UNKNOWN),
        answered(Status.RS_ERROR_TOKEN_EXPIRED),
    ],
)
def test_an_owed_call_is_retried_on_what_retrying_can_fix(
    outcome: NoAnswer | Answered,
) -> None:
    verdict = judge_owed(outcome, bad_answers_before=0, bad_answer_limit=5)
    assert verdict.status == PENDING
    assert verdict.error


@pytest.mark.parametrize(
    "status",
    [
        Status.RS_ERROR_TRANSACTION_DOES_NOT_EXIST,
        Status.RS_ERROR_DUPLICATE_TRANSACTION,
        Status.RS_ERROR_INVALID_SIGNATURE,
        Status.RS_ERROR_TRANSACTION_ROLLED_BACK,
    ],
)
def test_an_owed_call_refused_for_good_fails_for_a_person(status: Status) -> None:
    verdict = judge_owed(answered(status), bad_answers_before=0, bad_answer_limit=5)
    assert verdict.status == FAILED
    assert status.value in (verdict.error or "")


def test_an_owed_call_ok_is_done_and_bad_answers_fail_it_at_the_limit() -> None:
    assert judge_owed(answered(Status.RS_OK), bad_answers_before=0, bad_answer_limit=5).status == OK
    bad = BadAnswer("unsigned", b"{}", "no signature")
    assert judge_owed(bad, bad_answers_before=3, bad_answer_limit=5).status == PENDING
    last = judge_owed(bad, bad_answers_before=4, bad_answer_limit=5)
    assert (last.status, last.bad_answer) == (FAILED, True)


def test_a_seamless_players_payment_credits_no_account_and_writes_no_ledger_entry() -> None:
    seamless, transfer = (
        bet(1, "s1", "player_a"),
        bet(2, "t1", "player_a", operator_id="operator-2"),
    )
    rule = settling(ROUNDS[seamless.round_id])
    assert rule is not None and not isinstance(rule, str)
    outcome, returned = payout(seamless, rule)
    assert returned > 0
    plan = plan_payment(
        held_bets(seamless, transfer),
        ROUNDS,
        [part(1, line(seamless, outcome, returned), line(transfer, outcome, returned))],
    )
    unheld = {("operator-1", "s1", "INR")}
    payment = pay(plan, {("operator-2", "t1", "INR"): 500}, unheld)
    assert {(e.operator_id, e.player_id) for e in payment.ledger} == {
        ("operator-2", "t1"),
        ("operator-2", None),
    }
    balances = {
        player: [
            line_.balance_after for run in runs for event in run.events for line_ in event.bets
        ]
        for (_, player), runs in payment.runs.items()
    }
    # the operator holds a seamless player's balance: the event does not claim one
    assert balances == {"s1": [0], "t1": [500 + returned]}
    wallets = {
        player: {event.wallet for run in runs for event in run.events}
        for (_, player), runs in payment.runs.items()
    }
    assert wallets == {"s1": {"seamless"}, "t1": {"transfer"}}
    assert {paid.bet_id for paid in payment.paid} == {UUID(int=1), UUID(int=2)}
