from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.game_public_status import GamePublicStatus
from ..models.game_public_winner_type_0 import GamePublicWinnerType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.correction_public import CorrectionPublic
    from ..models.hand_public import HandPublic
    from ..models.wager_public import WagerPublic


T = TypeVar("T", bound="GamePublic")


@_attrs_define
class GamePublic:
    """One round as the player played it, in one currency (docs/services.md, wallet).

    Attributes:
        balance_after (int | None): The player's balance once the round was paid, in integer minor units, known as
            `balance_before` is; null until then or when not known.
        balance_before (int | None): The player's balance before its first stake on the round, in integer minor units:
            the
            wallet's own for a transfer player, the operator's answer for a seamless one; null when not
            known.
        cards (list[str]): The cards dealt, in dealing order A1 B1 A2 B2 A3 B3 (A: player A's, B: player B's), each as
            rank and suit (`2`-`10`, `J`, `Q`, `K`, `A`; `S` `H` `D` `C`), e.g. `10H`; fewer while dealing or when the round
            was cancelled.
        currency (str): An ISO 4217 code of the platform's currency table (e.g. `INR`): every amount beside it is in
            integer minor units of it (paise for INR, cents for USD).
        ended_at (datetime.datetime | None): When the round ended: its result recorded, or its cancellation (ISO 8601,
            UTC).
        player_a (HandPublic | None): Player A's cards and hand; null until the result.
        player_b (HandPublic | None): Player B's cards and hand; null until the result.
        returned (int | None): What the wagers returned, in integer minor units; null until every wager is paid.
        round_id (str): The round's id: `<table id>-<number>`, the number from 1 zero-padded to six digits, e.g.
            `T01-000042`.
        six_card_bonus_hand (None | str): The best five-card hand of all six cards, for the six-card bonus bet:
            `royal_flush` down to `three_of_a_kind`; null when they make none of those (or before the result).
        staked (int): The total staked, in integer minor units of the currency.
        status (GamePublicStatus): `open`, `closed`, `cancelled` (every wager refunded) or `voided` (closed with the
            result
            shown, then voided by two supervisors).
        table_id (str): The table's id, as a supervisor opened it (`POST /tables`), e.g. `T01`.
        wagers (list[WagerPublic]): The player's bets on the round.
        winner (GamePublicWinnerType0 | None): Who won the round: `player_a`, `player_b` or `tie`; null until its
            result.
        correction (CorrectionPublic | None | Unset): Once a voided round's wagers are put right; null otherwise.
        voided_at (datetime.datetime | None | Unset): When the round was voided after its result (ISO 8601, UTC); null
            if it was not.
    """

    balance_after: int | None
    balance_before: int | None
    cards: list[str]
    currency: str
    ended_at: datetime.datetime | None
    player_a: HandPublic | None
    player_b: HandPublic | None
    returned: int | None
    round_id: str
    six_card_bonus_hand: None | str
    staked: int
    status: GamePublicStatus
    table_id: str
    wagers: list[WagerPublic]
    winner: GamePublicWinnerType0 | None
    correction: CorrectionPublic | None | Unset = UNSET
    voided_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.correction_public import CorrectionPublic
        from ..models.hand_public import HandPublic

        balance_after: int | None
        balance_after = self.balance_after

        balance_before: int | None
        balance_before = self.balance_before

        cards = self.cards

        currency = self.currency

        ended_at: None | str
        if isinstance(self.ended_at, datetime.datetime):
            ended_at = self.ended_at.isoformat()
        else:
            ended_at = self.ended_at

        player_a: dict[str, Any] | None
        if isinstance(self.player_a, HandPublic):
            player_a = self.player_a.to_dict()
        else:
            player_a = self.player_a

        player_b: dict[str, Any] | None
        if isinstance(self.player_b, HandPublic):
            player_b = self.player_b.to_dict()
        else:
            player_b = self.player_b

        returned: int | None
        returned = self.returned

        round_id = self.round_id

        six_card_bonus_hand: None | str
        six_card_bonus_hand = self.six_card_bonus_hand

        staked = self.staked

        status = self.status.value

        table_id = self.table_id

        wagers = []
        for wagers_item_data in self.wagers:
            wagers_item = wagers_item_data.to_dict()
            wagers.append(wagers_item)

        winner: None | str
        if isinstance(self.winner, GamePublicWinnerType0):
            winner = self.winner.value
        else:
            winner = self.winner

        correction: dict[str, Any] | None | Unset
        if isinstance(self.correction, Unset):
            correction = UNSET
        elif isinstance(self.correction, CorrectionPublic):
            correction = self.correction.to_dict()
        else:
            correction = self.correction

        voided_at: None | str | Unset
        if isinstance(self.voided_at, Unset):
            voided_at = UNSET
        elif isinstance(self.voided_at, datetime.datetime):
            voided_at = self.voided_at.isoformat()
        else:
            voided_at = self.voided_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "balance_after": balance_after,
                "balance_before": balance_before,
                "cards": cards,
                "currency": currency,
                "ended_at": ended_at,
                "player_a": player_a,
                "player_b": player_b,
                "returned": returned,
                "round_id": round_id,
                "six_card_bonus_hand": six_card_bonus_hand,
                "staked": staked,
                "status": status,
                "table_id": table_id,
                "wagers": wagers,
                "winner": winner,
            }
        )
        if correction is not UNSET:
            field_dict["correction"] = correction
        if voided_at is not UNSET:
            field_dict["voided_at"] = voided_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.correction_public import CorrectionPublic
        from ..models.hand_public import HandPublic
        from ..models.wager_public import WagerPublic

        d = dict(src_dict)

        def _parse_balance_after(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        balance_after = _parse_balance_after(d.pop("balance_after"))

        def _parse_balance_before(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        balance_before = _parse_balance_before(d.pop("balance_before"))

        cards = cast(list[str], d.pop("cards"))

        currency = d.pop("currency")

        def _parse_ended_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                ended_at_type_0 = datetime.datetime.fromisoformat(data)

                return ended_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        ended_at = _parse_ended_at(d.pop("ended_at"))

        def _parse_player_a(data: object) -> HandPublic | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                player_a_type_0 = HandPublic.from_dict(data)

                return player_a_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HandPublic | None, data)

        player_a = _parse_player_a(d.pop("player_a"))

        def _parse_player_b(data: object) -> HandPublic | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                player_b_type_0 = HandPublic.from_dict(data)

                return player_b_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HandPublic | None, data)

        player_b = _parse_player_b(d.pop("player_b"))

        def _parse_returned(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        returned = _parse_returned(d.pop("returned"))

        round_id = d.pop("round_id")

        def _parse_six_card_bonus_hand(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        six_card_bonus_hand = _parse_six_card_bonus_hand(d.pop("six_card_bonus_hand"))

        staked = d.pop("staked")

        status = GamePublicStatus(d.pop("status"))

        table_id = d.pop("table_id")

        wagers = []
        _wagers = d.pop("wagers")
        for wagers_item_data in _wagers:
            wagers_item = WagerPublic.from_dict(wagers_item_data)

            wagers.append(wagers_item)

        def _parse_winner(data: object) -> GamePublicWinnerType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                winner_type_0 = GamePublicWinnerType0(data)

                return winner_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GamePublicWinnerType0 | None, data)

        winner = _parse_winner(d.pop("winner"))

        def _parse_correction(data: object) -> CorrectionPublic | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                correction_type_0 = CorrectionPublic.from_dict(data)

                return correction_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CorrectionPublic | None | Unset, data)

        correction = _parse_correction(d.pop("correction", UNSET))

        def _parse_voided_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                voided_at_type_0 = datetime.datetime.fromisoformat(data)

                return voided_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        voided_at = _parse_voided_at(d.pop("voided_at", UNSET))

        game_public = cls(
            balance_after=balance_after,
            balance_before=balance_before,
            cards=cards,
            currency=currency,
            ended_at=ended_at,
            player_a=player_a,
            player_b=player_b,
            returned=returned,
            round_id=round_id,
            six_card_bonus_hand=six_card_bonus_hand,
            staked=staked,
            status=status,
            table_id=table_id,
            wagers=wagers,
            winner=winner,
            correction=correction,
            voided_at=voided_at,
        )

        game_public.additional_properties = d
        return game_public

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
