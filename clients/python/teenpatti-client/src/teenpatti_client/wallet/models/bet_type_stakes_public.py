from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="BetTypeStakesPublic")


@_attrs_define
class BetTypeStakesPublic:
    """
    Attributes:
        bets (int): How many bets.
        staked (int): The total staked, in integer minor units of the currency.
    """

    bets: int
    staked: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bets = self.bets

        staked = self.staked

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bets": bets,
                "staked": staked,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        bets = d.pop("bets")

        staked = d.pop("staked")

        bet_type_stakes_public = cls(
            bets=bets,
            staked=staked,
        )

        bet_type_stakes_public.additional_properties = d
        return bet_type_stakes_public

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
