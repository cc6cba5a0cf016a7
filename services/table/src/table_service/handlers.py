"""Use cases: load the table from its stream, decide, append at the expected version and
update the `tables` and `round_results` projections, all in one Postgres transaction (a
decision that reads the roadmap reads it in that transaction too). A concurrent writer
makes the append fail with ConcurrencyError: the state is read again and the decision made
afresh.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from uuid import UUID, uuid4

import asyncpg

from teenpatti.events import Event
from teenpatti.events.catalog import (
    BettingClosed,
    CardRefused,
    CardScanned,
    ResultVoidRejected,
    ResultVoidRequested,
    RoundClosed,
    RoundOpened,
    RoundVoided,
    registry,
)
from teenpatti.eventsourcing import (
    AsyncpgEventStore,
    ConcurrencyError,
    StoredEvent,
    StreamAppend,
    partition_for,
)
from teenpatti.observability.metrics import (
    BETTING_CLOSE_LATENESS,
    BETTING_WINDOWS_CLOSED,
    seconds_between,
)

from .adapters.readiness import ReadinessGate
from .adapters.round_results import round_result, round_results, save_round_results
from .adapters.scanners import load_scanners, save_sequences
from .adapters.sealed_cards import seal_cards
from .adapters.snapshots import save_snapshot
from .adapters.tables import (
    TableRepository,
    TableSummary,
    list_tables,
    save_tables,
    table_exists,
)
from .config import TableSettings
from .domain.clock import decide_clock, next_clock_time
from .domain.decisions import (
    ConfigPolicy,
    OpenTable,
    decide_approve_change,
    decide_cancel,
    decide_close_table,
    decide_mark_wrong,
    decide_open_table,
    decide_pause,
    decide_reject_change,
    decide_reject_void_result,
    decide_replace_deck,
    decide_rescan,
    decide_resume,
    decide_scan,
    decide_video_lost,
    decide_video_restored,
    decide_void_result,
    proposed_again,
    refuse_unknown_table,
    table_config,
)
from .domain.results import RoundRecord, ended_rounds, replay_results, round_number_in
from .domain.scanners import screen_scan
from .domain.state import (
    TABLE_ID_PATTERN,
    TableState,
    TableStatus,
    evolve_all,
    stream_id_for,
    unknown_table_stream_id,
)
from .rtp import ParSheets, ParSheetView, exact_rtp, warm

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]
Decision = Callable[[TableState, datetime], list[Event]]
# a decision that reads the service's tables too, in the transaction of its append
ReadingDecision = Callable[[asyncpg.Connection, TableState, datetime], Awaitable[list[Event]]]

MAX_ATTEMPTS = 20


def utc_now() -> datetime:
    return datetime.now(UTC)


def _opens_round(events: list[Event]) -> bool:
    return any(isinstance(event, RoundOpened) for event in events)


@dataclass(frozen=True)
class Opened:
    """What `POST /tables` did: the table after it, whether it was new, and the change
    proposed (None: applied at once, or nothing to do)."""

    state: TableState
    created: bool
    proposed: UUID | None


@dataclass(frozen=True)
class ResultVoid:
    """What a void of a round after its result did (asked for it, confirmed it, or rejected
    it), and the round's roadmap row after it."""

    state: TableState
    event: ResultVoidRequested | RoundVoided | ResultVoidRejected
    round: RoundRecord | None


class TableService:
    def __init__(
        self,
        store: AsyncpgEventStore,
        settings: TableSettings,
        *,
        clock: Clock = utc_now,
    ) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock
        self.repository = TableRepository(store)
        self.pause_timeout = timedelta(seconds=settings.pause_timeout_seconds)
        self.dealing_stall = timedelta(seconds=settings.dealing_stall_seconds)
        self.correction_window = timedelta(hours=settings.correction_window_hours)
        self.policy = ConfigPolicy(
            rtp_of=exact_rtp,
            rtp_ceiling_percent=Decimal(str(settings.rtp_ceiling_percent)).quantize(
                Decimal("0.01"), rounding=ROUND_HALF_UP
            ),
            max_currencies=settings.max_currencies,
        )
        self.par_sheets = ParSheets()
        # asked before a round opens: the services a round needs (TP_ROUND_GATE_URLS)
        self.gate = ReadinessGate(
            settings.round_gate_targets(),
            timeout=settings.round_gate_timeout_seconds,
            cache_seconds=settings.round_gate_cache_seconds,
        )
        # told the table id after each append here (the clock manager starts clocks at once)
        self.on_appended: Callable[[TableState], None] | None = None

    def partition_of(self, table_id: str) -> int:
        return partition_for(table_id, self.settings.kafka_partitions)

    async def load(self, table_id: str) -> TableState:
        return await self.repository.load(table_id)

    # -------------------------------------------------------------- reads (HTTP)
    async def events(
        self, table_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """The table's events after `after_version`, in stream order (at most `limit`)."""
        if not TABLE_ID_PATTERN.match(table_id):
            return []  # never a table (and text such as NUL must not reach Postgres)
        return await self.store.read_stream(stream_id_for(table_id), after_version, limit=limit)

    async def exists(self, table_id: str) -> bool:
        """Whether the table was ever opened."""
        return await table_exists(self.store.pool, table_id)

    async def tables(self) -> list[TableSummary]:
        return await list_tables(self.store.pool)

    async def results(
        self, table_id: str, limit: int, before_number: int | None = None
    ) -> list[RoundRecord]:
        """The table's roadmap, newest first (the `round_results` projection)."""
        if not TABLE_ID_PATTERN.match(table_id):
            return []
        return await round_results(self.store.pool, table_id, limit, before_number)

    async def par_sheet(self, table_id: str) -> ParSheetView | None:
        """The PAR sheet of the table's current pay table (None: the table was never
        opened)."""
        state = await self.load(table_id)
        if state.config is None:
            return None
        return await self.par_sheets.of(state.config.paytable)

    async def replayed_results(self, table_id: str) -> list[RoundRecord]:
        """The roadmap as a replay of the table's whole stream gives it, oldest first: what
        the projection must hold (decision 0076)."""
        rows = await self.events(table_id)
        return replay_results(
            table_id,
            (
                (registry.decode(row.event_type, row.schema_version, row.payload), row.occurred_at)
                for row in rows
            ),
        )

    # -------------------------------------------------------------- commands (HTTP)
    async def open_table(self, command: OpenTable, actor: str) -> Opened:
        """Open or reconfigure the table, or propose the change for a second supervisor."""
        await warm()
        created = False
        change_id = uuid4()

        def decide(state: TableState, now: datetime) -> list[Event]:
            nonlocal created
            created = state.status is TableStatus.UNKNOWN
            return decide_open_table(state, command, actor, self.policy, change_id)

        state, _ = await self.execute(command.table_id, decide)
        pending = state.pending_change
        proposed = None
        if pending is not None and (
            pending.change_id == change_id
            or proposed_again(state, table_config(command, self.policy)[0], actor)
        ):
            proposed = pending.change_id
        return Opened(state, created and state.status is TableStatus.OPEN, proposed)

    async def approve_change(self, table_id: str, change_id: UUID, actor: str) -> TableState:
        await warm()
        state, _ = await self.execute(
            table_id, lambda s, _: decide_approve_change(s, change_id, actor, self.policy)
        )
        return state

    async def reject_change(
        self, table_id: str, change_id: UUID, actor: str, reason: str
    ) -> TableState:
        state, _ = await self.execute(
            table_id, lambda s, _: decide_reject_change(s, change_id, actor, reason)
        )
        return state

    async def replace_deck(self, table_id: str, actor: str, reason: str) -> TableState:
        state, _ = await self.execute(table_id, lambda s, _: decide_replace_deck(s, actor, reason))
        return state

    async def close_table(self, table_id: str, actor: str, reason: str) -> TableState:
        state, _ = await self.execute(table_id, lambda s, _: decide_close_table(s, actor, reason))
        return state

    async def pause(self, table_id: str, actor: str, reason: str) -> TableState:
        state, _ = await self.execute(table_id, lambda s, _: decide_pause(s, actor, reason))
        return state

    async def resume(self, table_id: str, actor: str) -> TableState:
        state, _ = await self.execute(table_id, lambda s, now: decide_resume(s, actor, now))
        return state

    async def video_lost(self, table_id: str, actor: str, reason: str) -> TableState:
        state, _ = await self.execute(table_id, lambda s, _: decide_video_lost(s, actor, reason))
        return state

    async def video_restored(self, table_id: str, actor: str, reason: str) -> TableState:
        state, _ = await self.execute(
            table_id, lambda s, _: decide_video_restored(s, actor, reason)
        )
        return state

    async def mark_wrong(self, table_id: str, actor: str, position: str, reason: str) -> TableState:
        state, _ = await self.execute(
            table_id, lambda s, _: decide_mark_wrong(s, actor, position, reason)
        )
        return state

    async def rescan(self, table_id: str, actor: str, reason: str) -> TableState:
        state, _ = await self.execute(table_id, lambda s, now: decide_rescan(s, actor, reason, now))
        return state

    async def cancel(self, table_id: str, actor: str, reason: str) -> TableState:
        state, _ = await self.execute(table_id, lambda s, _: decide_cancel(s, actor, reason))
        return state

    async def void_result(
        self, table_id: str, round_id: str, actor: str, reason: str
    ) -> ResultVoid:
        """Ask to void a round after its result, or confirm another supervisor's request:
        decided on its roadmap row, read in the append's transaction."""

        async def decide(
            connection: asyncpg.Connection, state: TableState, now: datetime
        ) -> list[Event]:
            ended = None
            if (
                state.status is not TableStatus.UNKNOWN
                and round_number_in(round_id, table_id) is not None
            ):
                ended = await round_result(connection, table_id, round_id)
            return decide_void_result(
                state, round_id, ended, actor, reason, now, self.correction_window
            )

        state, [event] = await self.execute_reading(table_id, decide)
        assert isinstance(event, (ResultVoidRequested, RoundVoided))
        return ResultVoid(state, event, await round_result(self.store.pool, table_id, round_id))

    async def reject_void_result(
        self, table_id: str, round_id: str, actor: str, reason: str
    ) -> ResultVoid:
        """Turn down (or withdraw) a request to void a round after its result."""

        async def decide(
            connection: asyncpg.Connection, state: TableState, now: datetime
        ) -> list[Event]:
            return decide_reject_void_result(state, round_id, actor, reason)

        state, [event] = await self.execute_reading(table_id, decide)
        assert isinstance(event, ResultVoidRejected)
        return ResultVoid(state, event, await round_result(self.store.pool, table_id, round_id))

    # -------------------------------------------------------------- the clock
    async def tick(self, table_id: str, known_version: int = 0) -> tuple[TableState, bool]:
        """Whatever time makes due now (open a round, close betting, cancel a stale pause).
        `known_version`: see `execute`. A round opens only once the services it needs are
        asked (`gate`), and only then: nothing else time does waits for them. A betting
        window closed is counted, with how late it closed
        (`teenpatti_table_betting_close_lateness_seconds`)."""
        decided: list[tuple[TableState, list[Event]]] = []  # the last decision taken
        blockers: tuple[str, ...] | None = None  # not asked yet
        wants_round = False

        def decide(state: TableState, now: datetime) -> list[Event]:
            nonlocal wants_round
            events = decide_clock(
                state, now, self.pause_timeout, self.dealing_stall, blockers or ()
            )
            if blockers is None and self.gate.enabled and _opens_round(events):
                wants_round = True
                return []
            decided[:] = [(state, events)]
            return events

        state, acted = await self.execute(table_id, decide, known_version=known_version)
        if wants_round:
            blockers = await self.gate.blockers()
            state, acted = await self.execute(table_id, decide, known_version=state.version)
        if acted:
            [(before, events)] = decided
            closes_at = before.round.betting_closes_at if before.round is not None else None
            for event in events:
                if isinstance(event, BettingClosed) and closes_at is not None:
                    BETTING_WINDOWS_CLOSED.inc()
                    BETTING_CLOSE_LATENESS.observe(seconds_between(closes_at, event.closed_at))
        return state, acted

    # -------------------------------------------------------------- scans (Kafka)
    async def handle_scans(
        self, connection: asyncpg.Connection, scans: list[CardScanned]
    ) -> list[float]:
        """Deal or refuse scanned cards, in their order, inside the consumer's transaction (a
        poll's worth at a time). The tables are read in one query, before the transaction
        writes to them (so what is read is committed), and all their cards appended in one
        statement. A ConcurrencyError rolls the transaction back and the consumer handles
        them again. Returns, for each round a scan closed, the seconds from that scan (its
        `scanned_at`) to its RoundClosed.

        A scan is first screened (`screen_scan`: the table's active device, a fresh sequence
        number, the round in play), and only then decided by the round's rules."""
        by_table: dict[str, list[CardScanned]] = {}
        for scan in scans:
            by_table.setdefault(scan.table_id, []).append(scan)
        states = await self.repository.load_many(list(by_table), connection=connection)
        scanners = await load_scanners(connection, (scan.device_id for scan in scans))
        heard: set[str] = set()  # devices whose sequence moved
        now = self.clock()
        dealt: list[tuple[TableState, list[Event]]] = []
        closed: list[float] = []
        sealed: list[tuple[CardScanned, CardRefused]] = []  # their values kept in the store
        for table_id, mine in by_table.items():
            state = states[table_id]
            if state.status is TableStatus.UNKNOWN:
                for scan in mine:  # each verdict read back: these streams are rare
                    await self._refuse_unknown_table(connection, scan, now)
                continue
            events: list[Event] = []
            after = state
            for scan in mine:
                screened = screen_scan(scanners.get(scan.device_id), scan, after)
                if screened.scanner is not None and screened.scanner != scanners.get(
                    scan.device_id
                ):
                    scanners[scan.device_id] = screened.scanner
                    heard.add(scan.device_id)
                decided: list[Event]
                if screened.refusal is not None:
                    decided = [screened.refusal]
                else:
                    decided = decide_scan(after, scan, now)
                    sealed += [
                        (scan, e) for e in decided if isinstance(e, CardRefused) and e.card is None
                    ]
                after = evolve_all(after, decided, now)
                events += decided
                if any(isinstance(event, RoundClosed) for event in decided):
                    closed.append(seconds_between(scan.scanned_at, now))
            if events:
                dealt.append((state, events))
        if dealt:
            await self._append_many(connection, dealt, now)
        await seal_cards(connection, sealed)
        await save_sequences(connection, (scanners[device] for device in heard))
        return closed

    async def _refuse_unknown_table(
        self, connection: asyncpg.Connection, scan: CardScanned, now: datetime
    ) -> None:
        # The gateway waits for a verdict on table.events; a table that was never opened has
        # no stream, so the verdict goes to a stream of its own that never becomes a table.
        stream_id = unknown_table_stream_id(scan.table_id)
        version = await self.store.stream_version(stream_id, connection=connection)
        refused = refuse_unknown_table(scan)
        await seal_cards(connection, [(scan, refused)])
        await self.store.append(
            stream_id,
            version,
            [refused],
            table_id=scan.table_id,
            occurred_at=now,
            connection=connection,
        )

    # -------------------------------------------------------------- the one write path
    async def execute(
        self, table_id: str, decide: Decision, *, known_version: int = 0
    ) -> tuple[TableState, bool]:
        """Load, decide, append and project in one transaction, retried on a conflict.
        Returns the state after the command and whether anything was appended.

        With `known_version` (the newest version the caller has heard of, from the
        `table_changed` notifications), a state kept here at that version or newer is
        decided on without reading the stream first: the append at its version still
        refuses it if the table has moved on meanwhile, and the next attempt reads."""
        cached = self.repository.cached(table_id) if known_version > 0 else None
        for _ in range(MAX_ATTEMPTS):
            if cached is not None and cached.version >= known_version:
                state, cached = cached, None
            else:
                state = await self.repository.load(table_id)
            now = self.clock()
            events = decide(state, now)
            if not events:
                return state, False
            try:
                async with self.store.pool.acquire() as connection, connection.transaction():
                    new_state = await self._append(connection, state, events, now)
            except ConcurrencyError:
                continue
            self._appended(new_state)
            return new_state, True
        raise ConcurrencyError(f"table {table_id}: too many concurrent writers, gave up")

    async def execute_reading(
        self, table_id: str, decide: ReadingDecision
    ) -> tuple[TableState, list[Event]]:
        """`execute` for a decision that reads the service's own tables too (the roadmap):
        it reads and decides in the transaction of the append. Returns the state after the
        command and the events appended."""
        for _ in range(MAX_ATTEMPTS):
            state = await self.repository.load(table_id)
            now = self.clock()
            try:
                async with self.store.pool.acquire() as connection, connection.transaction():
                    events = await decide(connection, state, now)
                    if not events:
                        return state, []
                    new_state = await self._append(connection, state, events, now)
            except ConcurrencyError:
                continue
            self._appended(new_state)
            return new_state, events
        raise ConcurrencyError(f"table {table_id}: too many concurrent writers, gave up")

    def _appended(self, new_state: TableState) -> None:
        """A committed append: the state is kept, and the table's clock told."""
        self.repository.remember(new_state)
        if self.on_appended is not None:
            self.on_appended(new_state)

    async def _append(
        self,
        connection: asyncpg.Connection,
        state: TableState,
        events: list[Event],
        now: datetime,
    ) -> TableState:
        [new_state] = await self._append_many(connection, [(state, events)], now)
        return new_state

    async def _append_many(
        self,
        connection: asyncpg.Connection,
        changes: list[tuple[TableState, list[Event]]],
        now: datetime,
    ) -> list[TableState]:
        """Append each table's events after the state they were decided on, update the
        tables' projection rows, record the rounds they end (the roadmap) and take the
        snapshots that fall due: one statement each."""
        appends = [
            StreamAppend(stream_id_for(state.table_id), state.version, events, state.table_id)
            for state, events in changes
        ]
        appended = await self.store.append_many(appends, connection=connection, occurred_at=now)
        new_states = [evolve_all(state, events, now) for state, events in changes]
        await save_tables(
            connection,
            [
                (
                    new,
                    self.partition_of(new.table_id),
                    next_clock_time(new, self.pause_timeout, self.dealing_stall),
                )
                for new in new_states
            ],
        )
        await save_round_results(
            connection,
            [record for state, events in changes for record in ended_rounds(state, events, now)],
        )
        every = self.settings.snapshot_every
        for (old, _), new, result in zip(changes, new_states, appended, strict=True):
            if every and new.version // every > old.version // every:
                # the state built here is exactly what a replay of the committed events
                # gives (the events carry `now` as occurred_at), so it can be the snapshot
                await save_snapshot(connection, new, result.event_ids[-1])
        return new_states
