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
        currency (str):
        bets (int):
        stakes (int):
        returns (int):
        ggr (int):
        refunded_bets (int):
        refunded (int):
        corrections (DailyCorrectionsPublic | None | Unset):
    """

    currency: str
    bets: int
    stakes: int
    returns: int
    ggr: int
    refunded_bets: int
    refunded: int
    corrections: DailyCorrectionsPublic | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.daily_corrections_public import DailyCorrectionsPublic

        currency = self.currency

        bets = self.bets

        stakes = self.stakes

        returns = self.returns

        ggr = self.ggr

        refunded_bets = self.refunded_bets

        refunded = self.refunded

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
                "currency": currency,
                "bets": bets,
                "stakes": stakes,
                "returns": returns,
                "ggr": ggr,
                "refunded_bets": refunded_bets,
                "refunded": refunded,
            }
        )
        if corrections is not UNSET:
            field_dict["corrections"] = corrections

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.daily_corrections_public import DailyCorrectionsPublic

        d = dict(src_dict)
        currency = d.pop("currency")

        bets = d.pop("bets")

        stakes = d.pop("stakes")

        returns = d.pop("returns")

        ggr = d.pop("ggr")

        refunded_bets = d.pop("refunded_bets")

        refunded = d.pop("refunded")

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
            currency=currency,
            bets=bets,
            stakes=stakes,
            returns=returns,
            ggr=ggr,
            refunded_bets=refunded_bets,
            refunded=refunded,
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
