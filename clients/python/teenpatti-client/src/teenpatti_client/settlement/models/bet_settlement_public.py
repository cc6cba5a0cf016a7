from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.bet_settlement_public_status import BetSettlementPublicStatus

T = TypeVar("T", bound="BetSettlementPublic")


@_attrs_define
class BetSettlementPublic:
    """
    Attributes:
        bet_id (UUID): The bet's id (a UUID), given by the wallet when it took the slip.
        bet_type (str): The bet: `player_a`, `player_b` or `tie` (who wins), `pair_plus_a` or `pair_plus_b` (that
            player's three cards make a pair or better), `six_card_bonus` (the best five of the six cards make three of a
            kind or better).
        currency (str): An ISO 4217 code of the platform's currency table (e.g. `INR`): every amount beside it is in
            integer minor units of it (paise for INR, cents for USD).
        fraction_kept (None | str): The winnings below one minor unit kept by rounding down, a fraction of a minor unit
            (0 <= f <
            1), e.g. `"1/2"`; null until settled.
        odds (None | str): The pay line applied when it won: what it pays to one, as a fraction (e.g. `"19/20"`); null
            until settled or when it did not win.
        outcome (None | str): How the bet ended: `won`, `lost`, `push` (the stake back) or `refunded` (its round
            cancelled or voided); null until settled.
        placed_at (datetime.datetime): When the wallet took the slip (ISO 8601, UTC).
        player_id (str): The player's id in its operator's own system (letters, digits and `. _ @ -`). A player is its
            operator's: the same id under two operators is two players.
        returned (int | None): What was returned to the player, in integer minor units of the currency: the stake and
            the win for a won bet, the stake for a push or a refund, 0 for a lost bet; null while not settled.
        reversed_ (bool): Whether its round was voided after its result: the stake refunded, what it returned taken
            back.
        reversed_at (datetime.datetime | None): When its settlement was reversed, its round voided after its result (ISO
            8601, UTC); null if it was not.
        round_id (str): The round's id: `<table id>-<number>`, the number from 1 zero-padded to six digits, e.g.
            `T01-000042`.
        settled_at (datetime.datetime | None): When it was settled (ISO 8601, UTC); null until then.
        slip_id (UUID): The slip's id (a UUID): a slip is the bets of one `POST /bets`, taken or refused whole.
        stake (int): The amount staked, in integer minor units of the currency.
        status (BetSettlementPublicStatus): `settled` once its outcome is known, else `pending`.
        table_id (str): The table's id, as a supervisor opened it (`POST /tables`), e.g. `T01`.
    """

    bet_id: UUID
    bet_type: str
    currency: str
    fraction_kept: None | str
    odds: None | str
    outcome: None | str
    placed_at: datetime.datetime
    player_id: str
    returned: int | None
    reversed_: bool
    reversed_at: datetime.datetime | None
    round_id: str
    settled_at: datetime.datetime | None
    slip_id: UUID
    stake: int
    status: BetSettlementPublicStatus
    table_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bet_id = str(self.bet_id)

        bet_type = self.bet_type

        currency = self.currency

        fraction_kept: None | str
        fraction_kept = self.fraction_kept

        odds: None | str
        odds = self.odds

        outcome: None | str
        outcome = self.outcome

        placed_at = self.placed_at.isoformat()

        player_id = self.player_id

        returned: int | None
        returned = self.returned

        reversed_ = self.reversed_

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
                "fraction_kept": fraction_kept,
                "odds": odds,
                "outcome": outcome,
                "placed_at": placed_at,
                "player_id": player_id,
                "returned": returned,
                "reversed": reversed_,
                "reversed_at": reversed_at,
                "round_id": round_id,
                "settled_at": settled_at,
                "slip_id": slip_id,
                "stake": stake,
                "status": status,
                "table_id": table_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        bet_id = UUID(d.pop("bet_id"))

        bet_type = d.pop("bet_type")

        currency = d.pop("currency")

        def _parse_fraction_kept(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        fraction_kept = _parse_fraction_kept(d.pop("fraction_kept"))

        def _parse_odds(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        odds = _parse_odds(d.pop("odds"))

        def _parse_outcome(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        outcome = _parse_outcome(d.pop("outcome"))

        placed_at = datetime.datetime.fromisoformat(d.pop("placed_at"))

        player_id = d.pop("player_id")

        def _parse_returned(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        returned = _parse_returned(d.pop("returned"))

        reversed_ = d.pop("reversed")

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

        slip_id = UUID(d.pop("slip_id"))

        stake = d.pop("stake")

        status = BetSettlementPublicStatus(d.pop("status"))

        table_id = d.pop("table_id")

        bet_settlement_public = cls(
            bet_id=bet_id,
            bet_type=bet_type,
            currency=currency,
            fraction_kept=fraction_kept,
            odds=odds,
            outcome=outcome,
            placed_at=placed_at,
            player_id=player_id,
            returned=returned,
            reversed_=reversed_,
            reversed_at=reversed_at,
            round_id=round_id,
            settled_at=settled_at,
            slip_id=slip_id,
            stake=stake,
            status=status,
            table_id=table_id,
        )

        bet_settlement_public.additional_properties = d
        return bet_settlement_public

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
