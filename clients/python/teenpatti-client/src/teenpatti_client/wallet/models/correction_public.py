from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CorrectionPublic")


@_attrs_define
class CorrectionPublic:
    """A round voided after its result, put right: every stake refunded, every return
    taken back.

        Attributes:
            net (int): `refunded` - `reversed`: positive when the player got money back.
            refunded (int): Every stake refunded, in integer minor units.
            reversed_ (int): Every return taken back, in integer minor units.
    """

    net: int
    refunded: int
    reversed_: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        net = self.net

        refunded = self.refunded

        reversed_ = self.reversed_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "net": net,
                "refunded": refunded,
                "reversed": reversed_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        net = d.pop("net")

        refunded = d.pop("refunded")

        reversed_ = d.pop("reversed")

        correction_public = cls(
            net=net,
            refunded=refunded,
            reversed_=reversed_,
        )

        correction_public.additional_properties = d
        return correction_public

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
