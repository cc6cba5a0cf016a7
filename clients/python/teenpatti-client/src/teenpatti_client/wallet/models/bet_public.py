from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.bet_public_bet_type import BetPublicBetType
from ..models.bet_public_outcome_type_0 import BetPublicOutcomeType0
from ..models.bet_public_status import BetPublicStatus

if TYPE_CHECKING:
    from ..models.bet_round_public import BetRoundPublic


T = TypeVar("T", bound="BetPublic")


@_attrs_define
class BetPublic:
    """
    Attributes:
        bet_id (UUID):
        slip_id (UUID):
        player_id (str):
        round_id (str):
        table_id (str):
        bet_type (BetPublicBetType):
        stake (int):
        currency (str):
        placed_at (datetime.datetime):
        status (BetPublicStatus):
        outcome (BetPublicOutcomeType0 | None):
        returned (int | None):
        paid_at (datetime.datetime | None):
        round_ (BetRoundPublic): The round of a bet: its status and, once closed, its cards and result.
    """

    bet_id: UUID
    slip_id: UUID
    player_id: str
    round_id: str
    table_id: str
    bet_type: BetPublicBetType
    stake: int
    currency: str
    placed_at: datetime.datetime
    status: BetPublicStatus
    outcome: BetPublicOutcomeType0 | None
    returned: int | None
    paid_at: datetime.datetime | None
    round_: BetRoundPublic
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bet_id = str(self.bet_id)

        slip_id = str(self.slip_id)

        player_id = self.player_id

        round_id = self.round_id

        table_id = self.table_id

        bet_type = self.bet_type.value

        stake = self.stake

        currency = self.currency

        placed_at = self.placed_at.isoformat()

        status = self.status.value

        outcome: None | str
        if isinstance(self.outcome, BetPublicOutcomeType0):
            outcome = self.outcome.value
        else:
            outcome = self.outcome

        returned: int | None
        returned = self.returned

        paid_at: None | str
        if isinstance(self.paid_at, datetime.datetime):
            paid_at = self.paid_at.isoformat()
        else:
            paid_at = self.paid_at

        round_ = self.round_.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bet_id": bet_id,
                "slip_id": slip_id,
                "player_id": player_id,
                "round_id": round_id,
                "table_id": table_id,
                "bet_type": bet_type,
                "stake": stake,
                "currency": currency,
                "placed_at": placed_at,
                "status": status,
                "outcome": outcome,
                "returned": returned,
                "paid_at": paid_at,
                "round": round_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.bet_round_public import BetRoundPublic

        d = dict(src_dict)
        bet_id = UUID(d.pop("bet_id"))

        slip_id = UUID(d.pop("slip_id"))

        player_id = d.pop("player_id")

        round_id = d.pop("round_id")

        table_id = d.pop("table_id")

        bet_type = BetPublicBetType(d.pop("bet_type"))

        stake = d.pop("stake")

        currency = d.pop("currency")

        placed_at = datetime.datetime.fromisoformat(d.pop("placed_at"))

        status = BetPublicStatus(d.pop("status"))

        def _parse_outcome(data: object) -> BetPublicOutcomeType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                outcome_type_0 = BetPublicOutcomeType0(data)

                return outcome_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BetPublicOutcomeType0 | None, data)

        outcome = _parse_outcome(d.pop("outcome"))

        def _parse_returned(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        returned = _parse_returned(d.pop("returned"))

        def _parse_paid_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                paid_at_type_0 = datetime.datetime.fromisoformat(data)

                return paid_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        paid_at = _parse_paid_at(d.pop("paid_at"))

        round_ = BetRoundPublic.from_dict(d.pop("round"))

        bet_public = cls(
            bet_id=bet_id,
            slip_id=slip_id,
            player_id=player_id,
            round_id=round_id,
            table_id=table_id,
            bet_type=bet_type,
            stake=stake,
            currency=currency,
            placed_at=placed_at,
            status=status,
            outcome=outcome,
            returned=returned,
            paid_at=paid_at,
            round_=round_,
        )

        bet_public.additional_properties = d
        return bet_public

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
