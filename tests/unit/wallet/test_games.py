"""A game as the player's last games show it, from what the wallet holds (pure)."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from uuid import UUID, uuid4

from teenpatti.events.catalog import BetsPaid
from wallet_service.domain.games import (
    NO_BALANCES,
    GameRound,
    RoundBalances,
    Wager,
    balances_after,
    game,
    operator_balance_of,
    seamless_balances,
)
from wallet_service.domain.payment import PaidRun

ENDED = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


def _round(status: str, **more: object) -> GameRound:
    values: dict[str, object] = {
        "round_id": "T1-000007",
        "table_id": "T1",
        "status": status,
        "cards": None,
        "dealt": {},
        "winner": None,
        "player_a_hand": None,
        "player_b_hand": None,
        "six_card_bonus_hand": None,
        "ended_at": None,
        **more,
    }
    return GameRound(**values)  # type: ignore[arg-type]


def test_a_round_cancelled_mid_deal_shows_its_cards_in_dealing_order_and_no_hands() -> None:
    cancelled = _round("cancelled", dealt={"B1": "QS", "A2": "2C", "A1": "7H"}, ended_at=ENDED)
    wager = Wager("b1", "tie", 100, "refunded", 100)
    assert game(cancelled, "INR", [wager], RoundBalances(1_000, 1_000)) == {
        "round_id": "T1-000007",
        "table_id": "T1",
        "status": "cancelled",
        "ended_at": ENDED,
        "cards": ["7H", "QS", "2C"],
        "player_a": None,
        "player_b": None,
        "winner": None,
        "six_card_bonus_hand": None,
        "currency": "INR",
        "wagers": [
            {
                "bet_id": "b1",
                "bet_type": "tie",
                "stake": 100,
                "returned": 100,
                "outcome": "refunded",
            }
        ],
        "staked": 100,
        "returned": 100,
        "balance_before": 1_000,
        "balance_after": 1_000,
        "voided_at": None,
        "correction": None,
    }


def test_a_closed_rounds_hands_and_a_sealed_rounds_open_game() -> None:
    cards = ["AS", "2D", "AH", "3C", "KD", "9S"]
    closed = _round(
        "closed",
        cards=cards,
        winner="player_a",
        player_a_hand="pair",
        player_b_hand="high_card",
        ended_at=ENDED,
    )
    paid, unpaid = Wager("b1", "player_a", 100, "won", 195), Wager("b2", "tie", 50, None, None)
    shown = game(closed, "INR", [paid, unpaid], NO_BALANCES)
    assert shown["player_a"] == {"cards": ["AS", "AH", "KD"], "hand": "pair"}
    assert shown["player_b"] == {"cards": ["2D", "3C", "9S"], "hand": "high_card"}
    # a bet still unpaid: the game's return is not known yet
    assert (shown["staked"], shown["returned"]) == (150, None)
    sealed = game(_round("sealed", dealt={"A1": "AS"}), "INR", [unpaid], NO_BALANCES)
    assert (sealed["status"], sealed["cards"], sealed["ended_at"]) == ("open", ["AS"], None)


def _paid(wallet: str, round_id: str, *balances: int) -> BetsPaid:
    return BetsPaid.model_validate(
        {
            "round_id": round_id,
            "table_id": "T1",
            "operator_id": "operator-1",
            "player_id": "p1",
            "wallet": wallet,
            "bets": [
                {
                    "bet_id": uuid4(),
                    "currency": "INR",
                    "amount": 10,
                    "outcome": "won",
                    "balance_after": balance,
                }
                for balance in balances
            ],
        }
    )


def test_the_balance_after_a_round_is_its_last_line_paid_of_a_transfer_player() -> None:
    run = PaidRun(
        "T1",
        UUID(int=1),
        (_paid("transfer", "T1-1", 110, 120), _paid("transfer", "T1-2", 130)),
        (UUID(int=2), UUID(int=3)),
    )
    later = PaidRun("T1", UUID(int=4), (_paid("transfer", "T1-1", 140),), (UUID(int=5),))
    seamless = PaidRun("T1", UUID(int=6), (_paid("seamless", "T1-3", 0),), (UUID(int=7),))
    assert balances_after({("operator-1", "p1"): (run, later, seamless)}) == {
        ("operator-1", "p1", "T1-1", "INR"): 140,
        ("operator-1", "p1", "T1-2", "INR"): 130,
    }


def test_a_seamless_players_balances_are_its_operators_answers() -> None:
    def answer(balance: object, currency: str = "INR") -> str:
        return json.dumps({"status": "RS_OK", "balance": balance, "currency": currency})

    # 46.00 INR after a bet of 4.00: 50.00 before; 53.85 after the wins
    assert seamless_balances(answer(4_600_000), 400, answer(5_385_000), True, "INR") == (
        RoundBalances(5_000, 5_385)
    )
    # a win still unanswered: no balance after yet
    assert seamless_balances(answer(4_600_000), 400, answer(5_385_000), False, "INR") == (
        RoundBalances(5_000, None)
    )
    for unusable in (None, "", "not json", "[]", answer("46"), answer(-1), answer(1, "EUR")):
        assert operator_balance_of(unusable, "INR") is None
    assert operator_balance_of(answer(1), "INR") is None  # not a whole paisa
    assert seamless_balances(None, None, None, True, "INR") == NO_BALANCES


def test_a_round_voided_after_its_result_shows_the_result_and_the_void() -> None:
    cards = ["AS", "2D", "AH", "3C", "KD", "9S"]
    voided_at = datetime(2026, 12, 2, 13, 0, tzinfo=UTC)
    voided = _round(
        "closed",
        cards=cards,
        winner="player_a",
        player_a_hand="pair",
        player_b_hand="high_card",
        ended_at=ENDED,
        voided_at=voided_at,
    )
    won = Wager("b1", "player_a", 1_000, "won", 1_950, corrected=True)
    lost = Wager("b2", "tie", 100, "lost", 0, corrected=True)
    shown = game(voided, "INR", [won, lost], NO_BALANCES)
    assert (shown["status"], shown["winner"], shown["cards"]) == ("voided", "player_a", cards)
    assert shown["voided_at"] == voided_at
    assert shown["correction"] == {"refunded": 1_100, "reversed": 1_950, "net": -850}
    # until every wager is corrected, the correction is not shown
    half = game(voided, "INR", [won, replace(lost, corrected=False)], NO_BALANCES)
    assert half["status"] == "voided" and half["correction"] is None
