"""Settling a round: what its facts decide once they are all in, and its settlement appended.

`Settling` is shared by the facts received (`receiving.py`) and the resolutions of held rounds
(`resolving.py`); it works in their transaction, on the round whose row they have locked. The
transaction that makes a round ready decides its settlement: it appends the first part (the
whole settlement, for a round of up to one part) with those bets' outcomes and the round's
`decided_at`, together or not at all; a `Settler` appends the other parts, a transaction each
(`settler.py`). Conflicting inputs hold the round instead (`holding.py`); a round voided
before it was settled has its reversal appended with the settlement that makes it whole
(`reversing.py`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime

from teenpatti.events.catalog import BetSettled, BetsSettled, RoundSettled, book_digest, registry
from teenpatti.eventsourcing import AsyncpgEventStore, ConcurrencyError

from .adapters.postgres import RoundRow, SettlementProjection
from .domain import Decision, Held, PlacedBet, RoundFacts, Settle, Waiting, decide
from .holding import hold
from .reversing import reverse_if_voided
from .streams import Cause, settlement_stream

log = logging.getLogger(__name__)


def _utc_now() -> datetime:
    return datetime.now(UTC)


class Settling:
    """Evaluates a locked round and appends the settlement it decides, over one event store
    (the service's own database)."""

    def __init__(
        self,
        store: AsyncpgEventStore,
        clock: Callable[[], datetime] = _utc_now,
        *,
        on_decided: Callable[[Settle], None] | None = None,
        check_every_line: bool = False,
    ) -> None:
        """`on_decided` hears of each settlement decided with events left to append (the
        `Settler`'s `take`), once they are in the consumer's transaction;
        `check_every_line`: see `Settle`."""
        self._store = store
        self._check_every_line = check_every_line
        self._clock = clock
        self._on_decided = on_decided
        self._books: dict[str, _BookRead] = {}  # round id -> its bets as last read
        self._kept = 0  # bets in `_books`

    async def settle_if_ready(
        self,
        projection: SettlementProjection,
        round_id: str,
        table_id: str,
        cause: Cause,
    ) -> None:
        """The round settled, or held, if what it holds now decides so; else it waits."""
        round_ = await projection.lock_round(round_id, table_id)  # already ours: a fresh read
        await self.act(projection, round_, await self.evaluate(projection, round_), cause)

    async def evaluate(
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
        decision = decide(
            facts or round_.facts(),
            book.bets,
            self._clock(),
            book.digest,
            check_every_line=self._check_every_line,
        )
        if not isinstance(decision, Waiting):
            self._forget(round_id)
        return decision

    async def act(
        self,
        projection: SettlementProjection,
        round_: RoundRow,
        decision: Decision | None,
        cause: Cause,
    ) -> None:
        """What `evaluate` decided, carried out in this transaction."""
        match decision:
            case None:
                pass
            case Waiting(reason):
                log.debug("round %s not ready: %s", round_.round_id, reason)
            case Held(kind, detail):
                await hold(projection, round_.round_id, kind, detail)
            case Settle():
                await self.settle(projection, decision, round_, cause)

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

    async def reverse(self, projection: SettlementProjection, round_id: str, cause: Cause) -> None:
        """The locked round's reversal, if it is voided and settled (`reversing.py`)."""
        await reverse_if_voided(
            self._store,
            projection,
            round_id,
            now=self._clock(),
            correlation_id=cause.correlation_id,
            causation_id=cause.event_id,
        )

    async def settle(
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
                await self.reverse(projection, round_id, cause)
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
                await self.reverse(projection, round_id, cause)
        log.info(
            "round %s settled: %d bets, cancelled=%s, %d of its %d events appended",
            round_id,
            decision.round.bet_count,
            decision.round.cancelled,
            first,
            decision.event_count,
        )


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
