from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.bet_line import BetLine


T = TypeVar("T", bound="SlipCreate")


@_attrs_define
class SlipCreate:
    """
    Attributes:
        round_id (str):
        bets (list[BetLine]):
        player_id (None | str | Unset):
        currency (None | str | Unset):
        token (None | str | Unset):
    """

    round_id: str
    bets: list[BetLine]
    player_id: None | str | Unset = UNSET
    currency: None | str | Unset = UNSET
    token: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        round_id = self.round_id

        bets = []
        for bets_item_data in self.bets:
            bets_item = bets_item_data.to_dict()
            bets.append(bets_item)

        player_id: None | str | Unset
        if isinstance(self.player_id, Unset):
            player_id = UNSET
        else:
            player_id = self.player_id

        currency: None | str | Unset
        if isinstance(self.currency, Unset):
            currency = UNSET
        else:
            currency = self.currency

        token: None | str | Unset
        if isinstance(self.token, Unset):
            token = UNSET
        else:
            token = self.token

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "round_id": round_id,
                "bets": bets,
            }
        )
        if player_id is not UNSET:
            field_dict["player_id"] = player_id
        if currency is not UNSET:
            field_dict["currency"] = currency
        if token is not UNSET:
            field_dict["token"] = token

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.bet_line import BetLine

        d = dict(src_dict)
        round_id = d.pop("round_id")

        bets = []
        _bets = d.pop("bets")
        for bets_item_data in _bets:
            bets_item = BetLine.from_dict(bets_item_data)

            bets.append(bets_item)

        def _parse_player_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        player_id = _parse_player_id(d.pop("player_id", UNSET))

        def _parse_currency(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        currency = _parse_currency(d.pop("currency", UNSET))

        def _parse_token(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        token = _parse_token(d.pop("token", UNSET))

        slip_create = cls(
            round_id=round_id,
            bets=bets,
            player_id=player_id,
            currency=currency,
            token=token,
        )

        return slip_create
