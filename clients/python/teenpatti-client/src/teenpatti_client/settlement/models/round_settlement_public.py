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
        bets (list[BetSettlementPublic]): This operator's bets on the round (never another operator's).
        cancel_reason (None | str): Why the round was cancelled, as the supervisor wrote it; null if it was not.
        cancelled (bool): Whether the round was cancelled (every bet refunded).
        result (None | ResultPublic): Its result; null before it, or when cancelled.
        reversal_totals (RoundSettlementPublicReversalTotals): Per currency, this operator's reversed bets: the stakes
            refunded and the returns taken back,
            in integer minor units.
        reversed_at (datetime.datetime | None): When its settlement was reversed, its round voided after its result (ISO
            8601, UTC); null if it was not.
        round_id (str): The round's id: `<table id>-<number>`, the number from 1 zero-padded to six digits, e.g.
            `T01-000042`.
        settled_at (datetime.datetime | None): When it was settled (ISO 8601, UTC); null until then.
        status (RoundSettlementPublicStatus): `settled` once its bets are settled, else `pending`.
        table_id (str): The table's id, as a supervisor opened it (`POST /tables`), e.g. `T01`.
        totals (RoundSettlementPublicTotals): Per currency, this operator's settled bets: stakes, returns and the
            house's result, in
            integer minor units; `{}` until the round is settled.
        void_reason (None | str): Why it was voided, who asked and who confirmed; null if it was not.
        voided (bool): Whether it was voided after its result: its settlement is reversed once settled.
    """

    bets: list[BetSettlementPublic]
    cancel_reason: None | str
    cancelled: bool
    result: None | ResultPublic
    reversal_totals: RoundSettlementPublicReversalTotals
    reversed_at: datetime.datetime | None
    round_id: str
    settled_at: datetime.datetime | None
    status: RoundSettlementPublicStatus
    table_id: str
    totals: RoundSettlementPublicTotals
    void_reason: None | str
    voided: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.result_public import ResultPublic

        bets = []
        for bets_item_data in self.bets:
            bets_item = bets_item_data.to_dict()
            bets.append(bets_item)

        cancel_reason: None | str
        cancel_reason = self.cancel_reason

        cancelled = self.cancelled

        result: dict[str, Any] | None
        if isinstance(self.result, ResultPublic):
            result = self.result.to_dict()
        else:
            result = self.result

        reversal_totals = self.reversal_totals.to_dict()

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

        totals = self.totals.to_dict()

        void_reason: None | str
        void_reason = self.void_reason

        voided = self.voided

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bets": bets,
                "cancel_reason": cancel_reason,
                "cancelled": cancelled,
                "result": result,
                "reversal_totals": reversal_totals,
                "reversed_at": reversed_at,
                "round_id": round_id,
                "settled_at": settled_at,
                "status": status,
                "table_id": table_id,
                "totals": totals,
                "void_reason": void_reason,
                "voided": voided,
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
        bets = []
        _bets = d.pop("bets")
        for bets_item_data in _bets:
            bets_item = BetSettlementPublic.from_dict(bets_item_data)

            bets.append(bets_item)

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

        reversal_totals = RoundSettlementPublicReversalTotals.from_dict(d.pop("reversal_totals"))

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

        status = RoundSettlementPublicStatus(d.pop("status"))

        table_id = d.pop("table_id")

        totals = RoundSettlementPublicTotals.from_dict(d.pop("totals"))

        def _parse_void_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        void_reason = _parse_void_reason(d.pop("void_reason"))

        voided = d.pop("voided")

        round_settlement_public = cls(
            bets=bets,
            cancel_reason=cancel_reason,
            cancelled=cancelled,
            result=result,
            reversal_totals=reversal_totals,
            reversed_at=reversed_at,
            round_id=round_id,
            settled_at=settled_at,
            status=status,
            table_id=table_id,
            totals=totals,
            void_reason=void_reason,
            voided=voided,
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
