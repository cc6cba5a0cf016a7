"""The table's state, built from its event stream: its configuration and the terms (limits
and pay table) a second supervisor approved for it, the round in play, the voids of ended
rounds waiting for a second supervisor, and what stops new rounds (the studio's video
reported lost, a service a round needs not ready).

`evolve(state, event, at)` folds one stored event (with the time it was recorded) into the
state; `fold` does the same for a run of events, cheaply enough for a full replay.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import MISSING, dataclass, field
from dataclasses import fields as dataclass_fields
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, TypeVar
from uuid import UUID

from teenpatti.events import Event
from teenpatti.events.catalog import (
    BettingClosed,
    CardDealt,
    CardMarkedWrong,
    CardRefused,
    CardsWithdrawn,
    ConfigChangeProposed,
    ConfigChangeRejected,
    DeckReplaced,
    Limits,
    ResultVoidRejected,
    ResultVoidRequested,
    RoundCancelled,
    RoundClosed,
    RoundOpened,
    RoundPaused,
    RoundResumed,
    RoundsHeld,
    RoundsReleased,
    RoundVoided,
    TableClosed,
    TableOpened,
    VideoLost,
    VideoRestored,
    VoidRequested,
)

SYSTEM_ACTOR = "system"
# \Z, not $: with `re`, $ also matches before a trailing newline ("T1\n" is not an id)
TABLE_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}\Z")


# ------------------------------------------------------------------------------ ids
def stream_id_for(table_id: str) -> str:
    return f"table-{table_id}"


def unknown_table_stream_id(table_id: str) -> str:
    """Where verdicts on scans for a table that was never opened are recorded."""
    return f"unknown-table-{table_id}"


def round_id_for(table_id: str, number: int) -> str:
    return f"{table_id}-{number:06d}"


# ------------------------------------------------------------------------------ state
class TableStatus(StrEnum):
    UNKNOWN = "unknown"
    OPEN = "open"
    CLOSED = "closed"


class RoundPhase(StrEnum):
    BETTING = "betting"
    DEALING = "dealing"
    CLOSED = "closed"
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class TableConfig:
    name: str
    betting_seconds: float
    result_pause_seconds: float
    limits: Limits
    paytable: dict[str, Any]


def terms_of(limits: Limits, paytable: Mapping[str, Any]) -> str:
    """What four eyes approve of a configuration: its limits and pay table, as one digest
    (the name and the timings move no money; docs/decisions/0086)."""
    canonical = json.dumps(
        {
            "limits": {
                currency: {bet: [limit.min, limit.max] for bet, limit in per_bet.items()}
                for currency, per_bet in limits.items()
            },
            "paytable": paytable,
        },
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True)
class VideoFault:
    """The studio reported the table's video or stream lost."""

    reported_by: str
    reason: str
    since: datetime


@dataclass(frozen=True)
class PendingChange:
    """A pay table or limits change waiting for a second supervisor."""

    change_id: UUID
    config: TableConfig
    proposed_by: str
    proposed_at: datetime
    rtp: dict[str, str]  # bet type -> exact RTP, "p/q"


@dataclass(frozen=True)
class ResultVoidRequest:
    """A supervisor's request to void a round after its result, waiting for another's."""

    requested_by: str
    reason: str
    requested_at: datetime


@dataclass(frozen=True)
class RoundResult:
    cards: tuple[str, ...]
    player_a_hand: str
    player_b_hand: str
    winner: str
    six_card_bonus_hand: str | None


@dataclass(frozen=True)
class Round:
    round_id: str
    number: int
    phase: RoundPhase
    opened_at: datetime
    limits: Limits
    paytable: dict[str, Any]
    # None while paused during betting: the clock is stopped, `betting_remaining` holds it
    betting_closes_at: datetime | None
    betting_remaining: timedelta | None = None
    paused: bool = False
    pause_reason: str | None = None
    paused_by: str | None = None
    paused_at: datetime | None = None
    cards: tuple[tuple[str, str], ...] = ()  # (position, card) in dealing order
    scan_ids: frozenset[UUID] = frozenset()
    first_card_at: datetime | None = None
    ended_at: datetime | None = None
    result: RoundResult | None = None
    cancelled_by: str | None = None
    cancel_reason: str | None = None
    # a card read while betting was open, not yet replaced: the round may not resume
    exposed_at: datetime | None = None
    exposed_scans: tuple[UUID, ...] = ()
    # a started round's void asked for by one supervisor, waiting for another's
    void_requested_by: str | None = None
    void_reason: str | None = None
    void_requested_at: datetime | None = None
    # a dealt card a supervisor marked wrong: the round is paused until another resumes it
    marked_wrong: str | None = None  # its position
    marked_wrong_by: str | None = None
    marked_wrong_reason: str | None = None
    marked_wrong_at: datetime | None = None
    # dealing: since when the round waits for its next card (betting closed, a card, a resume)
    waiting_since: datetime | None = None

    @property
    def exposed(self) -> bool:
        return self.exposed_at is not None

    @property
    def in_play(self) -> bool:
        return self.phase in (RoundPhase.BETTING, RoundPhase.DEALING)

    @property
    def started(self) -> bool:
        """Rules: a round has started once its first card is dealt."""
        return bool(self.cards)

    @property
    def dealt_cards(self) -> tuple[str, ...]:
        return tuple(card for _, card in self.cards)


@dataclass(frozen=True)
class TableState:
    table_id: str
    version: int = 0
    status: TableStatus = TableStatus.UNKNOWN
    config: TableConfig | None = None
    round: Round | None = None
    closed_reason: str | None = None
    pending_change: PendingChange | None = None
    # round id -> the request to void that ended round, until it is voided or rejected
    result_voids: Mapping[str, ResultVoidRequest] = field(default_factory=dict)
    # `terms_of` each configuration a second supervisor approved for this table, sorted
    approved_terms: tuple[str, ...] = ()
    # no new round opens while the video is lost, or while rounds are held (`held` says why)
    video_lost: VideoFault | None = None
    held: tuple[str, ...] = ()
    held_since: datetime | None = None

    @property
    def phase(self) -> str:
        """`unknown`, `open` (no round yet), or the current/last round's phase."""
        if self.status is TableStatus.UNKNOWN:
            return "unknown"
        return "open" if self.round is None else self.round.phase.value

    @property
    def round_in_play(self) -> Round | None:
        return self.round if self.round is not None and self.round.in_play else None


# ------------------------------------------------------------------------------ evolve
# Each event's effect is written once, as the fields it changes: of the table
# (`_TABLE_CHANGES`) or of the round in play (`_ROUND_CHANGES`); any other event (CardRefused
# and anything informational) only moves the version. `evolve` applies one event to copies;
# `fold` applies a run of them to one private copy of the state and of each round, which is
# what makes a replay cheap (a copy per round instead of two per event).
Changes = dict[str, Any]


def evolve(state: TableState, event: Event, at: datetime) -> TableState:
    """The state after `event`, recorded at `at` (the next stream version)."""
    return fold(state, ((event, at),))


def evolve_all(state: TableState, events: Iterable[Event], at: datetime) -> TableState:
    return fold(state, ((event, at) for event in events))


def fold(state: TableState, events: Iterable[tuple[Event, datetime]]) -> TableState:
    """The state after each `(event, recorded at)` in turn: the same as `evolve` one event
    at a time. The copies it makes are its own until it returns, so it changes them in place
    (their `__dict__`: the classes are frozen to everyone else)."""
    table = _replace(state)
    fields = table.__dict__
    own_round: Round | None = None  # the copy of the round this fold may change in place
    for event, at in events:
        fields["version"] += 1
        kind = type(event)
        round_change = _ROUND_CHANGES.get(kind)
        if round_change is not None:
            r = table.round
            if r is None:  # a stream never holds a round event before RoundOpened
                continue
            if r is not own_round:
                r = own_round = _replace(r)
                fields["round"] = r
            r.__dict__.update(round_change(r, event, at))
        elif (table_change := _TABLE_CHANGES.get(kind)) is not None:
            fields.update(table_change(table, event, at))
    return table


_T = TypeVar("_T")
# every field of a Round in order, the required ones unset: what `_new_round` starts from
_ROUND_FIELDS: dict[str, Any] = {
    f.name: None if f.default is MISSING else f.default for f in dataclass_fields(Round)
}
_ROUND_REQUIRED = frozenset(f.name for f in dataclass_fields(Round) if f.default is MISSING)


def _new_round(**values: Any) -> Round:
    """`Round(**values)` without the frozen dataclass's `__init__`, which sets each of its
    thirty fields through `object.__setattr__`: a replay opens a round every nine events."""
    assert values.keys() >= _ROUND_REQUIRED, f"missing {_ROUND_REQUIRED - values.keys()}"
    assert values.keys() <= _ROUND_FIELDS.keys(), f"no such fields: {set(values)}"
    opened = object.__new__(Round)
    opened.__dict__.update(_ROUND_FIELDS, **values)
    return opened


def _replace(instance: _T, **changes: Any) -> _T:
    """`dataclasses.replace` for this module's frozen dataclasses (no `__post_init__`, no
    `init=False` fields), without its per-call field introspection and `__init__`: a copy of
    the instance's `__dict__` with the changes."""
    assert changes.keys() <= instance.__dict__.keys(), f"no such fields: {set(changes)}"
    copy = object.__new__(type(instance))
    copy.__dict__.update(instance.__dict__)
    copy.__dict__.update(changes)
    return copy


def _table_opened(state: TableState, event: TableOpened, at: datetime) -> Changes:
    config = TableConfig(
        name=event.name,
        betting_seconds=event.betting_seconds,
        result_pause_seconds=event.result_pause_seconds,
        limits=event.limits,
        paytable=dict(event.paytable),
    )
    approved = state.approved_terms
    if event.approved_by is not None and event.approved_by != event.actor:
        terms = terms_of(event.limits, event.paytable)
        approved = tuple(sorted({*approved, terms}))
    return {
        "status": TableStatus.OPEN,
        "config": config,
        "closed_reason": None,
        # an approval settles the change; a rename or retime by one supervisor leaves it waiting
        "pending_change": None if event.approved_by is not None else state.pending_change,
        "approved_terms": approved,
    }


def _video_lost(state: TableState, event: VideoLost, at: datetime) -> Changes:
    return {"video_lost": VideoFault(reported_by=event.actor, reason=event.reason, since=at)}


def _video_restored(state: TableState, event: VideoRestored, at: datetime) -> Changes:
    return {"video_lost": None}


def _rounds_held(state: TableState, event: RoundsHeld, at: datetime) -> Changes:
    return {"held": tuple(event.reasons), "held_since": state.held_since or at}


def _rounds_released(state: TableState, event: RoundsReleased, at: datetime) -> Changes:
    return {"held": (), "held_since": None}


def _change_proposed(state: TableState, event: ConfigChangeProposed, at: datetime) -> Changes:
    config = TableConfig(
        name=event.name,
        betting_seconds=event.betting_seconds,
        result_pause_seconds=event.result_pause_seconds,
        limits=event.limits,
        paytable=dict(event.paytable),
    )
    pending = PendingChange(
        change_id=event.change_id,
        config=config,
        proposed_by=event.actor,
        proposed_at=at,
        rtp={str(bet): rtp for bet, rtp in event.rtp.items()},
    )
    return {"pending_change": pending}


def _change_rejected(state: TableState, event: ConfigChangeRejected, at: datetime) -> Changes:
    return {"pending_change": None}


def _result_void_requested(state: TableState, event: ResultVoidRequested, at: datetime) -> Changes:
    request = ResultVoidRequest(requested_by=event.actor, reason=event.reason, requested_at=at)
    return {"result_voids": {**state.result_voids, event.round_id: request}}


def _result_void_settled(
    state: TableState, event: ResultVoidRejected | RoundVoided, at: datetime
) -> Changes:
    if event.round_id not in state.result_voids:
        return {}
    rest = {k: v for k, v in state.result_voids.items() if k != event.round_id}
    return {"result_voids": rest}


def _table_closed(state: TableState, event: TableClosed, at: datetime) -> Changes:
    return {"status": TableStatus.CLOSED, "closed_reason": event.reason}


def _round_opened(state: TableState, event: RoundOpened, at: datetime) -> Changes:
    opened = _new_round(
        round_id=event.round_id,
        number=event.number,
        phase=RoundPhase.BETTING,
        opened_at=event.opened_at,
        limits=event.limits,
        paytable=dict(event.paytable),
        betting_closes_at=event.betting_closes_at,
    )
    return {"round": opened}


def _betting_closed(r: Round, event: BettingClosed, at: datetime) -> Changes:
    return {"phase": RoundPhase.DEALING, "waiting_since": at}


def _card_dealt(r: Round, event: CardDealt, at: datetime) -> Changes:
    return {
        "cards": (*r.cards, (event.position, event.card)),
        "scan_ids": r.scan_ids | {event.scan_id},
        "first_card_at": r.first_card_at or at,
        "waiting_since": at,
    }


def _card_refused(r: Round, event: CardRefused, at: datetime) -> Changes:
    # a card read before betting closed was seen: the round waits for a new deck (0058)
    if event.reason != "betting_open" or event.round_id != r.round_id:
        return {}
    return {"exposed_at": r.exposed_at or at, "exposed_scans": (*r.exposed_scans, event.scan_id)}


def _deck_replaced(r: Round, event: DeckReplaced, at: datetime) -> Changes:
    return {"exposed_at": None}


def _void_requested(r: Round, event: VoidRequested, at: datetime) -> Changes:
    return {
        "void_requested_by": event.actor,
        "void_reason": event.reason,
        "void_requested_at": at,
    }


def _card_marked_wrong(r: Round, event: CardMarkedWrong, at: datetime) -> Changes:
    return {
        "marked_wrong": event.position,
        "marked_wrong_by": event.actor,
        "marked_wrong_reason": event.reason,
        "marked_wrong_at": at,
    }


def _cards_withdrawn(r: Round, event: CardsWithdrawn, at: datetime) -> Changes:
    taken_back = set(event.positions)
    return {"cards": tuple(c for c in r.cards if c[0] not in taken_back)}


def _round_paused(r: Round, event: RoundPaused, at: datetime) -> Changes:
    remaining = r.betting_remaining
    if r.phase is RoundPhase.BETTING and r.betting_closes_at is not None:
        # Rules: pausing during betting stops the betting clock; keep what was left of it.
        remaining = max(r.betting_closes_at - at, timedelta(0))
    return {
        "paused": True,
        "pause_reason": event.reason,
        "paused_by": event.actor,
        "paused_at": at,
        "betting_remaining": remaining,
        "betting_closes_at": None if r.phase is RoundPhase.BETTING else r.betting_closes_at,
    }


def _round_resumed(r: Round, event: RoundResumed, at: datetime) -> Changes:
    # a resume also withdraws a void request, and lets a card marked wrong stand
    resumed: Changes = {
        "paused": False,
        "pause_reason": None,
        "paused_by": None,
        "paused_at": None,
        "void_requested_by": None,
        "void_reason": None,
        "void_requested_at": None,
        "marked_wrong": None,
        "marked_wrong_by": None,
        "marked_wrong_reason": None,
        "marked_wrong_at": None,
    }
    if event.betting_closes_at is not None:
        resumed |= {"betting_closes_at": event.betting_closes_at, "betting_remaining": None}
    if r.phase is RoundPhase.DEALING:
        resumed["waiting_since"] = at  # the dealer gets the whole stall time again
    return resumed


def _round_closed(r: Round, event: RoundClosed, at: datetime) -> Changes:
    result = RoundResult(
        cards=tuple(event.cards),
        player_a_hand=event.player_a_hand,
        player_b_hand=event.player_b_hand,
        winner=event.winner,
        six_card_bonus_hand=event.six_card_bonus_hand,
    )
    return {"phase": RoundPhase.CLOSED, "ended_at": at, "result": result, "paused": False}


def _round_cancelled(r: Round, event: RoundCancelled, at: datetime) -> Changes:
    return {
        "phase": RoundPhase.CANCELLED,
        "ended_at": at,
        "paused": False,
        "cancelled_by": event.actor,
        "cancel_reason": event.reason,
    }


_TABLE_CHANGES: dict[type[Event], Callable[[TableState, Any, datetime], Changes]] = {
    TableOpened: _table_opened,
    TableClosed: _table_closed,
    RoundOpened: _round_opened,
    ConfigChangeProposed: _change_proposed,
    ConfigChangeRejected: _change_rejected,
    ResultVoidRequested: _result_void_requested,
    ResultVoidRejected: _result_void_settled,
    RoundVoided: _result_void_settled,
    VideoLost: _video_lost,
    VideoRestored: _video_restored,
    RoundsHeld: _rounds_held,
    RoundsReleased: _rounds_released,
}
_ROUND_CHANGES: dict[type[Event], Callable[[Round, Any, datetime], Changes]] = {
    BettingClosed: _betting_closed,
    CardDealt: _card_dealt,
    CardRefused: _card_refused,
    DeckReplaced: _deck_replaced,
    VoidRequested: _void_requested,
    CardMarkedWrong: _card_marked_wrong,
    CardsWithdrawn: _cards_withdrawn,
    RoundPaused: _round_paused,
    RoundResumed: _round_resumed,
    RoundClosed: _round_closed,
    RoundCancelled: _round_cancelled,
}
