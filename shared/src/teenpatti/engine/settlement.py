"""Settling one bet against a round result (or a cancelled round), in integer minor units."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from teenpatti.engine.errors import InvalidBetError
from teenpatti.engine.paytable import PUBLISHED_PAY_TABLE, BetType, PayTable
from teenpatti.engine.rounds import CancelledRound, RoundResult, Winner

_CURRENCY = re.compile(r"[A-Z]{3}")


class BetOutcome(StrEnum):
    WON = "won"
    LOST = "lost"
    PUSH = "push"  # Player A / Player B bet on a tied round: the stake comes back
    REFUNDED = "refunded"  # cancelled round: the stake comes back


@dataclass(frozen=True)
class Bet:
    bet_type: BetType
    stake: int  # integer minor units of `currency` (cents, paise, …)
    currency: str  # ISO 4217 code, e.g. "INR"

    def __post_init__(self) -> None:
        if not isinstance(self.bet_type, BetType):
            raise InvalidBetError(f"unknown bet type {self.bet_type!r}")
        if isinstance(self.stake, bool) or not isinstance(self.stake, int):
            raise InvalidBetError(f"stake must be an integer number of minor units: {self.stake!r}")
        if self.stake <= 0:
            raise InvalidBetError(f"stake must be positive, got {self.stake}")
        if not isinstance(self.currency, str) or not _CURRENCY.fullmatch(self.currency):
            raise InvalidBetError(
                f"currency must be a three-letter ISO 4217 code: {self.currency!r}"
            )


@dataclass(frozen=True)
class BetSettlement:
    bet: Bet
    outcome: BetOutcome
    returned: int  # paid back to the player: stake + winnings rounded down; 0 when lost
    fraction_kept: Fraction  # winnings below one minor unit kept by rounding down, 0 <= f < 1
    odds: Fraction | None  # the pay line applied, when won


@dataclass(frozen=True, slots=True)
class BetRule:
    """How every bet of one type settles in one round: its outcome, and the odds applied when
    won. A bet's return then depends on its stake alone (`returned`), so a batch of a round's
    bets is settled with one rule per type."""

    outcome: BetOutcome
    odds: Fraction | None  # when won

    def returned(self, stake: int) -> int:
        """What a bet of `stake` returns: `stake + floor(stake × odds)` when won, the stake on
        a push or a refund, 0 when lost (`pay_winnings`, in integers)."""
        if self.odds is not None:
            return stake + stake * self.odds.numerator // self.odds.denominator
        return 0 if self.outcome is BetOutcome.LOST else stake


def bet_rule(
    bet_type: BetType,
    round_: RoundResult | CancelledRound,
    pay_table: PayTable = PUBLISHED_PAY_TABLE,
) -> BetRule:
    """The rule that settles every bet of `bet_type` in the round (`settle_bet` applies it)."""
    if isinstance(round_, CancelledRound):
        # Rules README: a cancelled (void) round refunds every bet in full.
        return BetRule(BetOutcome.REFUNDED, None)
    odds: Fraction | None
    match bet_type:
        case BetType.PLAYER_A | BetType.PLAYER_B:
            if round_.winner is Winner.TIE:
                # Rules: on a tie, the bets on Player A and Player B are refunded.
                return BetRule(BetOutcome.PUSH, None)
            won = round_.winner.value == bet_type.value
            odds = pay_table.player_a if bet_type is BetType.PLAYER_A else pay_table.player_b
            odds = odds if won else None
        case BetType.TIE:
            odds = pay_table.tie if round_.winner is Winner.TIE else None
        case BetType.PAIR_PLUS_A:
            # Rules: Pair + pays on its hand's pattern "even if the corresponding hand loses".
            odds = pay_table.pair_plus_a.odds_for(round_.player_a.category)
        case BetType.PAIR_PLUS_B:
            odds = pay_table.pair_plus_b.odds_for(round_.player_b.category)
        case BetType.SIX_CARD_BONUS:
            bonus = round_.six_card_bonus
            odds = pay_table.six_card_bonus.odds_for(None if bonus is None else bonus.category)
    return BetRule(BetOutcome.LOST, None) if odds is None else BetRule(BetOutcome.WON, odds)


def settle_bet(
    bet: Bet, round_: RoundResult | CancelledRound, pay_table: PayTable = PUBLISHED_PAY_TABLE
) -> BetSettlement:
    rule = bet_rule(bet.bet_type, round_, pay_table)
    if rule.odds is None:
        return BetSettlement(bet, rule.outcome, rule.returned(bet.stake), Fraction(0), None)
    paid, kept = pay_winnings(bet.stake, rule.odds)
    return BetSettlement(bet, BetOutcome.WON, bet.stake + paid, kept, rule.odds)


def pay_winnings(stake: int, odds: Fraction) -> tuple[int, Fraction]:
    """Winnings for `stake` at `odds`:1, rounded down to a whole minor unit, and the part kept.

    Rules README: 0.95:1 can produce a fraction of a minor unit: round the winnings down and
    record the fraction kept, so an audit can account for every unit.
    """
    exact = stake * odds
    paid = math.floor(exact)
    return paid, exact - paid
