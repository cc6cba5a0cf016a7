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
        currency (str): The session's currency: every slip and balance of the session is in it.
        player_id (str): The player's id in its operator's own system (letters, digits and `. _ @ -`). A player is its
            operator's: the same id under two operators is two players.
        table_id (str): The one table the session may bet at.
        token (str): The operator's own token for the player (1 to 512 characters), bound to one player and
            currency; a seamless operator's wallet calls carry it back.
        language (SessionCreateLanguage | Unset): The player view's language: `en` (the default), `th`, `fa`, `ja` or
            `ru`. Default: SessionCreateLanguage.EN.
    """

    currency: str
    player_id: str
    table_id: str
    token: str
    language: SessionCreateLanguage | Unset = SessionCreateLanguage.EN

    def to_dict(self) -> dict[str, Any]:
        currency = self.currency

        player_id = self.player_id

        table_id = self.table_id

        token = self.token

        language: str | Unset = UNSET
        if not isinstance(self.language, Unset):
            language = self.language.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "currency": currency,
                "player_id": player_id,
                "table_id": table_id,
                "token": token,
            }
        )
        if language is not UNSET:
            field_dict["language"] = language

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        currency = d.pop("currency")

        player_id = d.pop("player_id")

        table_id = d.pop("table_id")

        token = d.pop("token")

        _language = d.pop("language", UNSET)
        language: SessionCreateLanguage | Unset
        if isinstance(_language, Unset):
            language = UNSET
        else:
            language = SessionCreateLanguage(_language)

        session_create = cls(
            currency=currency,
            player_id=player_id,
            table_id=table_id,
            token=token,
            language=language,
        )

        return session_create
