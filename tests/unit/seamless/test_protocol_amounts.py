"""Protocol units are the currency amount x 100,000; our minor units convert exactly both
ways, by each currency's decimals, or not at all."""

from __future__ import annotations

import pytest

from teenpatti.seamless.hub88 import (
    INT64_MAX,
    AmountError,
    currency_decimals,
    from_protocol,
    to_protocol,
)


@pytest.mark.parametrize(
    ("minor", "currency", "units"),
    [
        (356, "INR", 356_000),  # the protocol's own example: 3.56 INR
        (1, "INR", 1_000),
        (0, "INR", 0),
        (10_000_000, "INR", 10_000_000_000),  # 100,000 INR
        (1, "EUR", 1_000),
        (500, "JPY", 50_000_000),  # no minor unit: 500 yen
        (1_234, "KWD", 123_400),  # three decimals: 1.234 dinar
        (1, "CLF", 10),  # four decimals
    ],
)
def test_exact_both_ways(minor: int, currency: str, units: int) -> None:
    assert to_protocol(minor, currency) == units
    assert from_protocol(units, currency) == minor


@pytest.mark.parametrize(
    ("currency", "decimals"), [("INR", 2), ("USD", 2), ("JPY", 0), ("KRW", 0), ("KWD", 3)]
)
def test_decimals_by_iso_4217(currency: str, decimals: int) -> None:
    assert currency_decimals(currency) == decimals


@pytest.mark.parametrize(
    ("units", "currency"),
    [
        (356_001, "INR"),  # 3.56001 INR: a hundredth of a paisa
        (999, "INR"),
        (50_000_001, "JPY"),
        (99_999, "JPY"),  # 0.99999 yen
        (123_401, "KWD"),
    ],
)
def test_a_fraction_of_a_minor_unit_is_refused(units: int, currency: str) -> None:
    with pytest.raises(AmountError, match="not a whole number"):
        from_protocol(units, currency)


@pytest.mark.parametrize("value", [3.56, True, "356", None])
def test_only_integers_are_amounts(value: object) -> None:
    with pytest.raises(AmountError, match="not an integer"):
        to_protocol(value, "INR")  # type: ignore[arg-type]
    with pytest.raises(AmountError, match="not an integer"):
        from_protocol(value, "INR")  # type: ignore[arg-type]


def test_beyond_int64_is_refused() -> None:
    largest = INT64_MAX // 1_000
    assert to_protocol(largest, "INR") == largest * 1_000
    with pytest.raises(AmountError, match="beyond int64"):
        to_protocol(largest + 1, "INR")
    with pytest.raises(AmountError, match="beyond int64"):
        from_protocol(INT64_MAX + 1, "INR")


@pytest.mark.parametrize("currency", ["inr", "IN", "INRR", "", "1NR"])
def test_a_currency_must_be_an_iso_code(currency: str) -> None:
    with pytest.raises(AmountError, match="ISO 4217"):
        to_protocol(100, currency)
