"""The correction of a round voided after its result, pure: which lines of a reversal part
(`BetsReversed`) the wallet puts right, and what putting them right moves.

Every line is checked against what the wallet holds, never taken on trust: the bet it took,
of a round the table voided (`RoundVoided`, heard on `table.events`), paid with exactly the
outcome and return the line says, its stake refunded in full. A line that does not hold is
refused, and its part parked for a person (`UnknownBetError`, `BetMismatchError`,
`PayoutMismatchError`); a part for a round whose void the wallet has not heard yet waits for
it (`RoundNotVoidedError`). A bet already corrected (a redelivery) is passed over.

What a player is owed or owes is netted per player and currency of the part: the refunds
less the returns taken back. At a transfer wallet a credit is applied whole; a debit takes
what the balance holds, never below zero, and what it cannot cover is the `shortfall`, owed
and listed (`GET /problems`, the transactions API), never lost. At a seamless operator
nothing moves here: the protocol has no call that reverses an ended bet, so the net is
listed for the operator (decision 0084)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple
from uuid import UUID

from teenpatti.events.catalog import BetReversed, BetsReversed

from .betting import UnknownBetError
from .payment import PAID, BetMismatchError, PayoutMismatchError

Account = tuple[str, str, str]  # operator, player, currency


class RoundNotVoidedError(ValueError):
    """A `BetsReversed` line for a round whose `RoundVoided` the wallet has not heard yet:
    nothing is corrected until it has (the consumer tries again)."""


class HeldPaidBet(NamedTuple):
    """A bet as the wallet holds it when its reversal comes."""

    bet_id: UUID
    operator_id: str
    player_id: str
    round_id: str
    bet_type: str
    stake: int
    currency: str
    status: str  # placed or paid
    outcome: str | None
    returned: int | None
    corrected: bool
    seamless: bool  # placed through a seamless operator's wallet


@dataclass(frozen=True, slots=True)
class ReversalPart:
    """A `BetsReversed` as the wallet corrects it, with the id of the event that brought it
    (the reference of its ledger entries and corrections)."""

    event_id: UUID
    correlation_id: UUID
    round_id: str
    table_id: str
    lines: Sequence[BetReversed]


@dataclass(slots=True)
class Group:
    """One player's lines of a part in one currency, and what they come to."""

    operator_id: str
    player_id: str
    currency: str
    seamless: bool
    bets: list[BetReversed] = field(default_factory=list)

    @property
    def refunded(self) -> int:
        return sum(line.refunded for line in self.bets)

    @property
    def reversed(self) -> int:
        return sum(line.returned for line in self.bets)

    @property
    def net(self) -> int:
        return self.refunded - self.reversed


@dataclass(frozen=True, slots=True)
class CorrectionPlan:
    groups: Sequence[Group]  # in the order of the part's lines
    passed_over: Sequence[UUID]  # corrected before


def plan_correction(
    held: Mapping[UUID, HeldPaidBet], voided: Mapping[str, bool], part: ReversalPart
) -> CorrectionPlan:
    """The groups of `part` to correct; raises on the first line that does not hold.
    `voided` tells, for each round the wallet holds, whether the table voided it."""
    kind = BetsReversed.event_type
    groups: dict[Account, Group] = {}
    passed_over: list[UUID] = []
    seen: set[UUID] = set()
    for line in part.lines:
        bet = held.get(line.bet_id)
        if bet is None:
            raise UnknownBetError(f"{kind} for bet {line.bet_id}, which the wallet never took")
        told = (line.operator_id, line.player_id, part.round_id, line.bet_type, line.currency)
        expected = (bet.operator_id, bet.player_id, bet.round_id, bet.bet_type, bet.currency)
        if told != expected or line.stake != bet.stake or line.refunded != bet.stake:
            raise BetMismatchError(
                f"{kind} for bet {line.bet_id} says {told} with stake {line.stake} refunding"
                f" {line.refunded}, the bet is {expected} with stake {bet.stake}"
            )
        if not voided.get(bet.round_id, False):
            raise RoundNotVoidedError(
                f"{kind} for bet {line.bet_id} of round {bet.round_id}, whose void the wallet"
                " has not heard"
            )
        if bet.status != PAID:
            raise BetMismatchError(
                f"{kind} for bet {line.bet_id}, which the wallet has not paid: nothing to reverse"
            )
        if (line.outcome, line.returned) != (bet.outcome, bet.returned):
            raise PayoutMismatchError(
                f"{kind} for bet {line.bet_id} reverses {line.outcome} returning"
                f" {line.returned}, the wallet paid {bet.outcome} returning {bet.returned}"
            )
        if bet.corrected or line.bet_id in seen:
            passed_over.append(line.bet_id)
            continue
        seen.add(line.bet_id)
        account = (bet.operator_id, bet.player_id, bet.currency)
        group = groups.get(account)
        if group is None:
            group = groups[account] = Group(*account, seamless=bet.seamless)
        group.bets.append(line)
    return CorrectionPlan(tuple(groups.values()), tuple(passed_over))


class Applied(NamedTuple):
    applied: int  # the movement of the balance: signed
    shortfall: int  # what the balance could not cover
    balance_after: int


def apply_to_balance(net: int, balance: int) -> Applied:
    """A transfer player's correction against its balance: a credit whole, a debit down to
    zero at most, the rest a shortfall."""
    if net >= 0:
        return Applied(net, 0, balance + net)
    taken = min(-net, balance)
    return Applied(-taken, -net - taken, balance - taken)


def corrections_by_player(groups: Sequence[Group]) -> dict[tuple[str, str], list[Group]]:
    """The groups per player, in their order (a player's events are appended together)."""
    by_player: dict[tuple[str, str], list[Group]] = defaultdict(list)
    for group in groups:
        by_player[(group.operator_id, group.player_id)].append(group)
    return dict(by_player)
