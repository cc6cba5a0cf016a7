from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ResultPublic")


@_attrs_define
class ResultPublic:
    """
    Attributes:
        cards (list[str]):
        winner (str):
        player_a_hand (str):
        player_b_hand (str):
        six_card_bonus_hand (None | str):
    """

    cards: list[str]
    winner: str
    player_a_hand: str
    player_b_hand: str
    six_card_bonus_hand: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cards = self.cards

        winner = self.winner

        player_a_hand = self.player_a_hand

        player_b_hand = self.player_b_hand

        six_card_bonus_hand: None | str
        six_card_bonus_hand = self.six_card_bonus_hand

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cards": cards,
                "winner": winner,
                "player_a_hand": player_a_hand,
                "player_b_hand": player_b_hand,
                "six_card_bonus_hand": six_card_bonus_hand,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        cards = cast(list[str], d.pop("cards"))

        winner = d.pop("winner")

        player_a_hand = d.pop("player_a_hand")

        player_b_hand = d.pop("player_b_hand")

        def _parse_six_card_bonus_hand(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        six_card_bonus_hand = _parse_six_card_bonus_hand(d.pop("six_card_bonus_hand"))

        result_public = cls(
            cards=cards,
            winner=winner,
            player_a_hand=player_a_hand,
            player_b_hand=player_b_hand,
            six_card_bonus_hand=six_card_bonus_hand,
        )

        result_public.additional_properties = d
        return result_public

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
