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
        bet_count (int): How many bets this operator's players placed on it.
        bets (list[BetPublic]): This operator's bets on the round.
        betting_closes_at (datetime.datetime): When betting closes on the round (ISO 8601, UTC).
        cards (list[str] | None): The cards dealt, in dealing order A1 B1 A2 B2 A3 B3 (A: player A's, B: player B's),
            each as rank and suit (`2`-`10`, `J`, `Q`, `K`, `A`; `S` `H` `D` `C`), e.g. `10H`; fewer while dealing or when
            the round was cancelled.
        opened_at (datetime.datetime | None): When the round opened (ISO 8601, UTC); null for a round the wallet never
            saw open.
        paused (bool): Whether the table paused the round (no bet taken meanwhile).
        player_a_hand (None | str): Player A's three-card hand: `trail_of_aces`, `trail`, `straight_flush`, `straight`,
            `flush`, `pair` or `high_card`; null until its result.
        player_b_hand (None | str): Player B's three-card hand, named as player A's; null until its result.
        round_id (str): The round's id: `<table id>-<number>`, the number from 1 zero-padded to six digits, e.g.
            `T01-000042`.
        sealed_at (datetime.datetime | None): When betting closed on the round (ISO 8601, UTC); null while open.
        six_card_bonus_hand (None | str): The best five-card hand of all six cards, for the six-card bonus bet:
            `royal_flush` down to `three_of_a_kind`; null when they make none of those (or before the result).
        status (RoundBookPublicStatus): `open` (taking bets), `sealed` (betting closed), `closed` (its result known) or
            `cancelled`.

        table_id (str): The table's id, as a supervisor opened it (`POST /tables`), e.g. `T01`.
        total_stake (RoundBookPublicTotalStake): Per currency, the stakes of this operator's bets, in integer minor
            units.
        winner (None | str): Who won the round: `player_a`, `player_b` or `tie`; null until its result.
    """

    bet_count: int
    bets: list[BetPublic]
    betting_closes_at: datetime.datetime
    cards: list[str] | None
    opened_at: datetime.datetime | None
    paused: bool
    player_a_hand: None | str
    player_b_hand: None | str
    round_id: str
    sealed_at: datetime.datetime | None
    six_card_bonus_hand: None | str
    status: RoundBookPublicStatus
    table_id: str
    total_stake: RoundBookPublicTotalStake
    winner: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bet_count = self.bet_count

        bets = []
        for bets_item_data in self.bets:
            bets_item = bets_item_data.to_dict()
            bets.append(bets_item)

        betting_closes_at = self.betting_closes_at.isoformat()

        cards: list[str] | None
        if isinstance(self.cards, list):
            cards = self.cards

        else:
            cards = self.cards

        opened_at: None | str
        if isinstance(self.opened_at, datetime.datetime):
            opened_at = self.opened_at.isoformat()
        else:
            opened_at = self.opened_at

        paused = self.paused

        player_a_hand: None | str
        player_a_hand = self.player_a_hand

        player_b_hand: None | str
        player_b_hand = self.player_b_hand

        round_id = self.round_id

        sealed_at: None | str
        if isinstance(self.sealed_at, datetime.datetime):
            sealed_at = self.sealed_at.isoformat()
        else:
            sealed_at = self.sealed_at

        six_card_bonus_hand: None | str
        six_card_bonus_hand = self.six_card_bonus_hand

        status = self.status.value

        table_id = self.table_id

        total_stake = self.total_stake.to_dict()

        winner: None | str
        winner = self.winner

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bet_count": bet_count,
                "bets": bets,
                "betting_closes_at": betting_closes_at,
                "cards": cards,
                "opened_at": opened_at,
                "paused": paused,
                "player_a_hand": player_a_hand,
                "player_b_hand": player_b_hand,
                "round_id": round_id,
                "sealed_at": sealed_at,
                "six_card_bonus_hand": six_card_bonus_hand,
                "status": status,
                "table_id": table_id,
                "total_stake": total_stake,
                "winner": winner,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.bet_public import BetPublic
        from ..models.round_book_public_total_stake import RoundBookPublicTotalStake

        d = dict(src_dict)
        bet_count = d.pop("bet_count")

        bets = []
        _bets = d.pop("bets")
        for bets_item_data in _bets:
            bets_item = BetPublic.from_dict(bets_item_data)

            bets.append(bets_item)

        betting_closes_at = datetime.datetime.fromisoformat(d.pop("betting_closes_at"))

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

        paused = d.pop("paused")

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

        round_id = d.pop("round_id")

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

        def _parse_six_card_bonus_hand(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        six_card_bonus_hand = _parse_six_card_bonus_hand(d.pop("six_card_bonus_hand"))

        status = RoundBookPublicStatus(d.pop("status"))

        table_id = d.pop("table_id")

        total_stake = RoundBookPublicTotalStake.from_dict(d.pop("total_stake"))

        def _parse_winner(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        winner = _parse_winner(d.pop("winner"))

        round_book_public = cls(
            bet_count=bet_count,
            bets=bets,
            betting_closes_at=betting_closes_at,
            cards=cards,
            opened_at=opened_at,
            paused=paused,
            player_a_hand=player_a_hand,
            player_b_hand=player_b_hand,
            round_id=round_id,
            sealed_at=sealed_at,
            six_card_bonus_hand=six_card_bonus_hand,
            status=status,
            table_id=table_id,
            total_stake=total_stake,
            winner=winner,
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
