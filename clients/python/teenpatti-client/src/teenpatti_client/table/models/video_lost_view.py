from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="VideoLostView")


@_attrs_define
class VideoLostView:
    """The studio reported the table's video or stream lost: no round opens until restored.

    Attributes:
        reason (str): What the studio reported.
        reported_by (str): Who reported it (its key's holder).
        since (str): When it was reported (ISO 8601, UTC).
    """

    reason: str
    reported_by: str
    since: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        reason = self.reason

        reported_by = self.reported_by

        since = self.since

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "reason": reason,
                "reported_by": reported_by,
                "since": since,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        reason = d.pop("reason")

        reported_by = d.pop("reported_by")

        since = d.pop("since")

        video_lost_view = cls(
            reason=reason,
            reported_by=reported_by,
            since=since,
        )

        video_lost_view.additional_properties = d
        return video_lost_view

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
