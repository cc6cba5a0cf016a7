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
        by_currency (RoundStakesPublicByCurrency): Per currency and bet type, every operator's bets: count and stakes in
            integer minor units.
        round_id (str): The round's id: `<table id>-<number>`, the number from 1 zero-padded to six digits, e.g.
            `T01-000042`.
        status (RoundStakesPublicStatus): `open`, `sealed`, `closed` or `cancelled`.
        table_id (str): The table's id, as a supervisor opened it (`POST /tables`), e.g. `T01`.
    """

    by_currency: RoundStakesPublicByCurrency
    round_id: str
    status: RoundStakesPublicStatus
    table_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        by_currency = self.by_currency.to_dict()

        round_id = self.round_id

        status = self.status.value

        table_id = self.table_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "by_currency": by_currency,
                "round_id": round_id,
                "status": status,
                "table_id": table_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.round_stakes_public_by_currency import RoundStakesPublicByCurrency

        d = dict(src_dict)
        by_currency = RoundStakesPublicByCurrency.from_dict(d.pop("by_currency"))

        round_id = d.pop("round_id")

        status = RoundStakesPublicStatus(d.pop("status"))

        table_id = d.pop("table_id")

        round_stakes_public = cls(
            by_currency=by_currency,
            round_id=round_id,
            status=status,
            table_id=table_id,
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
