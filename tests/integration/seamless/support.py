"""What the seamless wallet's integration tests share: the round they play and how
settlement settles it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from teenpatti import engine
from teenpatti.engine import PUBLISHED_PAY_TABLE
from teenpatti.events.catalog import (
    SETTLEMENT_EVENTS,
    BetReversed,
    BetSettled,
    BetsReversed,
    BetsSettled,
    RoundVoided,
)
from tests.integration.wallet.helpers import send
from wallet_service.config import WalletSettings

CARDS = ["AS", "2D", "AH", "3C", "KD", "9S"]  # player A: a pair of aces; B: 9 high


def _each_bet(
    slips: list[tuple[str, dict[str, Any]]], cancelled: bool
) -> list[tuple[str, dict[str, Any], dict[str, Any], str, int]]:
    """Each bet of the (operator, slip) pairs with its outcome and return as the engine
    settles it on CARDS (or in a cancelled round): (operator, slip, bet, outcome, returned)."""
    rule: engine.RoundResult | engine.CancelledRound = (
        engine.CancelledRound("cancelled")
        if cancelled
        else engine.resolve_round(engine.parse_cards(CARDS))
    )
    settled = []
    for operator_id, taken in slips:
        for bet in taken["bets"]:
            result = engine.settle_bet(
                engine.Bet(engine.BetType(bet["bet_type"]), bet["stake"], "INR"),
                rule,
                PUBLISHED_PAY_TABLE,
            )
            settled.append((operator_id, taken, bet, result.outcome.value, result.returned))
    return settled


def _line(operator_id: str, taken: dict[str, Any], bet: dict[str, Any]) -> dict[str, Any]:
    return {
        "bet_id": UUID(bet["bet_id"]),
        "operator_id": operator_id,
        "player_id": taken["player_id"],
        "bet_type": bet["bet_type"],
        "stake": bet["stake"],
        "currency": "INR",
    }


async def settle(
    settings: WalletSettings,
    round_id: str,
    slips: list[tuple[str, dict[str, Any]]],
    *,
    cancelled: bool,
) -> None:
    """BetsSettled for every bet of the (operator, slip) pairs, as settlement computes it."""
    lines = [
        BetSettled(
            **_line(operator_id, taken, bet),
            outcome=outcome,
            returned=returned,
            fraction_kept="0",
            odds=None,
        )
        for operator_id, taken, bet, outcome, returned in _each_bet(slips, cancelled)
    ]
    await send(
        settings,
        SETTLEMENT_EVENTS,
        BetsSettled(round_id=round_id, table_id="T1", bets=lines),
        table_id="T1",
    )


async def reverse(
    settings: WalletSettings, round_id: str, slips: list[tuple[str, dict[str, Any]]]
) -> None:
    """BetsReversed for every bet of the (operator, slip) pairs of a round settled on
    CARDS and voided after its result, as settlement states it."""
    lines = [
        BetReversed(
            **_line(operator_id, taken, bet),
            outcome=outcome,
            returned=returned,
            refunded=bet["stake"],
        )
        for operator_id, taken, bet, outcome, returned in _each_bet(slips, cancelled=False)
    ]
    await send(
        settings,
        SETTLEMENT_EVENTS,
        BetsReversed(round_id=round_id, table_id="T1", bets=lines),
        table_id="T1",
    )


def voided_after_result(round_id: str) -> RoundVoided:
    """The table's RoundVoided of a round that closed on CARDS."""
    return RoundVoided(
        round_id=round_id,
        table_id="T1",
        requested_by="sup-ana",
        actor="sup-ben",
        reason="B1 was on A1's spot",
        closed_at=datetime.now(UTC),
        cards=CARDS,
        player_a_hand="pair",
        player_b_hand="high_card",
        winner="player_a",
        six_card_bonus_hand=None,
    )
