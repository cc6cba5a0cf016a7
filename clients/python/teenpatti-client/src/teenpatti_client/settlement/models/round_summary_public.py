from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.round_summary_public_status import RoundSummaryPublicStatus

if TYPE_CHECKING:
    from ..models.result_public import ResultPublic


T = TypeVar("T", bound="RoundSummaryPublic")


@_attrs_define
class RoundSummaryPublic:
    """
    Attributes:
        cancel_reason (None | str): Why the round was cancelled, as the supervisor wrote it; null if it was not.
        cancelled (bool): Whether the round was cancelled (every bet refunded).
        result (None | ResultPublic): Its result; null before it, or when cancelled.
        reversed_at (datetime.datetime | None): When its settlement was reversed, its round voided after its result (ISO
            8601, UTC); null if it was not.
        round_id (str): The round's id: `<table id>-<number>`, the number from 1 zero-padded to six digits, e.g.
            `T01-000042`.
        settled_at (datetime.datetime | None): When it was settled (ISO 8601, UTC); null until then.
        status (RoundSummaryPublicStatus): `settled` once its bets are settled, else `pending`.
        table_id (str): The table's id, as a supervisor opened it (`POST /tables`), e.g. `T01`.
        void_reason (None | str): Why it was voided, who asked and who confirmed; null if it was not.
        voided (bool): Whether it was voided after its result: its settlement is reversed once settled.
    """

    cancel_reason: None | str
    cancelled: bool
    result: None | ResultPublic
    reversed_at: datetime.datetime | None
    round_id: str
    settled_at: datetime.datetime | None
    status: RoundSummaryPublicStatus
    table_id: str
    void_reason: None | str
    voided: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.result_public import ResultPublic

        cancel_reason: None | str
        cancel_reason = self.cancel_reason

        cancelled = self.cancelled

        result: dict[str, Any] | None
        if isinstance(self.result, ResultPublic):
            result = self.result.to_dict()
        else:
            result = self.result

        reversed_at: None | str
        if isinstance(self.reversed_at, datetime.datetime):
            reversed_at = self.reversed_at.isoformat()
        else:
            reversed_at = self.reversed_at

        round_id = self.round_id

        settled_at: None | str
        if isinstance(self.settled_at, datetime.datetime):
            settled_at = self.settled_at.isoformat()
        else:
            settled_at = self.settled_at

        status = self.status.value

        table_id = self.table_id

        void_reason: None | str
        void_reason = self.void_reason

        voided = self.voided

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cancel_reason": cancel_reason,
                "cancelled": cancelled,
                "result": result,
                "reversed_at": reversed_at,
                "round_id": round_id,
                "settled_at": settled_at,
                "status": status,
                "table_id": table_id,
                "void_reason": void_reason,
                "voided": voided,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.result_public import ResultPublic

        d = dict(src_dict)

        def _parse_cancel_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        cancel_reason = _parse_cancel_reason(d.pop("cancel_reason"))

        cancelled = d.pop("cancelled")

        def _parse_result(data: object) -> None | ResultPublic:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                result_type_0 = ResultPublic.from_dict(data)

                return result_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResultPublic, data)

        result = _parse_result(d.pop("result"))

        def _parse_reversed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reversed_at_type_0 = datetime.datetime.fromisoformat(data)

                return reversed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        reversed_at = _parse_reversed_at(d.pop("reversed_at"))

        round_id = d.pop("round_id")

        def _parse_settled_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                settled_at_type_0 = datetime.datetime.fromisoformat(data)

                return settled_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        settled_at = _parse_settled_at(d.pop("settled_at"))

        status = RoundSummaryPublicStatus(d.pop("status"))

        table_id = d.pop("table_id")

        def _parse_void_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        void_reason = _parse_void_reason(d.pop("void_reason"))

        voided = d.pop("voided")

        round_summary_public = cls(
            cancel_reason=cancel_reason,
            cancelled=cancelled,
            result=result,
            reversed_at=reversed_at,
            round_id=round_id,
            settled_at=settled_at,
            status=status,
            table_id=table_id,
            void_reason=void_reason,
            voided=voided,
        )

        round_summary_public.additional_properties = d
        return round_summary_public

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
