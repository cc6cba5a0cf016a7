"""The wallet's rules for taking bets: what a slip must satisfy, how a round's bet book is
sealed, and the ledger entries that money moves by; the refusals, each with its code.

No I/O here: the round, the clock and the bets are passed in. Money is integer minor units.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, ClassVar
from uuid import UUID

from teenpatti.engine import BetType
from teenpatti.events.catalog import book_digest

BET_TYPES: frozenset[str] = frozenset(bet_type.value for bet_type in BetType)

# Round statuses as the wallet sees them
OPEN = "open"  # RoundOpened seen, book not sealed
SEALED = "sealed"  # BettingClosed seen: BetBookClosed appended, no more bets
CLOSED = "closed"  # RoundClosed seen: cards and result known
CANCELLED = "cancelled"  # RoundCancelled seen: void, every bet is refunded by settlement


class WalletError(Exception):
    """A refusal with a stable code; the HTTP edge maps codes to statuses."""

    code: ClassVar[str] = "wallet_error"

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra  # more members of its problem document


class InvalidCursorError(WalletError):
    """A page cursor this service did not give out."""

    code = "invalid_cursor"


class UnknownRoundError(WalletError):
    code = "unknown_round"


class BettingClosedError(WalletError):
    code = "betting_closed"


class CurrencyNotAcceptedError(WalletError):
    code = "currency_not_accepted"


class BelowMinimumError(WalletError):
    code = "below_minimum"


class AboveMaximumError(WalletError):
    code = "above_maximum"


class ExposureLimitError(WalletError):
    """A player's stakes on one bet type of one round, all slips together, would exceed the
    table's maximum: `limit`, `staked` (before this slip) and `left`."""

    code = "exposure_limit"


class InvalidBetError(WalletError):
    code = "invalid_bet"


class InsufficientFundsError(WalletError):
    code = "insufficient_funds"


class IdempotencyKeyReusedError(WalletError):
    code = "idempotency_key_reused"


class TransferIdReusedError(WalletError):
    code = "transfer_id_reused"


class BalanceLimitError(WalletError):
    code = "balance_limit_exceeded"


class UnknownBetError(WalletError):
    code = "unknown_bet"


@dataclass(frozen=True, slots=True)
class StakeRange:
    min: int
    max: int


# currency -> bet type -> the stakes accepted on one bet
RoundLimits = Mapping[str, Mapping[str, StakeRange]]


def limits_from_mapping(
    raw: Mapping[str, Mapping[str, Mapping[str, int]]],
) -> dict[str, dict[str, StakeRange]]:
    """Limits as `RoundOpened` carries them: `{currency: {bet_type: {min, max}}}`."""
    return {
        currency: {
            bet_type: StakeRange(int(limit["min"]), int(limit["max"]))
            for bet_type, limit in by_type.items()
        }
        for currency, by_type in raw.items()
    }


@dataclass(frozen=True, slots=True)
class RoundBetting:
    """What the wallet knows of a round when a slip for it arrives."""

    round_id: str
    table_id: str
    status: str
    paused: bool
    betting_closes_at: datetime
    limits: RoundLimits


@dataclass(frozen=True, slots=True)
class SlipLine:
    bet_type: str
    stake: int


def check_slip_shape(lines: Sequence[SlipLine], *, max_bets: int = 6) -> None:
    """A slip holds 1..max_bets bets, each a known bet type at most once, each stake > 0."""
    if not lines:
        raise InvalidBetError("a slip needs at least one bet")
    if len(lines) > max_bets:
        raise InvalidBetError(f"a slip holds at most {max_bets} bets, not {len(lines)}")
    seen: set[str] = set()
    for line in lines:
        if line.bet_type not in BET_TYPES:
            raise InvalidBetError(
                f"unknown bet type {line.bet_type!r}; one of {', '.join(sorted(BET_TYPES))}"
            )
        if line.bet_type in seen:
            raise InvalidBetError(f"{line.bet_type} appears twice in the slip: one line per type")
        seen.add(line.bet_type)
        if line.stake <= 0:
            raise InvalidBetError(f"the stake on {line.bet_type} must be positive")


def check_betting_open(round_: RoundBetting, now: datetime, *, grace: timedelta) -> None:
    """Open from RoundOpened until the book is sealed AND while now < betting_closes_at."""
    if round_.status != OPEN:
        raise BettingClosedError(f"betting on round {round_.round_id} is closed")
    if round_.paused:
        raise BettingClosedError(f"round {round_.round_id} is paused: betting is suspended")
    if now >= round_.betting_closes_at + grace:
        raise BettingClosedError(
            f"betting on round {round_.round_id} closed at {round_.betting_closes_at.isoformat()}"
        )


def check_stakes(round_: RoundBetting, currency: str, lines: Sequence[SlipLine]) -> None:
    """Each bet within its type's limits in the slip's currency."""
    by_type = round_.limits.get(currency)
    if not by_type:
        accepted = ", ".join(sorted(round_.limits)) or "none"
        raise CurrencyNotAcceptedError(
            f"round {round_.round_id} does not accept {currency!r} (accepted: {accepted})"
        )
    for line in lines:
        limit = by_type.get(line.bet_type)
        if limit is None:
            raise InvalidBetError(f"{line.bet_type} is not offered in {currency} on this round")
        if line.stake < limit.min:
            raise BelowMinimumError(
                f"{line.bet_type}: {line.stake} is below the minimum {limit.min} {currency}"
            )
        if line.stake > limit.max:
            raise AboveMaximumError(
                f"{line.bet_type}: {line.stake} is above the maximum {limit.max} {currency}"
            )


def check_exposure(
    round_: RoundBetting, currency: str, lines: Sequence[SlipLine], staked: Mapping[str, int]
) -> None:
    """Each bet type's stakes of the player on the round, every slip together (`staked`, by
    bet type, in `currency`, before this slip), stay within the type's maximum: otherwise
    several slips would exceed the table's maximum that each one meets alone."""
    by_type = round_.limits[currency]  # check_stakes found the currency and every type
    for line in lines:
        limit = by_type[line.bet_type].max
        already = staked.get(line.bet_type, 0)
        if already + line.stake > limit:
            left = max(0, limit - already)
            raise ExposureLimitError(
                f"{line.bet_type}: {already} {currency} staked on round {round_.round_id}"
                f" already, {line.stake} more exceeds the maximum {limit}; {left} left",
                bet_type=line.bet_type,
                currency=currency,
                limit=limit,
                staked=already,
                left=left,
            )


def validate_slip(
    round_: RoundBetting,
    currency: str,
    lines: Sequence[SlipLine],
    now: datetime,
    *,
    grace: timedelta = timedelta(0),
    max_bets: int = 6,
) -> int:
    """Every rule a slip must pass except funds; the slip's total stake."""
    check_slip_shape(lines, max_bets=max_bets)
    check_betting_open(round_, now, grace=grace)
    check_stakes(round_, currency, lines)
    return sum(line.stake for line in lines)


def check_funds(balance: int, amount: int, currency: str) -> None:
    if amount > balance:
        raise InsufficientFundsError(
            f"{amount} {currency} needed, the balance is {balance} {currency}"
        )


@dataclass(frozen=True, slots=True)
class BookSeal:
    bet_count: int
    total_stake: dict[str, int]
    digest: str


def seal_book(bets: Iterable[tuple[UUID, str, int]]) -> BookSeal:
    """The seal of a round's book from its bets as (bet_id, currency, stake)."""
    ids: list[UUID] = []
    totals: dict[str, int] = {}
    for bet_id, currency, stake in bets:
        ids.append(bet_id)
        totals[currency] = totals.get(currency, 0) + stake
    return BookSeal(
        bet_count=len(ids), total_stake=dict(sorted(totals.items())), digest=book_digest(ids)
    )


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One side of a movement of money: a player's account or the operator's house."""

    account: str  # "player" or "house"
    operator_id: str
    player_id: str | None  # None for the house
    currency: str
    amount: int  # credited if positive, debited if negative
    kind: str  # "deposit", "withdrawal", "stake" or "return"
    reference: str  # what moved it: "transfer:<id>", "slip:<id>", "settlement:<event id>"


def fingerprint(body: Mapping[str, Any]) -> str:
    """A request body's identity for idempotency: sha256 of its canonical JSON."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()
