"""The wallet's money projections folded from its own event stream, pure: what an auditor
asks when they ask that the balances be derived from the events (`teenpatti rebuild wallet`,
docs/audit.md, "Rebuilding a service's projections").

From `FundsDeposited`, `FundsWithdrawn`, `BetsPlaced`, `BetsPaid` (with the settlement part
that caused it), `BetBookClosed` and `BetsCorrected` (with the reversal part that caused
it): every player's balance, every transfer, every bet with its payment and correction,
every ledger entry, every round's seal, every correction. What the events carry is all there is:
no clock time but a bet's `placed_at`, no surrogate id."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

from teenpatti.events import Event
from teenpatti.events.catalog import (
    BetBookClosed,
    BetsCorrected,
    BetsPaid,
    BetsPlaced,
    FundsDeposited,
    FundsWithdrawn,
)

AccountKey = tuple[str, str, str]  # operator, player, currency
# account, operator, player (None for the house), currency, amount, kind, reference
LedgerRow = tuple[str, str, str | None, str, int, str, str]


@dataclass
class WalletProjections:
    accounts: dict[AccountKey, int] = field(default_factory=dict)
    # (operator, transfer) -> (kind, player, currency, amount, balance_after)
    transfers: dict[tuple[str, str], tuple[str, str, str, int, int]] = field(default_factory=dict)
    # bet -> slip, operator, player, round, table, bet type, stake, currency, placed_at,
    # status, outcome, returned, corrected
    bets: dict[UUID, list[Any]] = field(default_factory=dict)
    ledger: Counter[LedgerRow] = field(default_factory=Counter)
    # round -> (table, bet count, total stake by currency, digest)
    seals: dict[str, tuple[str, int, dict[str, int], str]] = field(default_factory=dict)
    # (reference, operator, player, currency) -> round, table, wallet, bet count, refunded,
    # reversed, net, applied, shortfall, balance after
    corrections: dict[tuple[UUID | None, str, str, str], tuple[Any, ...]] = field(
        default_factory=dict
    )
    # where an event's own `balance_after` disagrees with the balance folded so far
    disagreements: list[str] = field(default_factory=list)
    events: int = 0


def fold(events: Iterable[tuple[Event, UUID | None]]) -> WalletProjections:
    """The projections after each `(event, the id of the event that caused it)` in the
    store's commit order."""
    p = WalletProjections()
    # a settlement part's return out of the house, per operator and currency: its players'
    # `BetsPaid` are separate events with the same cause
    house: defaultdict[tuple[str, str, str], int] = defaultdict(int)
    for event, causation in events:
        p.events += 1
        match event:
            case FundsDeposited() | FundsWithdrawn():
                deposit = isinstance(event, FundsDeposited)
                amount = event.amount if deposit else -event.amount
                kind = "deposit" if deposit else "withdrawal"
                key = (event.operator_id, event.player_id, event.currency)
                _move(p, key, amount, event.balance_after, f"{kind} {event.transfer_id}")
                p.transfers[(event.operator_id, event.transfer_id)] = (
                    kind,
                    event.player_id,
                    event.currency,
                    event.amount,
                    event.balance_after,
                )
                p.ledger[
                    (
                        "player",
                        *key[:2],
                        event.currency,
                        amount,
                        kind,
                        f"transfer:{event.transfer_id}",
                    )
                ] += 1
            case BetsPlaced():
                _placed(p, event)
            case BetsPaid():
                _paid(p, event, causation, house)
            case BetsCorrected():
                _corrected(p, event, causation)
            case BetBookClosed():
                p.seals[event.round_id] = (
                    event.table_id,
                    event.bet_count,
                    dict(event.total_stake),
                    event.digest,
                )
    for (reference, operator_id, currency), amount in house.items():
        if amount:
            p.ledger[("house", operator_id, None, currency, -amount, "return", reference)] += 1
    return p


def _move(p: WalletProjections, key: AccountKey, amount: int, after: int | None, what: str) -> None:
    balance = p.accounts.get(key, 0) + amount
    p.accounts[key] = balance
    if after is not None and after != balance:
        p.disagreements.append(
            f"{what}: the event says {key[1]}'s {key[2]} balance is {after}, the events before"
            f" it add up to {balance}"
        )


def _placed(p: WalletProjections, event: BetsPlaced) -> None:
    placed_at: datetime = event.placed_at
    for bet in event.bets:
        p.bets[bet.bet_id] = [
            event.slip_id,
            event.operator_id,
            event.player_id,
            event.round_id,
            event.table_id,
            bet.bet_type,
            bet.stake,
            event.currency,
            placed_at,
            "placed",
            None,
            None,
            False,
        ]
    if event.wallet == "seamless":
        return  # the stake was debited by the operator's wallet
    total = sum(bet.stake for bet in event.bets)
    key = (event.operator_id, event.player_id, event.currency)
    _move(p, key, -total, None, f"slip {event.slip_id}")
    reference = f"slip:{event.slip_id}"
    p.ledger[
        ("player", event.operator_id, event.player_id, event.currency, -total, "stake", reference)
    ] += 1
    p.ledger[("house", event.operator_id, None, event.currency, total, "stake", reference)] += 1


def _paid(
    p: WalletProjections,
    event: BetsPaid,
    causation: UUID | None,
    house: defaultdict[tuple[str, str, str], int],
) -> None:
    reference = f"settlement:{causation}"
    returned: defaultdict[str, int] = defaultdict(int)
    for line in event.bets:
        bet = p.bets.get(line.bet_id)
        if bet is None:
            p.disagreements.append(
                f"bet {line.bet_id} is paid by {event.event_type} but never placed"
            )
            continue
        bet[9:12] = ["paid", line.outcome, line.amount]
        if event.wallet == "seamless":
            continue  # paid by a win owed to the operator's wallet
        key = (event.operator_id, event.player_id, line.currency)
        _move(p, key, line.amount, line.balance_after, f"bet {line.bet_id} paid")
        returned[line.currency] += line.amount
    for currency, amount in returned.items():
        if amount:
            p.ledger[
                (
                    "player",
                    event.operator_id,
                    event.player_id,
                    currency,
                    amount,
                    "return",
                    reference,
                )
            ] += 1
            house[(reference, event.operator_id, currency)] += amount


def _corrected(p: WalletProjections, event: BetsCorrected, causation: UUID | None) -> None:
    for line in event.bets:
        bet = p.bets.get(line.bet_id)
        if bet is None:
            p.disagreements.append(
                f"bet {line.bet_id} is corrected by {event.event_type} but never placed"
            )
            continue
        bet[12] = True
    key = (event.operator_id, event.player_id, event.currency)
    if event.wallet == "transfer":
        after = event.balance_after
        _move(p, key, event.applied, after, f"round {event.round_id} corrected")
        if event.applied:
            reference = f"correction:{causation}"
            p.ledger[
                ("player", *key[:2], event.currency, event.applied, "correction", reference)
            ] += 1
            p.ledger[
                (
                    "house",
                    event.operator_id,
                    None,
                    event.currency,
                    -event.applied,
                    "correction",
                    reference,
                )
            ] += 1
    p.corrections[(causation, *key)] = (
        event.round_id,
        event.table_id,
        event.wallet,
        len(event.bets),
        sum(line.refunded for line in event.bets),
        sum(line.reversed for line in event.bets),
        event.net,
        event.applied,
        event.shortfall,
        event.balance_after,
    )
