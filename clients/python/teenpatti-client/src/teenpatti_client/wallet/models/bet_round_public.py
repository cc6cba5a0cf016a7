from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.bet_round_public_status import BetRoundPublicStatus

T = TypeVar("T", bound="BetRoundPublic")


@_attrs_define
class BetRoundPublic:
    """The round of a bet: its status and, once closed, its cards and result.

    Attributes:
        status (BetRoundPublicStatus):
        cards (list[str] | None):
        winner (None | str):
        player_a_hand (None | str):
        player_b_hand (None | str):
        six_card_bonus_hand (None | str):
    """

    status: BetRoundPublicStatus
    cards: list[str] | None
    winner: None | str
    player_a_hand: None | str
    player_b_hand: None | str
    six_card_bonus_hand: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        status = self.status.value

        cards: list[str] | None
        if isinstance(self.cards, list):
            cards = self.cards

        else:
            cards = self.cards

        winner: None | str
        winner = self.winner

        player_a_hand: None | str
        player_a_hand = self.player_a_hand

        player_b_hand: None | str
        player_b_hand = self.player_b_hand

        six_card_bonus_hand: None | str
        six_card_bonus_hand = self.six_card_bonus_hand

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
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
        status = BetRoundPublicStatus(d.pop("status"))

        def _parse_cards(data: object) -> list[str] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                cards_type_0 = cast(list[str], data)

                return cards_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None, data)

        cards = _parse_cards(d.pop("cards"))

        def _parse_winner(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        winner = _parse_winner(d.pop("winner"))

        def _parse_player_a_hand(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        player_a_hand = _parse_player_a_hand(d.pop("player_a_hand"))

        def _parse_player_b_hand(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        player_b_hand = _parse_player_b_hand(d.pop("player_b_hand"))

        def _parse_six_card_bonus_hand(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        six_card_bonus_hand = _parse_six_card_bonus_hand(d.pop("six_card_bonus_hand"))

        bet_round_public = cls(
            status=status,
            cards=cards,
            winner=winner,
            player_a_hand=player_a_hand,
            player_b_hand=player_b_hand,
            six_card_bonus_hand=six_card_bonus_hand,
        )

        bet_round_public.additional_properties = d
        return bet_round_public

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
