"""The correction of a round voided after its result (wallet_service.domain.correction): every
reversal line checked against what the wallet paid, each player's net per currency, and a
debit never below a zero balance, the rest a shortfall."""

from __future__ import annotations

from uuid import UUID, uuid4

import pytest
from pydantic import ValidationError

from teenpatti.events.catalog import BetReversed, BetsCorrected
from wallet_service.domain.betting import UnknownBetError
from wallet_service.domain.correction import (
    HeldPaidBet,
    ReversalPart,
    RoundNotVoidedError,
    apply_to_balance,
    plan_correction,
)
from wallet_service.domain.payment import BetMismatchError, PayoutMismatchError

ROUND = "T1-000042"


def held(
    player: str = "p1",
    *,
    stake: int = 1_000,
    outcome: str = "won",
    returned: int = 1_950,
    status: str = "paid",
    corrected: bool = False,
    seamless: bool = False,
    currency: str = "INR",
) -> HeldPaidBet:
    return HeldPaidBet(
        uuid4(), "op", player, ROUND, "player_a", stake, currency, status, outcome, returned,
        corrected, seamless,
    )  # fmt: skip


def line(bet: HeldPaidBet, **changes: object) -> BetReversed:
    fields: dict[str, object] = {
        "bet_id": bet.bet_id,
        "operator_id": bet.operator_id,
        "player_id": bet.player_id,
        "bet_type": bet.bet_type,
        "stake": bet.stake,
        "currency": bet.currency,
        "outcome": bet.outcome,
        "returned": bet.returned,
        "refunded": bet.stake,
    }
    return BetReversed.model_validate(fields | changes)


def part(*lines: BetReversed) -> ReversalPart:
    return ReversalPart(uuid4(), uuid4(), ROUND, "T1", lines)


def by_id(*bets: HeldPaidBet) -> dict[UUID, HeldPaidBet]:
    return {bet.bet_id: bet for bet in bets}


VOIDED = {ROUND: True}


def test_each_players_net_is_the_refunds_less_the_returns_taken_back() -> None:
    won, lost = held(), held(outcome="lost", returned=0)
    other = held("p2", stake=500, outcome="push", returned=500)
    plan = plan_correction(
        by_id(won, lost, other), VOIDED, part(line(won), line(other), line(lost))
    )
    nets = {(g.player_id, g.currency): (g.refunded, g.reversed, g.net) for g in plan.groups}
    assert nets == {("p1", "INR"): (2_000, 1_950, 50), ("p2", "INR"): (500, 500, 0)}


def test_a_bet_corrected_before_is_passed_over() -> None:
    done, new = held(corrected=True), held()
    plan = plan_correction(by_id(done, new), VOIDED, part(line(done), line(new)))
    assert plan.passed_over == (done.bet_id,)
    assert [b.bet_id for g in plan.groups for b in g.bets] == [new.bet_id]


def test_a_part_early_for_the_tables_void_waits_for_it() -> None:
    bet = held()
    with pytest.raises(RoundNotVoidedError):
        plan_correction(by_id(bet), {ROUND: False}, part(line(bet)))


@pytest.mark.parametrize(
    ("make", "error"),
    [
        (lambda bet: (by_id(), line(bet)), UnknownBetError),
        (lambda bet: (by_id(bet), line(bet, player_id="p9")), BetMismatchError),
        (lambda bet: (by_id(bet), line(bet, stake=999, refunded=999)), BetMismatchError),
        (lambda bet: (by_id(bet._replace(status="placed")), line(bet)), BetMismatchError),
        (lambda bet: (by_id(bet), line(bet, returned=1_000)), PayoutMismatchError),
        (lambda bet: (by_id(bet), line(bet, outcome="lost", returned=0)), PayoutMismatchError),
    ],
    ids=["never taken", "other player", "other stake", "not paid", "other return", "other outcome"],
)
def test_a_line_that_does_not_hold_is_refused(make: object, error: type[Exception]) -> None:
    bet = held()
    bets, reversed_line = make(bet)  # type: ignore[operator]
    with pytest.raises(error):
        plan_correction(bets, VOIDED, part(reversed_line))


def test_a_reversal_refunds_the_stake_whole() -> None:
    with pytest.raises(ValidationError, match="refunded in full"):
        line(held(), refunded=1)


@pytest.mark.parametrize(
    ("net", "balance", "expected"),
    [
        (500, 0, (500, 0, 500)),  # a lost bet's stake back
        (-950, 5_000, (-950, 0, 4_050)),  # winnings taken back, covered
        (-950, 300, (-300, 650, 0)),  # not covered: down to zero, the rest a shortfall
        (-950, 0, (0, 950, 0)),
        (0, 10, (0, 0, 10)),
    ],
)
def test_a_debit_never_drives_a_balance_below_zero(
    net: int, balance: int, expected: tuple[int, int, int]
) -> None:
    applied = apply_to_balance(net, balance)
    assert tuple(applied) == expected
    assert applied.applied - applied.shortfall == net
    assert applied.balance_after >= 0


def test_the_event_adds_up_or_is_refused() -> None:
    base = {
        "round_id": ROUND,
        "table_id": "T1",
        "operator_id": "op",
        "player_id": "p1",
        "currency": "INR",
        "bets": [{"bet_id": str(uuid4()), "refunded": 1_000, "reversed": 1_950}],
    }
    BetsCorrected.model_validate(
        base | {"net": -950, "applied": -300, "shortfall": 650, "balance_after": 0}
    )
    BetsCorrected.model_validate(
        base | {"wallet": "seamless", "net": -950, "applied": 0, "shortfall": 0, "balance_after": 0}
    )
    for wrong in (
        {"net": -900, "applied": -900, "shortfall": 0, "balance_after": 0},  # not the lines
        {"net": -950, "applied": -300, "shortfall": 600, "balance_after": 0},  # lost 50
        {"net": -950, "applied": -300, "shortfall": 650, "balance_after": 5},  # not emptied
    ):
        with pytest.raises(ValidationError):
            BetsCorrected.model_validate(base | wrong)
    with pytest.raises(ValidationError, match="listed"):
        BetsCorrected.model_validate(
            base
            | {
                "wallet": "seamless",
                "net": -950,
                "applied": -950,
                "shortfall": 0,
                "balance_after": 0,
            }
        )
