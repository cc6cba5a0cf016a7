from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.daily_corrections_public import DailyCorrectionsPublic


T = TypeVar("T", bound="DailyCurrencyPublic")


@_attrs_define
class DailyCurrencyPublic:
    """
    Attributes:
        bets (int): How many bets of rounds with a result were settled that day.
        currency (str): An ISO 4217 code of the platform's currency table (e.g. `INR`): every amount beside it is in
            integer minor units of it (paise for INR, cents for USD).
        ggr (int): Gross gaming revenue: `stakes` - `returns`, in integer minor units.
        refunded (int): Their stakes, given back, in integer minor units.
        refunded_bets (int): How many bets of void rounds were refunded that day.
        returns (int): What they returned, stakes included, in integer minor units.
        stakes (int): Their stakes, in integer minor units.
        corrections (DailyCorrectionsPublic | None | Unset): The corrections made that day of rounds voided after their
            result, whatever day they were
            played; null on a day with none.
    """

    bets: int
    currency: str
    ggr: int
    refunded: int
    refunded_bets: int
    returns: int
    stakes: int
    corrections: DailyCorrectionsPublic | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.daily_corrections_public import DailyCorrectionsPublic

        bets = self.bets

        currency = self.currency

        ggr = self.ggr

        refunded = self.refunded

        refunded_bets = self.refunded_bets

        returns = self.returns

        stakes = self.stakes

        corrections: dict[str, Any] | None | Unset
        if isinstance(self.corrections, Unset):
            corrections = UNSET
        elif isinstance(self.corrections, DailyCorrectionsPublic):
            corrections = self.corrections.to_dict()
        else:
            corrections = self.corrections

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bets": bets,
                "currency": currency,
                "ggr": ggr,
                "refunded": refunded,
                "refunded_bets": refunded_bets,
                "returns": returns,
                "stakes": stakes,
            }
        )
        if corrections is not UNSET:
            field_dict["corrections"] = corrections

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.daily_corrections_public import DailyCorrectionsPublic

        d = dict(src_dict)
        bets = d.pop("bets")

        currency = d.pop("currency")

        ggr = d.pop("ggr")

        refunded = d.pop("refunded")

        refunded_bets = d.pop("refunded_bets")

        returns = d.pop("returns")

        stakes = d.pop("stakes")

        def _parse_corrections(data: object) -> DailyCorrectionsPublic | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                corrections_type_0 = DailyCorrectionsPublic.from_dict(data)

                return corrections_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DailyCorrectionsPublic | None | Unset, data)

        corrections = _parse_corrections(d.pop("corrections", UNSET))

        daily_currency_public = cls(
            bets=bets,
            currency=currency,
            ggr=ggr,
            refunded=refunded,
            refunded_bets=refunded_bets,
            returns=returns,
            stakes=stakes,
            corrections=corrections,
        )

        daily_currency_public.additional_properties = d
        return daily_currency_public

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
