"""What the table does with a command: the events it produces, or a `TableCommandError`
naming why it is refused. Pure: time and the actor are passed in.

Opening and closing the table (with its configuration's rules: bounds, the RTP ceiling, and
a second supervisor for any limits or pay table not approved for the table before), dealing
or refusing a scanned card (a card read before betting closes is sealed and pauses the
round), a pause (a supervisor or the dealer), a supervisor's resume, deck replacement and
cancel (two supervisors once a card is dealt), the studio's video lost and restored, and
the void of a round after its result (two supervisors, within the correction window)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any, Literal, cast, get_args
from uuid import UUID

from teenpatti import engine
from teenpatti.events import Event
from teenpatti.events.catalog import (
    DEALING_ORDER,
    MAX_STAKE,
    BetTypeName,
    CardDealt,
    CardMarkedWrong,
    CardRefused,
    CardScanned,
    CardsWithdrawn,
    ConfigChangeProposed,
    ConfigChangeRejected,
    DeckReplaced,
    Limits,
    ResultVoidRejected,
    ResultVoidRequested,
    RoundCancelled,
    RoundClosed,
    RoundPaused,
    RoundResumed,
    RoundVoided,
    SixCardHandName,
    StakeLimit,
    TableClosed,
    TableOpened,
    ThreeCardHandName,
    VideoLost,
    VideoRestored,
    VoidRequested,
    Winner,
)

from .clock import decide_close_betting
from .results import CANCELLED, VOIDED, RoundRecord
from .state import (
    SYSTEM_ACTOR,
    TABLE_ID_PATTERN,
    PendingChange,
    Round,
    RoundPhase,
    TableConfig,
    TableState,
    TableStatus,
    evolve_all,
    terms_of,
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


class UnknownRoundError(TableCommandError):
    """The round is not one the table has ended."""


class FourEyesError(TableCommandError):
    """The second supervisor a command needs is the first one again."""


# ------------------------------------------------------------------------------ policy
# each bet type's exact RTP for a pay table (the rules engine's PAR sheet: table_service.rtp)
RtpOf = Callable[[engine.PayTable], Mapping[str, Fraction]]


@dataclass(frozen=True)
class ConfigPolicy:
    """What every table configuration must respect (the service's settings)."""

    rtp_of: RtpOf
    rtp_ceiling_percent: Decimal  # compared as the rules state RTPs: percent, two decimals
    max_currencies: int


def rtp_percent(rtp: Fraction) -> Decimal:
    """An exact RTP in percent, rounded half-up to two decimals, as the rules state it
    ("97.50%"): Player A's exact 97.5028% at 0.95:1 is the rules' 97.50%."""
    exact = Decimal(rtp.numerator * 100) / Decimal(rtp.denominator)
    return exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def check_rtp(paytable: Mapping[str, Any], policy: ConfigPolicy) -> dict[str, str]:
    """Each bet type's exact RTP ("p/q"), or InvalidTableConfigError naming the first bet
    type above the ceiling, its RTP and the ceiling (docs/decisions/0057)."""
    rtps = policy.rtp_of(engine.pay_table_from_mapping(paytable))
    for bet in BET_TYPES:
        rtp = rtps[bet]
        shown = rtp_percent(rtp)
        if shown > policy.rtp_ceiling_percent:
            raise InvalidTableConfigError(
                "rtp_above_ceiling",
                f"{bet}: RTP {shown}% (exactly {float(rtp) * 100:.4f}%) is above the ceiling"
                f" {policy.rtp_ceiling_percent}%",
                bet_type=bet,
                rtp_percent=str(shown),
                rtp=f"{rtp.numerator}/{rtp.denominator}",
                ceiling_percent=str(policy.rtp_ceiling_percent),
            )
    return {bet: f"{rtps[bet].numerator}/{rtps[bet].denominator}" for bet in BET_TYPES}


# ------------------------------------------------------------------------------ opening
@dataclass(frozen=True)
class OpenTable:
    table_id: str
    name: str
    betting_seconds: float
    result_pause_seconds: float
    limits: Mapping[str, Any]
    paytable: Mapping[str, Any] | None = None


def decide_open_table(
    state: TableState,
    command: OpenTable,
    actor: str,
    policy: ConfigPolicy,
    change_id: UUID,
) -> list[Event]:
    """`TableOpened` (a new table, a reopening, or a new configuration from the next round);
    nothing when the table is already open with exactly this configuration, or when `actor`
    proposes again exactly the change that waits (`proposed_again`: a request sent again);
    or, when it needs a second supervisor (`needs_approval`), `ConfigChangeProposed` as
    `change_id`."""
    config, rtp = table_config(command, policy)
    if state.status is TableStatus.OPEN and state.config == config:
        return []
    if needs_approval(state, config):
        if proposed_again(state, config, actor):
            return []
        if state.pending_change is not None:
            raise RoundConflictError(
                "change_pending",
                f"change {state.pending_change.change_id} by"
                f" {state.pending_change.proposed_by} waits for approval; approve or reject"
                " it first",
                change_id=str(state.pending_change.change_id),
            )
        return [
            ConfigChangeProposed(
                table_id=command.table_id,
                change_id=change_id,
                name=config.name,
                betting_seconds=config.betting_seconds,
                result_pause_seconds=config.result_pause_seconds,
                limits=config.limits,
                paytable=config.paytable,
                rtp=cast(dict[BetTypeName, str], rtp),
                actor=actor,
            )
        ]
    return [
        TableOpened(
            table_id=command.table_id,
            name=config.name,
            betting_seconds=config.betting_seconds,
            result_pause_seconds=config.result_pause_seconds,
            limits=config.limits,
            paytable=config.paytable,
            actor=actor,
        )
    ]


def proposed_again(state: TableState, config: TableConfig, actor: str) -> bool:
    """The change that waits is exactly `config`, proposed by `actor`."""
    pending = state.pending_change
    return pending is not None and pending.proposed_by == actor and pending.config == config


def table_config(command: OpenTable, policy: ConfigPolicy) -> tuple[TableConfig, Mapping[str, str]]:
    """The configuration `command` asks for, checked, and its RTP per bet type."""
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
    if len(limits) > policy.max_currencies:
        raise InvalidTableConfigError(
            "too_many_currencies",
            f"limits price {len(limits)} currencies; a table prices at most"
            f" {policy.max_currencies}",
        )
    paytable = validate_paytable(command.paytable)
    rtp = check_rtp(paytable, policy)
    config = TableConfig(
        name=name,
        betting_seconds=float(command.betting_seconds),
        result_pause_seconds=float(command.result_pause_seconds),
        limits=limits,
        paytable=paytable,
    )
    return config, rtp


def needs_approval(state: TableState, config: TableConfig) -> bool:
    """Four eyes (docs/decisions/0057, 0086): limits and a pay table a second supervisor has
    not approved for this table yet, however they come (a new table, a reopening, a change
    while live). One supervisor renames or retimes a table and reopens or reconfigures it on
    terms approved for it before."""
    return terms_of(config.limits, config.paytable) not in state.approved_terms


def decide_approve_change(
    state: TableState, change_id: UUID, actor: str, policy: ConfigPolicy
) -> list[Event]:
    """`TableOpened` with the proposed configuration, `approved_by` another supervisor; its
    RTP checked again against the ceiling in force now."""
    pending = _pending(state, change_id)
    if actor == pending.proposed_by:
        raise FourEyesError(
            "same_supervisor",
            f"{actor} proposed change {change_id}: another supervisor must approve it",
        )
    config = pending.config
    check_rtp(config.paytable, policy)
    if len(config.limits) > policy.max_currencies:
        raise InvalidTableConfigError(
            "too_many_currencies", f"a table prices at most {policy.max_currencies} currencies"
        )
    return [
        TableOpened(
            table_id=state.table_id,
            name=config.name,
            betting_seconds=config.betting_seconds,
            result_pause_seconds=config.result_pause_seconds,
            limits=config.limits,
            paytable=config.paytable,
            actor=pending.proposed_by,
            approved_by=actor,
        )
    ]


def decide_reject_change(
    state: TableState, change_id: UUID, actor: str, reason: str
) -> list[Event]:
    """`ConfigChangeRejected`: by any supervisor, its proposer withdrawing it included."""
    _pending(state, change_id)
    return [
        ConfigChangeRejected(
            table_id=state.table_id, change_id=change_id, actor=actor, reason=reason
        )
    ]


def _pending(state: TableState, change_id: UUID) -> PendingChange:
    pending = state.pending_change
    if pending is None or pending.change_id != change_id:
        raise RoundConflictError(
            "no_such_change",
            f"table {state.table_id} has no change {change_id} waiting for approval",
        )
    return pending


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
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_STAKE:
            raise InvalidTableConfigError(
                "invalid_stake_limit",
                f"{where}.{label} must be a whole number of minor units from 1 to {MAX_STAKE},"
                f" not {value!r}",
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
    """A scanned card: dealt at the next position, or refused with the reason. Rules: no
    card's value is shown before betting closes, so a refusal outside dealing carries none
    (the value is sealed in the store, docs/decisions/0058), and a card read while betting
    is open exposes the round: it pauses until the deck is replaced or it is cancelled."""
    if state.status is TableStatus.UNKNOWN:
        return [refuse_unknown_table(scan)]
    r = state.round_in_play
    if r is None:
        last = state.round.round_id if state.round is not None else None
        if state.status is TableStatus.CLOSED:
            return [_sealed(state, scan, last, "table_closed", "the table is closed")]
        return [_sealed(state, scan, last, "no_round_dealing", "no round is being dealt")]
    if r.phase is RoundPhase.BETTING:
        if not r.paused and r.betting_closes_at is not None and now >= r.betting_closes_at:
            # The deadline has passed but the clock has not recorded it yet: close betting
            # here so a card read on time is not refused for the clock's lag.
            closing = decide_close_betting(state, now)
            return [*closing, *decide_scan(evolve_all(state, closing, now), scan, now)]
        return decide_exposed(state, r, scan)
    if r.paused:
        return [_refused(state, scan, r.round_id, "round_paused", f"{r.round_id} is paused")]
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


def decide_exposed(state: TableState, r: Round, scan: CardScanned) -> list[Event]:
    """A card read while betting is open on `r`: refused without its value, the round marked
    exposed (`CardRefused` `betting_open`) and paused if it was not."""
    refused = _sealed(
        state,
        scan,
        r.round_id,
        "betting_open",
        f"a card was read while betting is open on {r.round_id}: its value is sealed and"
        " the round waits for a new deck or a void",
    )
    if r.paused:
        return [refused]
    return [
        refused,
        RoundPaused(
            round_id=r.round_id,
            table_id=state.table_id,
            actor=SYSTEM_ACTOR,
            reason="card exposed while betting is open (scan"
            f" {scan.scan_id}): replace the deck and resume, or cancel the round",
        ),
    ]


def round_closed(table_id: str, round_id: str, cards: Sequence[str]) -> RoundClosed:
    """`RoundClosed` with the engine's result of the six cards (A1 B1 A2 B2 A3 B3)."""
    return RoundClosed.of(round_id, table_id, cards)


def refuse_unknown_table(scan: CardScanned) -> CardRefused:
    return CardRefused(
        table_id=scan.table_id,
        round_id=None,
        scan_id=scan.scan_id,
        card=None,  # sealed: no table's betting has closed on it
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


def _sealed(
    state: TableState, scan: CardScanned, round_id: str | None, reason: RefusalReason, detail: str
) -> CardRefused:
    """A refusal without the card's value (kept in `sealed_cards`): read before betting
    closed on any round it could belong to."""
    return CardRefused(
        table_id=state.table_id,
        round_id=round_id,
        scan_id=scan.scan_id,
        card=None,
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
    if r.marked_wrong is not None and r.marked_wrong_by == actor:
        raise FourEyesError(
            "same_supervisor",
            f"{actor} marked card {r.marked_wrong} of {r.round_id} wrong: another supervisor"
            " must resume the round (the card stands), or two void it",
        )
    if r.exposed:
        raise RoundConflictError(
            "card_exposed",
            f"a card of {r.round_id} was exposed during betting: replace the deck first"
            f" (POST /tables/{state.table_id}/replace-deck), or cancel the round",
            phase=state.phase,
        )
    closes_at = None
    if r.phase is RoundPhase.BETTING:
        closes_at = now + (r.betting_remaining or timedelta(0))
    return [
        RoundResumed(
            round_id=r.round_id, table_id=state.table_id, actor=actor, betting_closes_at=closes_at
        )
    ]


def decide_replace_deck(state: TableState, actor: str, reason: str) -> list[Event]:
    """`DeckReplaced`: the exposed card is out of play (a new, shuffled deck); the round may
    resume."""
    r = _in_play(state, "replace_deck")
    if not r.exposed:
        raise RoundConflictError(
            "nothing_exposed", f"no card of {r.round_id} is exposed", phase=state.phase
        )
    return [DeckReplaced(round_id=r.round_id, table_id=state.table_id, actor=actor, reason=reason)]


def decide_mark_wrong(state: TableState, actor: str, position: str, reason: str) -> list[Event]:
    """A supervisor finds a dealt card wrong before the result (a misread that is still a
    card, a card on the wrong spot): the round is paused at once, no card is dealt until
    another supervisor resumes it (the card stands) or two void it (issue 32, item 4)."""
    r = _in_play(state, "mark_wrong")
    if position not in dict(r.cards):
        raise RoundConflictError(
            "card_not_dealt",
            f"no card is dealt at {position} in {r.round_id}"
            f" (dealt: {', '.join(p for p, _ in r.cards) or 'none'})",
            phase=state.phase,
        )
    if r.marked_wrong is not None:
        raise RoundConflictError(
            "card_already_marked",
            f"card {r.marked_wrong} of {r.round_id} is already marked wrong by"
            f" {r.marked_wrong_by}: resume the round or void it",
            phase=state.phase,
        )
    marked = CardMarkedWrong(
        round_id=r.round_id, table_id=state.table_id, actor=actor, position=position, reason=reason
    )
    return [marked, *_pause_now(state, r, actor, f"card {position} marked wrong: {reason}")]


def decide_rescan(state: TableState, actor: str, reason: str, now: datetime) -> list[Event]:
    """Another supervisor than the one who marked a card wrong takes it back with every card
    dealt after it, and the round resumes: the dealer deals again from that position."""
    r = _in_play(state, "rescan")
    if r.marked_wrong is None:
        raise RoundConflictError(
            "nothing_marked_wrong",
            f"no card of {r.round_id} is marked wrong: mark it first"
            f" (POST /tables/{state.table_id}/cards/{{position}}/wrong)",
            phase=state.phase,
        )
    if r.marked_wrong_by == actor:
        raise FourEyesError(
            "same_supervisor",
            f"{actor} marked card {r.marked_wrong} of {r.round_id} wrong: another supervisor"
            " takes it back",
        )
    positions = [p for p, _ in r.cards]
    from_here = positions[positions.index(r.marked_wrong) :]
    withdrawn = CardsWithdrawn(
        round_id=r.round_id,
        table_id=state.table_id,
        actor=actor,
        marked_by=r.marked_wrong_by or actor,
        positions=from_here,
        reason=reason,
    )
    return [withdrawn, *decide_resume(evolve_all(state, [withdrawn], now), actor, now)]


def _pause_now(state: TableState, r: Round, actor: str, reason: str) -> list[Event]:
    """The round paused at once, unless it already is."""
    if r.paused:
        return []
    return [RoundPaused(round_id=r.round_id, table_id=state.table_id, actor=actor, reason=reason)]


def decide_cancel(state: TableState, actor: str, reason: str) -> list[Event]:
    """Rules (pause/void): a supervisor may void any round until its result is recorded.
    Once a card is dealt, two are needed (docs/decisions/0057): the first one's cancel is a
    `VoidRequested`, another's confirms it. The request pauses the round at once, so no card
    is dealt under it; a resume withdraws it."""
    r = _in_play(state, "cancel")
    if r.started:
        if r.void_requested_by is None:
            return [
                VoidRequested(
                    round_id=r.round_id,
                    table_id=state.table_id,
                    actor=actor,
                    reason=reason,
                    cards_dealt=len(r.cards),
                ),
                *_pause_now(state, r, actor, f"void requested by {actor}: {reason}"),
            ]
        if r.void_requested_by == actor:
            raise FourEyesError(
                "same_supervisor",
                f"{actor} asked to void {r.round_id}: another supervisor must confirm it",
            )
        reason = f"{r.void_reason} (asked by {r.void_requested_by}; confirmed: {reason})"
    return [
        RoundCancelled(
            round_id=r.round_id,
            table_id=state.table_id,
            actor=actor,
            reason=reason,
            cards_dealt=len(r.cards),
        )
    ]


# ------------------------------------------------------------------------------ the studio
def decide_video_lost(state: TableState, actor: str, reason: str) -> list[Event]:
    """Rules (error handling): the video or network stops. A round that has not started (no
    card dealt) is cancelled and every stake refunded; a started one plays to its result. No
    new round opens until the video is restored. Reported again, nothing changes."""
    _known(state)
    if state.video_lost is not None:
        return []
    events: list[Event] = [VideoLost(table_id=state.table_id, actor=actor, reason=reason)]
    r = state.round_in_play
    if r is not None and not r.started:
        events.append(
            RoundCancelled(
                round_id=r.round_id,
                table_id=state.table_id,
                actor=actor,
                reason=f"video lost before the first card: {reason}",
                cards_dealt=0,
            )
        )
    return events


def decide_video_restored(state: TableState, actor: str, reason: str) -> list[Event]:
    """The video is back: rounds open again. Nothing changes when it was not lost."""
    _known(state)
    if state.video_lost is None:
        return []
    return [VideoRestored(table_id=state.table_id, actor=actor, reason=reason)]


# ------------------------------------------------------------------------------ corrections
def decide_void_result(
    state: TableState,
    round_id: str,
    ended: RoundRecord | None,
    actor: str,
    reason: str,
    now: datetime,
    window: timedelta,
) -> list[Event]:
    """A round found wrong after its result (a misread that was still a card, a card on the
    wrong spot) is voided by two supervisors within `window` of its result: the first one's
    void is a `ResultVoidRequested`, another's confirms it (`RoundVoided`, carrying the
    result it voids). `ended` is the round's roadmap row (None: it has not ended)."""
    _known(state)
    if ended is None or ended.round_id != round_id or ended.table_id != state.table_id:
        raise _not_ended(state, round_id)
    if ended.status == CANCELLED:
        raise RoundConflictError(
            "round_cancelled",
            f"{ended.round_id} was cancelled at {ended.ended_at.isoformat()}: its bets were"
            " refunded already",
        )
    if ended.status == VOIDED:
        voided_at = ended.voided_at.isoformat() if ended.voided_at is not None else "?"
        raise RoundConflictError(
            "already_voided",
            f"{ended.round_id} was voided after its result at {voided_at} ({ended.void_reason})",
        )
    closes_at = ended.ended_at + window
    if now > closes_at:
        hours = window.total_seconds() / 3600
        raise RoundConflictError(
            "correction_window_passed",
            f"the result of {ended.round_id} was recorded at {ended.ended_at.isoformat()}: it"
            f" could be voided until {closes_at.isoformat()}, {hours:g} h after it",
            closes_at=closes_at.isoformat(),
            window_hours=hours,
        )
    pending = state.result_voids.get(ended.round_id)
    if pending is None:
        return [
            ResultVoidRequested(
                round_id=ended.round_id, table_id=state.table_id, actor=actor, reason=reason
            )
        ]
    if pending.requested_by == actor:
        raise FourEyesError(
            "same_supervisor",
            f"{actor} asked to void the result of {ended.round_id}: another supervisor must"
            " confirm it",
        )
    assert ended.player_a_hand is not None and ended.player_b_hand is not None
    assert ended.winner is not None
    return [
        RoundVoided(
            round_id=ended.round_id,
            table_id=state.table_id,
            requested_by=pending.requested_by,
            actor=actor,
            reason=f"{pending.reason} (confirmed: {reason})",
            closed_at=ended.ended_at,
            cards=list(ended.cards),
            player_a_hand=cast(ThreeCardHandName, ended.player_a_hand),
            player_b_hand=cast(ThreeCardHandName, ended.player_b_hand),
            winner=cast(Winner, ended.winner),
            six_card_bonus_hand=cast(SixCardHandName | None, ended.six_card_bonus_hand),
        )
    ]


def decide_reject_void_result(
    state: TableState, round_id: str, actor: str, reason: str
) -> list[Event]:
    """`ResultVoidRejected`: the result stands. By any supervisor, the one who asked for the
    void withdrawing it included."""
    _known(state)
    pending = state.result_voids.get(round_id)
    if pending is None:
        raise RoundConflictError(
            "no_void_requested",
            f"no void of the result of {round_id} waits for a second supervisor",
        )
    return [
        ResultVoidRejected(
            round_id=round_id,
            table_id=state.table_id,
            actor=actor,
            requested_by=pending.requested_by,
            reason=reason,
        )
    ]


def _not_ended(state: TableState, round_id: str) -> TableCommandError:
    r = state.round_in_play
    if r is not None and r.round_id == round_id:
        return RoundConflictError(
            "no_result_yet",
            f"{round_id} is in play and has no result yet: void a round in play with"
            f" POST /tables/{state.table_id}/cancel",
            phase=state.phase,
        )
    return UnknownRoundError(
        "no_such_round", f"table {state.table_id} has no round {round_id!r} that has ended"
    )


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
