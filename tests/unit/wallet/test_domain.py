"""The wallet's pure rules: slip shape, betting window, limits, funds, the book's seal."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from uuid import UUID

import pytest

from teenpatti.events.catalog import book_digest
from wallet_service.domain.betting import (
    CLOSED,
    OPEN,
    SEALED,
    AboveMaximumError,
    BelowMinimumError,
    BettingClosedError,
    BookSeal,
    CurrencyNotAcceptedError,
    ExposureLimitError,
    InsufficientFundsError,
    InvalidBetError,
    RoundBetting,
    SlipLine,
    StakeRange,
    WalletError,
    check_exposure,
    check_funds,
    fingerprint,
    limits_from_mapping,
    seal_book,
    validate_slip,
)

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
TYPES = ("player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus")
LIMITS = limits_from_mapping({"INR": {t: {"min": 100, "max": 10_000} for t in TYPES}})


def round_(status: str = OPEN, closes_in: float = 10, paused: bool = False) -> RoundBetting:
    return RoundBetting(
        round_id="T1-000001",
        table_id="T1",
        status=status,
        paused=paused,
        betting_closes_at=NOW + timedelta(seconds=closes_in),
        limits=LIMITS,
    )


def lines(*bets: tuple[str, int]) -> list[SlipLine]:
    return [SlipLine(bet_type, stake) for bet_type, stake in bets]


def refusal(error: type[WalletError], *bets: tuple[str, int], **kw: object) -> str:
    round_kw = {k: kw.pop(k) for k in ("status", "closes_in", "paused") if k in kw}
    with pytest.raises(error) as raised:
        validate_slip(
            round_(**round_kw),  # type: ignore[arg-type]
            str(kw.pop("currency", "INR")),
            lines(*bets),
            NOW,
            **kw,  # type: ignore[arg-type]
        )
    return raised.value.code


def test_a_valid_slip_costs_its_total_stake() -> None:
    assert validate_slip(round_(), "INR", lines(("player_a", 100), ("tie", 10_000)), NOW) == 10_100


def test_limits_are_inclusive_and_checked_per_bet() -> None:
    assert refusal(BelowMinimumError, ("player_a", 100), ("tie", 99)) == "below_minimum"
    assert refusal(AboveMaximumError, ("player_a", 10_001)) == "above_maximum"
    assert refusal(CurrencyNotAcceptedError, ("player_a", 100), currency="USD") == (
        "currency_not_accepted"
    )


@pytest.mark.parametrize(
    "bets",
    [
        (),
        (("banker", 100),),
        (("player_a", 100), ("player_a", 100)),
        (("player_a", 0),),
        (("player_a", -100),),
        (*((t, 100) for t in TYPES), ("tie", 100)),
    ],
)
def test_malformed_slips_are_invalid_bets(bets: tuple[tuple[str, int], ...]) -> None:
    assert refusal(InvalidBetError, *bets) == "invalid_bet"


def test_a_slip_may_hold_every_bet_type_once_up_to_the_configured_count() -> None:
    every = [(t, 100) for t in TYPES]
    assert validate_slip(round_(), "INR", lines(*every), NOW) == 600
    assert refusal(InvalidBetError, *every, max_bets=5) == "invalid_bet"


@pytest.mark.parametrize(
    ("status", "closes_in", "paused"),
    [
        (SEALED, 10, False),
        (CLOSED, 10, False),
        (OPEN, 0, False),
        (OPEN, -1, False),
        (OPEN, 10, True),
    ],
)
def test_betting_is_open_only_before_the_deadline_and_the_seal(
    status: str, closes_in: float, paused: bool
) -> None:
    code = refusal(
        BettingClosedError, ("player_a", 100), status=status, closes_in=closes_in, paused=paused
    )
    assert code == "betting_closed"


def test_a_grace_period_extends_the_deadline_only_by_itself() -> None:
    late = round_(closes_in=-0.2)
    assert validate_slip(late, "INR", lines(("tie", 100)), NOW, grace=timedelta(seconds=0.5))
    with pytest.raises(BettingClosedError):
        validate_slip(late, "INR", lines(("tie", 100)), NOW, grace=timedelta(seconds=0.1))


def test_the_shape_is_checked_before_the_window() -> None:
    assert refusal(InvalidBetError, ("banker", 100), status=SEALED) == "invalid_bet"


def test_funds() -> None:
    check_funds(500, 500, "INR")
    with pytest.raises(InsufficientFundsError):
        check_funds(499, 500, "INR")


def test_the_digest_is_sha256_of_the_sorted_ids_joined_by_commas() -> None:
    a = UUID("00000000-0000-4000-8000-00000000000a")
    b = UUID("ffffffff-0000-4000-8000-000000000000")
    expected = hashlib.sha256(f"{a},{b}".encode()).hexdigest()
    assert book_digest([b, a]) == book_digest([a, b]) == expected
    assert book_digest([]) == hashlib.sha256(b"").hexdigest()


def test_the_seal_counts_and_totals_per_currency() -> None:
    a, b, c = (UUID(int=n) for n in (3, 1, 2))
    assert seal_book([(a, "INR", 100), (b, "EUR", 50), (c, "INR", 250)]) == BookSeal(
        bet_count=3, total_stake={"EUR": 50, "INR": 350}, digest=book_digest([a, b, c])
    )
    assert seal_book([]) == BookSeal(0, {}, book_digest([]))


def test_fingerprints_tell_bodies_apart_but_not_key_order() -> None:
    assert fingerprint({"a": 1, "b": [1, 2]}) == fingerprint({"b": [1, 2], "a": 1})
    assert fingerprint({"a": 1, "b": [1, 2]}) != fingerprint({"a": 1, "b": [2, 1]})


def test_limits_mapping() -> None:
    assert limits_from_mapping({"EUR": {"tie": {"min": 1, "max": 2}}}) == {
        "EUR": {"tie": StakeRange(1, 2)}
    }


def test_a_players_slips_on_one_bet_type_together_stay_within_its_maximum() -> None:
    staked = {"player_a": 6_000, "tie": 10_000}
    check_exposure(round_(), "INR", lines(("player_a", 4_000), ("player_b", 10_000)), staked)
    with pytest.raises(ExposureLimitError) as raised:
        check_exposure(round_(), "INR", lines(("player_b", 100), ("player_a", 4_001)), staked)
    assert raised.value.code == "exposure_limit"
    assert raised.value.extra == {
        "bet_type": "player_a",
        "currency": "INR",
        "limit": 10_000,
        "staked": 6_000,
        "left": 4_000,
    }
    assert "4000 left" in raised.value.detail
    with pytest.raises(ExposureLimitError) as full:
        check_exposure(round_(), "INR", lines(("tie", 100)), staked)
    assert full.value.extra["left"] == 0


def test_the_catalog_bounds_every_amount_a_consumer_takes() -> None:
    from pydantic import ValidationError

    from teenpatti.events.catalog import (
        MAX_MINOR_UNITS,
        MAX_STAKE,
        BetSettled,
        SettlementResolved,
        StakeLimit,
    )

    line = {
        "bet_id": UUID(int=1),
        "operator_id": "operator-1",
        "player_id": "p1",
        "bet_type": "tie",
        "stake": MAX_STAKE,
        "currency": "INR",
        "outcome": "won",
        "returned": MAX_MINOR_UNITS,
        "fraction_kept": "0",
        "odds": "50/1",
    }
    BetSettled.model_validate(line)
    # the largest stake at the largest odds (10,000:1) is within the bound of one amount
    assert MAX_STAKE * 10_001 <= MAX_MINOR_UNITS < 2**63
    for beyond in ({"stake": MAX_STAKE + 1}, {"returned": MAX_MINOR_UNITS + 1}, {"stake": 0}):
        with pytest.raises(ValidationError):
            BetSettled.model_validate({**line, **beyond})
    with pytest.raises(ValidationError):
        StakeLimit(min=1, max=MAX_STAKE + 1)
    resolved = {
        "resolution_id": UUID(int=2),
        "round_id": "T1-000001",
        "table_id": "T1",
        "action": "void",
        "reason": "both a result and a cancellation",
        "problems": ["conflicting_outcome"],
        "requested_by": "alice",
        "confirmed_by": "bob",
    }
    SettlementResolved.model_validate(resolved)
    with pytest.raises(ValidationError, match="other than its maker"):
        SettlementResolved.model_validate({**resolved, "confirmed_by": "alice"})
