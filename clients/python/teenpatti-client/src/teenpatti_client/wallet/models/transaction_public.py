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
        amount (int | None): In integer minor units: a rollback's is its bet's; a correction's is its net (the stakes
            refunded less the returns taken back: negative when the player owes).
        at (str): When it was recorded (ISO 8601, UTC).
        attempts (int | None): A call's attempts so far; null for other movements.
        currency (str): An ISO 4217 code of the platform's currency table (e.g. `INR`): every amount beside it is in
            integer minor units of it (paise for INR, cents for USD).
        error (None | str): Why a call was refused or failed, as our side names it; a settled correction's reason; null
            otherwise.
        finished_at (None | str): When it ended (a call: its last answer or its giving up) (ISO 8601, UTC); null while
            pending.

        id (str): Unique among the operator's movements: `transfer:<transfer id>`, `slip:<slip id>`,
            `payment:<slip id>`, `call:<call id>` or `correction:<reversal part>:<player>:<currency>`.
        kind (TransactionPublicKind): `deposit`, `withdrawal` (a transfer); `slip` (a slip taken); `bet`, `win`,
            `rollback` (a call
            to a seamless operator's wallet); `win`, `refund` (a transfer slip paid, or its stake back
            from a void round); `correction` (a round voided after its result, per player and currency).
        operator_answer (None | OperatorAnswerPublic): A call's last answer; null before any and for other movements.
        player_id (str): The player it is about.
        reference_transaction_uuid (None | str): The bet (slip id) a win, rollback or payment settles; null otherwise.
        round_closed (bool | None): A call's `round_closed` flag; null for other movements.
        round_id (None | str): Its round; null for a transfer.
        slip_id (None | str): Its slip; null for a transfer.
        status (TransactionPublicStatus): `ok`; `accepted` (a slip); a call's `pending` (still being sent), `ok`,
            `refused` or
            `failed`; a correction's `shortfall` (a balance could not cover it) or `listed` (a seamless
            operator's to apply) until recorded settled, then `ok`.
        table_id (None | str): Its round's table; null for a transfer.
        transaction_uuid (str): A call's idempotency key as the operator saw it (a bet's is the slip id; a win's or
            rollback's its own); a transfer's id; a slip's id.
        wallet (TransactionPublicWallet): `transfer` or `seamless`: where the player's money is.
        applied (int | None | Unset): A correction's: what moved on the player's transfer balance here, in integer minor
            units;
            null for other movements.
        shortfall (int | None | Unset): A correction's: what the balance could not cover (owed by the player), in
            integer minor
            units; null for other movements.
    """

    amount: int | None
    at: str
    attempts: int | None
    currency: str
    error: None | str
    finished_at: None | str
    id: str
    kind: TransactionPublicKind
    operator_answer: None | OperatorAnswerPublic
    player_id: str
    reference_transaction_uuid: None | str
    round_closed: bool | None
    round_id: None | str
    slip_id: None | str
    status: TransactionPublicStatus
    table_id: None | str
    transaction_uuid: str
    wallet: TransactionPublicWallet
    applied: int | None | Unset = UNSET
    shortfall: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.operator_answer_public import OperatorAnswerPublic

        amount: int | None
        amount = self.amount

        at = self.at

        attempts: int | None
        attempts = self.attempts

        currency = self.currency

        error: None | str
        error = self.error

        finished_at: None | str
        finished_at = self.finished_at

        id = self.id

        kind = self.kind.value

        operator_answer: dict[str, Any] | None
        if isinstance(self.operator_answer, OperatorAnswerPublic):
            operator_answer = self.operator_answer.to_dict()
        else:
            operator_answer = self.operator_answer

        player_id = self.player_id

        reference_transaction_uuid: None | str
        reference_transaction_uuid = self.reference_transaction_uuid

        round_closed: bool | None
        round_closed = self.round_closed

        round_id: None | str
        round_id = self.round_id

        slip_id: None | str
        slip_id = self.slip_id

        status = self.status.value

        table_id: None | str
        table_id = self.table_id

        transaction_uuid = self.transaction_uuid

        wallet = self.wallet.value

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
                "amount": amount,
                "at": at,
                "attempts": attempts,
                "currency": currency,
                "error": error,
                "finished_at": finished_at,
                "id": id,
                "kind": kind,
                "operator_answer": operator_answer,
                "player_id": player_id,
                "reference_transaction_uuid": reference_transaction_uuid,
                "round_closed": round_closed,
                "round_id": round_id,
                "slip_id": slip_id,
                "status": status,
                "table_id": table_id,
                "transaction_uuid": transaction_uuid,
                "wallet": wallet,
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

        def _parse_amount(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        amount = _parse_amount(d.pop("amount"))

        at = d.pop("at")

        def _parse_attempts(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        attempts = _parse_attempts(d.pop("attempts"))

        currency = d.pop("currency")

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        def _parse_finished_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        finished_at = _parse_finished_at(d.pop("finished_at"))

        id = d.pop("id")

        kind = TransactionPublicKind(d.pop("kind"))

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

        player_id = d.pop("player_id")

        def _parse_reference_transaction_uuid(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reference_transaction_uuid = _parse_reference_transaction_uuid(
            d.pop("reference_transaction_uuid")
        )

        def _parse_round_closed(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        round_closed = _parse_round_closed(d.pop("round_closed"))

        def _parse_round_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        round_id = _parse_round_id(d.pop("round_id"))

        def _parse_slip_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        slip_id = _parse_slip_id(d.pop("slip_id"))

        status = TransactionPublicStatus(d.pop("status"))

        def _parse_table_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        table_id = _parse_table_id(d.pop("table_id"))

        transaction_uuid = d.pop("transaction_uuid")

        wallet = TransactionPublicWallet(d.pop("wallet"))

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
            amount=amount,
            at=at,
            attempts=attempts,
            currency=currency,
            error=error,
            finished_at=finished_at,
            id=id,
            kind=kind,
            operator_answer=operator_answer,
            player_id=player_id,
            reference_transaction_uuid=reference_transaction_uuid,
            round_closed=round_closed,
            round_id=round_id,
            slip_id=slip_id,
            status=status,
            table_id=table_id,
            transaction_uuid=transaction_uuid,
            wallet=wallet,
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
