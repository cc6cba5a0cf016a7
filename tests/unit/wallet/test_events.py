"""The wallet's events per slip and per payment: what each line stands for, and what they
refuse (no servers)."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import uuid4

import pytest
from pydantic import ValidationError

from teenpatti.events.catalog import (
    SETTLEMENT_PART,
    SLIP_BETS,
    BetPaid,
    BetsPaid,
    BetsPlaced,
    PaidLine,
    PlacedLine,
    SlipBet,
    registry,
)

PLACED_AT = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


def slip(*stakes: tuple[str, int]) -> BetsPlaced:
    return BetsPlaced(
        slip_id=uuid4(),
        round_id="T1-000001",
        table_id="T1",
        operator_id="operator-1",
        player_id="p1",
        currency="INR",
        placed_at=PLACED_AT,
        bets=[SlipBet(bet_id=uuid4(), bet_type=t, stake=s) for t, s in stakes],  # type: ignore[arg-type]
    )


def test_each_line_of_a_slip_is_the_bet_placed_whole() -> None:
    placed = slip(("player_a", 1_000), ("tie", 200))
    assert placed.each() == [
        PlacedLine(
            bet_id=line.bet_id,
            slip_id=placed.slip_id,
            round_id="T1-000001",
            table_id="T1",
            operator_id="operator-1",
            player_id="p1",
            bet_type=line.bet_type,
            stake=line.stake,
            currency="INR",
            placed_at=PLACED_AT,
            wallet="transfer",
        )
        for line in placed.bets
    ]
    assert [bet.bet_type for bet in placed.each()] == ["player_a", "tie"]  # the slip's order


def test_a_slip_round_trips_through_its_payload() -> None:
    placed = slip(("player_a", 1_000), ("pair_plus_a", 200), ("six_card_bonus", 100))
    assert registry.decode("BetsPlaced", 1, placed.model_dump(mode="json")) == placed


def test_a_slip_refuses_no_bets_more_than_six_and_a_stake_of_zero() -> None:
    with pytest.raises(ValidationError, match="at least 1"):
        slip()
    with pytest.raises(ValidationError, match=f"at most {SLIP_BETS}"):
        slip(*[("player_a", 1)] * (SLIP_BETS + 1))
    with pytest.raises(ValidationError, match="greater than 0"):
        slip(("player_a", 0))


def test_each_line_of_a_payment_is_the_bet_paid_whole() -> None:
    lines = [
        BetPaid(bet_id=uuid4(), currency="INR", amount=1_950, outcome="won", balance_after=5_750),
        BetPaid(bet_id=uuid4(), currency="INR", amount=0, outcome="lost", balance_after=5_750),
    ]
    paid = BetsPaid(
        round_id="T1-000001", table_id="T1", operator_id="operator-1", player_id="p1", bets=lines
    )
    assert paid.each() == [
        PaidLine(
            bet_id=line.bet_id,
            round_id="T1-000001",
            table_id="T1",
            operator_id="operator-1",
            player_id="p1",
            currency="INR",
            amount=line.amount,
            outcome=line.outcome,
            balance_after=line.balance_after,
            wallet="transfer",
        )
        for line in lines
    ]
    assert registry.decode("BetsPaid", 1, paid.model_dump(mode="json")) == paid


def test_a_payment_refuses_no_lines_more_than_a_part_and_a_negative_amount() -> None:
    line = {"bet_id": uuid4(), "currency": "INR", "amount": 1, "outcome": "won"}
    base = {"round_id": "T1-000001", "table_id": "T1", "operator_id": "o", "player_id": "p"}
    with pytest.raises(ValidationError, match="at least 1"):
        BetsPaid.model_validate({**base, "bets": []})
    with pytest.raises(ValidationError, match=f"at most {SETTLEMENT_PART}"):
        BetsPaid.model_validate(
            {**base, "bets": [{**line, "balance_after": 1}] * (SETTLEMENT_PART + 1)}
        )
    with pytest.raises(ValidationError, match="greater than or equal to 0"):
        BetsPaid.model_validate({**base, "bets": [{**line, "amount": -1, "balance_after": 0}]})
