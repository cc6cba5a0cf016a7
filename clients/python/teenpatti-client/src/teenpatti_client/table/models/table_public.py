from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.config_view import ConfigView
    from ..models.pending_change_view import PendingChangeView
    from ..models.result_void_view import ResultVoidView
    from ..models.round_view import RoundView
    from ..models.video_lost_view import VideoLostView


T = TypeVar("T", bound="TablePublic")


@_attrs_define
class TablePublic:
    """A table's state: `GET /tables/{id}` and the answer to every command.

    Attributes:
        closed_reason (None | str): Why the table was closed; null while open.
        config (ConfigView | None): The configuration in force (name, timings, limits, pay table); null before the table
            was
            opened.
        pending_change (None | PendingChangeView): A change of the pay table or limits waiting for a second supervisor;
            null when none.
        phase (str): `unknown`, `open` (no round yet), or the current or last round's: `betting`, `dealing`,
            `closed`, `cancelled`.
        result_voids (list[ResultVoidView]): Voids of ended rounds' results, each waiting for a second supervisor.
        round_ (None | RoundView): The current or last round; null before the first.
        rounds_held (list[str]): Why no round opens: each service a round needs that is not ready (empty when none).
        rounds_held_since (None | str): Since when rounds are held (ISO 8601, UTC); null when they are not.
        status (str): `unknown` (never opened), `open` or `closed`.
        table_id (str): The table's id, as a supervisor opened it (`POST /tables`), e.g. `T01`.
        version (int): The table's stream version: how many events it has recorded; the table feed's position.
        video_lost (None | VideoLostView): The studio reported the table's video lost: no round opens until it is
            restored; null when
            the video is fine.
    """

    closed_reason: None | str
    config: ConfigView | None
    pending_change: None | PendingChangeView
    phase: str
    result_voids: list[ResultVoidView]
    round_: None | RoundView
    rounds_held: list[str]
    rounds_held_since: None | str
    status: str
    table_id: str
    version: int
    video_lost: None | VideoLostView
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.config_view import ConfigView
        from ..models.pending_change_view import PendingChangeView
        from ..models.round_view import RoundView
        from ..models.video_lost_view import VideoLostView

        closed_reason: None | str
        closed_reason = self.closed_reason

        config: dict[str, Any] | None
        if isinstance(self.config, ConfigView):
            config = self.config.to_dict()
        else:
            config = self.config

        pending_change: dict[str, Any] | None
        if isinstance(self.pending_change, PendingChangeView):
            pending_change = self.pending_change.to_dict()
        else:
            pending_change = self.pending_change

        phase = self.phase

        result_voids = []
        for result_voids_item_data in self.result_voids:
            result_voids_item = result_voids_item_data.to_dict()
            result_voids.append(result_voids_item)

        round_: dict[str, Any] | None
        if isinstance(self.round_, RoundView):
            round_ = self.round_.to_dict()
        else:
            round_ = self.round_

        rounds_held = self.rounds_held

        rounds_held_since: None | str
        rounds_held_since = self.rounds_held_since

        status = self.status

        table_id = self.table_id

        version = self.version

        video_lost: dict[str, Any] | None
        if isinstance(self.video_lost, VideoLostView):
            video_lost = self.video_lost.to_dict()
        else:
            video_lost = self.video_lost

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "closed_reason": closed_reason,
                "config": config,
                "pending_change": pending_change,
                "phase": phase,
                "result_voids": result_voids,
                "round": round_,
                "rounds_held": rounds_held,
                "rounds_held_since": rounds_held_since,
                "status": status,
                "table_id": table_id,
                "version": version,
                "video_lost": video_lost,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.config_view import ConfigView
        from ..models.pending_change_view import PendingChangeView
        from ..models.result_void_view import ResultVoidView
        from ..models.round_view import RoundView
        from ..models.video_lost_view import VideoLostView

        d = dict(src_dict)

        def _parse_closed_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        closed_reason = _parse_closed_reason(d.pop("closed_reason"))

        def _parse_config(data: object) -> ConfigView | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                config_type_0 = ConfigView.from_dict(data)

                return config_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ConfigView | None, data)

        config = _parse_config(d.pop("config"))

        def _parse_pending_change(data: object) -> None | PendingChangeView:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                pending_change_type_0 = PendingChangeView.from_dict(data)

                return pending_change_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PendingChangeView, data)

        pending_change = _parse_pending_change(d.pop("pending_change"))

        phase = d.pop("phase")

        result_voids = []
        _result_voids = d.pop("result_voids")
        for result_voids_item_data in _result_voids:
            result_voids_item = ResultVoidView.from_dict(result_voids_item_data)

            result_voids.append(result_voids_item)

        def _parse_round_(data: object) -> None | RoundView:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                round_type_0 = RoundView.from_dict(data)

                return round_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RoundView, data)

        round_ = _parse_round_(d.pop("round"))

        rounds_held = cast(list[str], d.pop("rounds_held"))

        def _parse_rounds_held_since(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        rounds_held_since = _parse_rounds_held_since(d.pop("rounds_held_since"))

        status = d.pop("status")

        table_id = d.pop("table_id")

        version = d.pop("version")

        def _parse_video_lost(data: object) -> None | VideoLostView:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                video_lost_type_0 = VideoLostView.from_dict(data)

                return video_lost_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | VideoLostView, data)

        video_lost = _parse_video_lost(d.pop("video_lost"))

        table_public = cls(
            closed_reason=closed_reason,
            config=config,
            pending_change=pending_change,
            phase=phase,
            result_voids=result_voids,
            round_=round_,
            rounds_held=rounds_held,
            rounds_held_since=rounds_held_since,
            status=status,
            table_id=table_id,
            version=version,
            video_lost=video_lost,
        )

        table_public.additional_properties = d
        return table_public

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
