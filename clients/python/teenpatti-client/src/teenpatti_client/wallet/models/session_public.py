from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.session_public_language import SessionPublicLanguage
from ..models.session_public_status import SessionPublicStatus

T = TypeVar("T", bound="SessionPublic")


@_attrs_define
class SessionPublic:
    """A session as its operator sees it; `status`: not_launched, active, expired, ended.

    Attributes:
        session_id (UUID):
        status (SessionPublicStatus):
        player_id (str):
        currency (str):
        language (SessionPublicLanguage):
        table_id (str):
        created_at (datetime.datetime):
        expires_at (datetime.datetime):
        launched_at (datetime.datetime | None):
        ended_at (datetime.datetime | None):
    """

    session_id: UUID
    status: SessionPublicStatus
    player_id: str
    currency: str
    language: SessionPublicLanguage
    table_id: str
    created_at: datetime.datetime
    expires_at: datetime.datetime
    launched_at: datetime.datetime | None
    ended_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        session_id = str(self.session_id)

        status = self.status.value

        player_id = self.player_id

        currency = self.currency

        language = self.language.value

        table_id = self.table_id

        created_at = self.created_at.isoformat()

        expires_at = self.expires_at.isoformat()

        launched_at: None | str
        if isinstance(self.launched_at, datetime.datetime):
            launched_at = self.launched_at.isoformat()
        else:
            launched_at = self.launched_at

        ended_at: None | str
        if isinstance(self.ended_at, datetime.datetime):
            ended_at = self.ended_at.isoformat()
        else:
            ended_at = self.ended_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "session_id": session_id,
                "status": status,
                "player_id": player_id,
                "currency": currency,
                "language": language,
                "table_id": table_id,
                "created_at": created_at,
                "expires_at": expires_at,
                "launched_at": launched_at,
                "ended_at": ended_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        session_id = UUID(d.pop("session_id"))

        status = SessionPublicStatus(d.pop("status"))

        player_id = d.pop("player_id")

        currency = d.pop("currency")

        language = SessionPublicLanguage(d.pop("language"))

        table_id = d.pop("table_id")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        def _parse_launched_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                launched_at_type_0 = datetime.datetime.fromisoformat(data)

                return launched_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        launched_at = _parse_launched_at(d.pop("launched_at"))

        def _parse_ended_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                ended_at_type_0 = datetime.datetime.fromisoformat(data)

                return ended_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        ended_at = _parse_ended_at(d.pop("ended_at"))

        session_public = cls(
            session_id=session_id,
            status=status,
            player_id=player_id,
            currency=currency,
            language=language,
            table_id=table_id,
            created_at=created_at,
            expires_at=expires_at,
            launched_at=launched_at,
            ended_at=ended_at,
        )

        session_public.additional_properties = d
        return session_public

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
