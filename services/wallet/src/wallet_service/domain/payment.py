"""The payment of settled bets, pure: which lines of a batch of settlement parts
(`BetsSettled`) the wallet pays, and what paying them writes.

Paying takes two steps around the one statement that credits the accounts and answers with
their new balances (so the balances cost no read of their own):

1. `plan_payment(held, rounds, parts)`: each line is checked against the bet the wallet
   holds and against what the rules engine settles it to, with the round's own cards and pay
   table (`payout`): the wallet pays what it computes, never merely what it is told. A line
   for a bet the wallet never took (`UnknownBetError`), one that does not describe the bet
   (`BetMismatchError`), or one whose outcome or return is not the engine's
   (`PayoutMismatchError`), paid or not, is refused: a forgery is parked for a person to
   see. A line for a round whose result or cancellation the wallet does not hold yet is
   refused too (`RoundNotSettledError`): its consumer waits for the result and tries again.
   One refusal fails the whole batch. A line for a bet already paid (a republished
   settlement), or paid earlier in the batch, is passed over. The plan holds the lines to
   pay and each account's credit, zero returns included.
2. `pay(plan, balances)`: from each credited account's balance before the credit, what the
   payment writes: the ledger's entries, the bets marked paid and, per player, the
   `BetsPaid` events in the order to append them, `balance_after` running over the lines in
   the order the settlements came.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Any, NamedTuple
from uuid import UUID

from teenpatti import engine
from teenpatti.events.catalog import BetPaid, BetSettled, BetsPaid, BetsSettled
from teenpatti.events.compiled import checked

from .betting import CANCELLED, CLOSED, LedgerEntry, UnknownBetError

Account = tuple[str, str, str]  # operator, player, currency
Player = tuple[str, str]  # operator, player

PAID = "paid"  # a bet's status once paid ("placed" before)


class BetMismatchError(ValueError):
    """A `BetsSettled` line that does not describe the bet the wallet holds: parked, never
    paid."""


class PayoutMismatchError(BetMismatchError):
    """A `BetsSettled` line whose outcome or return is not what the rules engine settles its
    bet to, with the round's cards and pay table: parked, never paid."""


class RoundNotSettledError(ValueError):
    """A `BetsSettled` line for a round whose result (or cancellation) the wallet does not
    hold yet: nothing can be checked, so nothing is paid until it does."""


Refusal = type[UnknownBetError] | type[BetMismatchError] | type[RoundNotSettledError]


class HeldBet(NamedTuple):
    """A bet as the wallet holds it when its settlement comes (a tuple: one is made per bet
    paid, from its row as read)."""

    bet_id: UUID
    operator_id: str
    player_id: str
    round_id: str
    table_id: str
    bet_type: str
    stake: int
    currency: str
    status: str  # "placed" or "paid"
    slip_id: UUID  # the slip it was placed in


class HeldRound(NamedTuple):
    """A round as the wallet holds it when its bets' settlement comes: what it needs to
    settle them itself (docs/decisions/0048)."""

    round_id: str
    status: str  # open, sealed, closed or cancelled
    cards: tuple[str, ...] | None  # RoundClosed's, A1 B1 A2 B2 A3 B3
    paytable: Mapping[str, Any] | None  # RoundOpened's, the engine's mapping form


# a round's rules, one per bet type, as the engine settles that type's bets (`engine.bet_rule`)
Rules = Mapping[str, engine.BetRule]


def settling(round_: HeldRound | None) -> Rules | str | None:
    """The rules the engine settles the round's bets with, one per bet type; None while the
    round has neither a result nor a cancellation; why not, when its cards or pay table
    cannot be read."""
    if round_ is None or round_.status not in (CLOSED, CANCELLED):
        return None
    outcome: engine.RoundResult | engine.CancelledRound
    if round_.status == CANCELLED:
        # Rules README: a cancelled (void) round refunds every bet in full.
        outcome, pay_table = engine.CancelledRound("cancelled"), engine.PUBLISHED_PAY_TABLE
    elif round_.cards is None or round_.paytable is None:
        return f"the wallet holds no cards or no pay table for round {round_.round_id}"
    else:
        try:
            outcome = engine.resolve_round(engine.parse_cards(round_.cards))
            pay_table = engine.pay_table_from_mapping(dict(round_.paytable))
        except engine.RulesEngineError as error:
            return f"the engine refuses round {round_.round_id}'s cards or pay table: {error}"
    return {
        bet_type.value: engine.bet_rule(bet_type, outcome, pay_table) for bet_type in engine.BetType
    }


def payout(bet: HeldBet, rules: Rules) -> tuple[str, int]:
    """The bet's outcome and return as the rules engine settles it (what settlement's
    lines must say): its type's rule in its round, applied to its stake."""
    rule = rules[bet.bet_type]
    return rule.outcome.value, rule.returned(bet.stake)


@dataclass(frozen=True, slots=True)
class SettlementPart:
    """A `BetsSettled` as a batch pays it, with the ids of the event that brought it: the
    cause of the `BetsPaid` and the reference of the ledger entries it leads to."""

    event_id: UUID
    correlation_id: UUID
    round_id: str
    table_id: str
    lines: Sequence[BetSettled]


@dataclass(frozen=True, slots=True)
class RefusedLine:
    """A line the wallet does not pay, and why: the error that parks its batch's event."""

    place: int  # its part's place in the batch
    bet_id: UUID
    reason: Refusal
    detail: str

    def error(self) -> UnknownBetError | BetMismatchError | RoundNotSettledError:
        return self.reason(self.detail)


@dataclass(frozen=True, slots=True)
class PaymentPlan:
    """What a batch of settlement parts pays (`plan_payment`)."""

    parts: Sequence[SettlementPart]
    paying: Sequence[tuple[int, BetSettled]]  # (its part's place, the line), in batch order
    credits: Mapping[Account, int]  # every paid account, zero included
    refused: Sequence[RefusedLine]
    already_paid: Sequence[tuple[int, UUID]]  # (place, bet id) passed over: paid before

    @property
    def players(self) -> list[Player]:
        """The players paid, a line each (to lock)."""
        return [(line.operator_id, line.player_id) for _, line in self.paying]

    def balances_before(self, credited: Mapping[Account, int]) -> dict[Account, int]:
        """Each account's balance before the credit, from its balance after it."""
        return {account: credited[account] - amount for account, amount in self.credits.items()}


class PaidBet(NamedTuple):
    """A bet as it is marked paid."""

    bet_id: UUID
    outcome: str
    returned: int


@dataclass(frozen=True, slots=True)
class PaidRun:
    """One player's `BetsPaid` events appended together: consecutive ones of one table and
    correlation (an append takes one of each), each caused by its settlement part."""

    table_id: str
    correlation_id: UUID
    events: tuple[BetsPaid, ...]
    causation_ids: tuple[UUID, ...]


@dataclass(frozen=True, slots=True)
class Payment:
    """What paying a plan writes (`pay`)."""

    ledger: tuple[LedgerEntry, ...]
    paid: tuple[PaidBet, ...]
    runs: Mapping[Player, tuple[PaidRun, ...]]  # each player's, in the order to append


def plan_payment(
    held: Mapping[UUID, HeldBet], rounds: Mapping[str, HeldRound], parts: Sequence[SettlementPart]
) -> PaymentPlan:
    """Which lines of `parts` (a batch, in order) the wallet pays, given the bets it holds
    and their rounds. Each round's rules are worked out once, a rule per bet type
    (`settling`), and each line's return checked against its type's rule applied to the
    stake the wallet holds: the engine's figures, without settling each bet anew."""
    rules: dict[str, Rules | str | None] = {}
    paying: list[tuple[int, BetSettled]] = []
    paying_ids: set[UUID] = set()
    credits: dict[Account, int] = defaultdict(int)
    refused: list[RefusedLine] = []
    already_paid: list[tuple[int, UUID]] = []
    for place, part in enumerate(parts):
        round_id = part.round_id
        if round_id not in rules:
            rules[round_id] = settling(rounds.get(round_id))
        rule = rules[round_id]
        for line in part.lines:
            bet_id = line.bet_id
            bet = held.get(bet_id)
            if bet is None:
                refused.append(
                    RefusedLine(
                        place,
                        bet_id,
                        UnknownBetError,
                        f"{BetsSettled.event_type} for bet {bet_id}, which the wallet never took",
                    )
                )
                continue
            if (
                bet.stake != line.stake
                or bet.player_id != line.player_id
                or bet.bet_type != line.bet_type
                or bet.round_id != round_id
                or bet.operator_id != line.operator_id
                or bet.currency != line.currency
            ):
                refused.append(_mismatch(place, bet, line, round_id))
                continue
            if rule is None:
                refused.append(
                    RefusedLine(
                        place,
                        bet_id,
                        RoundNotSettledError,
                        f"{BetsSettled.event_type} for bet {bet_id} of round {round_id},"
                        " whose result or cancellation the wallet does not hold",
                    )
                )
                continue
            if isinstance(rule, str):
                refused.append(
                    RefusedLine(
                        place,
                        bet_id,
                        PayoutMismatchError,
                        f"{BetsSettled.event_type} for bet {bet_id}: {rule}",
                    )
                )
                continue
            type_rule = rule[bet.bet_type]
            if line.outcome != type_rule.outcome or line.returned != type_rule.returned(bet.stake):
                computed = payout(bet, rule)
                refused.append(
                    RefusedLine(
                        place,
                        bet_id,
                        PayoutMismatchError,
                        f"{BetsSettled.event_type} for bet {bet_id} ({bet.bet_type}, stake"
                        f" {bet.stake} {bet.currency}, round {bet.round_id}) says"
                        f" {line.outcome} returning {line.returned}, the wallet computes"
                        f" {computed[0]} returning {computed[1]}",
                    )
                )
                continue
            if bet.status == PAID:
                already_paid.append((place, bet_id))
                continue
            if bet_id in paying_ids:
                continue
            paying_ids.add(bet_id)
            paying.append((place, line))
            credits[(line.operator_id, line.player_id, line.currency)] += line.returned
    return PaymentPlan(parts, tuple(paying), dict(credits), tuple(refused), tuple(already_paid))


def _mismatch(place: int, bet: HeldBet, line: BetSettled, round_id: str) -> RefusedLine:
    """A line that does not describe the bet the wallet holds."""
    expected = (bet.operator_id, bet.player_id, bet.round_id, bet.bet_type, bet.currency, bet.stake)
    told = (line.operator_id, line.player_id, round_id, line.bet_type, line.currency, line.stake)
    return RefusedLine(
        place,
        bet.bet_id,
        BetMismatchError,
        f"{BetsSettled.event_type} for bet {bet.bet_id} says {told}, the bet is {expected}",
    )


def pay(
    plan: PaymentPlan,
    balances: Mapping[Account, int],
    unheld: Collection[Account] = frozenset(),
) -> Payment:
    """What paying `plan` writes, from each credited account's balance before the credit.

    One `BetsPaid` per player and settlement part, its lines in the part's order; the
    balances run in the order the settlements came (a player's lines of one part are
    contiguous in it). An `unheld` account is a seamless operator's player, whose money the
    operator holds: it is paid by a win owed to the operator, not credited here, so its
    lines say `balance_after` 0 and write no ledger entry."""
    running = {account: 0 if account in unheld else balances[account] for account in plan.credits}
    # a group: a player's lines of one part, keyed by the part's place in the batch
    groups: dict[tuple[str, str, int], list[BetPaid]] = {}
    seamless: set[tuple[str, str, int]] = set()  # the groups of unheld accounts
    # the ledger's two sides, per part: the house's per operator and currency, each player's
    house: dict[tuple[int, str, str], int] = defaultdict(int)
    credited: dict[tuple[int, str, str, str], int] = defaultdict(int)
    for place, line in plan.paying:
        operator_id, player_id, currency = line.operator_id, line.player_id, line.currency
        account = (operator_id, player_id, currency)
        amount = line.returned
        key = (operator_id, player_id, place)
        lines = groups.get(key)
        if lines is None:
            lines = groups[key] = []
            if account in unheld:
                seamless.add(key)
        if account in unheld:
            balance = 0
        else:
            balance = running[account] = running[account] + amount
            house[(place, operator_id, currency)] += amount
            credited[(place, operator_id, player_id, currency)] += amount
        # every value checked: the line's as validated, the balance a sum of them in bigint
        lines.append(
            checked(
                BetPaid,
                {
                    "bet_id": line.bet_id,
                    "currency": currency,
                    "amount": amount,
                    "outcome": line.outcome,
                    "balance_after": balance,
                },
            )
        )
    paid: dict[Player, list[tuple[SettlementPart, BetsPaid]]] = defaultdict(list)
    for (operator_id, player_id, place), lines in groups.items():
        part = plan.parts[place]
        paid[(operator_id, player_id)].append(
            (
                part,
                checked(
                    BetsPaid,
                    {
                        "round_id": part.round_id,
                        "table_id": part.table_id,
                        "operator_id": operator_id,
                        "player_id": player_id,
                        "wallet": "seamless"
                        if (operator_id, player_id, place) in seamless
                        else "transfer",
                        "bets": lines,
                    },
                ),
            )
        )
    runs = {
        player: tuple(_run(list(run)) for _, run in groupby(events, key=_append_key))
        for player, events in paid.items()
    }
    return Payment(
        ledger=_return_entries(plan, house, credited),
        paid=tuple(PaidBet(line.bet_id, line.outcome, line.returned) for _, line in plan.paying),
        runs=runs,
    )


def _append_key(item: tuple[SettlementPart, BetsPaid]) -> tuple[str, UUID]:
    part, _ = item
    return part.table_id, part.correlation_id


def _run(events: list[tuple[SettlementPart, BetsPaid]]) -> PaidRun:
    first, _ = events[0]
    return PaidRun(
        table_id=first.table_id,
        correlation_id=first.correlation_id,
        events=tuple(event for _, event in events),
        causation_ids=tuple(part.event_id for part, _ in events),
    )


def _return_entries(
    plan: PaymentPlan,
    house: Mapping[tuple[int, str, str], int],
    credited: Mapping[tuple[int, str, str, str], int],
) -> tuple[LedgerEntry, ...]:
    """The ledger's two sides of the payments, per settlement part: out of the house, one
    entry per operator and currency; into each player's account, one per currency. Each
    names the part as `settlement:<event id>`, which is also the cause of the player's
    `BetsPaid` that lists the bets. A zero return moves nothing and writes no entry."""

    def reference(place: int) -> str:
        return f"settlement:{plan.parts[place].event_id}"

    return tuple(
        [
            LedgerEntry("house", operator_id, None, currency, -amount, "return", reference(place))
            for (place, operator_id, currency), amount in house.items()
            if amount
        ]
        + [
            LedgerEntry(
                "player", operator_id, player_id, currency, amount, "return", reference(place)
            )
            for (place, operator_id, player_id, currency), amount in credited.items()
            if amount
        ]
    )
