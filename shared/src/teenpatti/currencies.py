"""The currencies the platform accepts and the exponent of each one's minor unit (ISO 4217).

One table, `currencies.json` beside this module, for every side: the wallet accepts exactly
its codes, the operator wallet protocol converts amounts by its exponents, and the web front
serves the same file to the pages (`GET /currencies.json`), whose `money.js` formats every
amount by it (docs/decisions/0088-one-currency-table.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Annotated

from pydantic import AfterValidator, Field

CURRENCIES_FILE = Path(__file__).with_name("currencies.json")


class UnknownCurrencyError(ValueError):
    """A code that is not one of the currencies the platform accepts."""


@cache
def minor_units() -> Mapping[str, int]:
    """Every accepted ISO 4217 code with the exponent of its minor unit (0, 2, 3 or 4)."""
    table = json.loads(CURRENCIES_FILE.read_text(encoding="utf-8"))["minor_units"]
    return MappingProxyType({str(code): int(exponent) for code, exponent in table.items()})


def exponent(currency: str) -> int:
    """The decimals of `currency`'s minor unit: 2 for INR, 0 for JPY, 3 for KWD."""
    try:
        return minor_units()[currency]
    except KeyError:
        raise UnknownCurrencyError(
            f"{currency!r} is not a currency the platform accepts (an ISO 4217 code with a"
            " minor unit, such as 'EUR')"
        ) from None


def _accepted(currency: str) -> str:
    exponent(currency)  # UnknownCurrencyError is a ValueError: pydantic reports it
    return currency


# a request's currency: three capital letters (its schema), and one of the table's codes
CurrencyCode = Annotated[str, Field(pattern=r"^[A-Z]{3}$"), AfterValidator(_accepted)]
