"""Event store benchmark: the project's store, the `eventsourcing` library, raw INSERTs.

    make bench-store            (or: uv run python benchmarks/bench_store.py [--quick])

All three run in one process against the same Postgres (the local stack), each in a fresh
database of its own, with one writer, so the figures compare like with like:
- appends/s with one event per transaction, and with batches of 100 events;
- replay: events/s reading the whole store back in commit order.
The raw limit is plain INSERTs into a table without the store's bookkeeping (single-row
transactions, and 100 rows per INSERT ... SELECT unnest), and a plain SELECT of it.
The peer is the `eventsourcing` library's PostgreSQL application recorder (psycopg 3).
The three are measured in turn, three times over (--quick: once), and each figure is the
median of its three: a machine whose speed drifts during the run weighs on all of them
alike instead of on whichever ran last.
Prints a table and writes bench-results/store.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar
from uuid import UUID, uuid4

import asyncpg
from eventsourcing.persistence import StoredEvent as PeerStoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore

from teenpatti.events import Event
from teenpatti.eventsourcing import MIGRATIONS as STORE_MIGRATIONS
from teenpatti.eventsourcing import AsyncpgEventStore, GlobalPosition
from teenpatti.settings import ADMIN, InfrastructureSettings
from teenpatti_tools.databases import drop_database, migrated

BATCH = 100
PAGE = 10_000
ROUNDS = 3  # each contender measured this many times, in turn


class SampleBet(Event):
    """A bet-sized event of the benchmark's own (not in the catalog)."""

    event_type: ClassVar[str] = "SampleBet"
    bet_id: UUID
    round_id: str
    player_id: str
    bet_type: str
    stake: int
    currency: str


def sample_event() -> SampleBet:
    return SampleBet(
        bet_id=uuid4(),
        round_id="T01-000042",
        player_id="op-1:player-00017",
        bet_type="pair_plus_a",
        stake=2500,
        currency="INR",
    )


@dataclass
class Figures:
    single_appends_per_s: float
    batched_events_per_s: float
    replay_events_per_s: float


def median_of(runs: list[Figures]) -> Figures:
    """Each figure's median over the runs."""
    return Figures(
        statistics.median(run.single_appends_per_s for run in runs),
        statistics.median(run.batched_events_per_s for run in runs),
        statistics.median(run.replay_events_per_s for run in runs),
    )


async def fresh_database(settings: InfrastructureSettings, name: str) -> str:
    admin = await asyncpg.connect(settings.postgres_dsn("postgres"))
    try:
        await drop_database(admin, name)
        await admin.execute(f"CREATE DATABASE {name}")
    finally:
        await admin.close()
    return settings.postgres_dsn(name)


async def checkpoint(settings: InfrastructureSettings) -> None:
    """Start each phase from a clean WAL state so no phase pays for another's checkpoint."""
    admin = await asyncpg.connect(settings.postgres_dsn("postgres"))
    try:
        await admin.execute("CHECKPOINT")
    except asyncpg.InsufficientPrivilegeError:
        pass
    finally:
        await admin.close()


async def timed(action: Callable[[], Awaitable[int]]) -> float:
    """Items per second of one run of `action`, which returns how many items it did."""
    started = time.perf_counter()
    count = await action()
    return count / (time.perf_counter() - started)


async def best_of(runs: int, action: Callable[[], Awaitable[int]]) -> float:
    return statistics.median([await timed(action) for _ in range(runs)])


# ------------------------------------------------------------------ the project's store
async def bench_ours(settings: InfrastructureSettings, singles: int, batches: int) -> Figures:
    dsn = await fresh_database(settings, "bench_store_ours")
    async with asyncpg.create_pool(dsn, min_size=1, max_size=2) as pool:
        store = AsyncpgEventStore(pool, producer="bench")
        await migrated(pool, STORE_MIGRATIONS)

        async def single() -> int:
            for n in range(singles):
                stream, version = divmod(n, BATCH)
                await store.append(f"s-{stream}", version, [sample_event()], table_id="T01")
            return singles

        async def batched() -> int:
            for n in range(batches):
                events = [sample_event() for _ in range(BATCH)]
                await store.append(f"b-{n}", 0, events, table_id="T01")
            return batches * BATCH

        async def replay() -> int:
            count, position = 0, GlobalPosition()
            while page := await store.read_all(position, limit=PAGE):
                count += len(page)
                position = page[-1].global_position
            return count

        await checkpoint(settings)
        single_rate = await timed(single)
        await checkpoint(settings)
        batched_rate = await timed(batched)
        replay_rate = await best_of(3, replay)
    return Figures(single_rate, batched_rate, replay_rate)


# ------------------------------------------------------------------ the peer library
async def bench_peer(settings: InfrastructureSettings, singles: int, batches: int) -> Figures:
    await fresh_database(settings, "bench_store_peer")
    datastore = PostgresDatastore(
        dbname="bench_store_peer",
        host=settings.pg_host,
        port=settings.pg_port,
        user=settings.pg_user,
        password=settings.pg_password.get_secret_value(),
        pool_size=2,
    )
    recorder = PostgresApplicationRecorder(datastore)
    recorder.create_table()

    def encoded() -> bytes:
        return sample_event().model_dump_json().encode()

    def single() -> int:
        streams = [uuid4() for _ in range(singles // BATCH + 1)]
        for n in range(singles):
            stream, version = divmod(n, BATCH)
            recorder.insert_events(
                [PeerStoredEvent(streams[stream], version + 1, "SampleBet", encoded())]
            )
        return singles

    def batched() -> int:
        for _ in range(batches):
            stream = uuid4()
            recorder.insert_events(
                [PeerStoredEvent(stream, v + 1, "SampleBet", encoded()) for v in range(BATCH)]
            )
        return batches * BATCH

    def replay() -> int:
        count, start = 0, 1
        while page := recorder.select_notifications(start, PAGE):
            count += len(page)
            start = page[-1].id + 1
        return count

    async def in_thread(function: Callable[[], int]) -> int:
        return await asyncio.to_thread(function)

    try:
        await checkpoint(settings)
        single_rate = await timed(lambda: in_thread(single))
        await checkpoint(settings)
        batched_rate = await timed(lambda: in_thread(batched))
        replay_rate = await best_of(3, lambda: in_thread(replay))
    finally:
        datastore.close()
    return Figures(single_rate, batched_rate, replay_rate)


# ------------------------------------------------------------------ the raw limit
RAW_TABLE = """
CREATE TABLE raw_events (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    stream_id      text NOT NULL,
    stream_version integer NOT NULL,
    payload        json NOT NULL  -- as the store keeps it
)
"""


async def bench_raw(settings: InfrastructureSettings, singles: int, batches: int) -> Figures:
    dsn = await fresh_database(settings, "bench_store_raw")
    connection = await asyncpg.connect(dsn)
    try:
        await connection.execute(RAW_TABLE)
        insert_one = await connection.prepare(
            "INSERT INTO raw_events (stream_id, stream_version, payload) VALUES ($1, $2, $3)"
        )
        insert_many = await connection.prepare(
            "INSERT INTO raw_events (stream_id, stream_version, payload)"
            " SELECT $1, v, p FROM unnest($2::int[], $3::json[]) AS r(v, p)"
        )
        select_page = await connection.prepare(
            "SELECT id, stream_id, stream_version, payload::text FROM raw_events"
            " WHERE id > $1 ORDER BY id LIMIT $2"
        )

        async def single() -> int:
            for n in range(singles):
                stream, version = divmod(n, BATCH)
                await insert_one.fetch(f"s-{stream}", version + 1, sample_event().model_dump_json())
            return singles

        async def batched() -> int:
            versions = list(range(1, BATCH + 1))
            for n in range(batches):
                payloads = [sample_event().model_dump_json() for _ in range(BATCH)]
                await insert_many.fetch(f"b-{n}", versions, payloads)
            return batches * BATCH

        async def replay() -> int:
            count, last = 0, 0
            while page := await select_page.fetch(last, PAGE):
                count += len(page)
                last = page[-1][0]
            return count

        await checkpoint(settings)
        single_rate = await timed(single)
        await checkpoint(settings)
        batched_rate = await timed(batched)
        replay_rate = await best_of(3, replay)
    finally:
        await connection.close()
    return Figures(single_rate, batched_rate, replay_rate)


# ------------------------------------------------------------------ report
LINES = (
    ("appends/s, 1 event per transaction", "single_appends_per_s", None),
    (f"events/s appended in batches of {BATCH}", "batched_events_per_s", 0.5),
    ("replay (read all), events/s", "replay_events_per_s", None),
)
REPLAY_GOAL = 200_000


def report(ours: Figures, peer: Figures, raw: Figures) -> list[str]:
    rows = [
        f"{'':44} {'raw':>10} {'eventsourcing':>14} {'teenpatti':>10}"
        f" {'vs raw':>7} {'vs peer':>8}  goal"
    ]
    verdicts = []
    for label, field, raw_share in LINES:
        r, p, o = (getattr(figures, field) for figures in (raw, peer, ours))
        goals = [f"ahead of peer {'met' if o > p else 'MISSED'}"]
        if raw_share is not None:
            met = o >= raw_share * r
            goals.append(f">= {raw_share:.0%} of raw {'met' if met else 'MISSED'}")
        if field == "replay_events_per_s":
            goals.append(f">= {REPLAY_GOAL:,}/s {'met' if o >= REPLAY_GOAL else 'MISSED'}")
        verdicts.extend(goals)
        rows.append(
            f"{label:44} {r:>10,.0f} {p:>14,.0f} {o:>10,.0f} {o / r:>7.2f} {o / p:>8.2f}  "
            + "; ".join(goals)
        )
    return rows


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small run to check it works")
    parser.add_argument("--smoke", action="store_true", help="a tiny run, to show it works")
    args = parser.parse_args()
    results = await run(args.quick, args.smoke)
    print(f"\nwritten: {write_results(results)}")


async def run(quick: bool, smoke: bool = False) -> dict[str, object]:
    """The three contenders in turn; prints the table and returns the results."""
    singles, batches = (30, 10) if smoke else (300, 100) if quick else (3000, 2000)
    settings = InfrastructureSettings().as_principal(ADMIN)  # TP_CREDENTIALS_DIR
    rounds = 1 if quick or smoke else ROUNDS
    print(
        f"one writer; {singles:,} single-event transactions, {batches:,} batches of {BATCH}"
        f" ({batches * BATCH:,} events); replay is the median of 3 full reads; the three"
        f" contenders in turn, {rounds} time(s) over, each figure the median",
        file=sys.stderr,
    )
    runs: dict[str, list[Figures]] = {"raw": [], "eventsourcing": [], "teenpatti": []}
    for round_ in range(1, rounds + 1):
        runs["raw"].append(await bench_raw(settings, singles, batches))
        runs["eventsourcing"].append(await bench_peer(settings, singles, batches))
        runs["teenpatti"].append(await bench_ours(settings, singles, batches))
        print(f"round {round_} of {rounds} done", file=sys.stderr)
    raw, peer, ours = (median_of(runs[name]) for name in runs)
    print()
    print("\n".join(report(ours, peer, raw)))
    return {
        "singles": singles,
        "batch": BATCH,
        "batches": batches,
        "rounds": rounds,
        "raw": raw.__dict__,
        "eventsourcing": peer.__dict__,
        "teenpatti": ours.__dict__,
        "each_round": {name: [figures.__dict__ for figures in each] for name, each in runs.items()},
    }


def write_results(results: dict[str, object]) -> Path:
    out = Path("bench-results")
    out.mkdir(exist_ok=True)
    path = out / "store.json"
    path.write_text(json.dumps(results, indent=2))
    return path


if __name__ == "__main__":
    asyncio.run(main())
