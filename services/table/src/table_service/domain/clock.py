"""What the passing of time does to a table: open the next round, close betting at the
deadline, cancel a round left paused before its first card, pause a round dealing without
its next card for too long (a started round is never cancelled by time). No round opens
while the studio's video is reported lost, nor while a service a round needs is not ready
(`blockers`: the table holds its rounds and says why). Pure: `now` and the blockers are
passed in, and `next_clock_time` says when there will next be something to do."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from teenpatti.events import Event
from teenpatti.events.catalog import (
    DEALING_ORDER,
    BettingClosed,
    RoundCancelled,
    RoundOpened,
    RoundPaused,
    RoundsHeld,
    RoundsReleased,
)

from .state import SYSTEM_ACTOR, RoundPhase, TableState, TableStatus, round_id_for


def needs_clock(state: TableState) -> bool:
    """Whether time alone can still change this table (so its owner runs a clock for it)."""
    return state.status is TableStatus.OPEN or state.round_in_play is not None


def decide_clock(
    state: TableState,
    now: datetime,
    pause_timeout: timedelta,
    dealing_stall: timedelta | None = None,
    blockers: Sequence[str] = (),
) -> list[Event]:
    """What the passing of time does now: cancel a stale pause, close betting, pause a
    stalled deal, open a round (or hold rounds, while `blockers` say why)."""
    return (
        decide_auto_cancel(state, now, pause_timeout)
        or decide_close_betting(state, now)
        or decide_dealing_stall(state, now, dealing_stall)
        or decide_open_round(state, now, blockers)
    )


def next_clock_time(
    state: TableState, pause_timeout: timedelta, dealing_stall: timedelta | None = None
) -> datetime | None:
    """When `decide_clock` will next have something to do; None while waiting on people
    (a started round paused, a closed table)."""
    r = state.round_in_play
    if r is not None:
        if r.paused:
            return None if r.started or r.paused_at is None else r.paused_at + pause_timeout
        if r.phase is RoundPhase.BETTING:
            return r.betting_closes_at
        if dealing_stall is None or r.waiting_since is None:
            return None
        return r.waiting_since + dealing_stall
    if state.status is not TableStatus.OPEN or state.config is None:
        return None
    if state.video_lost is not None or state.held:
        return None  # waiting for the studio, or for the services (the clock asks again)
    last = state.round
    if last is None or last.ended_at is None:
        return datetime.min.replace(tzinfo=UTC) if last is None else None
    return last.ended_at + timedelta(seconds=state.config.result_pause_seconds)


def decide_open_round(
    state: TableState, now: datetime, blockers: Sequence[str] = ()
) -> list[Event]:
    """The next round, once the table is open and the last round's result pause is over;
    none while the video is lost. While `blockers` (what stops a service a round needs from
    taking it) are not empty the table holds its rounds instead (`RoundsHeld`, once per set
    of reasons) and releases them with the next round."""
    config = state.config
    if state.status is not TableStatus.OPEN or config is None or state.round_in_play:
        return []
    if state.video_lost is not None:
        return []
    last = state.round
    pause = timedelta(seconds=config.result_pause_seconds)
    if last is not None and last.ended_at is not None and now < last.ended_at + pause:
        return []
    if blockers:
        if tuple(blockers) == state.held:
            return []
        return [RoundsHeld(table_id=state.table_id, reasons=list(blockers))]
    released: list[Event] = [RoundsReleased(table_id=state.table_id)] if state.held else []
    number = 1 if last is None else last.number + 1
    return [
        *released,
        RoundOpened(
            round_id=round_id_for(state.table_id, number),
            table_id=state.table_id,
            number=number,
            opened_at=now,
            betting_closes_at=now + timedelta(seconds=config.betting_seconds),
            limits=config.limits,
            paytable=config.paytable,
        ),
    ]


def decide_close_betting(state: TableState, now: datetime) -> list[Event]:
    r = state.round_in_play
    if r is None or r.phase is not RoundPhase.BETTING or r.paused:
        return []
    if r.betting_closes_at is None or now < r.betting_closes_at:
        return []
    return [BettingClosed(round_id=r.round_id, table_id=state.table_id, closed_at=now)]


def decide_dealing_stall(
    state: TableState, now: datetime, dealing_stall: timedelta | None
) -> list[Event]:
    """A round dealing without its next card for `dealing_stall` pauses itself, so that a
    person sees it (GET /problems): rules, a started round completes, so time never
    cancels it; a round with no card yet is then cancelled by `decide_auto_cancel`."""
    r = state.round_in_play
    if dealing_stall is None or r is None or r.phase is not RoundPhase.DEALING or r.paused:
        return []
    if r.waiting_since is None or now < r.waiting_since + dealing_stall:
        return []
    position = DEALING_ORDER[len(r.cards)]
    return [
        RoundPaused(
            round_id=r.round_id,
            table_id=state.table_id,
            actor=SYSTEM_ACTOR,
            reason=f"no card for {dealing_stall.total_seconds():g} s (waiting for {position})",
        )
    ]


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
