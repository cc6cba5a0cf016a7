from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ResultView")


@_attrs_define
class ResultView:
    """
    Attributes:
        cards (list[str]): The cards dealt, in dealing order A1 B1 A2 B2 A3 B3 (A: player A's, B: player B's), each as
            rank and suit (`2`-`10`, `J`, `Q`, `K`, `A`; `S` `H` `D` `C`), e.g. `10H`; fewer while dealing or when the round
            was cancelled.
        player_a_hand (str): Player A's three-card hand: `trail_of_aces`, `trail`, `straight_flush`, `straight`,
            `flush`, `pair` or `high_card`; null until its result.
        player_b_hand (str): Player B's three-card hand, named as player A's; null until its result.
        six_card_bonus_hand (None | str): The best five-card hand of all six cards, for the six-card bonus bet:
            `royal_flush` down to `three_of_a_kind`; null when they make none of those (or before the result).
        winner (str): Who won the round: `player_a`, `player_b` or `tie`; null until its result.
    """

    cards: list[str]
    player_a_hand: str
    player_b_hand: str
    six_card_bonus_hand: None | str
    winner: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cards = self.cards

        player_a_hand = self.player_a_hand

        player_b_hand = self.player_b_hand

        six_card_bonus_hand: None | str
        six_card_bonus_hand = self.six_card_bonus_hand

        winner = self.winner

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cards": cards,
                "player_a_hand": player_a_hand,
                "player_b_hand": player_b_hand,
                "six_card_bonus_hand": six_card_bonus_hand,
                "winner": winner,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        cards = cast(list[str], d.pop("cards"))

        player_a_hand = d.pop("player_a_hand")

        player_b_hand = d.pop("player_b_hand")

        def _parse_six_card_bonus_hand(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        six_card_bonus_hand = _parse_six_card_bonus_hand(d.pop("six_card_bonus_hand"))

        winner = d.pop("winner")

        result_view = cls(
            cards=cards,
            player_a_hand=player_a_hand,
            player_b_hand=player_b_hand,
            six_card_bonus_hand=six_card_bonus_hand,
            winner=winner,
        )

        result_view.additional_properties = d
        return result_view

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
