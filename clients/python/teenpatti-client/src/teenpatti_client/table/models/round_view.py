from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.dealt_card_view import DealtCardView
    from ..models.result_view import ResultView


T = TypeVar("T", bound="RoundView")


@_attrs_define
class RoundView:
    """
    Attributes:
        betting_closes_at (None | str): When betting closes (ISO 8601, UTC); null while paused during betting.
        betting_remaining_seconds (float | None): The betting time left when paused during betting, in seconds; null
            otherwise.
        cancel_reason (None | str): Why the round was cancelled, as the supervisor wrote it; null if it was not.
        cancelled_by (None | str): Who cancelled it; null if it was not.
        card_marked_wrong (None | str): The position of a dealt card a supervisor marked wrong; null when none.
        card_marked_wrong_by (None | str): Who marked it wrong; null when none.
        cards (list[DealtCardView]): The cards dealt so far, each with its position, in dealing order.
        ended_at (None | str): When the round ended: its result recorded, or its cancellation (ISO 8601, UTC).
        exposed (bool): A card was read during betting and not replaced yet (its value is never shown): the deck is
            replaced before the round goes on.
        first_card_at (None | str): When its first card was dealt (ISO 8601, UTC); null before.
        number (int): The round's number at its table, from 1.
        opened_at (str): When the round opened for bets (ISO 8601, UTC).
        pause_reason (None | str): Why it is paused; null when it is not.
        paused (bool): Whether the round is paused (no bet taken, no card dealt).
        paused_at (None | str): When it was paused (ISO 8601, UTC); null when it is not.
        paused_by (None | str): Who paused it; null when it is not paused.
        phase (str): `betting`, `dealing`, `closed` or `cancelled`.
        result (None | ResultView): Its result once the six cards are dealt; null before.
        round_id (str): The round's id: `<table id>-<number>`, the number from 1 zero-padded to six digits, e.g.
            `T01-000042`.
        void_requested_by (None | str): A started round's void, asked by this supervisor and waiting for a second one;
            null when
            none.
    """

    betting_closes_at: None | str
    betting_remaining_seconds: float | None
    cancel_reason: None | str
    cancelled_by: None | str
    card_marked_wrong: None | str
    card_marked_wrong_by: None | str
    cards: list[DealtCardView]
    ended_at: None | str
    exposed: bool
    first_card_at: None | str
    number: int
    opened_at: str
    pause_reason: None | str
    paused: bool
    paused_at: None | str
    paused_by: None | str
    phase: str
    result: None | ResultView
    round_id: str
    void_requested_by: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.result_view import ResultView

        betting_closes_at: None | str
        betting_closes_at = self.betting_closes_at

        betting_remaining_seconds: float | None
        betting_remaining_seconds = self.betting_remaining_seconds

        cancel_reason: None | str
        cancel_reason = self.cancel_reason

        cancelled_by: None | str
        cancelled_by = self.cancelled_by

        card_marked_wrong: None | str
        card_marked_wrong = self.card_marked_wrong

        card_marked_wrong_by: None | str
        card_marked_wrong_by = self.card_marked_wrong_by

        cards = []
        for cards_item_data in self.cards:
            cards_item = cards_item_data.to_dict()
            cards.append(cards_item)

        ended_at: None | str
        ended_at = self.ended_at

        exposed = self.exposed

        first_card_at: None | str
        first_card_at = self.first_card_at

        number = self.number

        opened_at = self.opened_at

        pause_reason: None | str
        pause_reason = self.pause_reason

        paused = self.paused

        paused_at: None | str
        paused_at = self.paused_at

        paused_by: None | str
        paused_by = self.paused_by

        phase = self.phase

        result: dict[str, Any] | None
        if isinstance(self.result, ResultView):
            result = self.result.to_dict()
        else:
            result = self.result

        round_id = self.round_id

        void_requested_by: None | str
        void_requested_by = self.void_requested_by

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "betting_closes_at": betting_closes_at,
                "betting_remaining_seconds": betting_remaining_seconds,
                "cancel_reason": cancel_reason,
                "cancelled_by": cancelled_by,
                "card_marked_wrong": card_marked_wrong,
                "card_marked_wrong_by": card_marked_wrong_by,
                "cards": cards,
                "ended_at": ended_at,
                "exposed": exposed,
                "first_card_at": first_card_at,
                "number": number,
                "opened_at": opened_at,
                "pause_reason": pause_reason,
                "paused": paused,
                "paused_at": paused_at,
                "paused_by": paused_by,
                "phase": phase,
                "result": result,
                "round_id": round_id,
                "void_requested_by": void_requested_by,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.dealt_card_view import DealtCardView
        from ..models.result_view import ResultView

        d = dict(src_dict)

        def _parse_betting_closes_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        betting_closes_at = _parse_betting_closes_at(d.pop("betting_closes_at"))

        def _parse_betting_remaining_seconds(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        betting_remaining_seconds = _parse_betting_remaining_seconds(
            d.pop("betting_remaining_seconds")
        )

        def _parse_cancel_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        cancel_reason = _parse_cancel_reason(d.pop("cancel_reason"))

        def _parse_cancelled_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        cancelled_by = _parse_cancelled_by(d.pop("cancelled_by"))

        def _parse_card_marked_wrong(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        card_marked_wrong = _parse_card_marked_wrong(d.pop("card_marked_wrong"))

        def _parse_card_marked_wrong_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        card_marked_wrong_by = _parse_card_marked_wrong_by(d.pop("card_marked_wrong_by"))

        cards = []
        _cards = d.pop("cards")
        for cards_item_data in _cards:
            cards_item = DealtCardView.from_dict(cards_item_data)

            cards.append(cards_item)

        def _parse_ended_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        ended_at = _parse_ended_at(d.pop("ended_at"))

        exposed = d.pop("exposed")

        def _parse_first_card_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        first_card_at = _parse_first_card_at(d.pop("first_card_at"))

        number = d.pop("number")

        opened_at = d.pop("opened_at")

        def _parse_pause_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        pause_reason = _parse_pause_reason(d.pop("pause_reason"))

        paused = d.pop("paused")

        def _parse_paused_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        paused_at = _parse_paused_at(d.pop("paused_at"))

        def _parse_paused_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        paused_by = _parse_paused_by(d.pop("paused_by"))

        phase = d.pop("phase")

        def _parse_result(data: object) -> None | ResultView:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                result_type_0 = ResultView.from_dict(data)

                return result_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResultView, data)

        result = _parse_result(d.pop("result"))

        round_id = d.pop("round_id")

        def _parse_void_requested_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        void_requested_by = _parse_void_requested_by(d.pop("void_requested_by"))

        round_view = cls(
            betting_closes_at=betting_closes_at,
            betting_remaining_seconds=betting_remaining_seconds,
            cancel_reason=cancel_reason,
            cancelled_by=cancelled_by,
            card_marked_wrong=card_marked_wrong,
            card_marked_wrong_by=card_marked_wrong_by,
            cards=cards,
            ended_at=ended_at,
            exposed=exposed,
            first_card_at=first_card_at,
            number=number,
            opened_at=opened_at,
            pause_reason=pause_reason,
            paused=paused,
            paused_at=paused_at,
            paused_by=paused_by,
            phase=phase,
            result=result,
            round_id=round_id,
            void_requested_by=void_requested_by,
        )

        round_view.additional_properties = d
        return round_view

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
