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
        reason (str): Why the void was asked for, in the supervisor's words.
        requested_at (str): When it was asked for (ISO 8601, UTC).
        requested_by (str): The supervisor who asked for it (its key's holder).
        round_id (str): The round's id: `<table id>-<number>`, the number from 1 zero-padded to six digits, e.g.
            `T01-000042`.
    """

    reason: str
    requested_at: str
    requested_by: str
    round_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        reason = self.reason

        requested_at = self.requested_at

        requested_by = self.requested_by

        round_id = self.round_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "reason": reason,
                "requested_at": requested_at,
                "requested_by": requested_by,
                "round_id": round_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        reason = d.pop("reason")

        requested_at = d.pop("requested_at")

        requested_by = d.pop("requested_by")

        round_id = d.pop("round_id")

        result_void_view = cls(
            reason=reason,
            requested_at=requested_at,
            requested_by=requested_by,
            round_id=round_id,
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
