from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.round_stakes_public_status import RoundStakesPublicStatus

if TYPE_CHECKING:
    from ..models.round_stakes_public_by_currency import RoundStakesPublicByCurrency


T = TypeVar("T", bound="RoundStakesPublic")


@_attrs_define
class RoundStakesPublic:
    """Every operator's bets on the round: count and stakes per currency and bet type.

    Attributes:
        round_id (str):
        table_id (str):
        status (RoundStakesPublicStatus):
        by_currency (RoundStakesPublicByCurrency):
    """

    round_id: str
    table_id: str
    status: RoundStakesPublicStatus
    by_currency: RoundStakesPublicByCurrency
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        round_id = self.round_id

        table_id = self.table_id

        status = self.status.value

        by_currency = self.by_currency.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "round_id": round_id,
                "table_id": table_id,
                "status": status,
                "by_currency": by_currency,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.round_stakes_public_by_currency import RoundStakesPublicByCurrency

        d = dict(src_dict)
        round_id = d.pop("round_id")

        table_id = d.pop("table_id")

        status = RoundStakesPublicStatus(d.pop("status"))

        by_currency = RoundStakesPublicByCurrency.from_dict(d.pop("by_currency"))

        round_stakes_public = cls(
            round_id=round_id,
            table_id=table_id,
            status=status,
            by_currency=by_currency,
        )

        round_stakes_public.additional_properties = d
        return round_stakes_public

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
