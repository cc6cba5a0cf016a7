from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.bet_public_bet_type import BetPublicBetType
from ..models.bet_public_outcome_type_0 import BetPublicOutcomeType0
from ..models.bet_public_status import BetPublicStatus

if TYPE_CHECKING:
    from ..models.bet_round_public import BetRoundPublic


T = TypeVar("T", bound="BetPublic")


@_attrs_define
class BetPublic:
    """
    Attributes:
        bet_id (UUID): The bet's id (a UUID), given by the wallet when it took the slip.
        bet_type (BetPublicBetType): The bet: `player_a`, `player_b` or `tie` (who wins), `pair_plus_a` or `pair_plus_b`
            (that player's three cards make a pair or better), `six_card_bonus` (the best five of the six cards make three
            of a kind or better).
        currency (str): An ISO 4217 code of the platform's currency table (e.g. `INR`): every amount beside it is in
            integer minor units of it (paise for INR, cents for USD).
        outcome (BetPublicOutcomeType0 | None): How the bet ended: `won`, `lost`, `push` (the stake back) or `refunded`
            (its round cancelled or voided); null until settled.
        paid_at (datetime.datetime | None): When the wallet paid the bet (ISO 8601, UTC); null until then.
        placed_at (datetime.datetime): When the wallet took the slip (ISO 8601, UTC).
        player_id (str): The player's id in its operator's own system (letters, digits and `. _ @ -`). A player is its
            operator's: the same id under two operators is two players.
        returned (int | None): What was returned to the player, in integer minor units of the currency: the stake and
            the win for a won bet, the stake for a push or a refund, 0 for a lost bet; null while not settled.
        round_ (BetRoundPublic): The round of a bet: its status and, once closed, its cards and result.
        round_id (str): The round's id: `<table id>-<number>`, the number from 1 zero-padded to six digits, e.g.
            `T01-000042`.
        slip_id (UUID): The slip's id (a UUID): a slip is the bets of one `POST /bets`, taken or refused whole.
        stake (int): The amount staked, in integer minor units of the currency.
        status (BetPublicStatus): `placed` until the wallet pays it, then `paid`.
        table_id (str): The table's id, as a supervisor opened it (`POST /tables`), e.g. `T01`.
    """

    bet_id: UUID
    bet_type: BetPublicBetType
    currency: str
    outcome: BetPublicOutcomeType0 | None
    paid_at: datetime.datetime | None
    placed_at: datetime.datetime
    player_id: str
    returned: int | None
    round_: BetRoundPublic
    round_id: str
    slip_id: UUID
    stake: int
    status: BetPublicStatus
    table_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bet_id = str(self.bet_id)

        bet_type = self.bet_type.value

        currency = self.currency

        outcome: None | str
        if isinstance(self.outcome, BetPublicOutcomeType0):
            outcome = self.outcome.value
        else:
            outcome = self.outcome

        paid_at: None | str
        if isinstance(self.paid_at, datetime.datetime):
            paid_at = self.paid_at.isoformat()
        else:
            paid_at = self.paid_at

        placed_at = self.placed_at.isoformat()

        player_id = self.player_id

        returned: int | None
        returned = self.returned

        round_ = self.round_.to_dict()

        round_id = self.round_id

        slip_id = str(self.slip_id)

        stake = self.stake

        status = self.status.value

        table_id = self.table_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bet_id": bet_id,
                "bet_type": bet_type,
                "currency": currency,
                "outcome": outcome,
                "paid_at": paid_at,
                "placed_at": placed_at,
                "player_id": player_id,
                "returned": returned,
                "round": round_,
                "round_id": round_id,
                "slip_id": slip_id,
                "stake": stake,
                "status": status,
                "table_id": table_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.bet_round_public import BetRoundPublic

        d = dict(src_dict)
        bet_id = UUID(d.pop("bet_id"))

        bet_type = BetPublicBetType(d.pop("bet_type"))

        currency = d.pop("currency")

        def _parse_outcome(data: object) -> BetPublicOutcomeType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                outcome_type_0 = BetPublicOutcomeType0(data)

                return outcome_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BetPublicOutcomeType0 | None, data)

        outcome = _parse_outcome(d.pop("outcome"))

        def _parse_paid_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                paid_at_type_0 = datetime.datetime.fromisoformat(data)

                return paid_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        paid_at = _parse_paid_at(d.pop("paid_at"))

        placed_at = datetime.datetime.fromisoformat(d.pop("placed_at"))

        player_id = d.pop("player_id")

        def _parse_returned(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        returned = _parse_returned(d.pop("returned"))

        round_ = BetRoundPublic.from_dict(d.pop("round"))

        round_id = d.pop("round_id")

        slip_id = UUID(d.pop("slip_id"))

        stake = d.pop("stake")

        status = BetPublicStatus(d.pop("status"))

        table_id = d.pop("table_id")

        bet_public = cls(
            bet_id=bet_id,
            bet_type=bet_type,
            currency=currency,
            outcome=outcome,
            paid_at=paid_at,
            placed_at=placed_at,
            player_id=player_id,
            returned=returned,
            round_=round_,
            round_id=round_id,
            slip_id=slip_id,
            stake=stake,
            status=status,
            table_id=table_id,
        )

        bet_public.additional_properties = d
        return bet_public

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
