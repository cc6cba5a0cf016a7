from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="ReversalTotals")


@_attrs_define
class ReversalTotals:
    """
    Attributes:
        refunded (int): The stakes refunded, in integer minor units of the currency.
        reversed_ (int): The returns taken back, in integer minor units of the currency.
    """

    refunded: int
    reversed_: int

    def to_dict(self) -> dict[str, Any]:
        refunded = self.refunded

        reversed_ = self.reversed_

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "refunded": refunded,
                "reversed": reversed_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        refunded = d.pop("refunded")

        reversed_ = d.pop("reversed")

        reversal_totals = cls(
            refunded=refunded,
            reversed_=reversed_,
        )

        return reversal_totals
