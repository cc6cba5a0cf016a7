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
        bets (list[BetLine]): The bets, 1 to 50: taken together or refused together.
        round_id (str): The round bet on: it must be open for bets (409 `betting_closed` otherwise).
        currency (None | str | Unset): The slip's currency: required with an operator's key; with a player's session,
            the session's
            (or left out).
        player_id (None | str | Unset): The player: required with an operator's key; with a player's session, its own
            (or left out).

        token (None | str | Unset): A seamless operator's own session token for the player, which the wallet's `bet`
            call
            carries; not with a player's session (it has its own).
    """

    bets: list[BetLine]
    round_id: str
    currency: None | str | Unset = UNSET
    player_id: None | str | Unset = UNSET
    token: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        bets = []
        for bets_item_data in self.bets:
            bets_item = bets_item_data.to_dict()
            bets.append(bets_item)

        round_id = self.round_id

        currency: None | str | Unset
        if isinstance(self.currency, Unset):
            currency = UNSET
        else:
            currency = self.currency

        player_id: None | str | Unset
        if isinstance(self.player_id, Unset):
            player_id = UNSET
        else:
            player_id = self.player_id

        token: None | str | Unset
        if isinstance(self.token, Unset):
            token = UNSET
        else:
            token = self.token

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "bets": bets,
                "round_id": round_id,
            }
        )
        if currency is not UNSET:
            field_dict["currency"] = currency
        if player_id is not UNSET:
            field_dict["player_id"] = player_id
        if token is not UNSET:
            field_dict["token"] = token

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.bet_line import BetLine

        d = dict(src_dict)
        bets = []
        _bets = d.pop("bets")
        for bets_item_data in _bets:
            bets_item = BetLine.from_dict(bets_item_data)

            bets.append(bets_item)

        round_id = d.pop("round_id")

        def _parse_currency(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        currency = _parse_currency(d.pop("currency", UNSET))

        def _parse_player_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        player_id = _parse_player_id(d.pop("player_id", UNSET))

        def _parse_token(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        token = _parse_token(d.pop("token", UNSET))

        slip_create = cls(
            bets=bets,
            round_id=round_id,
            currency=currency,
            player_id=player_id,
            token=token,
        )

        return slip_create
