"""The table state as JSON: what `GET /tables/{id}` answers, Redis `table:<id>` holds and
the `tables` projection keeps of the configuration. The shapes are TypedDicts, so the HTTP
edge documents them (`entrypoints.TablePublic`) exactly as they are sent."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import ConfigDict, with_config

# pydantic reads a TypedDict's fields only from typing_extensions' before Python 3.12
from typing_extensions import TypedDict

from teenpatti.events.catalog import Limits

from ..domain.state import PendingChange, ResultVoidRequest, Round, TableConfig, TableState


@with_config(ConfigDict(use_attribute_docstrings=True))
class StakeLimitView(TypedDict):
    min: int
    """The smallest stake taken, in integer minor units of the currency."""
    max: int
    """The largest stake taken, in integer minor units of the currency."""


class ConfigView(TypedDict):
    name: str
    betting_seconds: float
    result_pause_seconds: float
    limits: dict[str, dict[str, StakeLimitView]]  # currency -> bet type -> limit
    paytable: dict[str, Any]


@with_config(ConfigDict(use_attribute_docstrings=True))
class PendingChangeView(TypedDict):
    """A pay table or limits change waiting for a second supervisor."""

    change_id: str
    proposed_by: str
    proposed_at: str
    config: ConfigView
    """The configuration proposed."""
    rtp: dict[str, str]
    """Per bet type, the exact RTP (`p/q`) of the pay table proposed."""


@with_config(ConfigDict(use_attribute_docstrings=True))
class ResultVoidView(TypedDict):
    """A request to void an ended round after its result, waiting for a second supervisor."""

    round_id: str
    requested_by: str
    reason: str
    """Why the void was asked for, in the supervisor's words."""
    requested_at: str


@with_config(ConfigDict(use_attribute_docstrings=True))
class VideoLostView(TypedDict):
    """The studio reported the table's video or stream lost: no round opens until restored."""

    reported_by: str
    """Who reported it (its key's holder)."""
    reason: str
    """What the studio reported."""
    since: str
    """When it was reported (ISO 8601, UTC)."""


class DealtCardView(TypedDict):
    position: str
    card: str


class ResultView(TypedDict):
    cards: list[str]
    player_a_hand: str
    player_b_hand: str
    winner: str
    six_card_bonus_hand: str | None


@with_config(ConfigDict(use_attribute_docstrings=True))
class RoundView(TypedDict):
    round_id: str
    number: int
    phase: str
    """`betting`, `dealing`, `closed` or `cancelled`."""
    opened_at: str
    betting_closes_at: str | None
    """When betting closes (ISO 8601, UTC); null while paused during betting."""
    betting_remaining_seconds: float | None
    """The betting time left when paused during betting, in seconds; null otherwise."""
    paused: bool
    """Whether the round is paused (no bet taken, no card dealt)."""
    pause_reason: str | None
    """Why it is paused; null when it is not."""
    paused_by: str | None
    """Who paused it; null when it is not paused."""
    paused_at: str | None
    """When it was paused (ISO 8601, UTC); null when it is not."""
    cards: list[DealtCardView]
    """The cards dealt so far, each with its position, in dealing order."""
    first_card_at: str | None
    """When its first card was dealt (ISO 8601, UTC); null before."""
    ended_at: str | None
    result: ResultView | None
    """Its result once the six cards are dealt; null before."""
    cancelled_by: str | None
    """Who cancelled it; null if it was not."""
    cancel_reason: str | None
    exposed: bool
    """A card was read during betting and not replaced yet (its value is never shown): the deck is
    replaced before the round goes on."""
    void_requested_by: str | None
    """A started round's void, asked by this supervisor and waiting for a second one; null when
    none."""
    card_marked_wrong: str | None
    """The position of a dealt card a supervisor marked wrong; null when none."""
    card_marked_wrong_by: str | None
    """Who marked it wrong; null when none."""


class TableView(TypedDict):
    table_id: str
    version: int
    status: str
    phase: str
    closed_reason: str | None
    config: ConfigView | None
    round: RoundView | None
    pending_change: PendingChangeView | None
    result_voids: list[ResultVoidView]  # oldest round first
    video_lost: VideoLostView | None
    # why the table opens no new round: each service a round needs that is not ready
    rounds_held: list[str]
    rounds_held_since: str | None


def state_view(state: TableState) -> TableView:
    config = state.config
    return {
        "table_id": state.table_id,
        "version": state.version,
        "status": state.status.value,
        "phase": state.phase,
        "closed_reason": state.closed_reason,
        "config": None if config is None else config_view(config),
        "round": None if state.round is None else _round_view(state.round),
        "pending_change": None
        if state.pending_change is None
        else _pending_view(state.pending_change),
        "result_voids": [
            _result_void_view(round_id, request)
            for round_id, request in sorted(state.result_voids.items())
        ],
        "video_lost": None
        if state.video_lost is None
        else {
            "reported_by": state.video_lost.reported_by,
            "reason": state.video_lost.reason,
            "since": state.video_lost.since.isoformat(),
        },
        "rounds_held": list(state.held),
        "rounds_held_since": _iso(state.held_since),
    }


def _result_void_view(round_id: str, request: ResultVoidRequest) -> ResultVoidView:
    return {
        "round_id": round_id,
        "requested_by": request.requested_by,
        "reason": request.reason,
        "requested_at": request.requested_at.isoformat(),
    }


def _pending_view(pending: PendingChange) -> PendingChangeView:
    return {
        "change_id": str(pending.change_id),
        "proposed_by": pending.proposed_by,
        "proposed_at": pending.proposed_at.isoformat(),
        "config": config_view(pending.config),
        "rtp": dict(pending.rtp),
    }


def config_view(config: TableConfig) -> ConfigView:
    return {
        "name": config.name,
        "betting_seconds": config.betting_seconds,
        "result_pause_seconds": config.result_pause_seconds,
        "limits": _limits_view(config.limits),
        "paytable": config.paytable,
    }


def _limits_view(limits: Limits) -> dict[str, dict[str, StakeLimitView]]:
    return {
        currency: {bet: {"min": limit.min, "max": limit.max} for bet, limit in per_bet.items()}
        for currency, per_bet in limits.items()
    }


def _round_view(r: Round) -> RoundView:
    return {
        "round_id": r.round_id,
        "number": r.number,
        "phase": r.phase.value,
        "opened_at": r.opened_at.isoformat(),
        "betting_closes_at": _iso(r.betting_closes_at),
        "betting_remaining_seconds": None
        if r.betting_remaining is None
        else r.betting_remaining.total_seconds(),
        "paused": r.paused,
        "pause_reason": r.pause_reason,
        "paused_by": r.paused_by,
        "paused_at": _iso(r.paused_at),
        "cards": [{"position": position, "card": card} for position, card in r.cards],
        "first_card_at": _iso(r.first_card_at),
        "ended_at": _iso(r.ended_at),
        "result": None
        if r.result is None
        else {
            "cards": list(r.result.cards),
            "player_a_hand": r.result.player_a_hand,
            "player_b_hand": r.result.player_b_hand,
            "winner": r.result.winner,
            "six_card_bonus_hand": r.result.six_card_bonus_hand,
        },
        "cancelled_by": r.cancelled_by,
        "cancel_reason": r.cancel_reason,
        "exposed": r.exposed,
        "void_requested_by": r.void_requested_by,
        "card_marked_wrong": r.marked_wrong,
        "card_marked_wrong_by": r.marked_wrong_by,
    }


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()
