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
        name (str):
        betting_seconds (float):
        result_pause_seconds (float):
        limits (ConfigViewLimits):
        paytable (ConfigViewPaytable):
    """

    name: str
    betting_seconds: float
    result_pause_seconds: float
    limits: ConfigViewLimits
    paytable: ConfigViewPaytable
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        betting_seconds = self.betting_seconds

        result_pause_seconds = self.result_pause_seconds

        limits = self.limits.to_dict()

        paytable = self.paytable.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "betting_seconds": betting_seconds,
                "result_pause_seconds": result_pause_seconds,
                "limits": limits,
                "paytable": paytable,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.config_view_limits import ConfigViewLimits
        from ..models.config_view_paytable import ConfigViewPaytable

        d = dict(src_dict)
        name = d.pop("name")

        betting_seconds = d.pop("betting_seconds")

        result_pause_seconds = d.pop("result_pause_seconds")

        limits = ConfigViewLimits.from_dict(d.pop("limits"))

        paytable = ConfigViewPaytable.from_dict(d.pop("paytable"))

        config_view = cls(
            name=name,
            betting_seconds=betting_seconds,
            result_pause_seconds=result_pause_seconds,
            limits=limits,
            paytable=paytable,
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
