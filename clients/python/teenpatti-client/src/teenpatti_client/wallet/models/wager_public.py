from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.wager_public_bet_type import WagerPublicBetType
from ..models.wager_public_outcome_type_0 import WagerPublicOutcomeType0

T = TypeVar("T", bound="WagerPublic")


@_attrs_define
class WagerPublic:
    """One bet of the player on the round; `returned` and `outcome` once paid.

    Attributes:
        bet_id (str): The bet's id (a UUID).
        bet_type (WagerPublicBetType): The bet: `player_a`, `player_b` or `tie` (who wins), `pair_plus_a` or
            `pair_plus_b` (that player's three cards make a pair or better), `six_card_bonus` (the best five of the six
            cards make three of a kind or better).
        outcome (None | WagerPublicOutcomeType0): How the bet ended: `won`, `lost`, `push` (the stake back) or
            `refunded` (its round cancelled or voided); null until settled.
        returned (int | None): What was returned to the player, in integer minor units of the currency: the stake and
            the win for a won bet, the stake for a push or a refund, 0 for a lost bet; null while not settled.
        stake (int): The amount staked, in integer minor units of the currency.
    """

    bet_id: str
    bet_type: WagerPublicBetType
    outcome: None | WagerPublicOutcomeType0
    returned: int | None
    stake: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bet_id = self.bet_id

        bet_type = self.bet_type.value

        outcome: None | str
        if isinstance(self.outcome, WagerPublicOutcomeType0):
            outcome = self.outcome.value
        else:
            outcome = self.outcome

        returned: int | None
        returned = self.returned

        stake = self.stake

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bet_id": bet_id,
                "bet_type": bet_type,
                "outcome": outcome,
                "returned": returned,
                "stake": stake,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        bet_id = d.pop("bet_id")

        bet_type = WagerPublicBetType(d.pop("bet_type"))

        def _parse_outcome(data: object) -> None | WagerPublicOutcomeType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                outcome_type_0 = WagerPublicOutcomeType0(data)

                return outcome_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | WagerPublicOutcomeType0, data)

        outcome = _parse_outcome(d.pop("outcome"))

        def _parse_returned(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        returned = _parse_returned(d.pop("returned"))

        stake = d.pop("stake")

        wager_public = cls(
            bet_id=bet_id,
            bet_type=bet_type,
            outcome=outcome,
            returned=returned,
            stake=stake,
        )

        wager_public.additional_properties = d
        return wager_public

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
