from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="DailyCorrectionsPublic")


@_attrs_define
class DailyCorrectionsPublic:
    """The corrections made that day of rounds voided after their result: bets corrected,
    their net to players (refunds less returns taken back), what moved, the shortfall, and
    the net listed for a seamless operator.

        Attributes:
            bets (int):
            net (int):
            applied (int):
            shortfall (int):
            listed (int):
    """

    bets: int
    net: int
    applied: int
    shortfall: int
    listed: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bets = self.bets

        net = self.net

        applied = self.applied

        shortfall = self.shortfall

        listed = self.listed

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bets": bets,
                "net": net,
                "applied": applied,
                "shortfall": shortfall,
                "listed": listed,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        bets = d.pop("bets")

        net = d.pop("net")

        applied = d.pop("applied")

        shortfall = d.pop("shortfall")

        listed = d.pop("listed")

        daily_corrections_public = cls(
            bets=bets,
            net=net,
            applied=applied,
            shortfall=shortfall,
            listed=listed,
        )

        daily_corrections_public.additional_properties = d
        return daily_corrections_public

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
