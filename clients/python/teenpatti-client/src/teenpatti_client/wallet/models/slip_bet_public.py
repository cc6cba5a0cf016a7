from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.slip_bet_public_bet_type import SlipBetPublicBetType

T = TypeVar("T", bound="SlipBetPublic")


@_attrs_define
class SlipBetPublic:
    """
    Attributes:
        bet_id (UUID): The bet's id (a UUID), given by the wallet when it took the slip.
        bet_type (SlipBetPublicBetType): The bet: `player_a`, `player_b` or `tie` (who wins), `pair_plus_a` or
            `pair_plus_b` (that player's three cards make a pair or better), `six_card_bonus` (the best five of the six
            cards make three of a kind or better).
        stake (int): The amount staked, in integer minor units of the currency.
    """

    bet_id: UUID
    bet_type: SlipBetPublicBetType
    stake: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bet_id = str(self.bet_id)

        bet_type = self.bet_type.value

        stake = self.stake

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bet_id": bet_id,
                "bet_type": bet_type,
                "stake": stake,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        bet_id = UUID(d.pop("bet_id"))

        bet_type = SlipBetPublicBetType(d.pop("bet_type"))

        stake = d.pop("stake")

        slip_bet_public = cls(
            bet_id=bet_id,
            bet_type=bet_type,
            stake=stake,
        )

        slip_bet_public.additional_properties = d
        return slip_bet_public

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
