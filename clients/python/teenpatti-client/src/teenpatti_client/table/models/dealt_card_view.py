from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="DealtCardView")


@_attrs_define
class DealtCardView:
    """
    Attributes:
        card (str): A card as rank and suit (`2`-`10`, `J`, `Q`, `K`, `A`; `S` `H` `D` `C`), e.g. `10H`.
        position (str): Where a card is dealt: `A1` `B1` `A2` `B2` `A3` `B3`, in dealing order (A: player A's three
            cards, B: player B's).
    """

    card: str
    position: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        card = self.card

        position = self.position

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "card": card,
                "position": position,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        card = d.pop("card")

        position = d.pop("position")

        dealt_card_view = cls(
            card=card,
            position=position,
        )

        dealt_card_view.additional_properties = d
        return dealt_card_view

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
