from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.round_result_public import RoundResultPublic


T = TypeVar("T", bound="ResultPage")


@_attrs_define
class ResultPage:
    """The table's last rounds, newest first; `next` (the last round's id) is the `before`
    of the page of older ones, None when there are none.

        Attributes:
            next_ (None | str): The `before` of the page of older rounds (the last round's id here); null when there are
                none.
            results (list[RoundResultPublic]): The table's last rounds, newest first.
            table_id (str): The table's id, as a supervisor opened it (`POST /tables`), e.g. `T01`.
    """

    next_: None | str
    results: list[RoundResultPublic]
    table_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        next_: None | str
        next_ = self.next_

        results = []
        for results_item_data in self.results:
            results_item = results_item_data.to_dict()
            results.append(results_item)

        table_id = self.table_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "next": next_,
                "results": results,
                "table_id": table_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.round_result_public import RoundResultPublic

        d = dict(src_dict)

        def _parse_next_(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_ = _parse_next_(d.pop("next"))

        results = []
        _results = d.pop("results")
        for results_item_data in _results:
            results_item = RoundResultPublic.from_dict(results_item_data)

            results.append(results_item)

        table_id = d.pop("table_id")

        result_page = cls(
            next_=next_,
            results=results,
            table_id=table_id,
        )

        result_page.additional_properties = d
        return result_page

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
