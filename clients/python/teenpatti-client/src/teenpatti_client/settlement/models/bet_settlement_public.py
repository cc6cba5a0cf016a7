from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.bet_settlement_public_status import BetSettlementPublicStatus

T = TypeVar("T", bound="BetSettlementPublic")


@_attrs_define
class BetSettlementPublic:
    """
    Attributes:
        bet_id (UUID):
        round_id (str):
        table_id (str):
        slip_id (UUID):
        player_id (str):
        bet_type (str):
        stake (int):
        currency (str):
        placed_at (datetime.datetime):
        status (BetSettlementPublicStatus):
        outcome (None | str):
        returned (int | None):
        fraction_kept (None | str):
        odds (None | str):
        settled_at (datetime.datetime | None):
        reversed_ (bool):
        reversed_at (datetime.datetime | None):
    """

    bet_id: UUID
    round_id: str
    table_id: str
    slip_id: UUID
    player_id: str
    bet_type: str
    stake: int
    currency: str
    placed_at: datetime.datetime
    status: BetSettlementPublicStatus
    outcome: None | str
    returned: int | None
    fraction_kept: None | str
    odds: None | str
    settled_at: datetime.datetime | None
    reversed_: bool
    reversed_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bet_id = str(self.bet_id)

        round_id = self.round_id

        table_id = self.table_id

        slip_id = str(self.slip_id)

        player_id = self.player_id

        bet_type = self.bet_type

        stake = self.stake

        currency = self.currency

        placed_at = self.placed_at.isoformat()

        status = self.status.value

        outcome: None | str
        outcome = self.outcome

        returned: int | None
        returned = self.returned

        fraction_kept: None | str
        fraction_kept = self.fraction_kept

        odds: None | str
        odds = self.odds

        settled_at: None | str
        if isinstance(self.settled_at, datetime.datetime):
            settled_at = self.settled_at.isoformat()
        else:
            settled_at = self.settled_at

        reversed_ = self.reversed_

        reversed_at: None | str
        if isinstance(self.reversed_at, datetime.datetime):
            reversed_at = self.reversed_at.isoformat()
        else:
            reversed_at = self.reversed_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bet_id": bet_id,
                "round_id": round_id,
                "table_id": table_id,
                "slip_id": slip_id,
                "player_id": player_id,
                "bet_type": bet_type,
                "stake": stake,
                "currency": currency,
                "placed_at": placed_at,
                "status": status,
                "outcome": outcome,
                "returned": returned,
                "fraction_kept": fraction_kept,
                "odds": odds,
                "settled_at": settled_at,
                "reversed": reversed_,
                "reversed_at": reversed_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        bet_id = UUID(d.pop("bet_id"))

        round_id = d.pop("round_id")

        table_id = d.pop("table_id")

        slip_id = UUID(d.pop("slip_id"))

        player_id = d.pop("player_id")

        bet_type = d.pop("bet_type")

        stake = d.pop("stake")

        currency = d.pop("currency")

        placed_at = datetime.datetime.fromisoformat(d.pop("placed_at"))

        status = BetSettlementPublicStatus(d.pop("status"))

        def _parse_outcome(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        outcome = _parse_outcome(d.pop("outcome"))

        def _parse_returned(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        returned = _parse_returned(d.pop("returned"))

        def _parse_fraction_kept(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        fraction_kept = _parse_fraction_kept(d.pop("fraction_kept"))

        def _parse_odds(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        odds = _parse_odds(d.pop("odds"))

        def _parse_settled_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                settled_at_type_0 = datetime.datetime.fromisoformat(data)

                return settled_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        settled_at = _parse_settled_at(d.pop("settled_at"))

        reversed_ = d.pop("reversed")

        def _parse_reversed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reversed_at_type_0 = datetime.datetime.fromisoformat(data)

                return reversed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        reversed_at = _parse_reversed_at(d.pop("reversed_at"))

        bet_settlement_public = cls(
            bet_id=bet_id,
            round_id=round_id,
            table_id=table_id,
            slip_id=slip_id,
            player_id=player_id,
            bet_type=bet_type,
            stake=stake,
            currency=currency,
            placed_at=placed_at,
            status=status,
            outcome=outcome,
            returned=returned,
            fraction_kept=fraction_kept,
            odds=odds,
            settled_at=settled_at,
            reversed_=reversed_,
            reversed_at=reversed_at,
        )

        bet_settlement_public.additional_properties = d
        return bet_settlement_public

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
