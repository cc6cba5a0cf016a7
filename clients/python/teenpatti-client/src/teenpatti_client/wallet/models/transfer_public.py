from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TransferPublic")


@_attrs_define
class TransferPublic:
    """A deposit or withdrawal taken (or taken before, under the same transfer id).

    Attributes:
        balance (int): The player's balance in the currency, in integer minor units, right after what this answer
            reports.
        currency (str): An ISO 4217 code of the platform's currency table (e.g. `INR`): every amount beside it is in
            integer minor units of it (paise for INR, cents for USD).
        transfer_id (str): The operator's id of the transfer, as sent.
    """

    balance: int
    currency: str
    transfer_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        balance = self.balance

        currency = self.currency

        transfer_id = self.transfer_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "balance": balance,
                "currency": currency,
                "transfer_id": transfer_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        balance = d.pop("balance")

        currency = d.pop("currency")

        transfer_id = d.pop("transfer_id")

        transfer_public = cls(
            balance=balance,
            currency=currency,
            transfer_id=transfer_id,
        )

        transfer_public.additional_properties = d
        return transfer_public

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
