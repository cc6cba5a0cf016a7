from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.round_settlement_public_status import RoundSettlementPublicStatus

if TYPE_CHECKING:
    from ..models.bet_settlement_public import BetSettlementPublic
    from ..models.result_public import ResultPublic
    from ..models.round_settlement_public_reversal_totals import RoundSettlementPublicReversalTotals
    from ..models.round_settlement_public_totals import RoundSettlementPublicTotals


T = TypeVar("T", bound="RoundSettlementPublic")


@_attrs_define
class RoundSettlementPublic:
    """
    Attributes:
        round_id (str):
        table_id (str):
        status (RoundSettlementPublicStatus):
        cancelled (bool):
        cancel_reason (None | str):
        result (None | ResultPublic):
        settled_at (datetime.datetime | None):
        voided (bool):
        void_reason (None | str):
        reversed_at (datetime.datetime | None):
        totals (RoundSettlementPublicTotals):
        reversal_totals (RoundSettlementPublicReversalTotals):
        bets (list[BetSettlementPublic]):
    """

    round_id: str
    table_id: str
    status: RoundSettlementPublicStatus
    cancelled: bool
    cancel_reason: None | str
    result: None | ResultPublic
    settled_at: datetime.datetime | None
    voided: bool
    void_reason: None | str
    reversed_at: datetime.datetime | None
    totals: RoundSettlementPublicTotals
    reversal_totals: RoundSettlementPublicReversalTotals
    bets: list[BetSettlementPublic]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.result_public import ResultPublic

        round_id = self.round_id

        table_id = self.table_id

        status = self.status.value

        cancelled = self.cancelled

        cancel_reason: None | str
        cancel_reason = self.cancel_reason

        result: dict[str, Any] | None
        if isinstance(self.result, ResultPublic):
            result = self.result.to_dict()
        else:
            result = self.result

        settled_at: None | str
        if isinstance(self.settled_at, datetime.datetime):
            settled_at = self.settled_at.isoformat()
        else:
            settled_at = self.settled_at

        voided = self.voided

        void_reason: None | str
        void_reason = self.void_reason

        reversed_at: None | str
        if isinstance(self.reversed_at, datetime.datetime):
            reversed_at = self.reversed_at.isoformat()
        else:
            reversed_at = self.reversed_at

        totals = self.totals.to_dict()

        reversal_totals = self.reversal_totals.to_dict()

        bets = []
        for bets_item_data in self.bets:
            bets_item = bets_item_data.to_dict()
            bets.append(bets_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "round_id": round_id,
                "table_id": table_id,
                "status": status,
                "cancelled": cancelled,
                "cancel_reason": cancel_reason,
                "result": result,
                "settled_at": settled_at,
                "voided": voided,
                "void_reason": void_reason,
                "reversed_at": reversed_at,
                "totals": totals,
                "reversal_totals": reversal_totals,
                "bets": bets,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.bet_settlement_public import BetSettlementPublic
        from ..models.result_public import ResultPublic
        from ..models.round_settlement_public_reversal_totals import (
            RoundSettlementPublicReversalTotals,
        )
        from ..models.round_settlement_public_totals import RoundSettlementPublicTotals

        d = dict(src_dict)
        round_id = d.pop("round_id")

        table_id = d.pop("table_id")

        status = RoundSettlementPublicStatus(d.pop("status"))

        cancelled = d.pop("cancelled")

        def _parse_cancel_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        cancel_reason = _parse_cancel_reason(d.pop("cancel_reason"))

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

        voided = d.pop("voided")

        def _parse_void_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        void_reason = _parse_void_reason(d.pop("void_reason"))

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

        totals = RoundSettlementPublicTotals.from_dict(d.pop("totals"))

        reversal_totals = RoundSettlementPublicReversalTotals.from_dict(d.pop("reversal_totals"))

        bets = []
        _bets = d.pop("bets")
        for bets_item_data in _bets:
            bets_item = BetSettlementPublic.from_dict(bets_item_data)

            bets.append(bets_item)

        round_settlement_public = cls(
            round_id=round_id,
            table_id=table_id,
            status=status,
            cancelled=cancelled,
            cancel_reason=cancel_reason,
            result=result,
            settled_at=settled_at,
            voided=voided,
            void_reason=void_reason,
            reversed_at=reversed_at,
            totals=totals,
            reversal_totals=reversal_totals,
            bets=bets,
        )

        round_settlement_public.additional_properties = d
        return round_settlement_public

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
