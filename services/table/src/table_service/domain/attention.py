"""What a table holds for a person (`GET /problems`): a round paused (a started one that
stays paused too long is flagged `overdue`: rules, it completes, time never cancels it), a
card exposed during betting, a card marked wrong, a void (of the round in play, or of an
ended round after its result), a configuration change waiting for a second supervisor, the
studio's video reported lost, or rounds held for a service that is not ready.
Pure: `now` and the limits are passed in."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from .state import TableState

Fact = str | int | bool | None


@dataclass(frozen=True)
class Held:
    kind: str
    detail: str
    since: datetime
    round_id: str | None = None
    facts: dict[str, Fact] = field(default_factory=dict)
    actions: list[str] = field(default_factory=list)


def needs_person(state: TableState) -> bool:
    """Whether `held_for_people` may report anything (kept in the `tables` projection)."""
    r = state.round_in_play
    in_play = r is not None and (r.paused or r.exposed or r.void_requested_by is not None)
    return (
        in_play
        or state.pending_change is not None
        or bool(state.result_voids)
        or state.video_lost is not None
        or bool(state.held)
    )


def held_for_people(
    state: TableState, now: datetime, pause_timeout: timedelta, overdue_after: timedelta
) -> list[Held]:
    held: list[Held] = []
    base = f"/tables/{state.table_id}"
    r = state.round_in_play
    if r is not None and r.exposed and r.exposed_at is not None:
        held.append(
            Held(
                kind="exposed_card",
                detail=f"a card of {r.round_id} was read while betting was open; its value is"
                " sealed. Replace the deck and resume, or cancel the round (every bet"
                " refunded)",
                since=r.exposed_at,
                round_id=r.round_id,
                facts={"exposed_scans": len(r.exposed_scans)},
                actions=[f"POST {base}/replace-deck", f"POST {base}/cancel"],
            )
        )
    if r is not None and r.paused and r.paused_at is not None:
        paused_for = now - r.paused_at
        facts: dict[str, Fact] = {
            "started": r.started,
            "cards_dealt": len(r.cards),
            "paused_by": r.paused_by,
            "paused_seconds": int(paused_for.total_seconds()),
        }
        if r.started:
            facts["overdue"] = paused_for > overdue_after
            detail = (
                f"{r.round_id} is paused after {len(r.cards)} card(s) ({r.pause_reason}); a"
                " started round completes: resume it, or void it with two supervisors"
            )
        else:
            facts["cancels_at"] = (r.paused_at + pause_timeout).isoformat()
            detail = (
                f"{r.round_id} is paused before its first card ({r.pause_reason}); it is"
                " cancelled and every bet refunded unless resumed in time"
            )
        held.append(
            Held(
                kind="paused_round",
                detail=detail,
                since=r.paused_at,
                round_id=r.round_id,
                facts=facts,
                actions=[f"POST {base}/resume", f"POST {base}/cancel"],
            )
        )
    if r is not None and r.marked_wrong is not None and r.marked_wrong_at is not None:
        held.append(
            Held(
                kind="card_marked_wrong",
                detail=f"{r.marked_wrong_by} marked card {r.marked_wrong} of {r.round_id} wrong"
                f" ({r.marked_wrong_reason}); no card is dealt until another supervisor resumes"
                " the round (the card stands) or two void it",
                since=r.marked_wrong_at,
                round_id=r.round_id,
                facts={"position": r.marked_wrong, "marked_by": r.marked_wrong_by},
                actions=[f"POST {base}/resume", f"POST {base}/cancel"],
            )
        )
    if r is not None and r.void_requested_by is not None and r.void_requested_at is not None:
        held.append(
            Held(
                kind="void_requested",
                detail=f"{r.void_requested_by} asked to void {r.round_id} ({r.void_reason});"
                " the round is paused: another supervisor's cancel confirms it, a resume"
                " withdraws it",
                since=r.void_requested_at,
                round_id=r.round_id,
                facts={"requested_by": r.void_requested_by, "cards_dealt": len(r.cards)},
                actions=[f"POST {base}/cancel"],
            )
        )
    for round_id, request in sorted(state.result_voids.items()):
        void = f"{base}/rounds/{round_id}/void"
        held.append(
            Held(
                kind="result_void_requested",
                detail=f"{request.requested_by} asked to void {round_id} after its result"
                f" ({request.reason}); another supervisor confirms it (every bet refunded,"
                " what it paid taken back) or any supervisor rejects it",
                since=request.requested_at,
                round_id=round_id,
                facts={"requested_by": request.requested_by},
                actions=[f"POST {void}", f"POST {void}/reject"],
            )
        )
    video = state.video_lost
    if video is not None:
        held.append(
            Held(
                kind="video_lost",
                detail=f"{video.reported_by} reported the video lost ({video.reason}): no"
                " round opens until it is restored; a started round plays to its result",
                since=video.since,
                facts={"reported_by": video.reported_by},
                actions=[f"POST {base}/video-restored"],
            )
        )
    if state.held and state.held_since is not None:
        held.append(
            Held(
                kind="rounds_held",
                detail=f"no round opens: {'; '.join(state.held)}. The table asks again by"
                " itself and opens the next round once they are ready",
                since=state.held_since,
                facts={"reasons": "; ".join(state.held)},
            )
        )
    pending = state.pending_change
    if pending is not None:
        change = f"{base}/changes/{pending.change_id}"
        held.append(
            Held(
                kind="config_change_pending",
                detail=f"{pending.proposed_by} proposed a pay table or limits change; another"
                " supervisor approves or rejects it",
                since=pending.proposed_at,
                facts={"change_id": str(pending.change_id), "proposed_by": pending.proposed_by},
                actions=[f"POST {change}/approve", f"POST {change}/reject"],
            )
        )
    return held
