from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="CurrencyTotals")


@_attrs_define
class CurrencyTotals:
    """
    Attributes:
        house_result (int): `stake` - `returned`: positive when the house won.
        returned (int): What was returned to players, stakes included, in integer minor units.
        stake (int): The stakes, in integer minor units of the currency.
    """

    house_result: int
    returned: int
    stake: int

    def to_dict(self) -> dict[str, Any]:
        house_result = self.house_result

        returned = self.returned

        stake = self.stake

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "house_result": house_result,
                "returned": returned,
                "stake": stake,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        house_result = d.pop("house_result")

        returned = d.pop("returned")

        stake = d.pop("stake")

        currency_totals = cls(
            house_result=house_result,
            returned=returned,
            stake=stake,
        )

        return currency_totals
