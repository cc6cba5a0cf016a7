"""An operator's wallet server checked against the seamless wallet protocol, case by case,
before it goes live (`teenpatti operator-check`; docs/operators.md, "Checking your wallet
before going live"; docs/decisions/0091-an-operator-checks-its-wallet.md).

The requests are the game side's own: our calls written by the Hub88 adapter and signed with
our key, as the wallet sends them. The verdicts are not the client's outcome classes: each
case reads the operator's answers itself, strictly, against the protocol text. Each case
judges one thing, relative to the balance the operator reported just before it, so that one
fault fails one case; whether the answers are signed and echo their request is judged over
every answer of the run by the two last cases. A bet a case leaves open (a failure, or no
answer) is rolled back before the next case, so a run leaves nothing owed behind.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from types import TracebackType
from typing import Any, NoReturn, Protocol, Self
from uuid import uuid4

import httpx

from teenpatti.seamless.calls import BalanceCall, BetCall, Call, RollbackCall, WinCall
from teenpatti.seamless.config import GAME_CODE
from teenpatti.seamless.hub88 import (
    INT64_MAX,
    PROTOCOL_DECIMALS,
    AmountError,
    Hub88Adapter,
    Status,
    currency_decimals,
    encode,
    from_protocol,
    to_protocol,
)
from teenpatti.seamless.signing import (
    SIGNATURE_HEADER,
    PrivateKey,
    PublicKey,
    generate_private_key,
    sign,
    verify,
)

# a round's two bets are open at once; the whole run leaves the balance as it found it (the
# zero win's lost stake is the win case's second stake paid back)
STAKES_NEEDED = 2
REDACTED_TOKEN = "<token>"
_SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
_ADAPTER = Hub88Adapter()


@dataclass(frozen=True, slots=True)
class Session:
    """The operator's test player and the session token it issued; `stake` in minor units."""

    user: str
    token: str
    currency: str
    stake: int
    game_code: str = GAME_CODE


# --- the wire ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sent:
    path: str
    headers: Mapping[str, str]
    body: bytes


@dataclass(frozen=True, slots=True)
class Received:
    status: int
    headers: Mapping[str, str]  # names in lower case
    body: bytes


@dataclass(frozen=True, slots=True)
class Exchange:
    """One HTTP attempt of a case: what was sent and what came back (`received` None: no
    answer, `problem` says why). `currency` is the request's own, where it names one."""

    case: str
    what: str
    request_uuid: str
    user: str
    currency: str | None
    sent: Sent
    received: Received | None
    problem: str = ""


class NoAnswerError(Exception):
    """The attempt got no HTTP answer (a timeout, a connection cut off)."""


class UnreachableError(Exception):
    """The operator's server cannot be connected to at all."""


class Transport(Protocol):
    async def post(self, path: str, body: bytes, headers: Mapping[str, str]) -> Received: ...


class HttpTransport:
    """POSTs to the operator's base URL over httpx, one deadline per attempt, no redirect
    followed (an answer other than 200 is no answer)."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout_seconds: float = 10.0,
        verify_tls: Any = True,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._base_url = base_url.rstrip("/")
        self._timeout = timeout_seconds
        self._client = httpx.AsyncClient(
            transport=transport, verify=verify_tls, timeout=None, follow_redirects=False
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self._client.aclose()

    async def post(self, path: str, body: bytes, headers: Mapping[str, str]) -> Received:
        try:
            async with asyncio.timeout(self._timeout):
                response = await self._client.post(
                    self._base_url + path, content=body, headers=dict(headers)
                )
        except TimeoutError:
            raise NoAnswerError(f"no answer within {self._timeout:g} s") from None
        except httpx.ConnectError as error:
            raise UnreachableError(_describe(error)) from None
        except httpx.HTTPError as error:
            raise NoAnswerError(_describe(error)) from None
        return Received(
            response.status_code,
            {name.lower(): value for name, value in response.headers.items()},
            response.content,
        )


def _describe(error: Exception) -> str:
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


# --- reading an answer ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer's five fields, as the protocol types them; `balance` in protocol units."""

    user: str
    status: str
    request_uuid: str
    currency: str
    balance: int


class CaseFailedError(Exception):
    """A case's verdict: FAIL, and why; `exchanges` are the ones to show (default: the
    case's own)."""

    def __init__(self, reason: str, exchanges: Sequence[Exchange] | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.exchanges = exchanges


def fail(reason: str, exchanges: Sequence[Exchange] | None = None) -> NoReturn:
    raise CaseFailedError(reason, exchanges)


_STATUSES = frozenset(status.value for status in Status)


def read_answer(exchange: Exchange) -> Answer:
    """The answer of `exchange`, read strictly: HTTP 200 and a JSON object holding the five
    fields of their types (no float or string balance, a status the protocol defines, a
    currency of three capital letters, a balance from 0 to int64). Anything else fails the
    case: the game side could not read it either (docs/operators.md, "Answers")."""
    received = exchange.received
    if received is None:
        fail(f"the {exchange.what} got no answer: {exchange.problem}")
    if received.status != 200:
        fail(f"the {exchange.what} got HTTP {received.status}, not 200: no answer")
    try:
        fields = json.loads(received.body)
    except (UnicodeDecodeError, ValueError) as error:
        fail(f"the answer to the {exchange.what} is not JSON: {error}")
    if not isinstance(fields, dict):
        fail(f"the answer to the {exchange.what} is not a JSON object")
    wrong = [
        name
        for name, kind in (("user", str), ("status", str), ("request_uuid", str))
        if not isinstance(fields.get(name), kind)
    ]
    currency, balance = fields.get("currency"), fields.get("balance")
    if not (isinstance(currency, str) and len(currency) == 3 and currency.isupper()):
        wrong.append("currency")
    if type(balance) is int and balance < 0:
        fail(f"the answer to the {exchange.what} has a negative balance, {balance}")
    if type(balance) is not int or balance > INT64_MAX:
        wrong.append("balance")
    if wrong:
        shown = ", ".join(f"{name} {fields.get(name, '(missing)')!r}" for name in wrong)
        fail(f"the answer to the {exchange.what} has fields missing or of a wrong type: {shown}")
    if fields["status"] not in _STATUSES:
        fail(
            f"the answer to the {exchange.what} has status {fields['status']!r},"
            " which the protocol does not define"
        )
    return Answer(
        fields["user"],
        fields["status"],
        fields["request_uuid"],
        fields["currency"],
        fields["balance"],
    )


# --- a case's calls ------------------------------------------------------------------------


class Probe:
    """What one case does to the operator: signed calls, each recorded as an exchange; the
    bets it leaves open, to be rolled back when it ends."""

    def __init__(self, check: OperatorCheck, case: str) -> None:
        self._check = check
        self.case = case
        self.session = check.session
        self.exchanges: list[Exchange] = []
        # bets the operator may hold open: taken (RS_OK) or without an answer
        self._open: dict[str, BetCall] = {}

    @property
    def run_exchanges(self) -> Sequence[Exchange]:
        """Every exchange of the run so far, this case's included."""
        return [*self._check.exchanges, *self.exchanges]

    @property
    def operator_keys(self) -> Sequence[PublicKey]:
        return self._check.operator_keys

    def stranger_key(self) -> PrivateKey:
        return self._check.stranger_key()

    def units(self, minor: int) -> int:
        return to_protocol(minor, self.session.currency)

    def new_id(self) -> str:
        return self._check.new_id()

    def new_round(self) -> str:
        return f"operator-check-{self.new_id()}"

    def bet_call(
        self,
        round_id: str,
        amount: int | None = None,
        *,
        transaction_uuid: str | None = None,
        currency: str | None = None,
    ) -> BetCall:
        return BetCall(
            user=self.session.user,
            token=self.session.token,
            transaction_uuid=transaction_uuid or self.new_id(),
            round=round_id,
            amount=self.session.stake if amount is None else amount,
            currency=currency or self.session.currency,
            bet="player_a",
            meta={"operator_check": self.case},
        )

    def win_call(self, bet: BetCall, amount: int, *, round_closed: bool = True) -> WinCall:
        return WinCall(
            user=self.session.user,
            token=self.session.token,
            transaction_uuid=self.new_id(),
            reference_transaction_uuid=bet.transaction_uuid,
            round=bet.round,
            amount=amount,
            currency=self.session.currency,
            round_closed=round_closed,
            bet=bet.bet,
            meta={"operator_check": self.case},
        )

    def rollback_call(self, transaction_uuid: str, round_id: str) -> RollbackCall:
        return RollbackCall(
            user=self.session.user,
            token=self.session.token,
            transaction_uuid=self.new_id(),
            reference_transaction_uuid=transaction_uuid,
            round=round_id,
            currency=self.session.currency,
        )

    async def send(
        self,
        what: str,
        call: Call,
        *,
        key: PrivateKey | None = None,
        unsigned: bool = False,
        alter: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> Exchange:
        """One attempt of `call` with a fresh request_uuid, signed with our key (or `key`, or
        not at all), its body changed by `alter` after signing (a body altered in transit)."""
        request_uuid = self.new_id()
        path, request = _ADAPTER.request(call, self.session.game_code, request_uuid)
        signed = encode(request)
        body = signed
        if alter is not None:
            body = json.dumps(alter(json.loads(signed)), separators=(",", ":")).encode()
        headers = {"Content-Type": "application/json"}
        if not unsigned:
            headers[SIGNATURE_HEADER] = sign(key or self._check.signing_key, signed)
        currency = call.currency if isinstance(call, BetCall | WinCall) else None
        sent = Sent(path, headers, body)
        try:
            received: Received | None = await self._check.transport.post(path, body, headers)
            problem = ""
        except NoAnswerError as error:
            received, problem = None, str(error)
        except UnreachableError as error:
            if not self._check.answered:
                raise
            received, problem = None, f"the connection failed: {error}"
        exchange = Exchange(
            self.case, what, request_uuid, call.user, currency, sent, received, problem
        )
        self.exchanges.append(exchange)
        self._check.answered |= received is not None
        self._follow(call, exchange)
        return exchange

    def _follow(self, call: Call, exchange: Exchange) -> None:
        """Which bets the operator may now hold open: the game side rolls back a bet without
        an answer, as the protocol says."""
        try:
            status = read_answer(exchange).status
        except CaseFailedError:
            status = None
        if isinstance(call, WinCall):
            if status == Status.RS_OK:
                self._open.pop(call.reference_transaction_uuid, None)
                if call.round_closed:
                    for uuid, bet in list(self._open.items()):
                        if bet.round == call.round:
                            del self._open[uuid]
        elif isinstance(call, BetCall):
            if status is None or status == Status.RS_OK:
                self._open.setdefault(call.transaction_uuid, call)
        elif isinstance(call, RollbackCall) and status == Status.RS_OK:
            self._open.pop(call.reference_transaction_uuid, None)

    async def answer(self, what: str, call: Call, **options: Any) -> Answer:
        return read_answer(await self.send(what, call, **options))

    async def ok(self, what: str, call: Call) -> Answer:
        """The answer to `call`, which must be RS_OK."""
        answer = await self.answer(what, call)
        if answer.status != Status.RS_OK:
            fail(f"the {what} is answered {answer.status}, not RS_OK")
        return answer

    async def balance(self, what: str = "balance reading") -> int:
        """The player's balance now (protocol units), from /user/balance."""
        call = BalanceCall(self.session.user, self.session.token, self.session.currency)
        answer = await self.answer(what, call)
        if answer.status != Status.RS_OK:
            fail(f"the {what} (/user/balance) is answered {answer.status}: see the balance case")
        return answer.balance

    async def tidy(self) -> None:
        """Roll back every bet the case left open, whatever the answers."""
        for bet in list(self._open.values()):
            rollback = self.rollback_call(bet.transaction_uuid, bet.round)
            await self.send(f"rollback of the bet {bet.transaction_uuid} left open", rollback)

    def money(self, units: int) -> str:
        return money(units, self.session.currency)


def money(units: int, currency: str) -> str:
    """Protocol units with the currency amount beside them: `99800000 (998.00 INR)`."""
    decimals = currency_decimals(currency)
    amount = Decimal(units).scaleb(-PROTOCOL_DECIMALS)
    if units % 10 ** (PROTOCOL_DECIMALS - decimals) == 0:
        amount = amount.quantize(Decimal(1).scaleb(-decimals))
    return f"{units} ({amount:,} {currency})"


def moved(probe: Probe, what: str, got: int, expected: int) -> None:
    """Fails unless the balance `got` after `what` is `expected`."""
    if got != expected:
        fail(
            f"after {what} the balance is {probe.money(got)}, not {probe.money(expected)}"
            f" (off by {got - expected:+d} units)"
        )


def answered(answer: Answer, what: str, status: Status) -> None:
    if answer.status != status:
        fail(f"the {what} is answered {answer.status}, not {status.value}")


# --- the cases -----------------------------------------------------------------------------


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
    moved(probe, "the rollback sent again", await probe.balance(), placed.balance + refund)
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


# --- the run -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CaseResult:
    name: str
    title: str
    passed: bool
    detail: str  # what passed, or why it failed
    exchanges: tuple[Exchange, ...] = ()  # a failure's: what was sent and received


@dataclass(frozen=True, slots=True)
class Report:
    session: Session
    results: tuple[CaseResult, ...]

    @property
    def passed(self) -> bool:
        return all(result.passed for result in self.results)

    def result(self, name: str) -> CaseResult:
        return next(result for result in self.results if result.name == name)


@dataclass
class OperatorCheck:
    """Runs the cases in order against one operator; every case gets fresh ids and rounds."""

    transport: Transport
    signing_key: PrivateKey
    operator_keys: Sequence[PublicKey]
    session: Session
    new_id: Callable[[], str] = field(default=lambda: str(uuid4()))
    exchanges: list[Exchange] = field(default_factory=list)
    answered: bool = False
    _stranger: PrivateKey | None = None

    def stranger_key(self) -> PrivateKey:
        """A key the operator cannot know, made for this run."""
        if self._stranger is None:
            self._stranger = generate_private_key()
        return self._stranger

    async def run(self, cases: Sequence[Case] = CASES) -> Report:
        """Every case's verdict. Raises UnreachableError when the operator's server cannot
        be connected to before it answered anything."""
        results: list[CaseResult] = []
        for case in cases:
            probe = Probe(self, case.name)
            try:
                detail = await case.run(probe)
                result = CaseResult(case.name, case.title, True, detail)
            except CaseFailedError as failure:
                shown = failure.exchanges if failure.exchanges is not None else probe.exchanges
                result = CaseResult(case.name, case.title, False, failure.reason, tuple(shown))
            try:
                await probe.tidy()
            finally:
                self.exchanges.extend(probe.exchanges)
            results.append(result)
        return Report(self.session, tuple(results))


# --- showing an exchange without its secrets -----------------------------------------------


def redact(text: str, secrets: Sequence[str]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED_TOKEN)
            escaped = json.dumps(secret)[1:-1]
            if escaped != secret:
                text = text.replace(escaped, REDACTED_TOKEN)
    return text


def _headers(headers: Mapping[str, str], secrets: Sequence[str]) -> dict[str, str]:
    return {
        name: "<redacted>" if name.lower() in _SECRET_HEADERS else redact(value, secrets)
        for name, value in headers.items()
    }


def exchange_view(exchange: Exchange, secrets: Sequence[str]) -> dict[str, Any]:
    """An exchange as it is shown: the session token (and any secret header) replaced."""
    received = exchange.received
    return {
        "what": exchange.what,
        "sent": {
            "method": "POST",
            "path": exchange.sent.path,
            "headers": _headers(exchange.sent.headers, secrets),
            "body": redact(exchange.sent.body.decode("utf-8", "replace"), secrets),
        },
        "received": None
        if received is None
        else {
            "status": received.status,
            "headers": _headers(received.headers, secrets),
            "body": redact(received.body.decode("utf-8", "replace"), secrets),
        },
        "problem": exchange.problem,
    }
