from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="BetLine")


@_attrs_define
class BetLine:
    """
    Attributes:
        bet_type (str): The bet: `player_a`, `player_b` or `tie` (who wins), `pair_plus_a` or `pair_plus_b` (that
            player's three cards make a pair or better), `six_card_bonus` (the best five of the six cards make three of a
            kind or better).
        stake (int): The stake, in integer minor units of the slip's currency, within the table's limits for the
            bet type (422 `stake_out_of_limits` otherwise).
    """

    bet_type: str
    stake: int

    def to_dict(self) -> dict[str, Any]:
        bet_type = self.bet_type

        stake = self.stake

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "bet_type": bet_type,
                "stake": stake,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        bet_type = d.pop("bet_type")

        stake = d.pop("stake")

        bet_line = cls(
            bet_type=bet_type,
            stake=stake,
        )

        return bet_line
