"""A player's last games, pure: one round as the player played it, from what the wallet keeps
(the round's result, the player's bets and their payments, its balances around the round),
the "last game recall" regulators ask for (docs/decisions/0077-last-games-kept-by-the-wallet.md).

Balances around a round, in the round's currency (null when the wallet does not know them):
- a transfer operator's player: the wallet's balance just before the player's first slip on
  the round was debited, and just after the last payment (or refund) of its bets on the round;
- a seamless operator's player: the operator's balances as it answered them: its answer to
  the first bet it accepted for the round plus that bet's amount, and its answer to the last
  win or rollback of the round, once every one of them is answered.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from teenpatti.events.catalog import DEALING_ORDER, BetsPaid
from teenpatti.seamless.hub88 import AmountError, from_protocol

from .betting import CANCELLED, CLOSED

# a round as a game shows it: still taking bets or dealing, finished, or void
GAME_OPEN, GAME_CLOSED, GAME_CANCELLED = "open", "closed", "cancelled"
# closed with a result, then voided by two supervisors: the result is shown with the void
GAME_VOIDED = "voided"

RoundKey = tuple[str, str]  # round id, currency


@dataclass(frozen=True, slots=True)
class GameRound:
    """A round as the wallet holds it (`wallet_rounds`)."""

    round_id: str
    table_id: str
    status: str  # open, sealed, closed, cancelled
    cards: Sequence[str] | None  # RoundClosed's six, A1 B1 A2 B2 A3 B3
    dealt: Mapping[str, str]  # each CardDealt: position -> card
    winner: str | None
    player_a_hand: str | None
    player_b_hand: str | None
    six_card_bonus_hand: str | None
    ended_at: datetime | None
    voided_at: datetime | None = None  # voided after its result


@dataclass(frozen=True, slots=True)
class Wager:
    """One of the player's bets on the round."""

    bet_id: str
    bet_type: str
    stake: int
    outcome: str | None  # once paid
    returned: int | None  # once paid
    corrected: bool = False  # its round voided after the result: stake refunded, returns back


@dataclass(frozen=True, slots=True)
class RoundBalances:
    before: int | None
    after: int | None


NO_BALANCES = RoundBalances(None, None)


def game(
    round_: GameRound, currency: str, wagers: Sequence[Wager], balances: RoundBalances
) -> dict[str, Any]:
    """The round as the player played it (the shape of `GET /me/games`)."""
    status = GAME_VOIDED if round_.voided_at is not None else _game_status(round_.status)
    cards = list(round_.cards) if round_.cards is not None else dealt_in_order(round_.dealt)
    every_paid = all(wager.returned is not None for wager in wagers)
    return {
        "round_id": round_.round_id,
        "table_id": round_.table_id,
        "status": status,
        "ended_at": None if status == GAME_OPEN else round_.ended_at,
        "cards": cards,
        "player_a": _hand(cards[0::2], round_.player_a_hand),
        "player_b": _hand(cards[1::2], round_.player_b_hand),
        "winner": round_.winner,
        "six_card_bonus_hand": round_.six_card_bonus_hand,
        "currency": currency,
        "wagers": [
            {
                "bet_id": wager.bet_id,
                "bet_type": wager.bet_type,
                "stake": wager.stake,
                "returned": wager.returned,
                "outcome": wager.outcome,
            }
            for wager in wagers
        ],
        "staked": sum(wager.stake for wager in wagers),
        "returned": sum(w.returned or 0 for w in wagers) if every_paid and wagers else None,
        "balance_before": balances.before,
        "balance_after": balances.after,
        "voided_at": round_.voided_at,
        # what the void put right once the wallet corrected every wager: the stakes
        # refunded, less what the result had returned (taken back)
        "correction": (
            {
                "refunded": sum(w.stake for w in wagers),
                "reversed": sum(w.returned or 0 for w in wagers),
                "net": sum(w.stake - (w.returned or 0) for w in wagers),
            }
            if wagers and all(w.corrected for w in wagers)
            else None
        ),
    }


def dealt_in_order(dealt: Mapping[str, str]) -> list[str]:
    """The cards dealt so far, in dealing order (A1 B1 A2 B2 A3 B3)."""
    return [dealt[position] for position in DEALING_ORDER if position in dealt]


def _game_status(round_status: str) -> str:
    if round_status == CLOSED:
        return GAME_CLOSED
    if round_status == CANCELLED:
        return GAME_CANCELLED
    return GAME_OPEN  # open or sealed: the round is not over


def _hand(cards: list[str], hand: str | None) -> dict[str, Any] | None:
    """A player's hand once the round named it (its three cards and category)."""
    return None if hand is None or len(cards) != 3 else {"cards": cards, "hand": hand}


def balances_after(runs: Mapping[Any, Sequence[Any]]) -> dict[tuple[str, str, str, str], int]:
    """From a payment's runs (`domain.payment.Payment.runs`), each transfer player's balance
    after the last line paid of each round: (operator, player, round, currency) -> balance.
    A seamless player's lines carry no balance (the operator holds it)."""
    after: dict[tuple[str, str, str, str], int] = {}
    for player_runs in runs.values():
        for run in player_runs:
            for event in run.events:
                assert isinstance(event, BetsPaid)
                if event.wallet != "transfer":
                    continue
                for line in event.bets:
                    key = (event.operator_id, event.player_id, event.round_id, line.currency)
                    after[key] = line.balance_after
    return after


def operator_balance_of(answer_raw: str | None, currency: str) -> int | None:
    """The balance (minor units) in a seamless operator's answer as the wallet stored it (its
    JSON body, protocol units), else None."""
    if not answer_raw:
        return None
    try:
        answer = json.loads(answer_raw)
        balance = answer["balance"] if isinstance(answer, dict) else None
        if not isinstance(balance, int) or isinstance(balance, bool) or balance < 0:
            return None
        if answer.get("currency", currency) != currency:
            return None
        return from_protocol(balance, currency)
    except (ValueError, KeyError, AmountError):
        return None


def seamless_balances(
    first_bet_answer: str | None,
    first_bet_amount: int | None,
    last_settle_answer: str | None,
    every_settle_answered: bool,
    currency: str,
) -> RoundBalances:
    """A seamless player's balances around a round from its operator's answers (see above)."""
    before = operator_balance_of(first_bet_answer, currency)
    after = operator_balance_of(last_settle_answer, currency) if every_settle_answered else None
    return RoundBalances(
        None if before is None or first_bet_amount is None else before + first_bet_amount, after
    )
