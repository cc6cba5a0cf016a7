from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.par_outcome_view import ParOutcomeView


T = TypeVar("T", bound="BetParView")


@_attrs_define
class BetParView:
    """
    Attributes:
        bet_type (str): The bet: `player_a`, `player_b` or `tie` (who wins), `pair_plus_a` or `pair_plus_b` (that
            player's three cards make a pair or better), `six_card_bonus` (the best five of the six cards make three of a
            kind or better).
        outcomes (list[ParOutcomeView]): Every way the bet returns money.
        rtp (str): The exact return to player, `p/q`: the expected return per unit staked, a push returning the
            stake.
        rtp_percent (str): The return to player in per cent, to 4 decimals, e.g. `"97.2973"`.
    """

    bet_type: str
    outcomes: list[ParOutcomeView]
    rtp: str
    rtp_percent: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bet_type = self.bet_type

        outcomes = []
        for outcomes_item_data in self.outcomes:
            outcomes_item = outcomes_item_data.to_dict()
            outcomes.append(outcomes_item)

        rtp = self.rtp

        rtp_percent = self.rtp_percent

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bet_type": bet_type,
                "outcomes": outcomes,
                "rtp": rtp,
                "rtp_percent": rtp_percent,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.par_outcome_view import ParOutcomeView

        d = dict(src_dict)
        bet_type = d.pop("bet_type")

        outcomes = []
        _outcomes = d.pop("outcomes")
        for outcomes_item_data in _outcomes:
            outcomes_item = ParOutcomeView.from_dict(outcomes_item_data)

            outcomes.append(outcomes_item)

        rtp = d.pop("rtp")

        rtp_percent = d.pop("rtp_percent")

        bet_par_view = cls(
            bet_type=bet_type,
            outcomes=outcomes,
            rtp=rtp,
            rtp_percent=rtp_percent,
        )

        bet_par_view.additional_properties = d
        return bet_par_view

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
