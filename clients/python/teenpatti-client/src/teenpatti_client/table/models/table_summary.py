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
        config (ConfigView):
        name (str): The table's name, as players see it.
        phase (str): `open` (no round yet), or the current or last round's: `betting`, `dealing`, `closed`,
            `cancelled`.
        round_id (None | str): The current or last round's id; null before the first.
        status (str): `open` or `closed`.
        table_id (str): The table's id, as a supervisor opened it (`POST /tables`), e.g. `T01`.
        updated_at (str): When the listing last changed (ISO 8601, UTC).
        version (int): The table's stream version when it was listed.
    """

    config: ConfigView
    name: str
    phase: str
    round_id: None | str
    status: str
    table_id: str
    updated_at: str
    version: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        config = self.config.to_dict()

        name = self.name

        phase = self.phase

        round_id: None | str
        round_id = self.round_id

        status = self.status

        table_id = self.table_id

        updated_at = self.updated_at

        version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "config": config,
                "name": name,
                "phase": phase,
                "round_id": round_id,
                "status": status,
                "table_id": table_id,
                "updated_at": updated_at,
                "version": version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.config_view import ConfigView

        d = dict(src_dict)
        config = ConfigView.from_dict(d.pop("config"))

        name = d.pop("name")

        phase = d.pop("phase")

        def _parse_round_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        round_id = _parse_round_id(d.pop("round_id"))

        status = d.pop("status")

        table_id = d.pop("table_id")

        updated_at = d.pop("updated_at")

        version = d.pop("version")

        table_summary = cls(
            config=config,
            name=name,
            phase=phase,
            round_id=round_id,
            status=status,
            table_id=table_id,
            updated_at=updated_at,
            version=version,
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
