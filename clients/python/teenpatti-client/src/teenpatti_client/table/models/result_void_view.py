from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ResultVoidView")


@_attrs_define
class ResultVoidView:
    """A request to void an ended round after its result, waiting for a second supervisor.

    Attributes:
        round_id (str):
        requested_by (str):
        reason (str):
        requested_at (str):
    """

    round_id: str
    requested_by: str
    reason: str
    requested_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        round_id = self.round_id

        requested_by = self.requested_by

        reason = self.reason

        requested_at = self.requested_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "round_id": round_id,
                "requested_by": requested_by,
                "reason": reason,
                "requested_at": requested_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        round_id = d.pop("round_id")

        requested_by = d.pop("requested_by")

        reason = d.pop("reason")

        requested_at = d.pop("requested_at")

        result_void_view = cls(
            round_id=round_id,
            requested_by=requested_by,
            reason=reason,
            requested_at=requested_at,
        )

        result_void_view.additional_properties = d
        return result_void_view

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
