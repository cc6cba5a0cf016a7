from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="TransferCreate")


@_attrs_define
class TransferCreate:
    """
    Attributes:
        amount (int): How much, in integer minor units of the currency: above 0, at most 2^53 - 1 (so that every
            JSON client reads it exactly).
        currency (str): An ISO 4217 code of the platform's currency table (e.g. `INR`): every amount beside it is in
            integer minor units of it (paise for INR, cents for USD).
        transfer_id (str): The operator's own id of the transfer (1 to 100 characters), one id per transfer: a
            retry of the same transfer answers the first one's answer and moves nothing twice; the same
            id for another transfer (deposit or withdrawal, player, currency or amount) is refused 422
            `transfer_id_reused`.
    """

    amount: int
    currency: str
    transfer_id: str

    def to_dict(self) -> dict[str, Any]:
        amount = self.amount

        currency = self.currency

        transfer_id = self.transfer_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "amount": amount,
                "currency": currency,
                "transfer_id": transfer_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        amount = d.pop("amount")

        currency = d.pop("currency")

        transfer_id = d.pop("transfer_id")

        transfer_create = cls(
            amount=amount,
            currency=currency,
            transfer_id=transfer_id,
        )

        return transfer_create
