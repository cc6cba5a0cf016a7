"""The cases, in the order they run: each sends what it needs through a `Probe` and judges
the operator's answers against the protocol text (docs/operators.md, "Checking your wallet
before going live")."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from teenpatti.seamless.calls import BalanceCall, Status
from teenpatti.seamless.check.exchanges import Exchange
from teenpatti.seamless.check.probe import Probe, answered, fail, moved
from teenpatti.seamless.hub88 import AmountError, from_protocol
from teenpatti.seamless.signing import SIGNATURE_HEADER, verify

# a round's two bets are open at once; the whole run leaves the balance as it found it (the
# zero win's lost stake is the win case's second stake paid back)
STAKES_NEEDED = 2


async def check_balance(probe: Probe) -> str:
    call = BalanceCall(probe.session.user, probe.session.token, probe.session.currency)
    answer = await probe.answer("balance request", call)
    answered(answer, "balance request", Status.RS_OK)
    currency = probe.session.currency
    if answer.currency != currency:
        fail(f"the balance is in {answer.currency}, the session's currency is {currency}")
    try:
        from_protocol(answer.balance, currency)
    except AmountError as error:
        fail(f"the balance is not a whole number of {currency} minor units ({error})")
    needed = probe.units(STAKES_NEEDED * probe.session.stake)
    if answer.balance < needed:
        fail(
            f"the test player holds {probe.money(answer.balance)}; the check needs at least"
            f" {probe.money(needed)} ({STAKES_NEEDED} stakes): fund it and run again"
        )
    return f"RS_OK, {probe.money(answer.balance)}"


async def check_bet(probe: Probe) -> str:
    before = await probe.balance("balance before the bet")
    bet = probe.bet_call(probe.new_round())
    stake = probe.units(bet.amount)
    answer = await probe.ok("bet", bet)
    moved(probe, "the bet (its answer)", answer.balance, before - stake)
    moved(probe, "the bet (a balance reading)", await probe.balance(), before - stake)
    await probe.send("closing win of the stake", probe.win_call(bet, bet.amount))
    return f"debited exactly {probe.money(stake)}"


async def check_replay(probe: Probe) -> str:
    bet = probe.bet_call(probe.new_round())
    first = await probe.ok("bet", bet)
    again = await probe.answer("same bet sent again", bet)
    answered(again, "same bet sent again (same data, new request_uuid)", Status.RS_OK)
    moved(probe, "the bet sent again (its answer)", again.balance, first.balance)
    moved(probe, "the bet sent again (a balance reading)", await probe.balance(), first.balance)
    win = probe.win_call(bet, bet.amount)
    won = await probe.ok("closing win", win)
    again = await probe.answer("same win sent again", win)
    answered(again, "same win sent again (same data, new request_uuid)", Status.RS_OK)
    moved(probe, "the win sent again (its answer)", again.balance, won.balance)
    moved(probe, "the win sent again (a balance reading)", await probe.balance(), won.balance)
    return "a bet and a win sent twice each moved money once"


async def check_duplicate(probe: Probe) -> str:
    bet = probe.bet_call(probe.new_round())
    first = await probe.ok("bet", bet)
    other = replace(bet, amount=2 * bet.amount)
    answer = await probe.answer("bet with the same transaction_uuid and another amount", other)
    answered(
        answer, "same transaction_uuid with another amount", Status.RS_ERROR_DUPLICATE_TRANSACTION
    )
    moved(probe, "the refused duplicate", await probe.balance(), first.balance)
    await probe.send("closing win of the stake", probe.win_call(bet, bet.amount))
    return "refused RS_ERROR_DUPLICATE_TRANSACTION, nothing moved"


async def check_win(probe: Probe) -> str:
    round_id = probe.new_round()
    first, second = probe.bet_call(round_id), probe.bet_call(round_id)
    await probe.ok("first bet", first)
    placed = await probe.ok("second bet", second)
    amount = 2 * first.amount
    win = probe.win_call(first, amount, round_closed=False)
    won = await probe.ok("win of the first bet (round_closed false)", win)
    credit = probe.units(amount)
    moved(probe, "the win (its answer)", won.balance, placed.balance + credit)
    moved(probe, "the win (a balance reading)", await probe.balance(), placed.balance + credit)
    # the second bet's stake back: the run's balance ends where it began
    await probe.send("closing win of the second bet", probe.win_call(second, second.amount))
    return f"credited exactly {probe.money(credit)}"


async def check_zero_win(probe: Probe) -> str:
    bet = probe.bet_call(probe.new_round())
    placed = await probe.ok("bet", bet)
    answer = await probe.answer("closing win of 0", probe.win_call(bet, 0))
    answered(answer, "win of amount 0 (a lost bet)", Status.RS_OK)
    moved(probe, "the zero win (its answer)", answer.balance, placed.balance)
    moved(probe, "the zero win (a balance reading)", await probe.balance(), placed.balance)
    return "accepted, nothing moved"


async def check_round_close(probe: Probe) -> str:
    round_id = probe.new_round()
    first, last = probe.bet_call(round_id), probe.bet_call(round_id)
    await probe.ok("first bet", first)
    placed = await probe.ok("second bet", last)
    amount = 2 * first.amount
    answer = await probe.answer(
        "one closing win naming the round's last bet", probe.win_call(last, amount)
    )
    answered(answer, "closing win (round_closed true) of a round of two bets", Status.RS_OK)
    credit = probe.units(amount)
    moved(probe, "the closing win (its answer)", answer.balance, placed.balance + credit)
    moved(
        probe, "the closing win (a balance reading)", await probe.balance(), placed.balance + credit
    )
    return f"one closing win for two bets credited exactly {probe.money(credit)}"


async def check_rollback(probe: Probe) -> str:
    bet = probe.bet_call(probe.new_round())
    placed = await probe.ok("bet", bet)
    rollback = probe.rollback_call(bet.transaction_uuid, bet.round)
    answer = await probe.answer("rollback of the bet", rollback)
    answered(answer, "rollback of the bet", Status.RS_OK)
    if answer.currency != probe.session.currency:
        fail(f"the rollback's balance is in {answer.currency}, the bet was in {bet.currency}")
    refund = probe.units(bet.amount)
    moved(probe, "the rollback (its answer)", answer.balance, placed.balance + refund)
    moved(probe, "the rollback (a balance reading)", await probe.balance(), placed.balance + refund)
    again = await probe.answer("same rollback sent again", rollback)
    answered(again, "same rollback sent again (same data, new request_uuid)", Status.RS_OK)
    moved(probe, "the rollback sent again (its answer)", again.balance, placed.balance + refund)
    moved(
        probe,
        "the rollback sent again (a balance reading)",
        await probe.balance(),
        placed.balance + refund,
    )
    return f"credited back exactly {probe.money(refund)}, once"


async def check_unknown_rollback(probe: Probe) -> str:
    before = await probe.balance("balance before")
    late = probe.bet_call(probe.new_round())
    rollback = probe.rollback_call(late.transaction_uuid, late.round)
    answer = await probe.answer("rollback of a bet never sent", rollback)
    answered(answer, "rollback of a bet the operator never saw", Status.RS_OK)
    moved(probe, "the rollback of an unknown bet", await probe.balance(), before)
    refused = await probe.answer("late bet, after its rollback", late)
    answered(refused, "bet arriving after its rollback", Status.RS_ERROR_TRANSACTION_ROLLED_BACK)
    moved(probe, "the late bet", await probe.balance(), before)
    return "RS_OK and nothing moved; the late bet refused RS_ERROR_TRANSACTION_ROLLED_BACK"


async def check_bad_signature(probe: Probe) -> str:
    before = await probe.balance("balance before")
    stranger = probe.stranger_key()

    def doubled(body: dict[str, Any]) -> dict[str, Any]:
        return {**body, "amount": 2 * body["amount"]}

    ways: tuple[tuple[str, dict[str, Any]], ...] = (
        ("bet without a signature", {"unsigned": True}),
        ("bet signed by a key the operator does not know", {"key": stranger}),
        ("bet whose body was altered after signing", {"alter": doubled}),
    )
    for what, options in ways:
        answer = await probe.answer(what, probe.bet_call(probe.new_round()), **options)
        answered(answer, what, Status.RS_ERROR_INVALID_SIGNATURE)
        moved(probe, f"the {what}", await probe.balance(), before)
    return "unsigned, foreign-key and altered bets refused, nothing moved"


async def check_wrong_currency(probe: Probe) -> str:
    before = await probe.balance("balance before")
    other = "USD" if probe.session.currency == "EUR" else "EUR"
    bet = probe.bet_call(probe.new_round(), currency=other)
    answer = await probe.answer(f"bet in {other}", bet)
    answered(
        answer,
        f"bet in {other} on a session in {probe.session.currency}",
        Status.RS_ERROR_WRONG_CURRENCY,
    )
    moved(probe, f"the bet in {other}", await probe.balance(), before)
    return f"a bet in {other} refused RS_ERROR_WRONG_CURRENCY, nothing moved"


async def check_not_enough_money(probe: Probe) -> str:
    before = await probe.balance("balance before")
    factor = probe.units(1)
    amount = before // factor + 1  # one minor unit more than the player holds
    answer = await probe.answer("bet above the balance", probe.bet_call(probe.new_round(), amount))
    if answer.status == Status.RS_ERROR_LIMIT_REACHED:
        fail(
            "the bet above the balance is answered RS_ERROR_LIMIT_REACHED: a bet limit refused it"
            " before the balance was looked at; lift the test player's limit above its balance"
        )
    answered(answer, "bet one minor unit above the balance", Status.RS_ERROR_NOT_ENOUGH_MONEY)
    moved(probe, "the bet above the balance", await probe.balance(), before)
    return "refused RS_ERROR_NOT_ENOUGH_MONEY, nothing moved"


def _answers(probe: Probe) -> list[Exchange]:
    every = [e for e in probe.run_exchanges if e.received is not None and e.received.status == 200]
    if not every:
        fail("the operator answered no request with HTTP 200: there is no answer to judge")
    return every


def _listed(problems: Sequence[tuple[Exchange, str]]) -> str:
    shown = "; ".join(f"{exchange.case}: {why}" for exchange, why in problems[:3])
    more = f"; and {len(problems) - 3} more" if len(problems) > 3 else ""
    return f"{len(problems)} answer(s): {shown}{more}"


async def check_signed_answers(probe: Probe) -> str:
    problems: list[tuple[Exchange, str]] = []
    every = _answers(probe)
    for exchange in every:
        assert exchange.received is not None
        signature = exchange.received.headers.get(SIGNATURE_HEADER.lower())
        if not signature:
            problems.append((exchange, f"the answer to the {exchange.what} is unsigned"))
        elif not verify(probe.operator_keys, exchange.received.body, signature):
            problems.append(
                (exchange, f"the answer to the {exchange.what} does not verify under the key")
            )
    if problems:
        fail(f"unsigned or wrongly signed: {_listed(problems)}", [e for e, _ in problems])
    return f"all {len(every)} answers verify under the operator's key"


async def check_echoed_answers(probe: Probe) -> str:
    problems: list[tuple[Exchange, str]] = []
    every = _answers(probe)
    for exchange in every:
        assert exchange.received is not None
        try:
            fields = json.loads(exchange.received.body)
        except (UnicodeDecodeError, ValueError):
            continue  # not an answer at all: its own case failed on it
        if not isinstance(fields, dict):
            continue
        if fields.get("request_uuid") != exchange.request_uuid:
            problems.append(
                (
                    exchange,
                    f"request_uuid {fields.get('request_uuid')!r}, sent {exchange.request_uuid!r}",
                )
            )
        elif fields.get("user") != exchange.user:
            problems.append((exchange, f"user {fields.get('user')!r}, sent {exchange.user!r}"))
        elif (
            fields.get("status") == Status.RS_OK
            and exchange.currency is not None
            and fields.get("currency") != exchange.currency
        ):
            problems.append(
                (exchange, f"RS_OK in {fields.get('currency')!r}, sent in {exchange.currency!r}")
            )
    if problems:
        fail(
            f"answers that do not echo their request: {_listed(problems)}", [e for e, _ in problems]
        )
    return f"all {len(every)} answers echo their request_uuid, user and currency"


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    title: str
    run: Callable[[Probe], Awaitable[str]]


CASES: tuple[Case, ...] = (
    Case("balance", "/user/balance answers RS_OK in the session's currency", check_balance),
    Case("bet", "a bet debits exactly its amount", check_bet),
    Case("replay", "a bet or win sent again moves nothing and answers RS_OK", check_replay),
    Case(
        "duplicate",
        "a transaction_uuid with other data is refused RS_ERROR_DUPLICATE_TRANSACTION",
        check_duplicate,
    ),
    Case("win", "a win credits exactly its amount", check_win),
    Case("zero-win", "a win of 0 (a lost bet) is accepted", check_zero_win),
    Case("round-close", "one closing win settles a round of two bets", check_round_close),
    Case("rollback", "a rollback credits the bet back, once", check_rollback),
    Case(
        "unknown-rollback",
        "a rollback of an unseen bet is RS_OK; the late bet is refused",
        check_unknown_rollback,
    ),
    Case(
        "bad-signature",
        "a request we did not sign is refused RS_ERROR_INVALID_SIGNATURE",
        check_bad_signature,
    ),
    Case("wrong-currency", "a bet in another currency is refused", check_wrong_currency),
    Case("not-enough-money", "a bet above the balance is refused", check_not_enough_money),
    Case("signed-answers", "every answer is signed with the operator's key", check_signed_answers),
    Case(
        "echoed-answers",
        "every answer echoes its request_uuid, user and currency",
        check_echoed_answers,
    ),
)
