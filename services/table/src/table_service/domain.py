"""The table: its configuration and the round in play, built from its event stream.

Pure: `evolve(state, event, at)` folds one stored event (with the time it was recorded) into
the state; the `decide_*` functions return the events a command or the passing of time
produces, or raise a `TableCommandError` naming the problem. Time is always passed in.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any, Literal, TypeVar, cast, get_args
from uuid import UUID

from teenpatti import engine
from teenpatti.events import Event
from teenpatti.events.catalog import (
    DEALING_ORDER,
    BettingClosed,
    BetTypeName,
    CardDealt,
    CardRefused,
    CardScanned,
    Limits,
    RoundCancelled,
    RoundClosed,
    RoundOpened,
    RoundPaused,
    RoundResumed,
    StakeLimit,
    TableClosed,
    TableOpened,
)

SYSTEM_ACTOR = "system"
BET_TYPES: tuple[str, ...] = get_args(BetTypeName)
# \Z, not $: with `re`, $ also matches before a trailing newline ("T1\n" is not an id)
TABLE_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}\Z")
CURRENCY_PATTERN = re.compile(r"^[A-Z]{3}\Z")
MAX_SECONDS = 600.0

RefusalReason = Literal[
    "betting_open",
    "round_paused",
    "duplicate_card",
    "no_round_dealing",
    "table_closed",
    "unknown_table",
]


def stream_id_for(table_id: str) -> str:
    return f"table-{table_id}"


def unknown_table_stream_id(table_id: str) -> str:
    """Where verdicts on scans for a table that was never opened are recorded."""
    return f"unknown-table-{table_id}"


def round_id_for(table_id: str, number: int) -> str:
    return f"{table_id}-{number:06d}"


# ------------------------------------------------------------------------------ errors
class TableCommandError(Exception):
    """A command the table refuses; `code` is stable, `detail` says why."""

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.extra = extra


class UnknownTableError(TableCommandError):
    pass


class InvalidTableConfigError(TableCommandError):
    pass


class RoundConflictError(TableCommandError):
    """The command does not fit the phase the table is in (e.g. nothing to pause)."""


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


_T = TypeVar("_T")


def _replace(instance: _T, **changes: Any) -> _T:
    """`dataclasses.replace` for this module's frozen dataclasses (no `__post_init__`, no
    computed defaults), without its per-call field introspection and `__init__`: a copy of
    the instance's `__dict__` with the changes."""
    assert changes.keys() <= instance.__dict__.keys(), f"no such fields: {set(changes)}"
    copy = object.__new__(type(instance))
    copy.__dict__.update(instance.__dict__)
    copy.__dict__.update(changes)
    return copy


@dataclass(frozen=True)
class TableConfig:
    name: str
    betting_seconds: float
    result_pause_seconds: float
    limits: Limits
    paytable: dict[str, Any]


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

    @property
    def phase(self) -> str:
        """`unknown`, `open` (no round yet), or the current/last round's phase."""
        if self.status is TableStatus.UNKNOWN:
            return "unknown"
        return "open" if self.round is None else self.round.phase.value

    @property
    def round_in_play(self) -> Round | None:
        return self.round if self.round is not None and self.round.in_play else None


def needs_clock(state: TableState) -> bool:
    """Whether time alone can still change this table (so its owner runs a clock for it)."""
    return state.status is TableStatus.OPEN or state.round_in_play is not None


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


def _table_opened(state: TableState, event: TableOpened, at: datetime) -> Changes:
    config = TableConfig(
        name=event.name,
        betting_seconds=event.betting_seconds,
        result_pause_seconds=event.result_pause_seconds,
        limits=event.limits,
        paytable=dict(event.paytable),
    )
    return {"status": TableStatus.OPEN, "config": config, "closed_reason": None}


def _table_closed(state: TableState, event: TableClosed, at: datetime) -> Changes:
    return {"status": TableStatus.CLOSED, "closed_reason": event.reason}


def _round_opened(state: TableState, event: RoundOpened, at: datetime) -> Changes:
    opened = Round(
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
    return {"phase": RoundPhase.DEALING}


def _card_dealt(r: Round, event: CardDealt, at: datetime) -> Changes:
    return {
        "cards": (*r.cards, (event.position, event.card)),
        "scan_ids": r.scan_ids | {event.scan_id},
        "first_card_at": r.first_card_at or at,
    }


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
    resumed: Changes = {"paused": False, "pause_reason": None, "paused_by": None, "paused_at": None}
    if event.betting_closes_at is not None:
        resumed |= {"betting_closes_at": event.betting_closes_at, "betting_remaining": None}
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
}
_ROUND_CHANGES: dict[type[Event], Callable[[Round, Any, datetime], Changes]] = {
    BettingClosed: _betting_closed,
    CardDealt: _card_dealt,
    RoundPaused: _round_paused,
    RoundResumed: _round_resumed,
    RoundClosed: _round_closed,
    RoundCancelled: _round_cancelled,
}


# ------------------------------------------------------------------------------ opening
@dataclass(frozen=True)
class OpenTable:
    table_id: str
    name: str
    betting_seconds: float
    result_pause_seconds: float
    limits: Mapping[str, Any]
    paytable: Mapping[str, Any] | None = None


def decide_open_table(state: TableState, command: OpenTable, actor: str) -> list[Event]:
    """`TableOpened` (a new table, a reopening, or a new configuration from the next round);
    nothing when the table is already open with exactly this configuration."""
    if not TABLE_ID_PATTERN.match(command.table_id):
        raise InvalidTableConfigError(
            "invalid_table_id",
            "table_id must be 1 to 32 letters, digits, '-' or '_', starting with a letter or digit",
        )
    name = command.name.strip()
    if not name or len(name) > 100:
        raise InvalidTableConfigError("invalid_name", "name must be 1 to 100 characters")
    for label, value, low_inclusive in (
        ("betting_seconds", command.betting_seconds, False),
        ("result_pause_seconds", command.result_pause_seconds, True),
    ):
        too_low = value < 0 if low_inclusive else value <= 0
        if too_low or value > MAX_SECONDS or value != value:
            bound = ">= 0" if low_inclusive else "> 0"
            raise InvalidTableConfigError(
                "invalid_timing", f"{label} must be {bound} and at most {MAX_SECONDS:g}"
            )
    limits = validate_limits(command.limits)
    paytable = validate_paytable(command.paytable)
    config = TableConfig(
        name=name,
        betting_seconds=float(command.betting_seconds),
        result_pause_seconds=float(command.result_pause_seconds),
        limits=limits,
        paytable=paytable,
    )
    if state.status is TableStatus.OPEN and state.config == config:
        return []
    return [
        TableOpened(
            table_id=command.table_id,
            name=config.name,
            betting_seconds=config.betting_seconds,
            result_pause_seconds=config.result_pause_seconds,
            limits=limits,
            paytable=paytable,
            actor=actor,
        )
    ]


def validate_limits(raw: Mapping[str, Any]) -> Limits:
    """Stake limits per currency that price all six bet types, each min <= max."""
    if not isinstance(raw, Mapping) or not raw:
        raise InvalidTableConfigError(
            "invalid_limits", "limits must price at least one currency: {currency: {bet_type: …}}"
        )
    limits: Limits = {}
    for currency, per_bet in raw.items():
        if not isinstance(currency, str) or not CURRENCY_PATTERN.match(currency):
            raise InvalidTableConfigError(
                "invalid_currency", f"{currency!r} is not an ISO 4217 code such as 'EUR'"
            )
        if not isinstance(per_bet, Mapping):
            raise InvalidTableConfigError(
                "invalid_limits", f"limits.{currency} must be an object {{bet_type: {{min, max}}}}"
            )
        unknown = sorted(str(bet) for bet in per_bet if bet not in BET_TYPES)
        if unknown:
            raise InvalidTableConfigError(
                "unknown_bet_type",
                f"limits.{currency}: unknown bet type {', '.join(unknown)}"
                f" (bet types: {', '.join(BET_TYPES)})",
            )
        missing = [bet for bet in BET_TYPES if bet not in per_bet]
        if missing:
            raise InvalidTableConfigError(
                "bet_type_not_priced",
                f"limits.{currency} must price every bet type; missing {', '.join(missing)}",
            )
        priced: dict[BetTypeName, StakeLimit] = {}
        for bet in BET_TYPES:
            priced[cast(BetTypeName, bet)] = _stake_limit(f"limits.{currency}.{bet}", per_bet[bet])
        limits[currency] = priced
    return limits


def _stake_limit(where: str, raw: object) -> StakeLimit:
    if not isinstance(raw, Mapping) or set(raw) != {"min", "max"}:
        raise InvalidTableConfigError(
            "invalid_stake_limit", f"{where} must be an object with exactly min and max"
        )
    low, high = raw["min"], raw["max"]
    for label, value in (("min", low), ("max", high)):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise InvalidTableConfigError(
                "invalid_stake_limit",
                f"{where}.{label} must be a positive whole number of minor units, not {value!r}",
            )
    if low > high:
        raise InvalidTableConfigError("min_above_max", f"{where}: min {low} is above max {high}")
    return StakeLimit(min=low, max=high)


def validate_paytable(raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """The engine's mapping form of the pay table (the published one when none is given)."""
    if raw is None:
        return engine.pay_table_to_mapping(engine.PUBLISHED_PAY_TABLE)
    try:
        table = engine.pay_table_from_mapping(raw)
    except engine.RulesEngineError as error:
        raise InvalidTableConfigError("invalid_paytable", str(error)) from None
    return engine.pay_table_to_mapping(table)


def decide_close_table(state: TableState, actor: str, reason: str) -> list[Event]:
    """`TableClosed`: no new round opens; a round in play still plays to its end."""
    _known(state)
    if state.status is TableStatus.CLOSED:
        raise RoundConflictError(
            "table_already_closed", f"table {state.table_id} is already closed", phase=state.phase
        )
    return [TableClosed(table_id=state.table_id, actor=actor, reason=reason)]


# ------------------------------------------------------------------------------ the clock
def decide_open_round(state: TableState, now: datetime) -> list[Event]:
    """The next round, once the table is open and the last round's result pause is over."""
    config = state.config
    if state.status is not TableStatus.OPEN or config is None or state.round_in_play:
        return []
    last = state.round
    pause = timedelta(seconds=config.result_pause_seconds)
    if last is not None and last.ended_at is not None and now < last.ended_at + pause:
        return []
    number = 1 if last is None else last.number + 1
    return [
        RoundOpened(
            round_id=round_id_for(state.table_id, number),
            table_id=state.table_id,
            number=number,
            opened_at=now,
            betting_closes_at=now + timedelta(seconds=config.betting_seconds),
            limits=config.limits,
            paytable=config.paytable,
        )
    ]


def decide_close_betting(state: TableState, now: datetime) -> list[Event]:
    r = state.round_in_play
    if r is None or r.phase is not RoundPhase.BETTING or r.paused:
        return []
    if r.betting_closes_at is None or now < r.betting_closes_at:
        return []
    return [BettingClosed(round_id=r.round_id, table_id=state.table_id, closed_at=now)]


def decide_auto_cancel(state: TableState, now: datetime, pause_timeout: timedelta) -> list[Event]:
    """Rules (pause/void): a round paused before its first card and not resumed in time is
    cancelled; a started round is never cancelled automatically."""
    r = state.round_in_play
    if r is None or not r.paused or r.started or r.paused_at is None:
        return []
    if now < r.paused_at + pause_timeout:
        return []
    return [
        RoundCancelled(
            round_id=r.round_id,
            table_id=state.table_id,
            actor=SYSTEM_ACTOR,
            reason=(
                f"paused before the first card and not resumed within "
                f"{pause_timeout.total_seconds():g} s"
                + (f" (pause reason: {r.pause_reason})" if r.pause_reason else "")
            ),
            cards_dealt=0,
        )
    ]


def decide_clock(state: TableState, now: datetime, pause_timeout: timedelta) -> list[Event]:
    """What the passing of time does now: cancel a stale pause, close betting, open a round."""
    return (
        decide_auto_cancel(state, now, pause_timeout)
        or decide_close_betting(state, now)
        or decide_open_round(state, now)
    )


def next_clock_time(state: TableState, pause_timeout: timedelta) -> datetime | None:
    """When `decide_clock` will next have something to do; None while waiting on people
    (dealing, a started round paused, a closed table)."""
    r = state.round_in_play
    if r is not None:
        if r.paused:
            return None if r.started or r.paused_at is None else r.paused_at + pause_timeout
        return r.betting_closes_at if r.phase is RoundPhase.BETTING else None
    if state.status is not TableStatus.OPEN or state.config is None:
        return None
    last = state.round
    if last is None or last.ended_at is None:
        return datetime.min.replace(tzinfo=UTC) if last is None else None
    return last.ended_at + timedelta(seconds=state.config.result_pause_seconds)


# ------------------------------------------------------------------------------ scans
def decide_scan(state: TableState, scan: CardScanned, now: datetime) -> list[Event]:
    """A scanned card: dealt at the next position, or refused with the reason."""
    if state.status is TableStatus.UNKNOWN:
        return [refuse_unknown_table(scan)]
    r = state.round_in_play
    if r is None:
        last = state.round.round_id if state.round is not None else None
        if state.status is TableStatus.CLOSED:
            return [_refused(state, scan, last, "table_closed", "the table is closed")]
        return [_refused(state, scan, last, "no_round_dealing", "no round is being dealt")]
    if r.paused:
        return [_refused(state, scan, r.round_id, "round_paused", f"{r.round_id} is paused")]
    if r.phase is RoundPhase.BETTING:
        if r.betting_closes_at is not None and now >= r.betting_closes_at:
            # The deadline has passed but the clock has not recorded it yet: close betting
            # here so a card read on time is not refused for the clock's lag.
            closing = decide_close_betting(state, now)
            return [*closing, *decide_scan(evolve_all(state, closing, now), scan, now)]
        return [
            _refused(state, scan, r.round_id, "betting_open", f"betting is open on {r.round_id}")
        ]
    if scan.scan_id in r.scan_ids:
        return []  # this very scan was already dealt: a redelivery changes nothing
    card = str(engine.parse_card(scan.card))
    if card in r.dealt_cards:
        at = next(position for position, dealt in r.cards if dealt == card)
        return [
            _refused(
                state, scan, r.round_id, "duplicate_card", f"{card} was already dealt at {at}"
            ),
            RoundPaused(
                round_id=r.round_id,
                table_id=state.table_id,
                actor=SYSTEM_ACTOR,
                reason=f"duplicate card {card} scanned (already dealt at {at})",
            ),
        ]
    position = DEALING_ORDER[len(r.cards)]
    dealt: list[Event] = [
        CardDealt(
            round_id=r.round_id,
            table_id=state.table_id,
            position=position,
            card=card,
            scan_id=scan.scan_id,
        )
    ]
    if len(r.cards) + 1 == len(DEALING_ORDER):
        dealt.append(round_closed(state.table_id, r.round_id, [*r.dealt_cards, card]))
    return dealt


def round_closed(table_id: str, round_id: str, cards: Sequence[str]) -> RoundClosed:
    """`RoundClosed` with the engine's result of the six cards (A1 B1 A2 B2 A3 B3)."""
    return RoundClosed.of(round_id, table_id, cards)


def refuse_unknown_table(scan: CardScanned) -> CardRefused:
    return CardRefused(
        table_id=scan.table_id,
        round_id=None,
        scan_id=scan.scan_id,
        card=scan.card,
        reason="unknown_table",
        detail=f"table {scan.table_id} was never opened",
    )


def _refused(
    state: TableState, scan: CardScanned, round_id: str | None, reason: RefusalReason, detail: str
) -> CardRefused:
    return CardRefused(
        table_id=state.table_id,
        round_id=round_id,
        scan_id=scan.scan_id,
        card=scan.card,
        reason=reason,
        detail=detail,
    )


# ------------------------------------------------------------------------------ supervisor
def decide_pause(state: TableState, actor: str, reason: str) -> list[Event]:
    r = _in_play(state, "pause")
    if r.paused:
        raise RoundConflictError(
            "round_already_paused", f"{r.round_id} is already paused", phase=state.phase
        )
    return [RoundPaused(round_id=r.round_id, table_id=state.table_id, actor=actor, reason=reason)]


def decide_resume(state: TableState, actor: str, now: datetime) -> list[Event]:
    """`RoundResumed`; during betting the new deadline is now plus the time that was left."""
    r = _in_play(state, "resume")
    if not r.paused:
        raise RoundConflictError(
            "nothing_to_resume", f"{r.round_id} is not paused", phase=state.phase
        )
    closes_at = None
    if r.phase is RoundPhase.BETTING:
        closes_at = now + (r.betting_remaining or timedelta(0))
    return [
        RoundResumed(
            round_id=r.round_id, table_id=state.table_id, actor=actor, betting_closes_at=closes_at
        )
    ]


def decide_cancel(state: TableState, actor: str, reason: str) -> list[Event]:
    """Rules (pause/void): a supervisor may void any round until its result is recorded."""
    r = _in_play(state, "cancel")
    return [
        RoundCancelled(
            round_id=r.round_id,
            table_id=state.table_id,
            actor=actor,
            reason=reason,
            cards_dealt=len(r.cards),
        )
    ]


def _known(state: TableState) -> None:
    if state.status is TableStatus.UNKNOWN:
        raise UnknownTableError("unknown_table", f"table {state.table_id} was never opened")


def _in_play(state: TableState, action: str) -> Round:
    _known(state)
    r = state.round_in_play
    if r is None:
        raise RoundConflictError(
            f"nothing_to_{action}",
            f"table {state.table_id} has no round in play to {action} (phase {state.phase})",
            phase=state.phase,
        )
    return r


# ------------------------------------------------------------------------------ views
def state_view(state: TableState) -> dict[str, Any]:
    """The live state as JSON (what `GET /tables/{id}` and Redis `table:<id>` hold)."""
    config = state.config
    return {
        "table_id": state.table_id,
        "version": state.version,
        "status": state.status.value,
        "phase": state.phase,
        "closed_reason": state.closed_reason,
        "config": None if config is None else _config_data(config),
        "round": None if state.round is None else _round_view(state.round),
    }


def _round_view(r: Round) -> dict[str, Any]:
    return {
        "round_id": r.round_id,
        "number": r.number,
        "phase": r.phase.value,
        "opened_at": _iso(r.opened_at),
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
    }


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


# ------------------------------------------------------------------------------ snapshots
# A snapshot is the whole TableState as JSON, so a table is rebuilt from it plus the events
# after it instead of from its first event. Change SNAPSHOT_SCHEMA_VERSION whenever the
# state or this form changes: snapshots of another schema are ignored (full replay).
SNAPSHOT_SCHEMA_VERSION = 1


class SnapshotError(ValueError):
    """A snapshot that cannot be read back (unknown schema, damaged): replay instead."""


def snapshot_of(state: TableState) -> dict[str, Any]:
    """The state as JSON-ready data; `state_from_snapshot` gives back an equal state."""
    config = state.config
    return {
        "table_id": state.table_id,
        "version": state.version,
        "status": state.status.value,
        "closed_reason": state.closed_reason,
        "config": None if config is None else _config_data(config),
        "round": None if state.round is None else _round_data(state.round),
    }


def state_from_snapshot(data: Mapping[str, Any], schema_version: int) -> TableState:
    """The state a snapshot holds; raises SnapshotError if it cannot be read exactly."""
    if schema_version != SNAPSHOT_SCHEMA_VERSION:
        raise SnapshotError(
            f"snapshot schema {schema_version}, this code reads {SNAPSHOT_SCHEMA_VERSION}"
        )
    try:
        return _state_from_data(data)
    except SnapshotError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, TableCommandError) as error:
        raise SnapshotError(f"damaged snapshot: {type(error).__name__}: {error}") from None


def _config_data(config: TableConfig) -> dict[str, Any]:
    """The table's configuration as JSON-ready data (live view and snapshot alike)."""
    return {
        "name": config.name,
        "betting_seconds": config.betting_seconds,
        "result_pause_seconds": config.result_pause_seconds,
        "limits": _limits_data(config.limits),
        "paytable": config.paytable,
    }


def _limits_data(limits: Limits) -> dict[str, Any]:
    return {
        currency: {bet: {"min": limit.min, "max": limit.max} for bet, limit in per_bet.items()}
        for currency, per_bet in limits.items()
    }


def _round_data(r: Round) -> dict[str, Any]:
    remaining = r.betting_remaining
    return {
        "round_id": r.round_id,
        "number": r.number,
        "phase": r.phase.value,
        "opened_at": _iso(r.opened_at),
        "limits": _limits_data(r.limits),
        "paytable": r.paytable,
        "betting_closes_at": _iso(r.betting_closes_at),
        # whole microseconds: a timedelta is exactly that, a float of seconds is not
        "betting_remaining_us": None
        if remaining is None
        else remaining // timedelta(microseconds=1),
        "paused": r.paused,
        "pause_reason": r.pause_reason,
        "paused_by": r.paused_by,
        "paused_at": _iso(r.paused_at),
        "cards": [[position, card] for position, card in r.cards],
        "scan_ids": sorted(str(scan_id) for scan_id in r.scan_ids),
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
    }


def _state_from_data(data: Mapping[str, Any]) -> TableState:
    config = data["config"]
    round_data = data["round"]
    return TableState(
        table_id=_text(data["table_id"]),
        version=_whole(data["version"]),
        status=TableStatus(data["status"]),
        config=None
        if config is None
        else TableConfig(
            name=_text(config["name"]),
            betting_seconds=_seconds(config["betting_seconds"]),
            result_pause_seconds=_seconds(config["result_pause_seconds"]),
            limits=validate_limits(config["limits"]),
            paytable=_object(config["paytable"]),
        ),
        round=None if round_data is None else _round_from_data(round_data),
        closed_reason=_optional_text(data["closed_reason"]),
    )


def _round_from_data(data: Mapping[str, Any]) -> Round:
    remaining = data["betting_remaining_us"]
    result = data["result"]
    return Round(
        round_id=_text(data["round_id"]),
        number=_whole(data["number"]),
        phase=RoundPhase(data["phase"]),
        opened_at=_time(data["opened_at"]),
        limits=validate_limits(data["limits"]),
        paytable=_object(data["paytable"]),
        betting_closes_at=_optional_time(data["betting_closes_at"]),
        betting_remaining=None if remaining is None else timedelta(microseconds=_whole(remaining)),
        paused=_flag(data["paused"]),
        pause_reason=_optional_text(data["pause_reason"]),
        paused_by=_optional_text(data["paused_by"]),
        paused_at=_optional_time(data["paused_at"]),
        cards=tuple((_text(position), _text(card)) for position, card in data["cards"]),
        scan_ids=frozenset(UUID(_text(scan_id)) for scan_id in data["scan_ids"]),
        first_card_at=_optional_time(data["first_card_at"]),
        ended_at=_optional_time(data["ended_at"]),
        result=None
        if result is None
        else RoundResult(
            cards=tuple(_text(card) for card in result["cards"]),
            player_a_hand=_text(result["player_a_hand"]),
            player_b_hand=_text(result["player_b_hand"]),
            winner=_text(result["winner"]),
            six_card_bonus_hand=_optional_text(result["six_card_bonus_hand"]),
        ),
        cancelled_by=_optional_text(data["cancelled_by"]),
        cancel_reason=_optional_text(data["cancel_reason"]),
    )


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise SnapshotError(f"expected a string, found {value!r}")
    return value


def _optional_text(value: object) -> str | None:
    return None if value is None else _text(value)


def _whole(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SnapshotError(f"expected a whole number, found {value!r}")
    return value


def _seconds(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SnapshotError(f"expected seconds, found {value!r}")
    return float(value)


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise SnapshotError(f"expected true or false, found {value!r}")
    return value


def _object(value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise SnapshotError(f"expected an object, found {value!r}")
    return value


def _time(value: object) -> datetime:
    moment = datetime.fromisoformat(_text(value))
    if moment.utcoffset() is None:
        raise SnapshotError(f"time without a zone: {value!r}")
    return moment


def _optional_time(value: object) -> datetime | None:
    return None if value is None else _time(value)
