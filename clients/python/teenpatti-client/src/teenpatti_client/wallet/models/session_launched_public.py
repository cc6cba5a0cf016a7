from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Literal, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.session_launched_public_language import SessionLaunchedPublicLanguage

T = TypeVar("T", bound="SessionLaunchedPublic")


@_attrs_define
class SessionLaunchedPublic:
    """The session token, answered once: send it as `Authorization: Session <token>`.

    Attributes:
        session_id (UUID):
        session_token (str):
        token_type (Literal['Session']):
        expires_at (datetime.datetime):
        player_id (str):
        currency (str):
        language (SessionLaunchedPublicLanguage):
        table_id (str):
    """

    session_id: UUID
    session_token: str
    token_type: Literal["Session"]
    expires_at: datetime.datetime
    player_id: str
    currency: str
    language: SessionLaunchedPublicLanguage
    table_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        session_id = str(self.session_id)

        session_token = self.session_token

        token_type = self.token_type

        expires_at = self.expires_at.isoformat()

        player_id = self.player_id

        currency = self.currency

        language = self.language.value

        table_id = self.table_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "session_id": session_id,
                "session_token": session_token,
                "token_type": token_type,
                "expires_at": expires_at,
                "player_id": player_id,
                "currency": currency,
                "language": language,
                "table_id": table_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        session_id = UUID(d.pop("session_id"))

        session_token = d.pop("session_token")

        token_type = cast(Literal["Session"], d.pop("token_type"))
        if token_type != "Session":
            raise ValueError(f"token_type must match const 'Session', got '{token_type}'")

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        player_id = d.pop("player_id")

        currency = d.pop("currency")

        language = SessionLaunchedPublicLanguage(d.pop("language"))

        table_id = d.pop("table_id")

        session_launched_public = cls(
            session_id=session_id,
            session_token=session_token,
            token_type=token_type,
            expires_at=expires_at,
            player_id=player_id,
            currency=currency,
            language=language,
            table_id=table_id,
        )

        session_launched_public.additional_properties = d
        return session_launched_public

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
