"""Bet intake benchmark: slips per second through the wallet's operator API (POST /bets).

    uv run python benchmarks/bench_intake.py [--quick]

The four services run as processes on the local stack (`fresh_system`). One table is opened
with a long betting window, players are funded, and then:
- saturation: `CONCURRENCY` clients post slips back to back (closed loop), for `bets/s`
  at saturation;
- latency: slips are sent on a fixed schedule (open loop, a fixed offered load below the
  saturation rate just measured: 60% of it, or the goal's 3,000 bets/s where the
  saturation is above that), each timed from its scheduled send time, for p50/p95/p99;
both first with one-bet slips (each bet its own request, the worst case for bets/s), then
with six-bet slips (one bet of each type, the most a slip holds).
The raw limit, measured in the same run on the same Postgres: single-row INSERT
transactions per second with asyncpg at the same concurrency (a fresh database).

The client is a minimal HTTP/1.1 keep-alive client on asyncio streams, so that the load
generator (which shares the two cores with the services) costs as little as possible.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg

from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.bench import (
    Figure,
    System,
    cpu_seconds,
    fresh_system,
    happened,
    percentile,
    system_cpu,
)
from teenpatti_tools.databases import drop_database
from teenpatti_tools.devrun import free_base_port
from teenpatti_tools.simulator import (
    BET_TYPES,
    OPERATOR_KEYS,
    SECOND_SUPERVISOR_KEY,
    SUPERVISOR_KEY,
)

BENCHMARK = "bet intake"
CURRENCY = "INR"
LIMITS = {CURRENCY: {bet: {"min": 100, "max": 100_000} for bet in BET_TYPES}}
CONCURRENCY = 32
GOAL_RATE = 3_000.0  # bets/s: the fixed load at which the p99 goal holds
GOAL_SATURATION = 6_000.0  # bets/s
GOAL_P99_MS = 50.0
GOAL_CPU_PER_SLIP_MS = 2.5
OPERATOR = "operator-1"
ONE_BET = {"tie": 100}
SIX_BETS = {bet: 100 for bet in BET_TYPES}  # one of each bet type, as a slip may hold


# ---------------------------------------------------------------------- a light HTTP client
class HttpError(RuntimeError):
    pass


class Connection:
    """One keep-alive HTTP/1.1 connection; one request at a time."""

    def __init__(self, host: str, port: int) -> None:
        self._host, self._port = host, port
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._reader is None or self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self._host, self._port)
            sock = self._writer.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return self._reader, self._writer

    async def request(
        self, method: str, path: str, headers: dict[str, str], body: object = None
    ) -> tuple[int, Any]:
        """One request; on a kept-alive connection the server closed while it was idle
        (uvicorn's keep-alive timeout), once more on a new one (slips carry an
        Idempotency-Key, so a resent slip is never taken twice)."""
        reused = self._writer is not None
        async with asyncio.timeout(30):
            try:
                return await self._request(method, path, headers, body)
            except (ConnectionError, HttpError):
                await self.close()
                if not reused:
                    raise
                return await self._request(method, path, headers, body)

    async def _request(
        self, method: str, path: str, headers: dict[str, str], body: object
    ) -> tuple[int, Any]:
        reader, writer = await self._open()
        payload = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", f"Host: {self._host}:{self._port}"]
        head += [f"{name}: {value}" for name, value in headers.items()]
        if body is not None:
            head.append("Content-Type: application/json")
        head.append(f"Content-Length: {len(payload)}")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        status_line = await reader.readline()
        if not status_line:
            await self.close()
            raise HttpError(f"{method} {path}: connection closed")
        status = int(status_line.split(b" ", 2)[1])
        length, close = 0, False
        while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            lowered = name.strip().lower()
            if lowered == "content-length":
                length = int(value.strip())
            elif lowered == "connection" and value.strip().lower() == "close":
                close = True
        raw = await reader.readexactly(length) if length else b""
        if close:
            await self.close()
        return status, (json.loads(raw) if raw else None)

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None


def connection_to(url: str) -> Connection:
    host, port = url.removeprefix("http://").split(":")
    return Connection(host, int(port))


# uvicorn re-raises SIGTERM after its graceful shutdown, which would skip atexit: the hook's
# own SIGTERM handler (the one uvicorn restores before re-raising) exits normally instead.
PROFILE_HOOK = """
import atexit, cProfile, os, signal, sys
if any(os.environ["BENCH_PROFILE_APP"] in a for a in sys.argv):
    _profile = cProfile.Profile()
    _profile.enable()
    def _dump():
        _profile.disable()
        _profile.dump_stats(
            os.path.join(os.environ["BENCH_PROFILE_DIR"], f"{os.environ['BENCH_PROFILE_APP']}"
            f".{os.getpid()}.prof")
        )
    atexit.register(_dump)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
"""


def profiling_env(app: str | None) -> dict[str, str]:
    """Environment that makes the service whose uvicorn app contains `app` (a package name,
    e.g. `wallet_service`) run under cProfile and dump its profile to .local/profiles/ when
    it stops (a `sitecustomize` module on PYTHONPATH; nothing in the services changes)."""
    if not app:
        return {}
    directory = Path(".local/profiles").resolve()
    hook = directory / "hook"
    hook.mkdir(parents=True, exist_ok=True)
    (hook / "sitecustomize.py").write_text(PROFILE_HOOK)
    return {
        "PYTHONPATH": str(hook),
        "BENCH_PROFILE_APP": app,
        "BENCH_PROFILE_DIR": str(directory),
    }


# ---------------------------------------------------------------------- the studio's hands
@dataclass
class Studio:
    system: System

    async def open_table(
        self, table_id: str, betting_seconds: float, result_pause_seconds: float = 600
    ) -> str:
        """Open the table, its terms approved by a second supervisor (docs/decisions/0086);
        the id of its first round once the table has opened it."""
        table = connection_to(self.system.url("table"))
        try:
            status, body = await table.request(
                "POST",
                "/tables",
                {"X-Api-Key": SUPERVISOR_KEY},
                {
                    "table_id": table_id,
                    "name": f"bench {table_id}",
                    "betting_seconds": betting_seconds,
                    "result_pause_seconds": result_pause_seconds,
                    "limits": LIMITS,
                },
            )
            if status == 202:  # new terms: the second supervisor approves them
                change_id = body["pending_change"]["change_id"]
                status, body = await table.request(
                    "POST",
                    f"/tables/{table_id}/changes/{change_id}/approve",
                    {"X-Api-Key": SECOND_SUPERVISOR_KEY},
                )
            if status not in (200, 201):
                raise HttpError(f"open table {table_id}: {status} {body}")
            event = await self.wait_for_event(table, table_id, "RoundOpened")
            return str(event["payload"]["round_id"])
        finally:
            await table.close()

    async def table_events(self, table: Connection, table_id: str) -> list[dict[str, Any]]:
        status, body = await table.request(
            "GET", f"/tables/{table_id}/events?after=0", {"X-Api-Key": SUPERVISOR_KEY}
        )
        if status != 200:
            raise HttpError(f"events of {table_id}: {status} {body}")
        return list(body["events"] if isinstance(body, dict) else body)

    async def wait_for_event(
        self, table: Connection, table_id: str, event_type: str, within: float = 60
    ) -> dict[str, Any]:
        async with asyncio.timeout(within):
            while True:
                for event in await self.table_events(table, table_id):
                    if event["event_type"] == event_type:
                        return event
                await asyncio.sleep(0.05)

    async def close_table(self, table_id: str) -> None:
        table = connection_to(self.system.url("table"))
        try:
            await table.request(
                "POST",
                f"/tables/{table_id}/close",
                {"X-Api-Key": SUPERVISOR_KEY},
                {"reason": "benchmark finished"},
            )
        finally:
            await table.close()

    async def fund(self, players: Sequence[str], amount: int, concurrency: int = 16) -> None:
        queue = list(players)

        async def worker() -> None:
            wallet = connection_to(self.system.url("wallet"))
            try:
                while queue:
                    player = queue.pop()
                    status, body = await wallet.request(
                        "POST",
                        f"/players/{player}/deposits",
                        {"X-Api-Key": OPERATOR_KEYS[OPERATOR]},
                        {"transfer_id": str(uuid.uuid4()), "currency": CURRENCY, "amount": amount},
                    )
                    if status not in (200, 201):
                        raise HttpError(f"deposit for {player}: {status} {body}")
            finally:
                await wallet.close()

        await asyncio.gather(*(worker() for _ in range(concurrency)))

    async def wait_round_known(self, round_id: str, player: str, within: float = 30) -> None:
        """Until the wallet has seen RoundOpened (a slip is no longer `unknown_round`); the
        probe is a slip refused for its currency, so it moves no money."""
        wallet = connection_to(self.system.url("wallet"))
        try:
            async with asyncio.timeout(within):
                while True:
                    status, _ = await post_slip(
                        wallet, player, round_id, {"player_a": 100}, currency="XXX"
                    )
                    if status != 404:
                        return
                    await asyncio.sleep(0.05)
        finally:
            await wallet.close()


async def post_slip(
    wallet: Connection,
    player: str,
    round_id: str,
    bets: dict[str, int],
    currency: str = CURRENCY,
) -> tuple[int, Any]:
    return await wallet.request(
        "POST",
        "/bets",
        {"X-Api-Key": OPERATOR_KEYS[OPERATOR], "Idempotency-Key": uuid.uuid4().hex},
        {
            "player_id": player,
            "round_id": round_id,
            "currency": currency,
            "bets": [{"bet_type": t, "stake": s} for t, s in bets.items()],
        },
    )


# how a client posts one slip: (connection, player, round, bets) -> (status, body)
PostSlip = Callable[[Connection, str, str, dict[str, int]], Awaitable[tuple[int, Any]]]


# ---------------------------------------------------------------------- the measurements
@dataclass(frozen=True)
class Saturation:
    slips: int
    seconds: float
    refused: int

    @property
    def rate(self) -> float:
        return self.slips / self.seconds


async def saturate(
    url: str,
    round_id: str,
    players: Sequence[str],
    slips: int,
    concurrency: int,
    bets: dict[str, int] = ONE_BET,
    post: PostSlip = post_slip,
) -> Saturation:
    """`concurrency` clients posting slips of `bets` back to back, `slips` in all."""
    remaining = slips
    refused = 0

    async def client(n: int) -> None:
        nonlocal remaining, refused
        wallet = connection_to(url)
        mine = players[n::concurrency]
        k = 0
        try:
            while remaining > 0:
                remaining -= 1
                status, _ = await post(wallet, mine[k % len(mine)], round_id, bets)
                k += 1
                if status != 201:
                    refused += 1
        finally:
            await wallet.close()

    started = time.perf_counter()
    await asyncio.gather(*(client(n) for n in range(concurrency)))
    return Saturation(slips, time.perf_counter() - started, refused)


@dataclass(frozen=True)
class Latencies:
    offered_rate: float
    achieved_rate: float
    samples_ms: list[float]
    refused: int


async def fixed_load(
    url: str,
    round_id: str,
    players: Sequence[str],
    rate: float,
    seconds: float,
    pool: int,
    bets: dict[str, int] = ONE_BET,
    post: PostSlip = post_slip,
) -> Latencies:
    """Open loop: slip n is due at start + n/rate whatever the answers; its latency runs
    from when it was due (so a stalled server is not hidden by a waiting client)."""
    count = max(1, int(rate * seconds))
    connections: asyncio.Queue[Connection] = asyncio.Queue()
    for _ in range(pool):
        connections.put_nowait(connection_to(url))
    samples: list[float] = []
    refused = 0

    async def one(n: int, due: float) -> None:
        nonlocal refused
        wallet = await connections.get()
        try:
            status, _ = await post(wallet, players[n % len(players)], round_id, bets)
        finally:
            connections.put_nowait(wallet)
        samples.append((time.perf_counter() - due) * 1000)
        if status != 201:
            refused += 1

    started = time.perf_counter()
    tasks = []
    for n in range(count):
        due = started + n / rate
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(n, due)))
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - started
    while not connections.empty():
        await connections.get_nowait().close()
    return Latencies(rate, count / elapsed, samples, refused)


@dataclass(frozen=True)
class RawLimit:
    transactions_per_second: float  # closed loop, `concurrency` connections
    latencies_ms: list[float]  # open loop at the fixed offered load


async def raw_inserts(
    settings: InfrastructureSettings,
    transactions: int,
    concurrency: int,
    rate: float,
    seconds: float,
) -> RawLimit:
    """Single-row INSERT transactions with asyncpg in a fresh database: per second with
    `concurrency` connections back to back, and their latency at the fixed offered load."""
    name = f"bench_raw_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(settings.postgres_dsn("postgres"))
    try:
        await admin.execute(f"CREATE DATABASE {name}")
        try:
            async with asyncpg.create_pool(
                settings.postgres_dsn(name), min_size=concurrency, max_size=concurrency
            ) as pool:
                await pool.execute(
                    "CREATE TABLE bets (bet_id uuid PRIMARY KEY, player_id text NOT NULL,"
                    " round_id text NOT NULL, bet_type text NOT NULL, stake bigint NOT NULL)"
                )

                async def insert(connection: asyncpg.Connection) -> None:
                    await connection.execute(
                        "INSERT INTO bets VALUES ($1, $2, $3, $4, $5)",
                        uuid.uuid4(),
                        "player-1",
                        "T1-000001",
                        "tie",
                        100,
                    )

                remaining = transactions

                async def client() -> None:
                    nonlocal remaining
                    async with pool.acquire() as connection:
                        while remaining > 0:
                            remaining -= 1
                            await insert(connection)

                started = time.perf_counter()
                await asyncio.gather(*(client() for _ in range(concurrency)))
                per_second = transactions / (time.perf_counter() - started)

                samples: list[float] = []

                async def one(due: float) -> None:
                    async with pool.acquire() as connection:
                        await insert(connection)
                    samples.append((time.perf_counter() - due) * 1000)

                started = time.perf_counter()
                tasks = []
                for n in range(max(1, int(rate * seconds))):
                    due = started + n / rate
                    delay = due - time.perf_counter()
                    if delay > 0:
                        await asyncio.sleep(delay)
                    tasks.append(asyncio.create_task(one(due)))
                await asyncio.gather(*tasks)
                return RawLimit(per_second, samples)
        finally:
            await drop_database(admin, name)
    finally:
        await admin.close()


@dataclass(frozen=True)
class Shape:
    name: str  # "one-bet", "six-bet"
    bets: dict[str, int]
    saturation: Saturation
    offered_rate: float  # slips/s of the fixed load
    latencies: Latencies
    cpu_ms: dict[str, float]  # CPU per slip during the fixed load, by process (and machine)

    @property
    def bets_per_second(self) -> float:
        return self.saturation.rate * len(self.bets)


async def measure_shape(
    system: System,
    round_id: str,
    players: Sequence[str],
    name: str,
    bets: dict[str, int],
    slips: int,
    load_seconds: float,
) -> Shape:
    """Saturation with slips of `bets`, then their latency at 60% of that rate (rounded
    down to 10 slips/s), or at the goal's rate (3,000 bets/s) if the saturation is above it
    and 60% below: the goal asks for both at once. The processes' CPU is read around the
    fixed load."""
    url = system.url("wallet")
    await saturate(url, round_id, players, min(300, slips), CONCURRENCY, bets)  # warm up
    saturation = await saturate(url, round_id, players, slips, CONCURRENCY, bets)
    rate = max(10.0, (saturation.rate * 0.6) // 10 * 10)
    goal_slips = GOAL_RATE / len(bets)
    if saturation.rate > goal_slips:
        rate = max(rate, goal_slips)
    before = cpu_seconds(system)
    latencies = await fixed_load(
        url, round_id, players, rate, load_seconds, pool=CONCURRENCY, bets=bets
    )
    after = cpu_seconds(system)
    slips_sent = len(latencies.samples_ms)
    happened(f"{name} slips answered at the fixed load", slips_sent)
    cpu_ms = {
        name: (after[name] - before[name]) * 1000 / slips_sent
        for name in after
        if not name.startswith("postgres:")
    }
    if saturation.refused or latencies.refused:
        raise RuntimeError(
            f"{name} slips refused: {saturation.refused} (saturation),"
            f" {latencies.refused} (latency)"
        )
    return Shape(name, bets, saturation, rate, latencies, cpu_ms)


async def measure(
    quick: bool, profile: str | None = None, smoke: bool = False, system: System | None = None
) -> list[Figure]:
    """One-bet slips (each bet its own request: the worst case for bets/s), then six-bet
    slips (one bet of each type: the most a slip holds), on the same table and players.
    `smoke`: a few slips, only to show that it works; `system`: on that one, not a fresh one."""
    slips = 96 if smoke else 2_000 if quick else 15_000
    load_seconds = 1.0 if smoke else 5.0 if quick else 20.0
    players = [f"bench-{n:04d}" for n in range(4 * CONCURRENCY)]
    async with fresh_system(
        base_port=free_base_port(), extra_env=profiling_env(profile), shared=system
    ) as system:
        studio = Studio(system)
        round_id = await studio.open_table("BI1", betting_seconds=600)
        await studio.fund(players, 10**12)
        await studio.wait_round_known(round_id, players[0])
        shapes = [
            await measure_shape(system, round_id, players, name, bets, n, load_seconds)
            for name, bets, n in (("one-bet", ONE_BET, slips), ("six-bet", SIX_BETS, slips // 3))
        ]
        await studio.close_table("BI1")
        one_bet = shapes[0]
        raw = await raw_inserts(
            system.settings, slips, CONCURRENCY, one_bet.offered_rate, load_seconds
        )
    bound = (
        "the two cores, shared by Postgres, the wallet's one process (uvicorn with httptools"
        " and uvloop, FastAPI, pydantic; a slip one SQL statement, slips that arrive together"
        " one statement and one durable commit) and the rest; a slip writes its key with its"
        " answer, its bets, two ledger rows (the slip's stakes), the balance, one BetsPlaced"
        " event and the stream version (7 rows for one bet, 12 for six). The cost is mostly"
        " per slip (request, statement, a share of a commit), so a six-bet slip carries"
        " several times the bets per second. CPU per slip during the fixed loads (from"
        " /proc): "
        + "; ".join(
            f"{shape.name} at {shape.offered_rate:.0f} slips/s: "
            + ", ".join(
                f"{name} {ms:.2f} ms"
                for name, ms in sorted(shape.cpu_ms.items(), key=lambda item: -item[1])
                if name != "machine" and ms >= 0.01
            )
            + f"; the whole machine {shape.cpu_ms['machine']:.2f} ms"
            f" ({shape.cpu_ms['machine'] * shape.offered_rate / 1000:.2f} of its 2 cores busy)"
            for shape in shapes
        )
    )
    figures: list[Figure] = []
    for shape in shapes:
        six = shape.name == "six-bet"  # the goals' slips
        figures.append(
            Figure(
                BENCHMARK,
                f"bets/s at saturation, {shape.name} slips ({CONCURRENCY} clients,"
                f" {shape.saturation.slips} slips: {shape.saturation.rate:,.0f} slips/s)",
                shape.bets_per_second,
                "bets/s",
                f"single-row INSERT tx/s, asyncpg, {CONCURRENCY} connections",
                raw.transactions_per_second,
                ">= 6,000 bets/s" if six else "-",
                shape.bets_per_second >= GOAL_SATURATION,
                bound,
                goal_key="intake" if six else "",
            )
        )
        latencies = shape.latencies
        offered_bets = shape.offered_rate * len(shape.bets)
        for p in (50, 95, 99):
            value = percentile(latencies.samples_ms, p)
            goal = six and p == 99
            figures.append(
                Figure(
                    BENCHMARK,
                    f"p{p} {shape.name} slip latency at a fixed {shape.offered_rate:.0f}"
                    f" slips/s = {offered_bets:,.0f} bets/s"
                    f" (achieved {latencies.achieved_rate:.0f} slips/s)",
                    value,
                    "ms",
                    f"p{p} of single-row INSERT tx at {one_bet.offered_rate:.0f}/s (ms)",
                    percentile(raw.latencies_ms, p),
                    "p99 < 50 ms at 3,000 bets/s" if goal else "-",
                    # met only at the goal's load: a lower one (saturation below it) is not
                    value < GOAL_P99_MS and offered_bets >= GOAL_RATE,
                    bound,
                    goal_key="intake-p99" if goal else "",
                )
            )
        by_process = system_cpu(shape.cpu_ms)
        per_slip = sum(by_process.values())
        figures.append(
            Figure(
                BENCHMARK,
                f"CPU per {shape.name} slip, all processes (services, Postgres, Kafka), at a"
                f" fixed {shape.offered_rate:.0f} slips/s (the whole machine, the load"
                f" generator too: {shape.cpu_ms['machine']:.2f} ms)",
                per_slip,
                "ms",
                "-",
                0.0,
                "<= 2.5 ms" if six else "-",
                per_slip <= GOAL_CPU_PER_SLIP_MS,
                bound,
                goal_key="cpu-per-slip" if six else "",
                by_process=by_process,
            )
        )
    return figures


def _number(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def print_table(figures: Sequence[Figure]) -> None:
    print(f"| {'measure':<66} | {'value':>10} | {'baseline':>10} | {'ratio':>6} | goal met |")
    print(f"|{'-' * 68}|{'-' * 12}|{'-' * 12}|{'-' * 8}|----------|")
    for figure in figures:
        print(
            f"| {figure.measure:<66} | {_number(figure.value):>10} |"
            f" {_number(figure.baseline_value):>10} | {figure.ratio:>6.3g} |"
            f" {'yes' if figure.met else 'no':<8} |"
        )
    for figure in figures:
        print(f"\n{figure.measure}\n  baseline: {figure.baseline}\n  goal: {figure.goal}")
        if figure.bound_by:
            print(f"  bound by: {figure.bound_by}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (development)")
    parser.add_argument("--smoke", action="store_true", help="a few slips, to show it works")
    parser.add_argument(
        "--profile", metavar="PACKAGE", help="run this service (e.g. wallet_service) under cProfile"
    )
    args = parser.parse_args()
    figures = asyncio.run(measure(args.quick, args.profile, args.smoke))
    print_table(figures)


if __name__ == "__main__":
    main()
