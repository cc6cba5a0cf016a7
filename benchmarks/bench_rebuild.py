"""Rebuild benchmark: the table service rebuilding its tables' states from stored events.

    uv run python benchmarks/bench_rebuild.py [--quick]

A fresh database is seeded, with `AsyncpgEventStore.append` in batches, with 1,000,000 table
events (--quick: 100,000): `TABLES` table streams `table-<id>`, each `TableOpened` then
rounds of `RoundOpened`, `BettingClosed`, six `CardDealt` and `RoundClosed` (nine events).
The rebuild is what the table service does for a table it holds no state or snapshot of
(`TableRepository.load_many` with an empty cache): read the stream (`store.replay_stream`:
the seven columns a fold needs, rows built by the driver), decode each payload with the event
registry (`registry.decode_json`: the pydantic model from the JSON text, by the type's compiled
decoder where it has one, docs/decisions/0102-compiled-event-decoders.md) and fold the events
with the service's own pure `fold` (the same as `evolve` one event at a time, with one copy
of the state and of each round). Figures are events per second over all streams, one table
after the other, the median of three runs; the stages are timed apart (read only, read +
decode, the whole load) and the whole is profiled with cProfile. A second figure is what a
restarted table service does instead: snapshots are written as the service keeps them (one
every `snapshot_every` events: here each 199 events before the end of its stream, the worst
case) and each table is loaded with `TableRepository.load`.

The raw limit, measured in the same run: a plain asyncpg `SELECT` of the same rows (the same
columns, default records) stream by stream.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import statistics
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg

from teenpatti_tools.databases import drop_database, migrated

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_intake import print_table
from table_service.adapters.snapshots import save_snapshot
from table_service.adapters.tables import TableRepository, decoded
from table_service.app import SERVICE
from table_service.config import TableSettings
from table_service.domain.decisions import round_closed
from table_service.domain.state import TableState, fold, round_id_for, stream_id_for
from teenpatti.engine import PUBLISHED_PAY_TABLE, pay_table_to_mapping
from teenpatti.events import Event
from teenpatti.events.catalog import (
    DEALING_ORDER,
    BettingClosed,
    CardDealt,
    RoundOpened,
    StakeLimit,
    TableOpened,
)
from teenpatti.eventsourcing import MIGRATIONS as STORE_MIGRATIONS
from teenpatti.eventsourcing import AsyncpgEventStore
from teenpatti.kernel.process import freeze_startup_objects
from teenpatti.settings import ADMIN, InfrastructureSettings
from teenpatti_tools.bench import Figure, happened
from teenpatti_tools.simulator import BET_TYPES

BENCHMARK = "rebuild"
TABLES = 100
ROUNDS_PER_APPEND = 50  # 450 events per append
CARDS = ("AS", "KS", "AC", "KH", "AD", "2D")
GOAL_SHARE = 0.6  # of a plain SELECT of the same rows
# the columns `AsyncpgEventStore.replay_stream` reads, for the plain SELECT it is compared with
REPLAY_COLUMNS = (
    "stream_id, stream_version, event_id, event_type, schema_version, occurred_at,"
    " payload::text AS payload"
)


# ---------------------------------------------------------------------- seeding
def round_events(table_id: str, number: int, opened_at: datetime) -> list[Event]:
    round_id = round_id_for(table_id, number)
    limits = {"INR": {bet: StakeLimit(min=100, max=100_000) for bet in BET_TYPES}}
    events: list[Event] = [
        RoundOpened(
            round_id=round_id,
            table_id=table_id,
            number=number,
            opened_at=opened_at,
            betting_closes_at=opened_at + timedelta(seconds=15),
            limits=limits,
            paytable=pay_table_to_mapping(PUBLISHED_PAY_TABLE),
        ),
        BettingClosed(
            round_id=round_id, table_id=table_id, closed_at=opened_at + timedelta(seconds=15)
        ),
    ]
    events += [
        CardDealt(
            round_id=round_id, table_id=table_id, position=position, card=card, scan_id=uuid.uuid4()
        )
        for position, card in zip(DEALING_ORDER, CARDS, strict=True)
    ]
    events.append(round_closed(table_id, round_id, CARDS))
    return events


async def seed(store: AsyncpgEventStore, events_wanted: int) -> int:
    """TABLES streams of about events_wanted / TABLES events each; how many were stored."""
    rounds_per_table = max(1, (events_wanted // TABLES - 1) // 9)
    started_at = datetime(2026, 11, 1, tzinfo=UTC)

    async def one_table(n: int) -> int:
        table_id = f"R{n:03d}"
        opened = TableOpened(
            table_id=table_id,
            name=f"rebuild {table_id}",
            betting_seconds=15,
            result_pause_seconds=5,
            limits={"INR": {bet: StakeLimit(min=100, max=100_000) for bet in BET_TYPES}},
            paytable=pay_table_to_mapping(PUBLISHED_PAY_TABLE),
            actor="bench",
        )
        await store.append(stream_id_for(table_id), 0, [opened], table_id=table_id)
        version, stored = 1, 1
        for first in range(1, rounds_per_table + 1, ROUNDS_PER_APPEND):
            batch: list[Event] = []
            for number in range(first, min(first + ROUNDS_PER_APPEND, rounds_per_table + 1)):
                batch += round_events(table_id, number, started_at + timedelta(seconds=30 * number))
            await store.append(stream_id_for(table_id), version, batch, table_id=table_id)
            version += len(batch)
            stored += len(batch)
        return stored

    counts: list[int] = []
    for start in range(0, TABLES, 4):  # four appenders at a time
        counts += await asyncio.gather(*(one_table(n) for n in range(start, start + 4)))
    return sum(counts)


# ---------------------------------------------------------------------- the rebuilds
def table_ids() -> list[str]:
    return [f"R{n:03d}" for n in range(TABLES)]


async def raw_select(store: AsyncpgEventStore) -> int:
    count = 0
    for table_id in table_ids():
        rows = await store.pool.fetch(
            f"SELECT {REPLAY_COLUMNS} FROM events WHERE stream_id = $1 ORDER BY stream_version",
            stream_id_for(table_id),
        )
        count += len(rows)
    return count


async def read_only(store: AsyncpgEventStore) -> int:
    count = 0
    for table_id in table_ids():
        count += len(await store.replay_stream(stream_id_for(table_id)))
    return count


async def read_and_decode(store: AsyncpgEventStore) -> int:
    count = 0
    for table_id in table_ids():
        state = TableState(table_id=table_id)
        rows = await store.replay_stream(stream_id_for(table_id))
        count += sum(1 for _ in decoded(state, rows))
    return count


async def rebuild(store: AsyncpgEventStore) -> int:
    """Every table's state from its whole stream, as the table service builds a table it
    holds no state or snapshot of: `TableRepository.load_many` with an empty cache."""
    count = 0
    for state in (await TableRepository(store).load_many(table_ids())).values():
        if state.round is None or state.round.result is None:
            raise RuntimeError(f"table {state.table_id}: rebuilt without its last round's result")
        count += state.version
    return count


async def write_snapshots(store: AsyncpgEventStore) -> None:
    """Each table's snapshot `snapshot_every - 1` (199) events before the end of its stream:
    the most a restarted table service can have to replay after one, as it keeps one every
    `snapshot_every` events."""
    every = TableSettings().snapshot_every
    for table_id in table_ids():
        rows = await store.replay_stream(stream_id_for(table_id))
        kept = len(rows) - (every - 1)
        empty = TableState(table_id=table_id)
        state = fold(empty, decoded(empty, rows[:kept]))
        async with store.pool.acquire() as connection:
            await save_snapshot(connection, state, rows[kept - 1].event_id)


async def restore(store: AsyncpgEventStore) -> int:
    """Every table's state as a (re)started table service loads it: `TableRepository.load`
    with an empty cache, from the snapshot and the events after it. Counts the events the
    states stand for."""
    repository = TableRepository(store)
    count = 0
    for table_id in table_ids():
        state = await repository.load(table_id)
        if state.round is None or state.round.result is None:
            raise RuntimeError(f"table {table_id}: restored without its last round's result")
        count += state.version
    return count


async def rate(
    action: Callable[[AsyncpgEventStore], Awaitable[int]], store: AsyncpgEventStore, runs: int = 3
) -> float:
    """Events per second, the median of `runs` runs."""
    rates = []
    for _ in range(runs):
        started = time.perf_counter()
        count = await action(store)
        rates.append(count / (time.perf_counter() - started))
    return statistics.median(rates)


async def profile_rebuild(store: AsyncpgEventStore, lines: int = 18) -> str:
    profile = cProfile.Profile()
    profile.enable()
    await rebuild(store)
    profile.disable()
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(lines)
    return out.getvalue()


async def measure(quick: bool, show_profile: bool = False, smoke: bool = False) -> list[Figure]:
    """`smoke`: 25,000 events, a few more than a snapshot's span per table."""
    wanted = 25_000 if smoke else 100_000 if quick else 1_000_000
    settings = InfrastructureSettings().as_principal(ADMIN)  # TP_CREDENTIALS_DIR
    name = f"bench_rebuild_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(settings.postgres_dsn("postgres"))
    try:
        await admin.execute(f"CREATE DATABASE {name}")
        try:
            async with asyncpg.create_pool(
                settings.postgres_dsn(name), min_size=1, max_size=4
            ) as pool:
                store = AsyncpgEventStore(pool, producer="table")
                # the store's and the service's own tables: no snapshot yet
                await migrated(pool, STORE_MIGRATIONS, SERVICE.migrations)
                started = time.perf_counter()
                stored = await seed(store, wanted)
                seeding = time.perf_counter() - started
                print(f"seeded {stored:,} events in {seeding:.1f} s", flush=True)
                happened("events seeded", stored)
                await pool.execute("VACUUM ANALYZE events")
                freeze_startup_objects()  # the garbage collector's policy of every service
                runs = 1 if smoke else 3
                raw = await rate(raw_select, store, runs)
                stages = {
                    "read (store.replay_stream rows)": await rate(read_only, store, runs),
                    "read + decode (registry.decode_json)": await rate(
                        read_and_decode, store, runs
                    ),
                }
                full = await rate(rebuild, store, runs)
                profile = await profile_rebuild(store) if show_profile else ""
                await write_snapshots(store)
                restored = await rate(restore, store, runs)
        finally:
            await drop_database(admin, name)
    finally:
        await admin.close()
    for stage, value in stages.items():
        print(f"  {stage}: {value:,.0f} events/s")
    print(f"  read + decode + fold (the whole load): {full:,.0f} events/s")
    print(f"  restored from snapshots: {restored:,.0f} events/s")
    if show_profile:
        print(profile)
    baseline = f"plain asyncpg SELECT of the same rows, stream by stream ({TABLES} streams)"
    bound = (
        "Python per event in one process, which Postgres outpaces: the driver building each"
        " row (7 columns), the registry decoding each payload from its JSON into its model"
        " (compiled decoders for RoundOpened, CardDealt, RoundClosed; pydantic for the rest)"
        " and the fold (one copy of each round, then each event's changes); stages: "
        + ", ".join(f"{stage} {value:,.0f}/s" for stage, value in stages.items())
    )
    return [
        Figure(
            BENCHMARK,
            f"table states rebuilt from {stored:,} events ({TABLES} tables): events/s",
            full,
            "events/s",
            baseline,
            raw,
            ">= 0.6 of the plain SELECT",
            full >= GOAL_SHARE * raw,
            bound,
            goal_key="rebuild",
        ),
        Figure(
            BENCHMARK,
            f"the same states restored by the table service from its snapshots (every"
            f" {TableSettings().snapshot_every} events) and the events after them: events"
            " stood for/s",
            restored,
            "events/s",
            baseline,
            raw,
            "- (what a restart does; the full replay above is the goal's measure)",
            False,
            "per table: one snapshot read and decoded, then the 199 events after it (the worst"
            " case) read, decoded and folded as in the full replay",
        ),
    ]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="100,000 events (development)")
    parser.add_argument("--profile", action="store_true", help="print the rebuild's profile")
    parser.add_argument("--smoke", action="store_true", help="25,000 events, to show it works")
    args = parser.parse_args(argv)
    print_table(asyncio.run(measure(args.quick, args.profile, args.smoke)))


if __name__ == "__main__":
    main()
