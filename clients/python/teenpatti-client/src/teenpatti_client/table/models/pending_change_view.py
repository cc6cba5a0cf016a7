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
        change_id (str): The id of a proposed change that waits for a second supervisor's approval or rejection.
        config (ConfigView):
        proposed_at (str): When it was proposed (ISO 8601, UTC).
        proposed_by (str): The supervisor who proposed it (its key's holder).
        rtp (PendingChangeViewRtp): Per bet type, the exact RTP (`p/q`) of the pay table proposed.
    """

    change_id: str
    config: ConfigView
    proposed_at: str
    proposed_by: str
    rtp: PendingChangeViewRtp
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        change_id = self.change_id

        config = self.config.to_dict()

        proposed_at = self.proposed_at

        proposed_by = self.proposed_by

        rtp = self.rtp.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "change_id": change_id,
                "config": config,
                "proposed_at": proposed_at,
                "proposed_by": proposed_by,
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

        config = ConfigView.from_dict(d.pop("config"))

        proposed_at = d.pop("proposed_at")

        proposed_by = d.pop("proposed_by")

        rtp = PendingChangeViewRtp.from_dict(d.pop("rtp"))

        pending_change_view = cls(
            change_id=change_id,
            config=config,
            proposed_at=proposed_at,
            proposed_by=proposed_by,
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
