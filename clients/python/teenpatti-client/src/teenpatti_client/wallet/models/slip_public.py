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
        balance (int): The player's balance in the currency, in integer minor units, right after what this answer
            reports.
        bets (list[SlipBetPublic]): The bets taken, each with its id.
        currency (str): An ISO 4217 code of the platform's currency table (e.g. `INR`): every amount beside it is in
            integer minor units of it (paise for INR, cents for USD).
        placed_at (datetime.datetime): When the wallet took the slip (ISO 8601, UTC).
        player_id (str): The player's id in its operator's own system (letters, digits and `. _ @ -`). A player is its
            operator's: the same id under two operators is two players.
        round_id (str): The round's id: `<table id>-<number>`, the number from 1 zero-padded to six digits, e.g.
            `T01-000042`.
        slip_id (UUID): The slip's id (a UUID): a slip is the bets of one `POST /bets`, taken or refused whole.
        table_id (str): The table's id, as a supervisor opened it (`POST /tables`), e.g. `T01`.
    """

    balance: int
    bets: list[SlipBetPublic]
    currency: str
    placed_at: datetime.datetime
    player_id: str
    round_id: str
    slip_id: UUID
    table_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        balance = self.balance

        bets = []
        for bets_item_data in self.bets:
            bets_item = bets_item_data.to_dict()
            bets.append(bets_item)

        currency = self.currency

        placed_at = self.placed_at.isoformat()

        player_id = self.player_id

        round_id = self.round_id

        slip_id = str(self.slip_id)

        table_id = self.table_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "balance": balance,
                "bets": bets,
                "currency": currency,
                "placed_at": placed_at,
                "player_id": player_id,
                "round_id": round_id,
                "slip_id": slip_id,
                "table_id": table_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.slip_bet_public import SlipBetPublic

        d = dict(src_dict)
        balance = d.pop("balance")

        bets = []
        _bets = d.pop("bets")
        for bets_item_data in _bets:
            bets_item = SlipBetPublic.from_dict(bets_item_data)

            bets.append(bets_item)

        currency = d.pop("currency")

        placed_at = datetime.datetime.fromisoformat(d.pop("placed_at"))

        player_id = d.pop("player_id")

        round_id = d.pop("round_id")

        slip_id = UUID(d.pop("slip_id"))

        table_id = d.pop("table_id")

        slip_public = cls(
            balance=balance,
            bets=bets,
            currency=currency,
            placed_at=placed_at,
            player_id=player_id,
            round_id=round_id,
            slip_id=slip_id,
            table_id=table_id,
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
