"""What the end-to-end benchmarks share: a fresh system to measure, and how figures are kept.

`fresh_system()` starts the four services as processes on the local stack, each with a
fresh database and a fresh topic prefix (and says where their logs are), and removes them
afterwards. A benchmark returns `Figure`s: the measured value, the raw limit measured in the
same run, and the goal. `GOALS` lists the goals `make bench` reports, each figure naming
the one it measures.
"""

from __future__ import annotations

import os
import statistics
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass

from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.devrun import ServiceProcesses, isolated_system


@dataclass(frozen=True)
class Goal:
    key: str
    measure: str
    goal: str


# what `make bench` reports first, in this order: each goal's figure, raw limit and ratio
GOALS = (
    Goal(
        "settlement",
        "a 100,000-bet round, RoundClosed to the last bet paid (transfer)",
        "<= 2x the raw insert of 100,000 rows in the same run, and under 1.5 s",
    ),
    Goal(
        "cpu-per-bet",
        "CPU per settled bet, all processes together (services, Postgres, Kafka)",
        "<= 15 us",
    ),
    Goal(
        "seamless-round",
        "the same round at a seamless operator (one win per player and round), last win"
        " acknowledged",
        "<= the transfer wallet's figure + 0.3 s",
    ),
    Goal(
        "operator-call",
        "game-side CPU per call to an operator's wallet (signing included)",
        "<= 0.5 ms",
    ),
    Goal("intake", "intake, six-bet slips, saturation", ">= 6,000 bets/s"),
    Goal("intake-p99", "intake, six-bet slips, p99 at 3,000 bets/s", "< 50 ms at 3,000 bets/s"),
    Goal(
        "cpu-per-slip",
        "machine CPU per six-bet slip, all processes (services, Postgres, Kafka)",
        "<= 2.5 ms",
    ),
    Goal(
        "seamless-intake",
        "seamless intake: p99 the game side adds to the operator's own latency at 1,000 bets/s",
        "< 20 ms",
    ),
    Goal("scan", "scan to RoundClosed on a player's feed, 100 tables, p99", "< 30 ms"),
    Goal("rebuild", "full rebuild", ">= 0.6 of a plain SELECT of the same rows"),
    Goal(
        "tables",
        "1,000 tables",
        "betting closes on time (p99.9 <= 100 ms) and a round's dealing keeps the dealer's"
        " pace (p50 within 1.2x of it)",
    ),
)
GOAL_KEYS = frozenset(goal.key for goal in GOALS)
# the processes of the system measured: CPU "all processes together" sums these
SYSTEM_PROCESSES = ("table", "scanner-gateway", "wallet", "settlement", "postgres", "kafka")


@dataclass(frozen=True)
class Figure:
    benchmark: str  # "bet intake", "settlement", ...
    measure: str  # what was measured, with its conditions
    value: float
    unit: str  # "bets/s", "ms", "events/s", "tables"
    baseline: str  # the raw limit measured in the same run ("-": the goal names none)
    baseline_value: float
    goal: str  # the goal, in words
    met: bool
    bound_by: str = ""  # what the profile says limits it
    goal_key: str = ""  # the goal of GOALS it measures, if any
    by_process: dict[str, float] | None = None  # a CPU figure's share of each process

    def __post_init__(self) -> None:
        if self.goal_key and self.goal_key not in GOAL_KEYS:
            raise ValueError(f"unknown goal {self.goal_key!r}")

    @property
    def ratio(self) -> float:
        return self.value / self.baseline_value if self.baseline_value else 0.0

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "ratio": self.ratio}


def system_cpu(used: dict[str, float]) -> dict[str, float]:
    """Of a span's CPU readings (`cpu_seconds` after minus before), the system's processes
    alone: each service, Postgres and Kafka (not the load generator, not the machine)."""

    def of_system(name: str) -> bool:
        kind, _, number = name.rpartition("-")  # an instance of several: "wallet-2"
        return name in SYSTEM_PROCESSES or (kind in SYSTEM_PROCESSES and number.isdigit())

    return {name: seconds for name, seconds in used.items() if of_system(name)}


class NothingHappenedError(RuntimeError):
    """A benchmark that measured nothing: it fails rather than report zeros."""


def happened(what: str, count: float) -> None:
    """Refuse a benchmark's figures when `what` (say, scans sent) did not happen at all."""
    if not count > 0:
        raise NothingHappenedError(f"nothing happened: {what} = {count}")


def percentile(samples: list[float], p: float) -> float:
    """The p-th percentile (0-100) by the nearest-rank method."""
    ordered = sorted(samples)
    rank = max(1, min(len(ordered), round(p / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def median(samples: list[float]) -> float:
    return statistics.median(samples)


@dataclass(frozen=True)
class System:
    processes: ServiceProcesses
    settings: InfrastructureSettings  # with the system's topic prefix
    databases: dict[str, str]  # service -> database name

    def url(self, service: str) -> str:
        return next(s.url for s in self.processes.services if s.name == service)


@asynccontextmanager
async def fresh_system(
    base_port: int = 18101,
    extra_env: dict[str, str] | None = None,
    *,
    shared: System | None = None,
) -> AsyncIterator[System]:
    """The services started on fresh databases and topics, and removed afterwards; or, with
    `shared`, that system, left running (the benchmarks' smoke runs share one)."""
    if shared is not None:
        yield shared
        return
    async with isolated_system(
        InfrastructureSettings(), label="bench", base_port=base_port, extra_env=extra_env
    ) as system:
        print(f"   the services' logs: {system.processes.log_dir}/", file=sys.stderr, flush=True)
        yield System(system.processes, system.settings, dict(system.databases))


def cpu_seconds(system: System) -> dict[str, float]:
    """CPU time (user + system) used so far by each service's process, by Postgres (all its
    processes, other databases' too), by the Kafka broker, and by the whole machine (the
    load generator too), from Linux's /proc. Subtract two readings for a span's use. Also
    `postgres:<service>`: the backends connected to that service's database. Postgres's
    and Kafka's figures never go down: a process that ended since an earlier reading keeps
    the CPU last read of it (`SharedCpu`), so another test's backend ending mid-span cannot make
    a span's use negative; what it used after that reading is not counted."""
    tick = os.sysconf("SC_CLK_TCK")
    by_database = {database: service for service, database in system.databases.items()}
    used: dict[str, float] = {"postgres": 0.0, "kafka": 0.0}
    for name, process in system.processes.processes.items():
        used[name] = _process_cpu(process.pid, tick)
    alive: dict[tuple[str, int], float] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/comm") as comm:
                program = comm.read().strip()
            with open(f"/proc/{entry.name}/cmdline", "rb") as cmdline:
                command = cmdline.read()
        except OSError:
            continue  # gone meanwhile
        if program == "postgres":
            pid = int(entry.name)
            cpu = _process_cpu(pid, tick)
            alive[("postgres", pid)] = cpu
            # a backend's title: "postgres: <user> <database> <client> <state>"
            title = command.split(b"\0")[0].split()
            if len(title) > 2 and title[2].decode() in by_database:
                alive[(f"postgres:{by_database[title[2].decode()]}", pid)] = cpu
        elif program == "java" and b"kafka.Kafka" in command:
            alive[("kafka", int(entry.name))] = _process_cpu(int(entry.name), tick)
    for name, seconds in _SHARED_CPU.read(alive).items():
        used[name] = used.get(name, 0.0) + seconds
    with open("/proc/stat") as stat:
        fields = [int(field) for field in stat.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal: all but idle and iowait are busy
    used["machine"] = (sum(fields[:8]) - fields[3] - fields[4]) / tick
    return used


class SharedCpu:
    """The CPU of shared processes (Postgres's, Kafka's) summed so that it never goes down:
    each process's last reading is kept once it has ended (or its pid was taken again)."""

    def __init__(self) -> None:
        self._last: dict[tuple[str, int], float] = {}
        self._ended: dict[str, float] = {}

    def read(self, alive: dict[tuple[str, int], float]) -> dict[str, float]:
        """Each name's CPU: its processes alive now, and those read before that ended."""
        for (name, pid), seconds in self._last.items():
            now = alive.get((name, pid))
            if now is None or now < seconds:  # ended, or a new process under its pid
                self._ended[name] = self._ended.get(name, 0.0) + seconds
        self._last = dict(alive)
        totals = dict(self._ended)
        for (name, _), seconds in alive.items():
            totals[name] = totals.get(name, 0.0) + seconds
        return totals


_SHARED_CPU = SharedCpu()


def _process_cpu(pid: int, tick: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / tick  # utime, stime


def descendants(root: int, parent_of: dict[int, int]) -> set[int]:
    """`root` and every process below it, from each process's parent (`/proc/<pid>/stat`)."""
    children: dict[int, list[int]] = {}
    for pid, parent in parent_of.items():
        children.setdefault(parent, []).append(pid)
    found, waiting = {root}, [root]
    while waiting:
        for child in children.get(waiting.pop(), ()):
            if child not in found:
                found.add(child)
                waiting.append(child)
    return found


def tree_cpu_seconds(root: int) -> float:
    """CPU time (user + system) used so far by `root` and its live descendants: a process
    outside the services, e.g. the reference operator and its uvicorn workers."""
    tick = os.sysconf("SC_CLK_TCK")
    parent_of: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as stat:
                parent_of[int(entry.name)] = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
    return sum(_process_cpu(pid, tick) for pid in descendants(root, parent_of))
