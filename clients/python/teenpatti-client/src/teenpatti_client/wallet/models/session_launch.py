from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="SessionLaunch")


@_attrs_define
class SessionLaunch:
    """
    Attributes:
        ticket (str): The single-use launch ticket, from the session's `launch_url`.
    """

    ticket: str

    def to_dict(self) -> dict[str, Any]:
        ticket = self.ticket

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "ticket": ticket,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        ticket = d.pop("ticket")

        session_launch = cls(
            ticket=ticket,
        )

        return session_launch
