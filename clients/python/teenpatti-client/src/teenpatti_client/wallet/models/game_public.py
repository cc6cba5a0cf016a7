from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.game_public_status import GamePublicStatus
from ..models.game_public_winner_type_0 import GamePublicWinnerType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.correction_public import CorrectionPublic
    from ..models.hand_public import HandPublic
    from ..models.wager_public import WagerPublic


T = TypeVar("T", bound="GamePublic")


@_attrs_define
class GamePublic:
    """One round as the player played it, in one currency (docs/services.md, wallet).

    Attributes:
        round_id (str):
        table_id (str):
        status (GamePublicStatus):
        ended_at (datetime.datetime | None):
        cards (list[str]):
        player_a (HandPublic | None):
        player_b (HandPublic | None):
        winner (GamePublicWinnerType0 | None):
        six_card_bonus_hand (None | str):
        currency (str):
        wagers (list[WagerPublic]):
        staked (int):
        returned (int | None):
        balance_before (int | None):
        balance_after (int | None):
        voided_at (datetime.datetime | None | Unset):
        correction (CorrectionPublic | None | Unset):
    """

    round_id: str
    table_id: str
    status: GamePublicStatus
    ended_at: datetime.datetime | None
    cards: list[str]
    player_a: HandPublic | None
    player_b: HandPublic | None
    winner: GamePublicWinnerType0 | None
    six_card_bonus_hand: None | str
    currency: str
    wagers: list[WagerPublic]
    staked: int
    returned: int | None
    balance_before: int | None
    balance_after: int | None
    voided_at: datetime.datetime | None | Unset = UNSET
    correction: CorrectionPublic | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.correction_public import CorrectionPublic
        from ..models.hand_public import HandPublic

        round_id = self.round_id

        table_id = self.table_id

        status = self.status.value

        ended_at: None | str
        if isinstance(self.ended_at, datetime.datetime):
            ended_at = self.ended_at.isoformat()
        else:
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
        if isinstance(self.winner, GamePublicWinnerType0):
            winner = self.winner.value
        else:
            winner = self.winner

        six_card_bonus_hand: None | str
        six_card_bonus_hand = self.six_card_bonus_hand

        currency = self.currency

        wagers = []
        for wagers_item_data in self.wagers:
            wagers_item = wagers_item_data.to_dict()
            wagers.append(wagers_item)

        staked = self.staked

        returned: int | None
        returned = self.returned

        balance_before: int | None
        balance_before = self.balance_before

        balance_after: int | None
        balance_after = self.balance_after

        voided_at: None | str | Unset
        if isinstance(self.voided_at, Unset):
            voided_at = UNSET
        elif isinstance(self.voided_at, datetime.datetime):
            voided_at = self.voided_at.isoformat()
        else:
            voided_at = self.voided_at

        correction: dict[str, Any] | None | Unset
        if isinstance(self.correction, Unset):
            correction = UNSET
        elif isinstance(self.correction, CorrectionPublic):
            correction = self.correction.to_dict()
        else:
            correction = self.correction

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "round_id": round_id,
                "table_id": table_id,
                "status": status,
                "ended_at": ended_at,
                "cards": cards,
                "player_a": player_a,
                "player_b": player_b,
                "winner": winner,
                "six_card_bonus_hand": six_card_bonus_hand,
                "currency": currency,
                "wagers": wagers,
                "staked": staked,
                "returned": returned,
                "balance_before": balance_before,
                "balance_after": balance_after,
            }
        )
        if voided_at is not UNSET:
            field_dict["voided_at"] = voided_at
        if correction is not UNSET:
            field_dict["correction"] = correction

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.correction_public import CorrectionPublic
        from ..models.hand_public import HandPublic
        from ..models.wager_public import WagerPublic

        d = dict(src_dict)
        round_id = d.pop("round_id")

        table_id = d.pop("table_id")

        status = GamePublicStatus(d.pop("status"))

        def _parse_ended_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                ended_at_type_0 = datetime.datetime.fromisoformat(data)

                return ended_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        ended_at = _parse_ended_at(d.pop("ended_at"))

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

        def _parse_winner(data: object) -> GamePublicWinnerType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                winner_type_0 = GamePublicWinnerType0(data)

                return winner_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GamePublicWinnerType0 | None, data)

        winner = _parse_winner(d.pop("winner"))

        def _parse_six_card_bonus_hand(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        six_card_bonus_hand = _parse_six_card_bonus_hand(d.pop("six_card_bonus_hand"))

        currency = d.pop("currency")

        wagers = []
        _wagers = d.pop("wagers")
        for wagers_item_data in _wagers:
            wagers_item = WagerPublic.from_dict(wagers_item_data)

            wagers.append(wagers_item)

        staked = d.pop("staked")

        def _parse_returned(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        returned = _parse_returned(d.pop("returned"))

        def _parse_balance_before(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        balance_before = _parse_balance_before(d.pop("balance_before"))

        def _parse_balance_after(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        balance_after = _parse_balance_after(d.pop("balance_after"))

        def _parse_voided_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                voided_at_type_0 = datetime.datetime.fromisoformat(data)

                return voided_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        voided_at = _parse_voided_at(d.pop("voided_at", UNSET))

        def _parse_correction(data: object) -> CorrectionPublic | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                correction_type_0 = CorrectionPublic.from_dict(data)

                return correction_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CorrectionPublic | None | Unset, data)

        correction = _parse_correction(d.pop("correction", UNSET))

        game_public = cls(
            round_id=round_id,
            table_id=table_id,
            status=status,
            ended_at=ended_at,
            cards=cards,
            player_a=player_a,
            player_b=player_b,
            winner=winner,
            six_card_bonus_hand=six_card_bonus_hand,
            currency=currency,
            wagers=wagers,
            staked=staked,
            returned=returned,
            balance_before=balance_before,
            balance_after=balance_after,
            voided_at=voided_at,
            correction=correction,
        )

        game_public.additional_properties = d
        return game_public

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
