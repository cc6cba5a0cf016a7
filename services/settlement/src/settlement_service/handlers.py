"""Use cases: record input events in the projection, then settle their rounds once ready.

Each is a subscription handler (`app.py`): it takes a run of events of its type, in order, as
the kernel hands them, inside the consumer's Postgres transaction (the one that also records
the events as processed), and locks each event's round row before applying it: so a round's
events are applied one at a time across consumers and instances. The transaction that makes
a round ready decides its settlement: it appends the first part (the whole settlement, for a
round of up to one part) with those bets' outcomes and the round's `decided_at`, together or
not at all; a `Settler` appends the other parts, a transaction each (`settler.py`).

An identical repeat of a fact (a redelivery under a new event id) changes nothing. A second,
different version of a fact (another book, result, pay table or bet under the same id) is
recorded as a `conflicting_*` problem: the first version stays on record and the round is
held, unsettled, until two supervisors release it (settled on the facts on record) or void
it (every stake refunded) from the API: `request_resolution`, then `confirm_resolution`
(docs/decisions/0060-two-supervisors-resolve-a-held-settlement.md).

A round voided after its result (`RoundVoided`) has its settlement reversed
(`reverse_if_voided`) in the transaction where both are known: the void's, when the round
is settled already, else the one that appends its `RoundSettled` (here, or the `Settler`'s).
A voided round held unsettled shows as `voided_waits_for_settlement` until two supervisors
resolve the hold.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol
from uuid import UUID, uuid4

import asyncpg

from teenpatti.events import EventEnvelope
from teenpatti.events.catalog import (
    BetBookClosed,
    BetSettled,
    BetsPlaced,
    BetsReversed,
    BetsSettled,
    PlacedLine,
    RoundCancelled,
    RoundClosed,
    RoundOpened,
    RoundReversed,
    RoundSettled,
    RoundVoided,
    SettlementResolutionRequested,
    SettlementResolved,
    book_digest,
    registry,
)
from teenpatti.eventsourcing import AsyncpgEventStore, ConcurrencyError, StoredEvent
from teenpatti.kernel import Received

from .adapters.postgres import Resolution, RoundRow, SettlementProjection
from .domain import (
    Decision,
    Held,
    PlacedBet,
    RoundFacts,
    SealedBook,
    Settle,
    Waiting,
    decide,
    reverse,
    void_reason,
)

log = logging.getLogger(__name__)


def settlement_stream(round_id: str) -> str:
    return f"settlement-{round_id}"


def resolution_stream(round_id: str) -> str:
    """The requests and confirmations that resolve a held round: apart from its settlement
    stream, whose versions count its parts."""
    return f"resolution-{round_id}"


class Cause(Protocol):
    """What a settlement's events are appended as caused by: an input event, or the
    confirmation of a resolution."""

    @property
    def event_id(self) -> UUID: ...

    @property
    def correlation_id(self) -> UUID: ...


@dataclass(frozen=True)
class _Appended:
    event_id: UUID
    correlation_id: UUID


class ResolutionRefusedError(Exception):
    """A resolution of a held round that is not recorded or not carried out: its problem's
    status and code."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail


def _utc_now() -> datetime:
    return datetime.now(UTC)


class Settlement:
    """The settlement use cases over one event store (the service's own database)."""

    def __init__(
        self,
        store: AsyncpgEventStore,
        clock: Callable[[], datetime] = _utc_now,
        *,
        on_decided: Callable[[Settle], None] | None = None,
    ) -> None:
        """`on_decided` hears of each settlement decided with events left to append (the
        `Settler`'s `take`), once they are in the consumer's transaction."""
        self._store = store
        self._clock = clock
        self._on_decided = on_decided
        self._books: dict[str, _BookRead] = {}  # round id -> its bets as last read
        self._kept = 0  # bets in `_books`

    async def round_opened(
        self, connection: asyncpg.Connection, received: list[Received[RoundOpened]]
    ) -> None:
        """Each round's pay table."""
        projection = SettlementProjection(connection)
        for one in received:
            event = one.event
            round_ = await projection.lock_round(event.round_id, event.table_id)
            paytable = event.model_dump(mode="json")["paytable"]
            if round_.paytable is None:
                await projection.set_paytable(event.round_id, paytable, event.opened_at)
                if round_.paytable_source == "published_fallback":
                    # Only if RoundOpened came after the round's end, against the table's own
                    # order: the round was paid by the published table; a person must compare.
                    await _hold(
                        projection,
                        event.round_id,
                        "paytable_after_settlement",
                        "RoundOpened arrived after the round was settled with the published table",
                    )
            elif round_.paytable != paytable:
                await _hold(
                    projection,
                    event.round_id,
                    "conflicting_paytable",
                    "a second RoundOpened with another pay table",
                )
            await self._settle_if_ready(projection, event.round_id, event.table_id, one.envelope)

    async def round_closed(
        self, connection: asyncpg.Connection, received: list[Received[RoundClosed]]
    ) -> None:
        """Each round's result."""
        projection = SettlementProjection(connection)
        for one in received:
            event = one.event
            round_ = await projection.lock_round(event.round_id, event.table_id)
            result = event.model_dump(mode="json")
            if round_.cancelled:
                await _hold(
                    projection,
                    event.round_id,
                    "conflicting_outcome",
                    "RoundClosed for a round already cancelled",
                )
            elif round_.result is None:
                await projection.set_result(event.round_id, result)
            elif round_.result != result:
                await _hold(
                    projection,
                    event.round_id,
                    "conflicting_result",
                    f"a second RoundClosed with other cards {event.cards}",
                )
            await self._settle_if_ready(projection, event.round_id, event.table_id, one.envelope)

    async def round_cancelled(
        self, connection: asyncpg.Connection, received: list[Received[RoundCancelled]]
    ) -> None:
        """Each round's cancellation: its bets are settled as returned."""
        projection = SettlementProjection(connection)
        for one in received:
            event = one.event
            round_ = await projection.lock_round(event.round_id, event.table_id)
            if round_.result is not None:
                await _hold(
                    projection,
                    event.round_id,
                    "conflicting_outcome",
                    "RoundCancelled for a round already closed with a result",
                )
            elif not round_.cancelled:
                await projection.set_cancelled(event.round_id, event.reason)
            await self._settle_if_ready(projection, event.round_id, event.table_id, one.envelope)

    async def round_voided(
        self, connection: asyncpg.Connection, received: list[Received[RoundVoided]]
    ) -> None:
        """Each round voided after its result: its settlement reversed at once if it is
        settled, else once it is; the first void stands, a repeat changes nothing."""
        projection = SettlementProjection(connection)
        for one in received:
            event = one.event
            round_ = await projection.lock_round(event.round_id, event.table_id)
            reason = void_reason(event.reason, event.requested_by, event.actor)
            if round_.voided:
                if round_.void_reason != reason:
                    log.warning("round %s: a second void ignored: %s", event.round_id, reason)
                continue
            log.warning("round %s voided after its result: %s", event.round_id, reason)
            await projection.set_voided(event.round_id, reason, one.envelope.occurred_at)
            voided = _voided_result(event)
            if round_.result is None and not round_.cancelled:
                # its RoundClosed never came (lost, or parked): the void carries the result
                await projection.set_result(event.round_id, voided)
            elif round_.result != voided:
                await projection.record_problem(
                    event.round_id,
                    VOIDED_OTHER_RESULT,
                    f"RoundVoided voids cards {event.cards}, settlement holds"
                    f" {'a cancellation' if round_.result is None else round_.result['cards']};"
                    " the settlement is reversed as it was stated",
                )
            if round_.settled:
                await self._reverse(projection, event.round_id, one.envelope)
            else:
                await self._settle_if_ready(
                    projection, event.round_id, event.table_id, one.envelope
                )
                await _show_voided_waits(projection, event.round_id)

    async def bets_placed(
        self, connection: asyncpg.Connection, received: list[Received[BetsPlaced]]
    ) -> None:
        """A run of slips, their bets in order, with a few statements for all: while a
        round's book is open (every bet during betting) a bet only has to be recorded, since
        no settlement can be ready before the book is sealed. The rest (a bet held already,
        or one for a round with a book or settled) goes through `_bet_placed` one by one."""
        placed = [(line, one.envelope) for one in received for line in one.event.each()]
        projection = SettlementProjection(connection)
        rounds = await projection.lock_rounds({e.round_id: e.table_id for e, _ in placed})

        def book_open(bet: PlacedLine) -> bool:
            round_ = rounds[bet.round_id]
            return round_.book is None and not round_.settled

        new = await projection.add_bets(
            [(_placed(bet), bet.slip_id) for bet, _ in placed if book_open(bet)]
        )
        for bet, envelope in placed:
            if book_open(bet) and bet.bet_id in new:
                new.discard(bet.bet_id)  # recorded; a later copy in this batch is not new
            else:
                await self._bet_placed(projection, bet, envelope)

    async def _bet_placed(
        self, projection: SettlementProjection, placed: PlacedLine, cause: EventEnvelope
    ) -> None:
        """One bet of a slip."""
        round_ = await projection.lock_round(placed.round_id, placed.table_id)
        bet = _placed(placed)
        held = await projection.add_bet(bet, placed.slip_id, late=round_.decided)
        if held is not None:
            # The same bet again (a redelivery under a new event id): nothing to do, unless
            # it says something else, which only a person can sort out.
            if _essentials(held) != _essentials(bet):
                await _hold(
                    projection,
                    placed.round_id,
                    f"conflicting_bet:{placed.bet_id}",
                    f"bet {placed.bet_id} placed again with other values",
                )
            return
        if round_.decided:
            await _hold(
                projection,
                placed.round_id,
                f"bet_after_settlement:{placed.bet_id}",
                f"bet {placed.bet_id} placed after the round was settled; not settled",
            )
            return
        await self._settle_if_ready(projection, placed.round_id, placed.table_id, cause)

    async def book_closed(
        self, connection: asyncpg.Connection, received: list[Received[BetBookClosed]]
    ) -> None:
        """Each round's sealed bet book."""
        projection = SettlementProjection(connection)
        for one in received:
            event = one.event
            round_ = await projection.lock_round(event.round_id, event.table_id)
            book = SealedBook(event.bet_count, event.digest, dict(event.total_stake))
            if round_.book is None:
                await projection.set_book(event.round_id, book)
            elif round_.book != book:
                await _hold(
                    projection,
                    event.round_id,
                    "conflicting_book",
                    f"a second BetBookClosed with {event.bet_count} bets, digest {event.digest}",
                )
            await self._settle_if_ready(projection, event.round_id, event.table_id, one.envelope)

    async def _settle_if_ready(
        self,
        projection: SettlementProjection,
        round_id: str,
        table_id: str,
        cause: Cause,
    ) -> None:
        round_ = await projection.lock_round(round_id, table_id)  # already ours: a fresh read
        await self._act(projection, round_, await self._evaluate(projection, round_), cause)

    async def _evaluate(
        self,
        projection: SettlementProjection,
        round_: RoundRow,
        *,
        facts: RoundFacts | None = None,
        despite_conflicts: bool = False,
    ) -> Decision | None:
        """What settling the locked round decides now (with `facts` in place of its own);
        None if it is decided already or conflicting inputs hold it."""
        round_id = round_.round_id
        if round_.decided:
            return None
        # Cheap checks first: during betting every bet placed comes here, and loading every
        # bet of the round each time would cost O(bets²) per round. decide() applies the
        # whole rule once the book is sealed and every bet may be there.
        if round_.book is None:
            return Waiting("the bet book is not sealed yet")
        count = await projection.count_bets(round_id)
        if count < round_.book.bet_count:
            return Waiting(f"{count} of {round_.book.bet_count} bets received")
        if not despite_conflicts:
            conflicts = await projection.conflicts(round_id)
            if conflicts:
                # Two versions of the same fact: which one is right is for a person to say.
                log.error("round %s held: conflicting inputs %s", round_id, ", ".join(conflicts))
                return None
        book = await self._book_read(projection, round_id, count)
        decision = decide(facts or round_.facts(), book.bets, self._clock(), book.digest)
        if not isinstance(decision, Waiting):
            self._forget(round_id)
        return decision

    async def _act(
        self,
        projection: SettlementProjection,
        round_: RoundRow,
        decision: Decision | None,
        cause: Cause,
    ) -> None:
        match decision:
            case None:
                pass
            case Waiting(reason):
                log.debug("round %s not ready: %s", round_.round_id, reason)
            case Held(kind, detail):
                await _hold(projection, round_.round_id, kind, detail)
            case Settle():
                await self._settle(projection, decision, round_, cause)

    # ------------------------------------------------------- resolving a held round
    async def request_resolution(
        self,
        connection: asyncpg.Connection,
        round_id: str,
        action: str,
        reason: str,
        requested_by: str,
    ) -> Resolution:
        """A supervisor asks to release a held round (settle it on the facts on record once
        they agree) or to void it (refund every stake); recorded, carried out only once
        another supervisor confirms it. A newer request supersedes a pending one."""
        projection = SettlementProjection(connection)
        round_ = await projection.find_round_for_update(round_id)
        if round_ is None:
            raise ResolutionRefusedError(404, "unknown_round", f"no round {round_id!r} is known")
        if round_.decided:
            raise ResolutionRefusedError(
                409, "round_not_held", f"round {round_id} is settled already"
            )
        problems = await projection.open_problems(round_id)
        if not problems:
            raise ResolutionRefusedError(
                409, "round_not_held", f"no open problem holds round {round_id}"
            )
        resolution = Resolution(
            resolution_id=uuid4(),
            round_id=round_id,
            action=action,
            reason=reason,
            problems=tuple(problems),
            requested_by=requested_by,
            requested_at=self._clock(),
        )
        await projection.add_resolution(resolution)
        await self._append_resolution(
            projection,
            round_.table_id,
            SettlementResolutionRequested(
                resolution_id=resolution.resolution_id,
                round_id=round_id,
                table_id=round_.table_id,
                action=resolution.action,
                reason=reason,
                problems=list(problems),
                requested_by=requested_by,
            ),
        )
        log.warning(
            "round %s: %s requested by %s (%s), held by %s",
            round_id,
            action,
            requested_by,
            resolution.resolution_id,
            ", ".join(problems),
        )
        return resolution

    async def confirm_resolution(
        self,
        connection: asyncpg.Connection,
        round_id: str,
        resolution_id: UUID,
        confirmed_by: str,
    ) -> Resolution:
        """A second supervisor confirms a pending request, which is then carried out in this
        transaction. `release`: the round's open problems are closed and the round is
        settled if its facts on record now agree (else it stays waiting, or held again).
        `void`: the round is settled as cancelled, every bet refunded, as soon as its book
        is whole; `SettlementResolved` comes before the settlement, so the wallet learns of
        the void before it pays the refunds."""
        projection = SettlementProjection(connection)
        round_ = await projection.find_round_for_update(round_id)
        resolution = await projection.resolution_for_update(resolution_id)
        if round_ is None or resolution is None or resolution.round_id != round_id:
            raise ResolutionRefusedError(
                404, "unknown_resolution", f"no resolution {resolution_id} of round {round_id}"
            )
        if resolution.status != "pending":
            raise ResolutionRefusedError(
                409, "resolution_not_pending", f"resolution {resolution_id} is {resolution.status}"
            )
        if confirmed_by == resolution.requested_by:
            raise ResolutionRefusedError(
                403,
                "same_supervisor",
                f"{confirmed_by} asked for this {resolution.action}: another supervisor confirms",
            )
        if round_.decided:
            raise ResolutionRefusedError(
                409, "round_not_held", f"round {round_id} is settled already"
            )
        both = f"{resolution.requested_by}, {confirmed_by}"
        decision: Decision | None
        if resolution.action == "void":
            voided = dataclasses.replace(
                round_.facts(), result=None, cancel_reason=f"voided: {resolution.reason}"
            )
            decision = await self._evaluate(
                projection, round_, facts=voided, despite_conflicts=True
            )
            if not isinstance(decision, Settle):
                why = (
                    decision.detail
                    if isinstance(decision, Held)
                    else decision.reason
                    if isinstance(decision, Waiting)
                    else "it is decided already"
                )
                raise ResolutionRefusedError(
                    409, "cannot_void", f"round {round_id} cannot be voided yet: {why}"
                )
            await projection.set_cancelled(round_id, f"voided: {resolution.reason}")
            await projection.resolve_problems(round_id, both)
        else:
            await projection.resolve_problems(round_id, both)
            decision = await self._evaluate(projection, round_)
        outcome = (
            "settled"
            if isinstance(decision, Settle)
            else "held"
            if isinstance(decision, Held)
            else "waiting"
        )
        confirmed_at = self._clock()
        await projection.confirm_resolution(resolution_id, confirmed_by, confirmed_at, outcome)
        cause = await self._append_resolution(
            projection,
            round_.table_id,
            SettlementResolved(
                resolution_id=resolution_id,
                round_id=round_id,
                table_id=round_.table_id,
                action=resolution.action,
                reason=resolution.reason,
                problems=list(resolution.problems),
                requested_by=resolution.requested_by,
                confirmed_by=confirmed_by,
            ),
        )
        log.warning(
            "round %s: %s confirmed by %s (asked by %s): %s",
            round_id,
            resolution.action,
            confirmed_by,
            resolution.requested_by,
            outcome,
        )
        await self._act(projection, round_, decision, cause)
        return dataclasses.replace(
            resolution,
            status="confirmed",
            confirmed_by=confirmed_by,
            confirmed_at=confirmed_at,
            outcome=outcome,
        )

    async def _append_resolution(
        self,
        projection: SettlementProjection,
        table_id: str,
        event: SettlementResolutionRequested | SettlementResolved,
    ) -> _Appended:
        stream_id = resolution_stream(event.round_id)
        version = await self._store.stream_version(stream_id, connection=projection.connection)
        appended = await self._store.append(
            stream_id, version, [event], table_id=table_id, connection=projection.connection
        )
        (event_id,) = appended.event_ids
        return _Appended(event_id=event_id, correlation_id=event_id)

    async def _book_read(
        self, projection: SettlementProjection, round_id: str, count: int
    ) -> _BookRead:
        """The round's `count` bets. Read once its book is whole (when the book is sealed,
        for a round whose bets came first: before its result), and kept: bets are only ever
        added, so as many bets as a committed transaction read (or this one) are those."""
        kept = self._books.get(round_id)
        if (
            kept is not None
            and len(kept.bets) == count
            and await projection.committed_or_current(kept.transaction)
        ):
            return kept
        transaction = await projection.transaction_id()
        read = _BookRead(transaction, await projection.bets_of_round(round_id))
        self._forget(round_id)
        self._books[round_id] = read
        self._kept += len(read.bets)
        while self._kept > KEPT_BETS:
            self._forget(next(iter(self._books)))  # the oldest read
        return read

    def _forget(self, round_id: str) -> None:
        forgotten = self._books.pop(round_id, None)
        if forgotten is not None:
            self._kept -= len(forgotten.bets)

    async def _reverse(self, projection: SettlementProjection, round_id: str, cause: Cause) -> None:
        await reverse_if_voided(
            self._store,
            projection,
            round_id,
            now=self._clock(),
            correlation_id=cause.correlation_id,
            causation_id=cause.event_id,
        )

    async def _settle(
        self,
        projection: SettlementProjection,
        decision: Settle,
        round_: RoundRow,
        cause: Cause,
    ) -> None:
        """Append the decided settlement's first part (the whole, for a round of one part),
        and its reversal if the locked `round_` is voided and that makes it whole."""
        round_id, table_id = round_.round_id, round_.table_id
        stream_id = settlement_stream(round_id)
        # the first part now, the others by the settler; a round of one part is whole here
        first = decision.event_count if decision.event_count <= 2 else 1
        events = [decision.event(index) for index in range(first)]
        try:
            # A savepoint: whatever the append does, the consumer's transaction stays usable.
            async with projection.connection.transaction():
                await self._store.append(
                    stream_id,
                    0,
                    events,
                    table_id=table_id,
                    correlation_id=cause.correlation_id,
                    causation_id=cause.event_id,
                    connection=projection.connection,
                )
        except ConcurrencyError:
            # Someone settled this round already (the row lock makes that all but impossible
            # here): the stream is the truth, so take its settlement and emit nothing.
            log.warning("round %s: %s already exists; adopting it", round_id, stream_id)
            settled_at = decision.round.settled_at
            if not await adopt_stored_settlement(self._store, projection, stream_id, settled_at):
                # its last events are still to come: ours are the same, from the same facts
                await projection.mark_decided(round_id, settled_at, decision.paytable_source)
                if self._on_decided is not None:
                    self._on_decided(decision)
            elif round_.voided:
                await self._reverse(projection, round_id, cause)
            return
        if decision.paytable_source == "published_fallback":
            log.warning("round %s settled with the published pay table: no RoundOpened", round_id)
        settled_at = decision.round.settled_at
        await projection.mark_decided(round_id, settled_at, decision.paytable_source)
        await projection.mark_bets(
            [line for part in events if isinstance(part, BetsSettled) for line in part.bets],
            settled_at,
        )
        if first < decision.event_count:
            if self._on_decided is not None:
                self._on_decided(decision)
        else:
            await projection.mark_round_settled(decision.round, decision.paytable_source)
            if round_.voided:
                await self._reverse(projection, round_id, cause)
        log.info(
            "round %s settled: %d bets, cancelled=%s, %d of its %d events appended",
            round_id,
            decision.round.bet_count,
            decision.round.cancelled,
            first,
            decision.event_count,
        )


async def _hold(projection: SettlementProjection, round_id: str, kind: str, detail: str) -> None:
    log.error("round %s held (%s): %s", round_id, kind, detail)
    await projection.record_problem(round_id, kind, detail)
    await _show_voided_waits(projection, round_id)


VOIDED_WAITS = "voided_waits_for_settlement"
VOIDED_OTHER_RESULT = "voided_other_result"


async def _show_voided_waits(projection: SettlementProjection, round_id: str) -> None:
    """A voided round that open problems hold unsettled: shown as such, for the hold is what
    keeps its reversal from being appended."""
    round_ = await projection.find_round_for_update(round_id)  # locked already: a fresh read
    if round_ is None or not round_.voided or round_.decided:
        return
    holding = [
        kind
        for kind in await projection.open_problems(round_id)
        if kind not in (VOIDED_WAITS, VOIDED_OTHER_RESULT)
    ]
    if holding:
        await projection.record_problem(
            round_id,
            VOIDED_WAITS,
            f"voided after its result ({round_.void_reason}) but not settled: held by"
            f" {', '.join(holding)}; once two supervisors resolve the hold and the round is"
            " settled, its settlement is reversed",
        )


async def reverse_if_voided(
    store: AsyncpgEventStore,
    projection: SettlementProjection,
    round_id: str,
    *,
    now: datetime,
    correlation_id: UUID | None,
    causation_id: UUID | None,
) -> None:
    """If the locked round is voided, settled and not yet reversed: its settlement reversed,
    from the statements its stream holds (its `BetsSettled` parts and `RoundSettled`), the
    reversal appended after them at the stream's version, the projection marked. A reversal
    in the stream already (a `ConcurrencyError`, or found there) is adopted: nothing is
    emitted."""
    round_ = await projection.find_round_for_update(round_id)
    if round_ is None or round_.void_reason is None or not round_.settled:
        return
    if round_.reversed_at is not None:
        return
    stream_id = settlement_stream(round_id)
    stored = await store.read_stream(stream_id, connection=projection.connection)
    settled, summary, reversal = _statements(stored)
    if reversal is not None:
        log.warning("round %s: its reversal is in %s already; adopting it", round_id, stream_id)
        await projection.mark_reversed(*reversal)
        return
    if summary is None:
        log.error("round %s: settled, but %s holds no RoundSettled", round_id, stream_id)
        return
    reversed_ = reverse(settled, summary, round_.void_reason, now)
    version = stored[-1].stream_version if stored else 0
    try:
        async with projection.connection.transaction():  # a savepoint, as in `_settle`
            await store.append(
                stream_id,
                version,
                reversed_.events,
                table_id=round_.table_id,
                correlation_id=correlation_id,
                causation_id=causation_id,
                connection=projection.connection,
            )
    except ConcurrencyError:
        log.warning("round %s: %s moved on meanwhile; adopting what it holds", round_id, stream_id)
        stored = await store.read_stream(stream_id, connection=projection.connection)
        _, _, reversal = _statements(stored)
        if reversal is not None:
            await projection.mark_reversed(*reversal)
        return
    await projection.mark_reversed(reversed_.round, reversed_.bet_ids)
    log.warning(
        "round %s reversed: %d bets, %s",
        round_id,
        reversed_.round.bet_count,
        {c: t.model_dump() for c, t in reversed_.round.totals.items()},
    )


def _statements(
    stored: list[StoredEvent],
) -> tuple[list[BetsSettled], RoundSettled | None, tuple[RoundReversed, list[UUID]] | None]:
    """A settlement stream's parts, its summary, and its reversal (summary and bet ids) if
    it holds one."""
    settled: list[BetsSettled] = []
    summary: RoundSettled | None = None
    reversed_: list[UUID] = []
    reversal: RoundReversed | None = None
    for one in stored:
        event = registry.decode_json(one.event_type, one.schema_version, one.payload_json)
        if isinstance(event, BetsSettled):
            settled.append(event)
        elif isinstance(event, RoundSettled):
            summary = event
        elif isinstance(event, BetsReversed):
            reversed_ += [line.bet_id for line in event.bets]
        elif isinstance(event, RoundReversed):
            reversal = event
    return settled, summary, None if reversal is None else (reversal, reversed_)


async def adopt_stored_settlement(
    store: AsyncpgEventStore,
    projection: SettlementProjection,
    stream_id: str,
    settled_at: datetime,
) -> bool:
    """The projection from a settlement already in the store: its bets' outcomes, and the
    round settled if the stream holds its summary (True); if it does not (its last events
    still to come), the bets it holds, as settled at `settled_at`."""
    bets: list[BetSettled] = []
    summary: RoundSettled | None = None
    for stored in await store.read_stream(stream_id, connection=projection.connection):
        event = registry.decode_json(stored.event_type, stored.schema_version, stored.payload_json)
        if isinstance(event, BetsSettled):
            bets += event.bets
        elif isinstance(event, RoundSettled):
            summary = event
    if summary is None:
        await projection.mark_bets(bets, settled_at)
        return False
    await projection.mark_settled(summary, bets, None)
    return True


KEPT_BETS = 300_000  # bets of the rounds read and not yet settled, kept between transactions


class _BookRead:
    """A round's bets as one transaction read them, and their digest, worked out once."""

    def __init__(self, transaction: int, bets: list[PlacedBet]) -> None:
        self.transaction = transaction
        self.bets = bets
        self._digest: str | None = None

    @property
    def digest(self) -> str:
        if self._digest is None:
            self._digest = book_digest(bet.bet_id for bet in self.bets)
        return self._digest


def _voided_result(voided: RoundVoided) -> dict[str, Any]:
    """The result a void carries, as its RoundClosed is recorded (`rounds.result`)."""
    closed = RoundClosed(
        round_id=voided.round_id,
        table_id=voided.table_id,
        cards=voided.cards,
        player_a_hand=voided.player_a_hand,
        player_b_hand=voided.player_b_hand,
        winner=voided.winner,
        six_card_bonus_hand=voided.six_card_bonus_hand,
    )
    return closed.model_dump(mode="json")


def _essentials(bet: PlacedBet) -> tuple[object, ...]:
    return (
        bet.round_id,
        bet.operator_id,
        bet.player_id,
        bet.bet_type,
        bet.stake,
        bet.currency,
    )


def _placed(line: PlacedLine) -> PlacedBet:
    return PlacedBet(
        bet_id=line.bet_id,
        round_id=line.round_id,
        table_id=line.table_id,
        operator_id=line.operator_id,
        player_id=line.player_id,
        bet_type=line.bet_type,
        stake=line.stake,
        currency=line.currency,
        placed_at=line.placed_at,
    )
