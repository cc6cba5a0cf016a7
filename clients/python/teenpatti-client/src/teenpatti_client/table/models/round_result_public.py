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
            cards (list[str]): The cards dealt, in dealing order A1 B1 A2 B2 A3 B3 (A: player A's, B: player B's), each as
                rank and suit (`2`-`10`, `J`, `Q`, `K`, `A`; `S` `H` `D` `C`), e.g. `10H`; fewer while dealing or when the round
                was cancelled.
            ended_at (str): When the round ended: its result recorded, or its cancellation (ISO 8601, UTC).
            number (int): The round's number at its table, from 1.
            player_a (HandPublic | None): Player A's cards and hand; null when cancelled.
            player_b (HandPublic | None): Player B's cards and hand; null when cancelled.
            round_id (str): The round's id: `<table id>-<number>`, the number from 1 zero-padded to six digits, e.g.
                `T01-000042`.
            six_card_bonus_hand (None | str): The best five-card hand of all six cards, for the six-card bonus bet:
                `royal_flush` down to `three_of_a_kind`; null when they make none of those (or before the result).
            status (str): `closed` (with its result), `cancelled` (the cards dealt before the void, no hands, no
                winner) or `voided` (the result it voided).
            void_reason (None | str): Why the round was voided after its result, as the supervisors wrote it; null if it was
                not.
            voided_at (None | str): When the round was voided after its result (ISO 8601, UTC); null if it was not.
            winner (None | str): Who won the round: `player_a`, `player_b` or `tie`; null until its result.
    """

    cards: list[str]
    ended_at: str
    number: int
    player_a: HandPublic | None
    player_b: HandPublic | None
    round_id: str
    six_card_bonus_hand: None | str
    status: str
    void_reason: None | str
    voided_at: None | str
    winner: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.hand_public import HandPublic

        cards = self.cards

        ended_at = self.ended_at

        number = self.number

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

        round_id = self.round_id

        six_card_bonus_hand: None | str
        six_card_bonus_hand = self.six_card_bonus_hand

        status = self.status

        void_reason: None | str
        void_reason = self.void_reason

        voided_at: None | str
        voided_at = self.voided_at

        winner: None | str
        winner = self.winner

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cards": cards,
                "ended_at": ended_at,
                "number": number,
                "player_a": player_a,
                "player_b": player_b,
                "round_id": round_id,
                "six_card_bonus_hand": six_card_bonus_hand,
                "status": status,
                "void_reason": void_reason,
                "voided_at": voided_at,
                "winner": winner,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.hand_public import HandPublic

        d = dict(src_dict)
        cards = cast(list[str], d.pop("cards"))

        ended_at = d.pop("ended_at")

        number = d.pop("number")

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

        round_id = d.pop("round_id")

        def _parse_six_card_bonus_hand(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        six_card_bonus_hand = _parse_six_card_bonus_hand(d.pop("six_card_bonus_hand"))

        status = d.pop("status")

        def _parse_void_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        void_reason = _parse_void_reason(d.pop("void_reason"))

        def _parse_voided_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        voided_at = _parse_voided_at(d.pop("voided_at"))

        def _parse_winner(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        winner = _parse_winner(d.pop("winner"))

        round_result_public = cls(
            cards=cards,
            ended_at=ended_at,
            number=number,
            player_a=player_a,
            player_b=player_b,
            round_id=round_id,
            six_card_bonus_hand=six_card_bonus_hand,
            status=status,
            void_reason=void_reason,
            voided_at=voided_at,
            winner=winner,
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
