"""HTTP routes (thin: a key check, then a use case) and the WebSocket feed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal
from uuid import UUID

from fastapi import APIRouter, Depends, Path, Query, Response, WebSocket
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from redis.asyncio.client import PubSub
from redis.exceptions import RedisError
from starlette.websockets import WebSocketDisconnect, WebSocketState

from teenpatti.access import AccessUnavailableError
from teenpatti.access.holders import KeyHolder, record_refusal
from teenpatti.events.catalog import ResultVoidRequested, RoundVoided, registry
from teenpatti.events.contracts import EventContractError
from teenpatti.http import ProblemError
from teenpatti.kernel.dependencies import (
    Supervisor,
    SupervisorOrDealer,
    authenticate,
    authenticator,
    holder_of,
    provide,
    provide_ws,
)

from .adapters.feed_tickets import FeedTickets
from .adapters.redis_feed import FeedMessage, RedisTableFeed, feed_message
from .adapters.tables import TableSummary
from .adapters.views import (
    ConfigView,
    PendingChangeView,
    ResultVoidView,
    RoundView,
    VideoLostView,
    state_view,
)
from .clock import ClockManager
from .domain.decisions import OpenTable
from .domain.results import RoundRecord, round_number_in
from .domain.state import TableState, TableStatus
from .handlers import ResultVoid, TableService
from .rtp import BetParView

log = logging.getLogger(__name__)

router = APIRouter()

MAX_EVENTS_PAGE = 1000
MAX_RESULTS_PAGE = 100
# stream versions are Postgres `integer`: a position beyond it is refused, not sent to SQL
MAX_POSITION = 2**31 - 1
# with no live message for this long the feed checks the store itself (a lost publish, or
# a feed consumer that is behind, must not leave a client waiting forever)
FEED_RESYNC_SECONDS = 2.0
# an open feed checks its key again at most this often (a cache of 0 s: every second)
FEED_KEY_CHECK_MIN_SECONDS = 1.0


@dataclass
class Components:
    """What the routes need (`app.wire` builds it)."""

    service: TableService
    feed: RedisTableFeed
    clocks: ClockManager
    tickets: FeedTickets


Parts = Annotated[Components, Depends(provide(Components))]
AnyKey = Annotated[KeyHolder, Depends(holder_of())]  # any valid key, whatever its role


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TableOpen(_Body):
    table_id: str = Field(min_length=1, max_length=200)  # the domain checks the format
    name: str = Field(min_length=1, max_length=100)
    betting_seconds: float
    result_pause_seconds: float
    # checked by the domain, which names the exact problem (unpriced bet type, min > max...)
    limits: dict[str, Any]
    paytable: dict[str, Any] | None = None


class Reason(_Body):
    model_config = ConfigDict(use_attribute_docstrings=True)

    reason: str = Field(min_length=1, max_length=500)
    """Why, in the supervisor's words (1 to 500 characters); it is recorded in the event."""


class OptionalReason(_Body):
    model_config = ConfigDict(use_attribute_docstrings=True)

    reason: str | None = Field(default=None, max_length=500)
    """Why, in the supervisor's words (at most 500 characters)."""


class TablePublic(BaseModel):
    """A table's state: `GET /tables/{id}` and the answer to every command."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    table_id: str
    version: int
    """The table's stream version: how many events it has recorded; the table feed's position."""
    status: str
    """`unknown` (never opened), `open` or `closed`."""
    phase: str
    """`unknown`, `open` (no round yet), or the current or last round's: `betting`, `dealing`,
    `closed`, `cancelled`."""
    closed_reason: str | None
    """Why the table was closed; null while open."""
    config: ConfigView | None
    """The configuration in force (name, timings, limits, pay table); null before the table was
    opened."""
    round: RoundView | None
    """The current or last round; null before the first."""
    pending_change: PendingChangeView | None
    """A change of the pay table or limits waiting for a second supervisor; null when none."""
    result_voids: list[ResultVoidView]
    """Voids of ended rounds' results, each waiting for a second supervisor."""
    video_lost: VideoLostView | None
    """The studio reported the table's video lost: no round opens until it is restored; null when
    the video is fine."""
    rounds_held: list[str]
    """Why no round opens: each service a round needs that is not ready (empty when none)."""
    rounds_held_since: str | None
    """Since when rounds are held (ISO 8601, UTC); null when they are not."""

    @classmethod
    def of(cls, state: TableState) -> TablePublic:
        return cls(**state_view(state))


class TableList(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    tables: list[TableSummary]
    """Every table this key may read, as the listing shows it."""


class EventPage(BaseModel):
    """A page of the table's stream, in order: the events after `after`."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    table_id: str
    after: int
    """The position the page starts after, as asked."""
    events: list[FeedMessage]
    """The table's events after `after`, in order."""


class HandPublic(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    cards: list[str]
    """The player's three cards, in dealing order."""
    hand: str  # the three-card category: pair, straight, trail_of_aces...


class RoundResultPublic(BaseModel):
    """One round of the roadmap: closed with its result, cancelled with the cards dealt
    before the void (then no hands and no winner), or voided after its result (the result
    it voided, and when and why it was voided)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    round_id: str
    number: int
    status: str
    """`closed` (with its result), `cancelled` (the cards dealt before the void, no hands, no
    winner) or `voided` (the result it voided)."""
    ended_at: str  # when its result (or its cancellation) was recorded
    cards: list[str]  # dealing order A1 B1 A2 B2 A3 B3; fewer when cancelled
    player_a: HandPublic | None
    """Player A's cards and hand; null when cancelled."""
    player_b: HandPublic | None
    """Player B's cards and hand; null when cancelled."""
    winner: str | None  # player_a, player_b, tie
    six_card_bonus_hand: str | None
    voided_at: str | None
    void_reason: str | None

    @classmethod
    def of(cls, record: RoundRecord) -> RoundResultPublic:
        return cls(
            round_id=record.round_id,
            number=record.number,
            status=record.status,
            ended_at=record.ended_at.isoformat(),
            cards=list(record.cards),
            player_a=None
            if record.player_a_hand is None
            else HandPublic(cards=list(record.player_a_cards), hand=record.player_a_hand),
            player_b=None
            if record.player_b_hand is None
            else HandPublic(cards=list(record.player_b_cards), hand=record.player_b_hand),
            winner=record.winner,
            six_card_bonus_hand=record.six_card_bonus_hand,
            voided_at=None if record.voided_at is None else record.voided_at.isoformat(),
            void_reason=record.void_reason,
        )


class ResultVoidPublic(BaseModel):
    """What a void of a round after its result did: `requested` (another supervisor
    confirms it), `voided` (every bet refunded, what it paid taken back) or `rejected` (the
    result stands); and the round's roadmap row after it."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    table_id: str
    round_id: str
    status: Literal["requested", "voided", "rejected"]
    """`requested` (a second supervisor confirms it), `voided` (every bet refunded, what it paid
    taken back) or `rejected` (the result stands)."""
    requested_by: str
    actor: str
    """The supervisor who asked, confirmed or rejected, by this request."""
    reason: str
    """Why the void was asked for, in the supervisor's words."""
    round: RoundResultPublic | None
    """The round's roadmap row after it; null when the round is not known."""

    @classmethod
    def of(cls, done: ResultVoid) -> ResultVoidPublic:
        event = done.event
        status: Literal["requested", "voided", "rejected"]
        if isinstance(event, ResultVoidRequested):
            status, requested_by = "requested", event.actor
        elif isinstance(event, RoundVoided):
            status, requested_by = "voided", event.requested_by
        else:
            status, requested_by = "rejected", event.requested_by
        return cls(
            table_id=event.table_id,
            round_id=event.round_id,
            status=status,
            requested_by=requested_by,
            actor=event.actor,
            reason=event.reason,
            round=None if done.round is None else RoundResultPublic.of(done.round),
        )


class ResultPage(BaseModel):
    """The table's last rounds, newest first; `next` (the last round's id) is the `before`
    of the page of older ones, None when there are none."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    table_id: str
    results: list[RoundResultPublic]
    """The table's last rounds, newest first."""
    next: str | None
    """The `before` of the page of older rounds (the last round's id here); null when there are
    none."""


class ParSheetPublic(BaseModel):
    """The table's current pay table and, per bet type, its exact RTP and every paying
    outcome with its exact probability (the engine's PAR sheet; decimals are strings
    computed from the fractions)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    table_id: str
    paytable: dict[str, Any]
    bets: list[BetParView]
    """Per bet type, its exact RTP and every paying outcome with its exact probability."""


class FeedTicket(BaseModel):
    """Opens `WS /tables/{table_id}/feed?ticket=...` once, within `expires_in_seconds`."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    ticket: str
    """A single-use ticket that opens `WS /tables/{table_id}/feed?ticket=...` once: a browser's
    WebSocket cannot send the key in a header, and a key never goes in a URL."""
    expires_in_seconds: int
    """How long the ticket opens the feed, in seconds."""


class ClockShare(BaseModel):
    """This instance's share of the work."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    partitions: list[int]
    """The Kafka partitions of `table.events` this instance owns."""
    tables: list[str]
    """The tables whose clocks (betting time, the pause after a result) this instance runs."""


@router.get("/clocks")
async def get_clocks(_: AnyKey, parts: Parts) -> ClockShare:
    """This instance's share of the work: the partitions of `scanner.events` it owns (in the
    `table-scanner` group) and the tables whose clocks it runs (operations, and the takeover
    test)."""
    return ClockShare(
        partitions=sorted(parts.clocks.owned_partitions),
        tables=sorted(parts.clocks.running_tables),
    )


@router.post(
    "/tables",
    status_code=201,
    responses={200: {"model": TablePublic}, 202: {"model": TablePublic}},
)
async def open_table(
    body: TableOpen, holder: Supervisor, parts: Parts, response: Response
) -> TablePublic:
    """Open a table (201), or give it a new configuration from its next round (200; nothing
    changes when it is already open with exactly this one). Limits or a pay table not
    approved for this table before (a new table, a reopening or a change with other terms)
    are only proposed (202, `pending_change`): another supervisor approves them; the same
    proposal sent again by its proposer answers 202 with the change that waits. Refused
    (422) above the RTP ceiling."""
    holder.require_table(body.table_id, "/tables")
    command = OpenTable(
        table_id=body.table_id,
        name=body.name,
        betting_seconds=body.betting_seconds,
        result_pause_seconds=body.result_pause_seconds,
        limits=body.limits,
        paytable=body.paytable,
    )
    opened = await parts.service.open_table(command, holder.name)
    if opened.proposed is not None:
        response.status_code = 202
    elif not opened.created:
        response.status_code = 200
    return TablePublic.of(opened.state)


@router.post("/tables/{table_id}/changes/{change_id}/approve")
async def approve_change(
    table_id: str, change_id: UUID, holder: Supervisor, parts: Parts
) -> TablePublic:
    """Apply a proposed change from the next round: a supervisor other than its proposer."""
    return TablePublic.of(await parts.service.approve_change(table_id, change_id, holder.name))


@router.post("/tables/{table_id}/changes/{change_id}/reject")
async def reject_change(
    table_id: str, change_id: UUID, body: Reason, holder: Supervisor, parts: Parts
) -> TablePublic:
    """Drop a proposed change (its proposer may withdraw it)."""
    return TablePublic.of(
        await parts.service.reject_change(table_id, change_id, holder.name, body.reason)
    )


@router.get("/tables")
async def get_tables(holder: AnyKey, parts: Parts) -> TableList:
    """The tables the key may act on."""
    tables = await parts.service.tables()
    return TableList(tables=[t for t in tables if holder.may_act_on(t["table_id"])])


@router.get("/tables/{table_id}")
async def get_table(table_id: str, _: AnyKey, parts: Parts) -> TablePublic:
    """The table's state: its configuration, the round in play or the last one, what waits for a
    second supervisor, and why rounds are held, if they are. Any valid key may read it (a key
    scoped to other tables: 403 `table_not_in_scope`); a table never opened: 404 `unknown_table`."""
    try:
        live = await parts.feed.live_state(table_id)
    except RedisError as error:  # Redis is a cache here: the store still answers
        log.warning("live state of %s unavailable from Redis: %s", table_id, error)
        live = None
    if live is not None:
        try:
            return TablePublic.model_validate(live)
        except ValidationError as error:  # not a state this code wrote: read the store
            log.warning("live state of %s unreadable: %s", table_id, error)
    state = await parts.service.load(table_id)
    _require_known(state)
    view = state_view(state)
    with contextlib.suppress(RedisError):
        await parts.feed.store_state(table_id, view)
    return TablePublic(**view)


@router.get("/tables/{table_id}/events")
async def get_events(
    table_id: str,
    _: AnyKey,
    parts: Parts,
    after: Annotated[
        int,
        Query(
            ge=0,
            le=MAX_POSITION,
            description="The position (stream version) the page starts after: 0 for the"
            " first event, else the last `position` read.",
        ),
    ] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_EVENTS_PAGE)] = MAX_EVENTS_PAGE,
) -> EventPage:
    """A page of the table's event stream, in order, after the position `after` (0: from the start):
    what the live feed sends, for a reader catching up (docs/asyncapi.yaml describes each event).
    Any valid key; a table never opened: 404 `unknown_table`."""
    rows = await parts.service.events(table_id, after, limit)
    if not rows and not await parts.service.exists(table_id):
        raise ProblemError(404, "unknown_table", f"table {table_id} was never opened")
    events = [
        feed_message(row.stream_version, row.event_type, row.payload, row.occurred_at.isoformat())
        for row in rows
    ]
    return EventPage(table_id=table_id, after=after, events=events)


@router.get("/tables/{table_id}/results")
async def get_results(
    table_id: str,
    _: AnyKey,
    parts: Parts,
    limit: Annotated[int, Query(ge=1, le=MAX_RESULTS_PAGE)] = 20,
    before: Annotated[
        str | None,
        Query(
            max_length=100,
            description="The `next` of the page before (a round id of this table): the"
            " rounds older than it; left out for the newest.",
        ),
    ] = None,
) -> ResultPage:
    """The roadmap: the table's last rounds that ended, newest first; `before` (a page's
    `next`) for older ones."""
    before_number = None
    if before is not None:
        before_number = round_number_in(before, table_id)
        if before_number is None:
            raise ProblemError(
                422,
                "invalid_cursor",
                f"before must be the `next` of a page of this table's results "
                f"(a round id such as {table_id}-000042)",
            )
    records = await parts.service.results(table_id, limit + 1, before_number)
    if not records and not await parts.service.exists(table_id):
        raise ProblemError(404, "unknown_table", f"table {table_id} was never opened")
    page = records[:limit]
    return ResultPage(
        table_id=table_id,
        results=[RoundResultPublic.of(record) for record in page],
        next=page[-1].round_id if len(records) > limit else None,
    )


@router.get("/tables/{table_id}/par-sheet")
async def get_par_sheet(table_id: str, _: AnyKey, parts: Parts) -> ParSheetPublic:
    """The table's current pay table priced exactly: each bet type's RTP and each paying
    outcome's probability, over every possible deal (docs/par-sheet.md)."""
    sheet = await parts.service.par_sheet(table_id)
    if sheet is None:
        raise ProblemError(404, "unknown_table", f"table {table_id} was never opened")
    return ParSheetPublic(table_id=table_id, paytable=sheet["paytable"], bets=sheet["bets"])


@router.post("/tables/{table_id}/close")
async def close_table(table_id: str, body: Reason, holder: Supervisor, parts: Parts) -> TablePublic:
    """Close the table once the round in play ends (`TableClosed`): no round opens after it. A
    supervisor's key, scoped to the table."""
    return TablePublic.of(await parts.service.close_table(table_id, holder.name, body.reason))


@router.post("/tables/{table_id}/pause")
async def pause_round(
    table_id: str, body: Reason, holder: SupervisorOrDealer, parts: Parts
) -> TablePublic:
    """Stop the round in play at once: a supervisor or the dealer (rules, pause/void); only
    a supervisor resumes it."""
    return TablePublic.of(await parts.service.pause(table_id, holder.name, body.reason))


@router.post("/tables/{table_id}/video-lost")
async def report_video_lost(
    table_id: str, body: Reason, holder: SupervisorOrDealer, parts: Parts
) -> TablePublic:
    """The studio (the dealer, or a supervisor) reports the table's video or stream lost:
    a round with no card dealt yet is cancelled and every bet refunded, a started round
    plays to its result, and no new round opens until the video is restored (rules, error
    handling). Reported again, nothing changes."""
    return TablePublic.of(await parts.service.video_lost(table_id, holder.name, body.reason))


@router.post("/tables/{table_id}/video-restored")
async def report_video_restored(
    table_id: str, holder: SupervisorOrDealer, parts: Parts, body: OptionalReason | None = None
) -> TablePublic:
    """The table's video is back: rounds open again."""
    reason = (body.reason if body is not None else None) or ""
    return TablePublic.of(await parts.service.video_restored(table_id, holder.name, reason))


@router.post("/tables/{table_id}/resume")
async def resume_round(
    table_id: str, holder: Supervisor, parts: Parts, body: OptionalReason | None = None
) -> TablePublic:
    """Resume the round a supervisor or dealer paused: betting goes on for the time it had left, or
    dealing goes on. A supervisor's key, scoped to the table; refused: 409 `nothing_to_resume`
    (not paused), 409 `card_exposed` (replace the deck first), 403 `same_supervisor` (a card this
    supervisor marked wrong: another one resumes)."""
    return TablePublic.of(await parts.service.resume(table_id, holder.name))


@router.post("/tables/{table_id}/replace-deck")
async def replace_deck(
    table_id: str, body: Reason, holder: Supervisor, parts: Parts
) -> TablePublic:
    """After a card was exposed during betting: the deck is replaced, the round may resume."""
    return TablePublic.of(await parts.service.replace_deck(table_id, holder.name, body.reason))


@router.post("/tables/{table_id}/cards/{position}/wrong")
async def mark_card_wrong(
    table_id: str,
    position: Annotated[str, Path(pattern=r"^[AB][123]$", description="A1, B1, A2, B2, A3 or B3")],
    body: Reason,
    holder: Supervisor,
    parts: Parts,
) -> TablePublic:
    """A dealt card is wrong (a misread that is still a card, a card on the wrong spot): the
    round is paused at once. Another supervisor resumes it (the card stands), or two void it
    (`POST /tables/{table_id}/cancel`)."""
    return TablePublic.of(
        await parts.service.mark_wrong(table_id, holder.name, position, body.reason)
    )


@router.post("/tables/{table_id}/rescan")
async def rescan_from_wrong_card(
    table_id: str, body: Reason, holder: Supervisor, parts: Parts
) -> TablePublic:
    """The card marked wrong and every card dealt after it are taken back, and the round
    resumes: the dealer deals again from that position. Another supervisor than the one who
    marked it."""
    return TablePublic.of(await parts.service.rescan(table_id, holder.name, body.reason))


@router.post("/tables/{table_id}/cancel", responses={202: {"model": TablePublic}})
async def cancel_round(
    table_id: str, body: Reason, holder: Supervisor, parts: Parts, response: Response
) -> TablePublic:
    """Void the round in play, every bet refunded. Once a card is dealt it takes two
    supervisors: the first one's cancel is only a request (202, `void_requested_by`)."""
    state = await parts.service.cancel(table_id, holder.name, body.reason)
    r = state.round_in_play
    if r is not None and r.void_requested_by is not None:
        response.status_code = 202
    return TablePublic.of(state)


@router.post(
    "/tables/{table_id}/rounds/{round_id}/void",
    responses={202: {"model": ResultVoidPublic}},
)
async def void_result(
    table_id: str,
    round_id: Annotated[str, Path(max_length=100)],
    body: Reason,
    holder: Supervisor,
    parts: Parts,
    response: Response,
) -> ResultVoidPublic:
    """Void a round after its result, within `TP_CORRECTION_WINDOW_HOURS` of it: it takes two
    supervisors. The first one's void is only a request (202, `requested`); another's
    confirms it (200, `voided`: `RoundVoided`, every bet refunded and what it paid taken
    back)."""
    done = await parts.service.void_result(table_id, round_id, holder.name, body.reason)
    if isinstance(done.event, ResultVoidRequested):
        response.status_code = 202
    return ResultVoidPublic.of(done)


@router.post("/tables/{table_id}/rounds/{round_id}/void/reject")
async def reject_void_result(
    table_id: str,
    round_id: Annotated[str, Path(max_length=100)],
    body: Reason,
    holder: Supervisor,
    parts: Parts,
) -> ResultVoidPublic:
    """Turn down a request to void a round after its result (its author may withdraw it):
    the result stands."""
    done = await parts.service.reject_void_result(table_id, round_id, holder.name, body.reason)
    return ResultVoidPublic.of(done)


def _require_known(state: TableState) -> None:
    if state.status is TableStatus.UNKNOWN:
        raise ProblemError(404, "unknown_table", f"table {state.table_id} was never opened")


# ---------------------------------------------------------------------------- WebSocket
@router.post("/tables/{table_id}/feed/tickets", status_code=201)
async def issue_feed_ticket(table_id: str, holder: AnyKey, parts: Parts) -> FeedTicket:
    """A single-use ticket that opens this table's feed within a few seconds, for clients
    that cannot send a header with a WebSocket (browsers); the key never goes in a URL."""
    ticket = await parts.tickets.issue(table_id, holder)
    return FeedTicket(ticket=ticket, expires_in_seconds=parts.tickets.ttl_seconds)


@router.websocket("/tables/{table_id}/feed")
async def table_feed(
    websocket: WebSocket,
    table_id: str,
    parts: Annotated[Components, Depends(provide_ws(Components))],
    after: Annotated[
        int,
        Query(
            ge=0,
            le=MAX_POSITION,
            description="The position (stream version) the page starts after: 0 for the"
            " first event, else the last `position` read.",
        ),
    ] = 0,
    ticket: str | None = None,
) -> None:
    """Every event after `after`, then live ones, in stream order with no gap or repeat.
    Opened with the `X-Api-Key` header, or a ticket (`POST .../feed/tickets`), never a key
    in the URL. The key is checked again while the feed is open: revoked or expired, the
    feed is closed (4401)."""
    path = websocket.url.path
    try:
        if ticket is not None:
            holder = await _redeem(parts.tickets, ticket, table_id, path)

            async def key_holds() -> None:
                await authenticator(websocket).recheck(holder, path)

        else:
            key = websocket.headers.get("x-api-key")
            await authenticate(websocket, key)

            async def key_holds() -> None:
                await authenticate(websocket, key)

    except ProblemError as error:
        await websocket.accept()
        await websocket.close(code=4401 if error.status == 401 else 4403, reason=error.detail)
        return
    if not await parts.service.exists(table_id):
        await websocket.accept()
        await websocket.close(code=4404, reason=f"table {table_id} was never opened")
        return
    pubsub = parts.feed.redis.pubsub()
    await websocket.accept()
    try:
        # subscribe before reading the catch-up: an event appended meanwhile is then either
        # in the catch-up or on the channel (and skipped if in both)
        await pubsub.subscribe(parts.feed.channel(table_id))
    except RedisError as error:
        log.warning("feed of %s: Redis unavailable: %s", table_id, error)
        await websocket.close(code=1011, reason="the live feed is unavailable; retry")
        return
    disconnected = asyncio.create_task(_wait_disconnect(websocket))
    try:
        await _stream(websocket, pubsub, parts, table_id, after, disconnected, key_holds)
    except ProblemError as error:  # the key was revoked or expired while the feed was open
        with contextlib.suppress(Exception):
            await websocket.close(code=4401 if error.status == 401 else 4403, reason=error.detail)
    except AccessUnavailableError:
        with contextlib.suppress(Exception):
            await websocket.close(code=1011, reason="the key cannot be checked now; reconnect")
    except (WebSocketDisconnect, RuntimeError, ConnectionError):
        pass  # the client left
    except RedisError as error:
        # the client reconnects with the last position it received and misses nothing
        log.warning("feed of %s: Redis failed: %s", table_id, error)
        with contextlib.suppress(Exception):
            await websocket.close(code=1011, reason="the live feed was interrupted; reconnect")
    finally:
        disconnected.cancel()
        with contextlib.suppress(Exception):
            await pubsub.unsubscribe()
            await pubsub.aclose()  # type: ignore[no-untyped-call]
        if websocket.client_state is WebSocketState.CONNECTED:
            with contextlib.suppress(Exception):
                await websocket.close()


async def _redeem(tickets: FeedTickets, ticket: str, table_id: str, path: str) -> KeyHolder:
    """The ticket opens this table's feed (and is spent): who asked for it; else a 401
    problem, recorded."""
    try:
        redeemed = await tickets.redeem(ticket)
    except RedisError as error:
        raise ProblemError(401, "invalid_ticket", "tickets cannot be checked; retry") from error
    if redeemed is None or redeemed.table_id != table_id:
        record_refusal("invalid_ticket", path=path)
        raise ProblemError(401, "invalid_ticket", "the ticket is unknown, used or expired")
    return redeemed.holder


async def _stream(
    websocket: WebSocket,
    pubsub: PubSub,
    parts: Components,
    table_id: str,
    after: int,
    disconnected: asyncio.Task[None],
    key_holds: Callable[[], Awaitable[None]],
) -> None:
    sent = after
    sent = await _catch_up(websocket, parts, table_id, sent)
    idle = 0.0
    # as often as a revocation may take to be seen (TP_ACCESS_CACHE_SECONDS)
    check_every = max(authenticator(websocket).cache_seconds, FEED_KEY_CHECK_MIN_SECONDS)
    checked_at = time.monotonic()
    while not disconnected.done():
        if time.monotonic() - checked_at >= check_every:
            await key_holds()  # a ProblemError ends the feed
            checked_at = time.monotonic()
        message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.5)
        if message is None:
            idle += 0.5
            if idle >= FEED_RESYNC_SECONDS:
                sent, idle = await _catch_up(websocket, parts, table_id, sent), 0.0
            continue
        idle = 0.0
        event = trusted_feed_message(message["data"])
        if event is None:
            # not a message this service wrote: nothing of it is relayed; the store is read
            log.warning("table %s: a feed message that is not an event was passed over", table_id)
            sent = await _catch_up(websocket, parts, table_id, sent)
            continue
        position = event["position"]
        if position <= sent:
            continue  # already sent (from the catch-up, or a repeated publish)
        if position > sent + 1:
            sent = await _catch_up(websocket, parts, table_id, sent)  # fill a gap from the store
            if position <= sent:
                continue
        await websocket.send_json(event)
        sent = position


def trusted_feed_message(data: str | bytes) -> FeedMessage | None:
    """A message of the table's feed channel as this service publishes it (`feed_message`):
    exactly its four fields, a position, a catalog event type and a payload that decodes as
    that event; else None. Only the table's Redis user may publish there (deploy/): this is
    the second line, so that nothing else a channel carries reaches a viewer."""
    try:
        message = json.loads(data)
    except ValueError:
        return None
    if not isinstance(message, dict) or set(message) != set(FEED_FIELDS):
        return None
    position, event_type, payload = message["position"], message["event_type"], message["payload"]
    event_class = registry.event_types.get(event_type) if isinstance(event_type, str) else None
    if (
        isinstance(position, bool)
        or not isinstance(position, int)
        or position < 1
        or event_class is None
        or not isinstance(payload, dict)
        or not isinstance(message["occurred_at"], str)
    ):
        return None
    try:
        registry.decode(event_type, event_class.schema_version, payload)
    except (EventContractError, ValueError):
        return None
    return feed_message(position, event_type, payload, message["occurred_at"])


FEED_FIELDS = ("position", "event_type", "payload", "occurred_at")


async def _catch_up(websocket: WebSocket, parts: Components, table_id: str, sent: int) -> int:
    """Send what the store holds after `sent`; the new last position sent."""
    while True:
        rows = await parts.service.events(table_id, sent, MAX_EVENTS_PAGE)
        for row in rows:
            await websocket.send_json(
                feed_message(
                    row.stream_version, row.event_type, row.payload, row.occurred_at.isoformat()
                )
            )
            sent = row.stream_version
        if len(rows) < MAX_EVENTS_PAGE:
            return sent


async def _wait_disconnect(websocket: WebSocket) -> None:
    with contextlib.suppress(Exception):
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
