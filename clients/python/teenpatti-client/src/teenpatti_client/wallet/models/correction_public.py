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
            refunded (int):
            reversed_ (int):
            net (int):
    """

    refunded: int
    reversed_: int
    net: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        refunded = self.refunded

        reversed_ = self.reversed_

        net = self.net

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "refunded": refunded,
                "reversed": reversed_,
                "net": net,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        refunded = d.pop("refunded")

        reversed_ = d.pop("reversed")

        net = d.pop("net")

        correction_public = cls(
            refunded=refunded,
            reversed_=reversed_,
            net=net,
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
