from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SessionOpenedPublic")


@_attrs_define
class SessionOpenedPublic:
    """A session just opened: the launch URL carries a single-use ticket, valid until
    `launch_expires_at`, and no secret.

        Attributes:
            expires_at (datetime.datetime): When the session expires (ISO 8601, UTC).
            launch_expires_at (datetime.datetime): Until when the launch URL's ticket may be used (ISO 8601, UTC).
            launch_url (str): The player view's address with a single-use ticket: give it to the player's browser; it holds
                no secret but the ticket.
            session_id (UUID): The player session's id (a UUID), given when its operator opened it.
    """

    expires_at: datetime.datetime
    launch_expires_at: datetime.datetime
    launch_url: str
    session_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        expires_at = self.expires_at.isoformat()

        launch_expires_at = self.launch_expires_at.isoformat()

        launch_url = self.launch_url

        session_id = str(self.session_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "expires_at": expires_at,
                "launch_expires_at": launch_expires_at,
                "launch_url": launch_url,
                "session_id": session_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        launch_expires_at = datetime.datetime.fromisoformat(d.pop("launch_expires_at"))

        launch_url = d.pop("launch_url")

        session_id = UUID(d.pop("session_id"))

        session_opened_public = cls(
            expires_at=expires_at,
            launch_expires_at=launch_expires_at,
            launch_url=launch_url,
            session_id=session_id,
        )

        session_opened_public.additional_properties = d
        return session_opened_public

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
