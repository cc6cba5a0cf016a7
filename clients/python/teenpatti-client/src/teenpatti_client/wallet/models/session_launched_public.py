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
        currency (str): An ISO 4217 code of the platform's currency table (e.g. `INR`): every amount beside it is in
            integer minor units of it (paise for INR, cents for USD).
        expires_at (datetime.datetime): When it expires (ISO 8601, UTC).
        language (SessionLaunchedPublicLanguage): The player view's language: `en`, `th`, `fa`, `ja` or `ru`.
        player_id (str): The player's id in its operator's own system (letters, digits and `. _ @ -`). A player is its
            operator's: the same id under two operators is two players.
        session_id (UUID): The player session's id (a UUID), given when its operator opened it.
        session_token (str): The session token, answered this once: send it as `Authorization: Session <token>`.
        table_id (str): The table's id, as a supervisor opened it (`POST /tables`), e.g. `T01`.
        token_type (Literal['Session']): Always `Session`: the scheme of the `Authorization` header.
    """

    currency: str
    expires_at: datetime.datetime
    language: SessionLaunchedPublicLanguage
    player_id: str
    session_id: UUID
    session_token: str
    table_id: str
    token_type: Literal["Session"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        currency = self.currency

        expires_at = self.expires_at.isoformat()

        language = self.language.value

        player_id = self.player_id

        session_id = str(self.session_id)

        session_token = self.session_token

        table_id = self.table_id

        token_type = self.token_type

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "currency": currency,
                "expires_at": expires_at,
                "language": language,
                "player_id": player_id,
                "session_id": session_id,
                "session_token": session_token,
                "table_id": table_id,
                "token_type": token_type,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        currency = d.pop("currency")

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        language = SessionLaunchedPublicLanguage(d.pop("language"))

        player_id = d.pop("player_id")

        session_id = UUID(d.pop("session_id"))

        session_token = d.pop("session_token")

        table_id = d.pop("table_id")

        token_type = cast(Literal["Session"], d.pop("token_type"))
        if token_type != "Session":
            raise ValueError(f"token_type must match const 'Session', got '{token_type}'")

        session_launched_public = cls(
            currency=currency,
            expires_at=expires_at,
            language=language,
            player_id=player_id,
            session_id=session_id,
            session_token=session_token,
            table_id=table_id,
            token_type=token_type,
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
