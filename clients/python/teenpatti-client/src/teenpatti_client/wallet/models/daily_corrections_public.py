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
            applied (int): What moved on transfer balances, in integer minor units.
            bets (int): How many bets were corrected.
            listed (int): The net listed for a seamless operator to apply, in integer minor units.
            net (int): Their net to players (refunds less returns taken back), in integer minor units.
            shortfall (int): What the balances could not cover, in integer minor units.
    """

    applied: int
    bets: int
    listed: int
    net: int
    shortfall: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        applied = self.applied

        bets = self.bets

        listed = self.listed

        net = self.net

        shortfall = self.shortfall

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "applied": applied,
                "bets": bets,
                "listed": listed,
                "net": net,
                "shortfall": shortfall,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        applied = d.pop("applied")

        bets = d.pop("bets")

        listed = d.pop("listed")

        net = d.pop("net")

        shortfall = d.pop("shortfall")

        daily_corrections_public = cls(
            applied=applied,
            bets=bets,
            listed=listed,
            net=net,
            shortfall=shortfall,
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
