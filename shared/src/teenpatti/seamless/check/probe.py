"""What a case does to the operator (`Probe`: signed calls, each recorded) and how it reads
an answer: strictly, against the protocol text, on its own."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, NoReturn, Protocol

from teenpatti.seamless.calls import BalanceCall, BetCall, Call, RollbackCall, Status, WinCall
from teenpatti.seamless.check.exchanges import (
    Exchange,
    NoAnswerError,
    Received,
    Sent,
    Transport,
    UnreachableError,
)
from teenpatti.seamless.config import GAME_CODE
from teenpatti.seamless.hub88 import (
    INT64_MAX,
    PROTOCOL_DECIMALS,
    Hub88Adapter,
    currency_decimals,
    encode,
    to_protocol,
)
from teenpatti.seamless.signing import SIGNATURE_HEADER, PrivateKey, PublicKey, sign

_ADAPTER = Hub88Adapter()


@dataclass(frozen=True, slots=True)
class Session:
    """The operator's test player and the session token it issued; `stake` in minor units."""

    user: str
    token: str
    currency: str
    stake: int
    game_code: str = GAME_CODE


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
_CURRENCY = re.compile(r"^[A-Z]{3}$")


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
    if not (isinstance(currency, str) and _CURRENCY.fullmatch(currency)):
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


class Run(Protocol):
    """What a probe uses of the run it belongs to (`OperatorCheck`)."""

    session: Session
    signing_key: PrivateKey
    operator_keys: Sequence[PublicKey]
    transport: Transport
    exchanges: list[Exchange]
    answered: bool  # whether the operator answered anything yet

    def new_id(self) -> str: ...

    def stranger_key(self) -> PrivateKey: ...


class Probe:
    """What one case does to the operator: signed calls, each recorded as an exchange; the
    bets it leaves open, to be rolled back when it ends."""

    def __init__(self, check: Run, case: str) -> None:
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
        currency: str | None = None,
    ) -> BetCall:
        return BetCall(
            user=self.session.user,
            token=self.session.token,
            transaction_uuid=self.new_id(),
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
