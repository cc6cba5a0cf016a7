from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.transaction_public_kind import TransactionPublicKind
from ..models.transaction_public_status import TransactionPublicStatus
from ..models.transaction_public_wallet import TransactionPublicWallet
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.operator_answer_public import OperatorAnswerPublic


T = TypeVar("T", bound="TransactionPublic")


@_attrs_define
class TransactionPublic:
    """One money movement (docs/operators.md, "Transactions and reconciliation").

    Attributes:
        id (str):
        kind (TransactionPublicKind):
        wallet (TransactionPublicWallet):
        player_id (str):
        round_id (None | str):
        table_id (None | str):
        slip_id (None | str):
        transaction_uuid (str):
        reference_transaction_uuid (None | str):
        amount (int | None):
        currency (str):
        status (TransactionPublicStatus):
        attempts (int | None):
        round_closed (bool | None):
        at (str):
        finished_at (None | str):
        operator_answer (None | OperatorAnswerPublic):
        error (None | str):
        applied (int | None | Unset):
        shortfall (int | None | Unset):
    """

    id: str
    kind: TransactionPublicKind
    wallet: TransactionPublicWallet
    player_id: str
    round_id: None | str
    table_id: None | str
    slip_id: None | str
    transaction_uuid: str
    reference_transaction_uuid: None | str
    amount: int | None
    currency: str
    status: TransactionPublicStatus
    attempts: int | None
    round_closed: bool | None
    at: str
    finished_at: None | str
    operator_answer: None | OperatorAnswerPublic
    error: None | str
    applied: int | None | Unset = UNSET
    shortfall: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.operator_answer_public import OperatorAnswerPublic

        id = self.id

        kind = self.kind.value

        wallet = self.wallet.value

        player_id = self.player_id

        round_id: None | str
        round_id = self.round_id

        table_id: None | str
        table_id = self.table_id

        slip_id: None | str
        slip_id = self.slip_id

        transaction_uuid = self.transaction_uuid

        reference_transaction_uuid: None | str
        reference_transaction_uuid = self.reference_transaction_uuid

        amount: int | None
        amount = self.amount

        currency = self.currency

        status = self.status.value

        attempts: int | None
        attempts = self.attempts

        round_closed: bool | None
        round_closed = self.round_closed

        at = self.at

        finished_at: None | str
        finished_at = self.finished_at

        operator_answer: dict[str, Any] | None
        if isinstance(self.operator_answer, OperatorAnswerPublic):
            operator_answer = self.operator_answer.to_dict()
        else:
            operator_answer = self.operator_answer

        error: None | str
        error = self.error

        applied: int | None | Unset
        if isinstance(self.applied, Unset):
            applied = UNSET
        else:
            applied = self.applied

        shortfall: int | None | Unset
        if isinstance(self.shortfall, Unset):
            shortfall = UNSET
        else:
            shortfall = self.shortfall

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "kind": kind,
                "wallet": wallet,
                "player_id": player_id,
                "round_id": round_id,
                "table_id": table_id,
                "slip_id": slip_id,
                "transaction_uuid": transaction_uuid,
                "reference_transaction_uuid": reference_transaction_uuid,
                "amount": amount,
                "currency": currency,
                "status": status,
                "attempts": attempts,
                "round_closed": round_closed,
                "at": at,
                "finished_at": finished_at,
                "operator_answer": operator_answer,
                "error": error,
            }
        )
        if applied is not UNSET:
            field_dict["applied"] = applied
        if shortfall is not UNSET:
            field_dict["shortfall"] = shortfall

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.operator_answer_public import OperatorAnswerPublic

        d = dict(src_dict)
        id = d.pop("id")

        kind = TransactionPublicKind(d.pop("kind"))

        wallet = TransactionPublicWallet(d.pop("wallet"))

        player_id = d.pop("player_id")

        def _parse_round_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        round_id = _parse_round_id(d.pop("round_id"))

        def _parse_table_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        table_id = _parse_table_id(d.pop("table_id"))

        def _parse_slip_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        slip_id = _parse_slip_id(d.pop("slip_id"))

        transaction_uuid = d.pop("transaction_uuid")

        def _parse_reference_transaction_uuid(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reference_transaction_uuid = _parse_reference_transaction_uuid(
            d.pop("reference_transaction_uuid")
        )

        def _parse_amount(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        amount = _parse_amount(d.pop("amount"))

        currency = d.pop("currency")

        status = TransactionPublicStatus(d.pop("status"))

        def _parse_attempts(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        attempts = _parse_attempts(d.pop("attempts"))

        def _parse_round_closed(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        round_closed = _parse_round_closed(d.pop("round_closed"))

        at = d.pop("at")

        def _parse_finished_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        finished_at = _parse_finished_at(d.pop("finished_at"))

        def _parse_operator_answer(data: object) -> None | OperatorAnswerPublic:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                operator_answer_type_0 = OperatorAnswerPublic.from_dict(data)

                return operator_answer_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OperatorAnswerPublic, data)

        operator_answer = _parse_operator_answer(d.pop("operator_answer"))

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        def _parse_applied(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        applied = _parse_applied(d.pop("applied", UNSET))

        def _parse_shortfall(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        shortfall = _parse_shortfall(d.pop("shortfall", UNSET))

        transaction_public = cls(
            id=id,
            kind=kind,
            wallet=wallet,
            player_id=player_id,
            round_id=round_id,
            table_id=table_id,
            slip_id=slip_id,
            transaction_uuid=transaction_uuid,
            reference_transaction_uuid=reference_transaction_uuid,
            amount=amount,
            currency=currency,
            status=status,
            attempts=attempts,
            round_closed=round_closed,
            at=at,
            finished_at=finished_at,
            operator_answer=operator_answer,
            error=error,
            applied=applied,
            shortfall=shortfall,
        )

        transaction_public.additional_properties = d
        return transaction_public

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
