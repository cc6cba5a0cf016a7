from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.daily_currency_public import DailyCurrencyPublic


T = TypeVar("T", bound="DailyReportPublic")


@_attrs_define
class DailyReportPublic:
    """The bets settled on one UTC day, per currency.

    Attributes:
        currencies (list[DailyCurrencyPublic]): Per currency the operator's players bet in that day.
        date (str): The UTC day, as asked (`YYYY-MM-DD`).
        from_ (str): The day's start (ISO 8601, UTC), inclusive.
        operator_id (str): The operator: the key's holder.
        to (str): The next day's start (ISO 8601, UTC), exclusive.
    """

    currencies: list[DailyCurrencyPublic]
    date: str
    from_: str
    operator_id: str
    to: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        currencies = []
        for currencies_item_data in self.currencies:
            currencies_item = currencies_item_data.to_dict()
            currencies.append(currencies_item)

        date = self.date

        from_ = self.from_

        operator_id = self.operator_id

        to = self.to

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "currencies": currencies,
                "date": date,
                "from": from_,
                "operator_id": operator_id,
                "to": to,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.daily_currency_public import DailyCurrencyPublic

        d = dict(src_dict)
        currencies = []
        _currencies = d.pop("currencies")
        for currencies_item_data in _currencies:
            currencies_item = DailyCurrencyPublic.from_dict(currencies_item_data)

            currencies.append(currencies_item)

        date = d.pop("date")

        from_ = d.pop("from")

        operator_id = d.pop("operator_id")

        to = d.pop("to")

        daily_report_public = cls(
            currencies=currencies,
            date=date,
            from_=from_,
            operator_id=operator_id,
            to=to,
        )

        daily_report_public.additional_properties = d
        return daily_report_public

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
