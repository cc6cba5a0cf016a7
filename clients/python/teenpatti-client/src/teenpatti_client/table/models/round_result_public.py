from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.hand_public import HandPublic


T = TypeVar("T", bound="RoundResultPublic")


@_attrs_define
class RoundResultPublic:
    """One round of the roadmap: closed with its result, cancelled with the cards dealt
    before the void (then no hands and no winner), or voided after its result (the result
    it voided, and when and why it was voided).

        Attributes:
            round_id (str):
            number (int):
            status (str):
            ended_at (str):
            cards (list[str]):
            player_a (HandPublic | None):
            player_b (HandPublic | None):
            winner (None | str):
            six_card_bonus_hand (None | str):
            voided_at (None | str):
            void_reason (None | str):
    """

    round_id: str
    number: int
    status: str
    ended_at: str
    cards: list[str]
    player_a: HandPublic | None
    player_b: HandPublic | None
    winner: None | str
    six_card_bonus_hand: None | str
    voided_at: None | str
    void_reason: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.hand_public import HandPublic

        round_id = self.round_id

        number = self.number

        status = self.status

        ended_at = self.ended_at

        cards = self.cards

        player_a: dict[str, Any] | None
        if isinstance(self.player_a, HandPublic):
            player_a = self.player_a.to_dict()
        else:
            player_a = self.player_a

        player_b: dict[str, Any] | None
        if isinstance(self.player_b, HandPublic):
            player_b = self.player_b.to_dict()
        else:
            player_b = self.player_b

        winner: None | str
        winner = self.winner

        six_card_bonus_hand: None | str
        six_card_bonus_hand = self.six_card_bonus_hand

        voided_at: None | str
        voided_at = self.voided_at

        void_reason: None | str
        void_reason = self.void_reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "round_id": round_id,
                "number": number,
                "status": status,
                "ended_at": ended_at,
                "cards": cards,
                "player_a": player_a,
                "player_b": player_b,
                "winner": winner,
                "six_card_bonus_hand": six_card_bonus_hand,
                "voided_at": voided_at,
                "void_reason": void_reason,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.hand_public import HandPublic

        d = dict(src_dict)
        round_id = d.pop("round_id")

        number = d.pop("number")

        status = d.pop("status")

        ended_at = d.pop("ended_at")

        cards = cast(list[str], d.pop("cards"))

        def _parse_player_a(data: object) -> HandPublic | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                player_a_type_0 = HandPublic.from_dict(data)

                return player_a_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HandPublic | None, data)

        player_a = _parse_player_a(d.pop("player_a"))

        def _parse_player_b(data: object) -> HandPublic | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                player_b_type_0 = HandPublic.from_dict(data)

                return player_b_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HandPublic | None, data)

        player_b = _parse_player_b(d.pop("player_b"))

        def _parse_winner(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        winner = _parse_winner(d.pop("winner"))

        def _parse_six_card_bonus_hand(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        six_card_bonus_hand = _parse_six_card_bonus_hand(d.pop("six_card_bonus_hand"))

        def _parse_voided_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        voided_at = _parse_voided_at(d.pop("voided_at"))

        def _parse_void_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        void_reason = _parse_void_reason(d.pop("void_reason"))

        round_result_public = cls(
            round_id=round_id,
            number=number,
            status=status,
            ended_at=ended_at,
            cards=cards,
            player_a=player_a,
            player_b=player_b,
            winner=winner,
            six_card_bonus_hand=six_card_bonus_hand,
            voided_at=voided_at,
            void_reason=void_reason,
        )

        round_result_public.additional_properties = d
        return round_result_public

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
