from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.session_create_language import SessionCreateLanguage
from ..types import UNSET, Unset

T = TypeVar("T", bound="SessionCreate")


@_attrs_define
class SessionCreate:
    """
    Attributes:
        token (str):
        player_id (str):
        currency (str):
        table_id (str):
        language (SessionCreateLanguage | Unset):  Default: SessionCreateLanguage.EN.
    """

    token: str
    player_id: str
    currency: str
    table_id: str
    language: SessionCreateLanguage | Unset = SessionCreateLanguage.EN

    def to_dict(self) -> dict[str, Any]:
        token = self.token

        player_id = self.player_id

        currency = self.currency

        table_id = self.table_id

        language: str | Unset = UNSET
        if not isinstance(self.language, Unset):
            language = self.language.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "token": token,
                "player_id": player_id,
                "currency": currency,
                "table_id": table_id,
            }
        )
        if language is not UNSET:
            field_dict["language"] = language

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        token = d.pop("token")

        player_id = d.pop("player_id")

        currency = d.pop("currency")

        table_id = d.pop("table_id")

        _language = d.pop("language", UNSET)
        language: SessionCreateLanguage | Unset
        if isinstance(_language, Unset):
            language = UNSET
        else:
            language = SessionCreateLanguage(_language)

        session_create = cls(
            token=token,
            player_id=player_id,
            currency=currency,
            table_id=table_id,
            language=language,
        )

        return session_create
