from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.config_view import ConfigView


T = TypeVar("T", bound="TableSummary")


@_attrs_define
class TableSummary:
    """A table as the listing shows it, from its projection row.

    Attributes:
        table_id (str):
        name (str):
        status (str):
        phase (str):
        round_id (None | str):
        version (int):
        config (ConfigView):
        updated_at (str):
    """

    table_id: str
    name: str
    status: str
    phase: str
    round_id: None | str
    version: int
    config: ConfigView
    updated_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        table_id = self.table_id

        name = self.name

        status = self.status

        phase = self.phase

        round_id: None | str
        round_id = self.round_id

        version = self.version

        config = self.config.to_dict()

        updated_at = self.updated_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "table_id": table_id,
                "name": name,
                "status": status,
                "phase": phase,
                "round_id": round_id,
                "version": version,
                "config": config,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.config_view import ConfigView

        d = dict(src_dict)
        table_id = d.pop("table_id")

        name = d.pop("name")

        status = d.pop("status")

        phase = d.pop("phase")

        def _parse_round_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        round_id = _parse_round_id(d.pop("round_id"))

        version = d.pop("version")

        config = ConfigView.from_dict(d.pop("config"))

        updated_at = d.pop("updated_at")

        table_summary = cls(
            table_id=table_id,
            name=name,
            status=status,
            phase=phase,
            round_id=round_id,
            version=version,
            config=config,
            updated_at=updated_at,
        )

        table_summary.additional_properties = d
        return table_summary

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
