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
        created_at (datetime.datetime): When its operator opened it (ISO 8601, UTC).
        currency (str): An ISO 4217 code of the platform's currency table (e.g. `INR`): every amount beside it is in
            integer minor units of it (paise for INR, cents for USD).
        ended_at (datetime.datetime | None): When its operator ended it (ISO 8601, UTC); null while not ended.
        expires_at (datetime.datetime): When it expires (ISO 8601, UTC).
        language (SessionPublicLanguage): The player view's language: `en`, `th`, `fa`, `ja` or `ru`.
        launched_at (datetime.datetime | None): When the player view exchanged its ticket (ISO 8601, UTC); null before.
        player_id (str): The player's id in its operator's own system (letters, digits and `. _ @ -`). A player is its
            operator's: the same id under two operators is two players.
        session_id (UUID): The player session's id (a UUID), given when its operator opened it.
        status (SessionPublicStatus): `not_launched`, `active`, `expired` or `ended`.
        table_id (str): The table's id, as a supervisor opened it (`POST /tables`), e.g. `T01`.
    """

    created_at: datetime.datetime
    currency: str
    ended_at: datetime.datetime | None
    expires_at: datetime.datetime
    language: SessionPublicLanguage
    launched_at: datetime.datetime | None
    player_id: str
    session_id: UUID
    status: SessionPublicStatus
    table_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        currency = self.currency

        ended_at: None | str
        if isinstance(self.ended_at, datetime.datetime):
            ended_at = self.ended_at.isoformat()
        else:
            ended_at = self.ended_at

        expires_at = self.expires_at.isoformat()

        language = self.language.value

        launched_at: None | str
        if isinstance(self.launched_at, datetime.datetime):
            launched_at = self.launched_at.isoformat()
        else:
            launched_at = self.launched_at

        player_id = self.player_id

        session_id = str(self.session_id)

        status = self.status.value

        table_id = self.table_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "currency": currency,
                "ended_at": ended_at,
                "expires_at": expires_at,
                "language": language,
                "launched_at": launched_at,
                "player_id": player_id,
                "session_id": session_id,
                "status": status,
                "table_id": table_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        currency = d.pop("currency")

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

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        language = SessionPublicLanguage(d.pop("language"))

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

        player_id = d.pop("player_id")

        session_id = UUID(d.pop("session_id"))

        status = SessionPublicStatus(d.pop("status"))

        table_id = d.pop("table_id")

        session_public = cls(
            created_at=created_at,
            currency=currency,
            ended_at=ended_at,
            expires_at=expires_at,
            language=language,
            launched_at=launched_at,
            player_id=player_id,
            session_id=session_id,
            status=status,
            table_id=table_id,
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
