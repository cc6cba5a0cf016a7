"""The currencies the wallet accepts are the one table's (teenpatti.currencies), and every
amount it converts for an operator's wallet uses that table's minor units."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from teenpatti.currencies import exponent, minor_units
from teenpatti.seamless.hub88 import (
    PROTOCOL_DECIMALS,
    currency_decimals,
    from_protocol,
    to_protocol,
)
from wallet_service.entrypoints import TransferCreate
from wallet_service.session_entrypoints import SessionCreate

# ISO 4217's minor units that are not 2 (the standard's list one); every other code has 2
ZERO = ["BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI",
        "VND", "VUV", "XAF", "XOF", "XPF"]  # fmt: skip
THREE = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]
FOUR = ["CLF", "UYW"]
NOT_TWO = {**dict.fromkeys(ZERO, 0), **dict.fromkeys(THREE, 3), **dict.fromkeys(FOUR, 4)}
# codes without a minor unit (metals, bond units, funds), the testing and "no currency"
# codes, a withdrawn one and made-up ones
REFUSED = ["XAU", "XAG", "XDR", "XTS", "XXX", "ANG", "HRK", "ABC", "BTC"]


def _deposit(currency: str) -> TransferCreate:
    return TransferCreate.model_validate({"transfer_id": "t1", "currency": currency, "amount": 100})


def _session(currency: str) -> SessionCreate:
    return SessionCreate.model_validate(
        {"token": "tok", "player_id": "p1", "currency": currency, "table_id": "T1"}
    )


def test_the_table_holds_iso_4217_minor_units() -> None:
    table = minor_units()
    assert len(table) > 150
    assert {code: units for code, units in table.items() if units != 2} == NOT_TWO
    assert {"INR", "EUR", "USD", "THB", "IRR", "RUB"} <= set(table)
    assert not set(REFUSED) & set(table)


@pytest.mark.parametrize("currency", sorted(minor_units()))
def test_every_currency_of_the_table_is_accepted_and_converts_by_its_minor_unit(
    currency: str,
) -> None:
    assert _deposit(currency).currency == currency
    assert _session(currency).currency == currency
    decimals = exponent(currency)
    assert currency_decimals(currency) == decimals
    factor = 10 ** (PROTOCOL_DECIMALS - decimals)
    assert to_protocol(123_456, currency) == 123_456 * factor
    assert from_protocol(123_456 * factor, currency) == 123_456


@pytest.mark.parametrize("currency", [*REFUSED, "inr", "IN", "EURO", ""])
def test_a_code_outside_the_table_is_refused(currency: str) -> None:
    with pytest.raises(ValidationError):
        _deposit(currency)
    with pytest.raises(ValidationError):
        _session(currency)
