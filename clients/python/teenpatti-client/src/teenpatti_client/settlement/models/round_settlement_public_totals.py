from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.currency_totals import CurrencyTotals


T = TypeVar("T", bound="RoundSettlementPublicTotals")


@_attrs_define
class RoundSettlementPublicTotals:
    """Per currency, this operator's settled bets: stakes, returns and the house's result, in
    integer minor units; `{}` until the round is settled.

    """

    additional_properties: dict[str, CurrencyTotals] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:

        field_dict: dict[str, Any] = {}
        for prop_name, prop in self.additional_properties.items():
            field_dict[prop_name] = prop.to_dict()

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.currency_totals import CurrencyTotals

        d = dict(src_dict)
        round_settlement_public_totals = cls()

        additional_properties = {}
        for prop_name, prop_dict in d.items():
            additional_property = CurrencyTotals.from_dict(prop_dict)

            additional_properties[prop_name] = additional_property

        round_settlement_public_totals.additional_properties = additional_properties
        return round_settlement_public_totals

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> CurrencyTotals:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: CurrencyTotals) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
