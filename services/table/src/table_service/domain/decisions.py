"""What the table does with a command: the events it produces, or a `TableCommandError`
naming why it is refused. Pure: time and the actor are passed in.

Opening and closing the table (with its configuration's rules), dealing or refusing a
scanned card, and a supervisor's pause, resume and cancel."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal, cast, get_args

from teenpatti import engine
from teenpatti.events import Event
from teenpatti.events.catalog import (
    DEALING_ORDER,
    BetTypeName,
    CardDealt,
    CardRefused,
    CardScanned,
    Limits,
    RoundCancelled,
    RoundClosed,
    RoundPaused,
    RoundResumed,
    StakeLimit,
    TableClosed,
    TableOpened,
)

from .clock import decide_close_betting
from .state import (
    SYSTEM_ACTOR,
    TABLE_ID_PATTERN,
    Round,
    RoundPhase,
    TableConfig,
    TableState,
    TableStatus,
    evolve_all,
)

BET_TYPES: tuple[str, ...] = get_args(BetTypeName)
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
