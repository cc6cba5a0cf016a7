from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="TransferCreate")


@_attrs_define
class TransferCreate:
    """
    Attributes:
        transfer_id (str):
        currency (str):
        amount (int):
    """

    transfer_id: str
    currency: str
    amount: int

    def to_dict(self) -> dict[str, Any]:
        transfer_id = self.transfer_id

        currency = self.currency

        amount = self.amount

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "transfer_id": transfer_id,
                "currency": currency,
                "amount": amount,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        transfer_id = d.pop("transfer_id")

        currency = d.pop("currency")

        amount = d.pop("amount")

        transfer_create = cls(
            transfer_id=transfer_id,
            currency=currency,
            amount=amount,
        )

        return transfer_create
