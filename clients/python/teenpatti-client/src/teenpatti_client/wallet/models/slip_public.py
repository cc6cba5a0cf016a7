from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.slip_bet_public import SlipBetPublic


T = TypeVar("T", bound="SlipPublic")


@_attrs_define
class SlipPublic:
    """A slip taken: its bets, and the balance right after their stakes.

    Attributes:
        slip_id (UUID):
        round_id (str):
        table_id (str):
        player_id (str):
        currency (str):
        placed_at (datetime.datetime):
        bets (list[SlipBetPublic]):
        balance (int):
    """

    slip_id: UUID
    round_id: str
    table_id: str
    player_id: str
    currency: str
    placed_at: datetime.datetime
    bets: list[SlipBetPublic]
    balance: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        slip_id = str(self.slip_id)

        round_id = self.round_id

        table_id = self.table_id

        player_id = self.player_id

        currency = self.currency

        placed_at = self.placed_at.isoformat()

        bets = []
        for bets_item_data in self.bets:
            bets_item = bets_item_data.to_dict()
            bets.append(bets_item)

        balance = self.balance

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "slip_id": slip_id,
                "round_id": round_id,
                "table_id": table_id,
                "player_id": player_id,
                "currency": currency,
                "placed_at": placed_at,
                "bets": bets,
                "balance": balance,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.slip_bet_public import SlipBetPublic

        d = dict(src_dict)
        slip_id = UUID(d.pop("slip_id"))

        round_id = d.pop("round_id")

        table_id = d.pop("table_id")

        player_id = d.pop("player_id")

        currency = d.pop("currency")

        placed_at = datetime.datetime.fromisoformat(d.pop("placed_at"))

        bets = []
        _bets = d.pop("bets")
        for bets_item_data in _bets:
            bets_item = SlipBetPublic.from_dict(bets_item_data)

            bets.append(bets_item)

        balance = d.pop("balance")

        slip_public = cls(
            slip_id=slip_id,
            round_id=round_id,
            table_id=table_id,
            player_id=player_id,
            currency=currency,
            placed_at=placed_at,
            bets=bets,
            balance=balance,
        )

        slip_public.additional_properties = d
        return slip_public

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
