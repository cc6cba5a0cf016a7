"""The rest of a decided round's settlement, appended an event per transaction.

The consumer's transaction that makes a round ready decides its settlement
(`Settling.settle`): it appends the first `BetsSettled` part with those bets' outcomes and
sets `rounds.decided_at` (RoundSettled's `settled_at`). A round of one part is then whole.
For a larger round the `Settler` appends the other parts and the summary, each in its own
transaction with that part's bets marked settled, and the last one sets `rounds.settled`.
Each part reaches Kafka, and the wallet, as soon as it commits, while the later ones are
still being built: the two services' work on a large round overlaps instead of running one
after the other. The transaction that appends the summary of a round voided meanwhile appends
its reversal too (`reverse_if_voided`).

Exactly once: each transaction locks the round's row, reads the settlement stream's version
and appends the next event at that expected version, so whichever instance goes on, an event
is appended once, after the one before it. The parts are a pure function of the round's
facts, its book's bets and `decided_at`, so an instance that did not decide the round (after
a restart, or taking over from one that died) builds the same ones. A round whose row has
not moved for `STALLED_SECONDS` is taken up by any instance's settler.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from uuid import UUID

import asyncpg

from teenpatti.events.catalog import SETTLEMENT_PART, BetsSettled, RoundSettled
from teenpatti.eventsourcing import AsyncpgEventStore, StoredEvent

from .adapters.postgres import RoundRow, SettlementProjection, stalled_settlements
from .domain import Settle, decide
from .reversing import reverse_if_voided
from .settling import adopt_stored_settlement
from .streams import settlement_stream

log = logging.getLogger(__name__)

STALLED_SECONDS = 5.0  # a decided round's row quiet this long: its settler stopped
RETRY_SECONDS = 1.0  # after a failed transaction, before the round is tried again


class Settler:
    """Appends the settlement events that decided rounds still miss, one round at a time."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        store: AsyncpgEventStore,
        *,
        stalled_seconds: float = STALLED_SECONDS,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        check_every_line: bool = False,
    ) -> None:
        """`check_every_line`: see `Settle`."""
        self._pool = pool
        self._check_every_line = check_every_line
        self._store = store
        self._stalled_seconds = stalled_seconds
        self._clock = clock
        self._plans: dict[str, Settle] = {}  # decided here: no need to build them again
        self._checked: dict[str, Settle] = {}  # the plan found to go on from what is stored
        self._due: dict[str, None] = {}  # round ids, in the order they came
        self._wake = asyncio.Event()
        self._takes: dict[str, int] = {}  # decisions taken per round, to see one come meanwhile

    def take(self, decision: Settle) -> None:
        """A settlement decided in a consumer's transaction, with events left to append.
        Its first transaction waits for that one's lock on the round, so it goes on only
        once the decision is committed (or finds nothing to do if it was rolled back)."""
        round_id = decision.round.round_id
        self._takes[round_id] = self._takes.get(round_id, 0) + 1
        self._plans[round_id] = decision
        self._due.setdefault(round_id)
        self._wake.set()

    async def run(self, stop: asyncio.Event) -> None:
        """Until `stop`: the rounds taken, and every `stalled_seconds` the stalled ones."""
        while not stop.is_set():
            try:
                for round_id in await stalled_settlements(self._pool, self._stalled_seconds):
                    self._due.setdefault(round_id)
            except (OSError, asyncpg.PostgresError) as error:
                log.warning("settler: cannot look for stalled settlements: %s", error)
            while self._due and not stop.is_set():
                round_id = next(iter(self._due))
                takes = self._takes.get(round_id, 0)
                try:
                    await self.settle(round_id, stop)
                except Exception:  # a database gone, a conflict: the loop must go on
                    # the next look for stalled rounds finds it again
                    log.exception("settler: round %s stopped; to be retried", round_id)
                    await asyncio.sleep(RETRY_SECONDS)
                if self._takes.get(round_id, 0) == takes:
                    self._due.pop(round_id, None)
                    self._plans.pop(round_id, None)
                    self._checked.pop(round_id, None)
                    self._takes.pop(round_id, None)
                # else decided again meanwhile (a consumer's batch handled again): once more
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._stalled_seconds):
                    await _first_of(self._wake, stop)

    async def settle(self, round_id: str, stop: asyncio.Event | None = None) -> None:
        """Append the round's missing settlement events, one per transaction, to the end
        (or until `stop`: the rest is then another settler's, once the round is stalled)."""
        cause: tuple[UUID, UUID | None] | None = None
        while stop is None or not stop.is_set():
            async with self._pool.acquire() as connection, connection.transaction():
                projection = SettlementProjection(connection)
                round_ = await projection.lock_unsettled(round_id)
                if round_ is None:
                    return  # settled (here or elsewhere), or the decision rolled back
                stream_id = settlement_stream(round_id)
                version = await self._store.stream_version(stream_id, connection=connection)
                plan = await self._plan(projection, round_)
                if plan is None:
                    return
                assert round_.decided_at is not None  # lock_unsettled: decided
                if version >= plan.event_count:
                    # all appended already (the projection did not hear): take them as stored
                    adopted = await adopt_stored_settlement(
                        self._store, projection, stream_id, round_.decided_at
                    )
                    if adopted and round_.voided:
                        await self._reverse(projection, round_id, stream_id)
                    return
                if cause is None:
                    cause = await self._cause(connection, stream_id)
                event = plan.event(version)
                await self._store.append(
                    stream_id,
                    version,
                    [event],
                    table_id=round_.table_id,
                    correlation_id=cause[0],
                    causation_id=cause[1],
                    connection=connection,
                )
                if event is plan.round:
                    await projection.mark_round_settled(plan.round, plan.paytable_source)
                    log.info("round %s: the last of its %d events appended", round_id, version + 1)
                    if round_.voided:
                        await self._reverse(projection, round_id, stream_id, cause)
                    return
                assert isinstance(event, BetsSettled)
                await projection.mark_bets(event.bets, round_.decided_at)
                await projection.touch(round_id)

    async def _reverse(
        self,
        projection: SettlementProjection,
        round_id: str,
        stream_id: str,
        cause: tuple[UUID, UUID | None] | None = None,
    ) -> None:
        """The voided round settled in this transaction: its reversal too."""
        if cause is None:
            cause = await self._cause(projection.connection, stream_id)
        await reverse_if_voided(
            self._store,
            projection,
            round_id,
            now=self._clock(),
            correlation_id=cause[0],
            causation_id=cause[1],
        )

    async def _plan(self, projection: SettlementProjection, round_: RoundRow) -> Settle | None:
        """The round's settlement as decided: the one taken, or built again the same way;
        checked once against the parts already stored."""
        round_id = round_.round_id
        plan = self._plans.get(round_id)
        if plan is None or plan.round.settled_at != round_.decided_at:
            assert round_.decided_at is not None
            decision = decide(
                round_.facts(),
                await projection.bets_of_round(round_id),
                round_.decided_at,
                check_every_line=self._check_every_line,
            )
            if not isinstance(decision, Settle):
                # its facts are those it was decided on: only a changed database gets here
                log.error("round %s: decided, but now %s; left for a person", round_id, decision)
                return None
            plan = self._plans[round_id] = decision
        if self._checked.get(round_id) is not plan:
            stored = await self._store.read_stream(
                settlement_stream(round_id), connection=projection.connection
            )
            differs = _stored_parts_differ(stored, plan)
            if differs is not None:
                # A changed database, or the parts of a build that orders the lines otherwise
                # (an upgrade mid-round): going on would settle some bets twice, others never.
                log.error("round %s: %s; left for a person", round_id, differs)
                await projection.record_problem(round_id, "settlement_parts_mismatch", differs)
                return None
            self._checked[round_id] = plan
        return plan

    async def _cause(
        self, connection: asyncpg.Connection, stream_id: str
    ) -> tuple[UUID, UUID | None]:
        """The correlation and causation of the settlement's first event: the later ones
        share them (they are the same decision's)."""
        first = await self._store.read_stream(stream_id, connection=connection, limit=1)
        if not first:
            raise RuntimeError(f"{stream_id}: a decided settlement without its first event")
        return first[0].correlation_id, first[0].causation_id


def _stored_parts_differ(stored: Sequence[StoredEvent], plan: Settle) -> str | None:
    """Why the settlement events already stored are not the first parts of `plan` (the bets
    of each, in order), or None when they are; a reversal after them is not the plan's."""
    for index, event in enumerate(stored[: plan.event_count]):
        event_type = event.event_type
        if index == plan.event_count - 1 and event_type == RoundSettled.event_type:
            continue  # all stored: the summary last
        if event_type != BetsSettled.event_type or index >= plan.event_count - 1:
            return f"stored event {index + 1} ({event_type}) is not the plan's part {index + 1}"
        start = index * SETTLEMENT_PART
        bets = [UUID(line["bet_id"]) for line in event.payload["bets"]]
        planned = [line["bet_id"] for line in plan.lines[start : start + SETTLEMENT_PART]]
        if bets != planned:
            return f"stored part {index + 1} holds other bets than the plan's part {index + 1}"
    return None


async def _first_of(*events: asyncio.Event) -> None:
    waits = [asyncio.create_task(event.wait()) for event in events]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()
