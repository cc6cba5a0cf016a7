"""What the seamless wallet's integration tests share: the round they play and how
settlement settles it."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from teenpatti import engine
from teenpatti.engine import PUBLISHED_PAY_TABLE
from teenpatti.events.catalog import SETTLEMENT_EVENTS, BetSettled, BetsSettled
from tests.integration.wallet.helpers import send
from wallet_service.config import WalletSettings

CARDS = ["AS", "2D", "AH", "3C", "KD", "9S"]  # player A: a pair of aces; B: 9 high


async def settle(
    settings: WalletSettings,
    round_id: str,
    slips: list[tuple[str, dict[str, Any]]],
    *,
    cancelled: bool,
) -> None:
    """BetsSettled for every bet of the (operator, slip) pairs, as settlement computes it."""
    rule: engine.RoundResult | engine.CancelledRound = (
        engine.CancelledRound("cancelled")
        if cancelled
        else engine.resolve_round(engine.parse_cards(CARDS))
    )
    lines = []
    for operator_id, taken in slips:
        for bet in taken["bets"]:
            settled = engine.settle_bet(
                engine.Bet(engine.BetType(bet["bet_type"]), bet["stake"], "INR"),
                rule,
                PUBLISHED_PAY_TABLE,
            )
            lines.append(
                BetSettled(
                    bet_id=UUID(bet["bet_id"]),
                    operator_id=operator_id,
                    player_id=taken["player_id"],
                    bet_type=bet["bet_type"],
                    stake=bet["stake"],
                    currency="INR",
                    outcome=settled.outcome.value,
                    returned=settled.returned,
                    fraction_kept="0",
                    odds=None,
                )
            )
    await send(
        settings,
        SETTLEMENT_EVENTS,
        BetsSettled(round_id=round_id, table_id="T1", bets=lines),
        table_id="T1",
    )
