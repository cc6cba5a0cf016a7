from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ClockShare")


@_attrs_define
class ClockShare:
    """This instance's share of the work.

    Attributes:
        partitions (list[int]): The Kafka partitions of `table.events` this instance owns.
        tables (list[str]): The tables whose clocks (betting time, the pause after a result) this instance runs.
    """

    partitions: list[int]
    tables: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        partitions = self.partitions

        tables = self.tables

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "partitions": partitions,
                "tables": tables,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        partitions = cast(list[int], d.pop("partitions"))

        tables = cast(list[str], d.pop("tables"))

        clock_share = cls(
            partitions=partitions,
            tables=tables,
        )

        clock_share.additional_properties = d
        return clock_share

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
