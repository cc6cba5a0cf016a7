from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.config_view_limits import ConfigViewLimits
    from ..models.config_view_paytable import ConfigViewPaytable


T = TypeVar("T", bound="ConfigView")


@_attrs_define
class ConfigView:
    """
    Attributes:
        betting_seconds (float): How long betting stays open in each round, in seconds.
        limits (ConfigViewLimits): The stake limits: `{currency: {bet_type: {min, max}}}`, in integer minor units of
            each currency; every bet type is priced in every currency the table takes.
        name (str): The table's name, as players see it.
        paytable (ConfigViewPaytable): The pay table, in the engine's mapping form (docs/rules-engine.md): per bet type,
            its winnings per unit staked as a decimal string (e.g. `"player_a": "0.95"`), and per hand for `pair_plus_a`,
            `pair_plus_b` and `six_card_bonus`.
        result_pause_seconds (float): How long a result stays shown before the next round opens, in seconds.
    """

    betting_seconds: float
    limits: ConfigViewLimits
    name: str
    paytable: ConfigViewPaytable
    result_pause_seconds: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        betting_seconds = self.betting_seconds

        limits = self.limits.to_dict()

        name = self.name

        paytable = self.paytable.to_dict()

        result_pause_seconds = self.result_pause_seconds

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "betting_seconds": betting_seconds,
                "limits": limits,
                "name": name,
                "paytable": paytable,
                "result_pause_seconds": result_pause_seconds,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.config_view_limits import ConfigViewLimits
        from ..models.config_view_paytable import ConfigViewPaytable

        d = dict(src_dict)
        betting_seconds = d.pop("betting_seconds")

        limits = ConfigViewLimits.from_dict(d.pop("limits"))

        name = d.pop("name")

        paytable = ConfigViewPaytable.from_dict(d.pop("paytable"))

        result_pause_seconds = d.pop("result_pause_seconds")

        config_view = cls(
            betting_seconds=betting_seconds,
            limits=limits,
            name=name,
            paytable=paytable,
            result_pause_seconds=result_pause_seconds,
        )

        config_view.additional_properties = d
        return config_view

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
