from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.round_book_public_status import RoundBookPublicStatus

if TYPE_CHECKING:
    from ..models.bet_public import BetPublic
    from ..models.round_book_public_total_stake import RoundBookPublicTotalStake


T = TypeVar("T", bound="RoundBookPublic")


@_attrs_define
class RoundBookPublic:
    """A round as the wallet knows it, with the asking operator's bets in it.

    Attributes:
        round_id (str):
        table_id (str):
        status (RoundBookPublicStatus):
        paused (bool):
        opened_at (datetime.datetime | None):
        betting_closes_at (datetime.datetime):
        sealed_at (datetime.datetime | None):
        cards (list[str] | None):
        winner (None | str):
        player_a_hand (None | str):
        player_b_hand (None | str):
        six_card_bonus_hand (None | str):
        bet_count (int):
        total_stake (RoundBookPublicTotalStake):
        bets (list[BetPublic]):
    """

    round_id: str
    table_id: str
    status: RoundBookPublicStatus
    paused: bool
    opened_at: datetime.datetime | None
    betting_closes_at: datetime.datetime
    sealed_at: datetime.datetime | None
    cards: list[str] | None
    winner: None | str
    player_a_hand: None | str
    player_b_hand: None | str
    six_card_bonus_hand: None | str
    bet_count: int
    total_stake: RoundBookPublicTotalStake
    bets: list[BetPublic]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        round_id = self.round_id

        table_id = self.table_id

        status = self.status.value

        paused = self.paused

        opened_at: None | str
        if isinstance(self.opened_at, datetime.datetime):
            opened_at = self.opened_at.isoformat()
        else:
            opened_at = self.opened_at

        betting_closes_at = self.betting_closes_at.isoformat()

        sealed_at: None | str
        if isinstance(self.sealed_at, datetime.datetime):
            sealed_at = self.sealed_at.isoformat()
        else:
            sealed_at = self.sealed_at

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

        bet_count = self.bet_count

        total_stake = self.total_stake.to_dict()

        bets = []
        for bets_item_data in self.bets:
            bets_item = bets_item_data.to_dict()
            bets.append(bets_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "round_id": round_id,
                "table_id": table_id,
                "status": status,
                "paused": paused,
                "opened_at": opened_at,
                "betting_closes_at": betting_closes_at,
                "sealed_at": sealed_at,
                "cards": cards,
                "winner": winner,
                "player_a_hand": player_a_hand,
                "player_b_hand": player_b_hand,
                "six_card_bonus_hand": six_card_bonus_hand,
                "bet_count": bet_count,
                "total_stake": total_stake,
                "bets": bets,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.bet_public import BetPublic
        from ..models.round_book_public_total_stake import RoundBookPublicTotalStake

        d = dict(src_dict)
        round_id = d.pop("round_id")

        table_id = d.pop("table_id")

        status = RoundBookPublicStatus(d.pop("status"))

        paused = d.pop("paused")

        def _parse_opened_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                opened_at_type_0 = datetime.datetime.fromisoformat(data)

                return opened_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        opened_at = _parse_opened_at(d.pop("opened_at"))

        betting_closes_at = datetime.datetime.fromisoformat(d.pop("betting_closes_at"))

        def _parse_sealed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sealed_at_type_0 = datetime.datetime.fromisoformat(data)

                return sealed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        sealed_at = _parse_sealed_at(d.pop("sealed_at"))

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

        bet_count = d.pop("bet_count")

        total_stake = RoundBookPublicTotalStake.from_dict(d.pop("total_stake"))

        bets = []
        _bets = d.pop("bets")
        for bets_item_data in _bets:
            bets_item = BetPublic.from_dict(bets_item_data)

            bets.append(bets_item)

        round_book_public = cls(
            round_id=round_id,
            table_id=table_id,
            status=status,
            paused=paused,
            opened_at=opened_at,
            betting_closes_at=betting_closes_at,
            sealed_at=sealed_at,
            cards=cards,
            winner=winner,
            player_a_hand=player_a_hand,
            player_b_hand=player_b_hand,
            six_card_bonus_hand=six_card_bonus_hand,
            bet_count=bet_count,
            total_stake=total_stake,
            bets=bets,
        )

        round_book_public.additional_properties = d
        return round_book_public

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
