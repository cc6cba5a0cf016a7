from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.bet_par_view import BetParView
    from ..models.par_sheet_public_paytable import ParSheetPublicPaytable


T = TypeVar("T", bound="ParSheetPublic")


@_attrs_define
class ParSheetPublic:
    """The table's current pay table and, per bet type, its exact RTP and every paying
    outcome with its exact probability (the engine's PAR sheet; decimals are strings
    computed from the fractions).

        Attributes:
            bets (list[BetParView]): Per bet type, its exact RTP and every paying outcome with its exact probability.
            paytable (ParSheetPublicPaytable): The pay table, in the engine's mapping form (docs/rules-engine.md): per bet
                type, its winnings per unit staked as a decimal string (e.g. `"player_a": "0.95"`), and per hand for
                `pair_plus_a`, `pair_plus_b` and `six_card_bonus`.
            table_id (str): The table's id, as a supervisor opened it (`POST /tables`), e.g. `T01`.
    """

    bets: list[BetParView]
    paytable: ParSheetPublicPaytable
    table_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bets = []
        for bets_item_data in self.bets:
            bets_item = bets_item_data.to_dict()
            bets.append(bets_item)

        paytable = self.paytable.to_dict()

        table_id = self.table_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bets": bets,
                "paytable": paytable,
                "table_id": table_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.bet_par_view import BetParView
        from ..models.par_sheet_public_paytable import ParSheetPublicPaytable

        d = dict(src_dict)
        bets = []
        _bets = d.pop("bets")
        for bets_item_data in _bets:
            bets_item = BetParView.from_dict(bets_item_data)

            bets.append(bets_item)

        paytable = ParSheetPublicPaytable.from_dict(d.pop("paytable"))

        table_id = d.pop("table_id")

        par_sheet_public = cls(
            bets=bets,
            paytable=paytable,
            table_id=table_id,
        )

        par_sheet_public.additional_properties = d
        return par_sheet_public

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
