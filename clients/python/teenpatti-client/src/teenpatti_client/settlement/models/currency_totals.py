from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="CurrencyTotals")


@_attrs_define
class CurrencyTotals:
    """
    Attributes:
        stake (int):
        returned (int):
        house_result (int):
    """

    stake: int
    returned: int
    house_result: int

    def to_dict(self) -> dict[str, Any]:
        stake = self.stake

        returned = self.returned

        house_result = self.house_result

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "stake": stake,
                "returned": returned,
                "house_result": house_result,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        stake = d.pop("stake")

        returned = d.pop("returned")

        house_result = d.pop("house_result")

        currency_totals = cls(
            stake=stake,
            returned=returned,
            house_result=house_result,
        )

        return currency_totals
