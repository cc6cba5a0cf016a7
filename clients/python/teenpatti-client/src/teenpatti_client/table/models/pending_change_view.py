from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.config_view import ConfigView
    from ..models.pending_change_view_rtp import PendingChangeViewRtp


T = TypeVar("T", bound="PendingChangeView")


@_attrs_define
class PendingChangeView:
    """A pay table or limits change waiting for a second supervisor.

    Attributes:
        change_id (str):
        proposed_by (str):
        proposed_at (str):
        config (ConfigView):
        rtp (PendingChangeViewRtp):
    """

    change_id: str
    proposed_by: str
    proposed_at: str
    config: ConfigView
    rtp: PendingChangeViewRtp
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        change_id = self.change_id

        proposed_by = self.proposed_by

        proposed_at = self.proposed_at

        config = self.config.to_dict()

        rtp = self.rtp.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "change_id": change_id,
                "proposed_by": proposed_by,
                "proposed_at": proposed_at,
                "config": config,
                "rtp": rtp,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.config_view import ConfigView
        from ..models.pending_change_view_rtp import PendingChangeViewRtp

        d = dict(src_dict)
        change_id = d.pop("change_id")

        proposed_by = d.pop("proposed_by")

        proposed_at = d.pop("proposed_at")

        config = ConfigView.from_dict(d.pop("config"))

        rtp = PendingChangeViewRtp.from_dict(d.pop("rtp"))

        pending_change_view = cls(
            change_id=change_id,
            proposed_by=proposed_by,
            proposed_at=proposed_at,
            config=config,
            rtp=rtp,
        )

        pending_change_view.additional_properties = d
        return pending_change_view

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
