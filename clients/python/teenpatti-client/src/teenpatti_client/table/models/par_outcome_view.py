from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ParOutcomeView")


@_attrs_define
class ParOutcomeView:
    """One way a bet returns money: what it pays to one ("0" for a push: the stake back)
    and how likely it is, exactly ("p/q") and in per cent (4 decimals).

        Attributes:
            outcome (str): `win`, `push`, or the hand that pays (`pair`, `straight`, `royal_flush`...).
            pays (str): What it pays to one, as a fraction (`"0"` for a push: the stake back).
            probability (str): Its exact probability, as a fraction `p/q`.
            probability_percent (str): Its probability in per cent, to 4 decimals.
    """

    outcome: str
    pays: str
    probability: str
    probability_percent: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        outcome = self.outcome

        pays = self.pays

        probability = self.probability

        probability_percent = self.probability_percent

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "outcome": outcome,
                "pays": pays,
                "probability": probability,
                "probability_percent": probability_percent,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        outcome = d.pop("outcome")

        pays = d.pop("pays")

        probability = d.pop("probability")

        probability_percent = d.pop("probability_percent")

        par_outcome_view = cls(
            outcome=outcome,
            pays=pays,
            probability=probability,
            probability_percent=probability_percent,
        )

        par_outcome_view.additional_properties = d
        return par_outcome_view

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
