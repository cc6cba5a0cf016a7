"""`make bench`: the end-to-end benchmarks, one after the other, on the local stack.

    make bench                 (or: uv run python benchmarks/bench_all.py [--quick] [--only X])

Runs bet intake, settlement, scan to result, rebuild, tables, the seamless wallet and the
operator calls' client (each also runnable alone as benchmarks/bench_<name>.py), prints the
goals (each goal's figure, its raw limit of the same run and the ratio), the CPU per bet and
per slip by process, and every figure; keeps the run as a new data file in
docs/performance/runs/ and rewrites the generated part of docs/performance.md with the
figures of this run. Before each benchmark it waits (up to two minutes) for the machine to
go quiet, and says what it saw. A benchmark that fails, or measures nothing, fails the run.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from teenpatti_tools.bench import GOALS, Figure
from teenpatti_tools.terminal import tool_logging

BENCHMARKS = ("intake", "settlement", "scan", "rebuild", "tables", "seamless", "seamless_client")
QUIET_CORES = 0.2  # the stack alone at rest uses under 0.1 of a core here
SETTLE_SECONDS = 120.0
DOC = Path("docs/performance.md")
RUNS = Path("docs/performance/runs")  # one JSON file per run; fields: docs/performance.md
START, END = "<!-- make bench: start -->", "<!-- make bench: end -->"


def busy_cores(seconds: float = 1.0) -> float:
    """How many cores' worth of CPU the whole machine used over the next `seconds`."""

    def sample() -> tuple[int, int]:
        with open("/proc/stat") as stat:
            ticks = [int(value) for value in stat.readline().split()[1:]]
        idle = ticks[3] + ticks[4]  # idle and iowait
        return sum(ticks) - idle, sum(ticks)

    busy_before, total_before = sample()
    time.sleep(seconds)
    busy_after, total_after = sample()
    share = (busy_after - busy_before) / max(1, total_after - total_before)
    return share * (os.cpu_count() or 1)


def settle(quiet_cores: float = QUIET_CORES, most_seconds: float = SETTLE_SECONDS) -> str:
    """Wait until the machine is quiet (under `quiet_cores` busy for three seconds in a row,
    at most `most_seconds`): what one benchmark leaves behind (Postgres vacuuming and
    dropping its databases, Kafka deleting its topics) must not be measured in the next.
    Says what it saw."""
    started = time.monotonic()
    quiet_in_a_row = 0
    seen = 0.0
    while quiet_in_a_row < 3 and time.monotonic() - started < most_seconds:
        seen = busy_cores()
        quiet_in_a_row = quiet_in_a_row + 1 if seen < quiet_cores else 0
    waited = time.monotonic() - started
    verdict = "quiet" if quiet_in_a_row >= 3 else "still busy"
    return f"{verdict} after {waited:.0f} s ({seen:.2f} of {os.cpu_count()} cores busy)"


def table(figures: list[Figure]) -> list[str]:
    rows = [
        "| benchmark | measure | value | raw limit (same run) | ratio | goal | met |",
        "|---|---|---:|---|---:|---|---|",
    ]
    for f in figures:
        rows.append(
            f"| {f.benchmark} | {f.measure} | {f.value:,.1f} {f.unit} |"
            f" {'-' if f.baseline == '-' else f'{f.baseline}: {f.baseline_value:,.1f}'} |"
            f" {'-' if f.baseline == '-' else f'{f.ratio:.2f}'} | {f.goal} |"
            f" {'-' if f.goal == '-' else 'yes' if f.met else 'no'} |"
        )
    return rows


def _value(figure: Figure) -> str:
    return f"{figure.value:,.1f} {figure.unit}"


def goals_table(figures: list[Figure]) -> list[str]:
    """Each goal's figure of this run beside its raw limit of the same run, and the ratio; what
    exactly was measured (its size, its load) last."""
    rows = [
        "| goal | figure | raw limit (same run) | ratio | goal | met | measured as |",
        "|---|---:|---|---:|---|---|---|",
    ]
    for goal in GOALS:
        figure = next((f for f in figures if f.goal_key == goal.key), None)
        if figure is None:
            rows.append(f"| {goal.measure} | not measured | - | - | {goal.goal} | - | - |")
            continue
        raw = "-" if figure.baseline == "-" else f"{figure.baseline}: {figure.baseline_value:,.1f}"
        ratio = "-" if figure.baseline == "-" else f"{figure.ratio:.2f}"
        rows.append(
            f"| {goal.measure} | {_value(figure)} | {raw} | {ratio} | {goal.goal} |"
            f" {'yes' if figure.met else 'no'} | {figure.measure} |"
        )
    return rows


def cpu_lines(figures: list[Figure]) -> list[str]:
    """The CPU figures' shares by process (services, Postgres, Kafka), largest first."""
    return [
        f"- **{f.measure}**: {_value(f)}: "
        + ", ".join(
            f"{name} {amount:,.2f} {f.unit}"
            for name, amount in sorted(f.by_process.items(), key=lambda item: -item[1])
        )
        for f in figures
        if f.by_process
    ]


def bounds(figures: list[Figure]) -> list[str]:
    """One line per benchmark: what bounds it (its figures share the profile)."""
    said: dict[str, str] = {}
    for f in figures:
        if f.bound_by and f.benchmark not in said:
            said[f.benchmark] = f.bound_by
    return [f"- **{benchmark}**: {bound}" for benchmark, bound in said.items()]


def write_doc(figures: list[Figure], when: str, quick: bool, run: Path) -> None:
    section = [
        START,
        f"Run of {when} ({'quick sizes' if quick else 'full sizes'}), Python"
        f" {platform.python_version()}, on the development machine (2 cores);"
        f" its data: [`{run.name}`]({run.relative_to(DOC.parent).as_posix()}).",
        "",
        *goals_table(figures),
        "",
        "CPU by process:",
        "",
        *cpu_lines(figures),
        "",
        "Every figure:",
        "",
        *table(figures),
        "",
        "What bounds each (from the profiles):",
        "",
        *bounds(figures),
        END,
    ]
    text = DOC.read_text() if DOC.exists() else "# Performance\n"
    if START in text and END in text:
        before, _, rest = text.partition(START)
        _, _, after = rest.partition(END)
        text = before + "\n".join(section) + after
    else:
        text = text.rstrip() + "\n\n## The latest `make bench` run\n" + "\n".join(section) + "\n"
    DOC.write_text(text)


def write_run(
    figures: list[Figure], started: datetime, ended: datetime, quick: bool, failed: list[str]
) -> Path:
    """This run as a new file in docs/performance/runs/, named after its start."""
    RUNS.mkdir(parents=True, exist_ok=True)
    name = started.strftime("%Y-%m-%dT%H%MZ") + ("-make-bench-quick" if quick else "-make-bench")
    iso = "%Y-%m-%dT%H:%MZ"
    body = {
        "run": name,
        "when": f"{started.strftime(iso)}/{ended.strftime(iso)}",
        "command": " ".join(["benchmarks/bench_all.py", *sys.argv[1:]]),
        "quick": quick,
        "python": platform.python_version(),
        "machine": f"{os.cpu_count()} cores",
        "figures": [f.as_dict() for f in figures],
        "failed": failed,
    }
    path = RUNS / f"{name}.json"
    path.write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n")
    return path


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, to check it works")
    parser.add_argument("--only", choices=BENCHMARKS, action="append", help="run only these")
    parser.add_argument("--no-doc", action="store_true", help="do not rewrite docs/performance.md")
    args = parser.parse_args()
    tool_logging("bench")  # each system's services log to files, which it names
    started = datetime.now(UTC)
    figures: list[Figure] = []
    failed: list[str] = []
    for name in args.only or BENCHMARKS:
        print(f"== {name}: machine {settle()}", file=sys.stderr, flush=True)
        try:
            module = importlib.import_module(f"bench_{name}")
            figures.extend(await module.measure(args.quick))
        except Exception as error:  # one broken benchmark must not hide the others
            failed.append(f"{name}: {type(error).__name__}: {error}")
            print(f"   {name} failed: {error}", file=sys.stderr)
    print("\n".join(["Goals:", *goals_table(figures), "", "CPU by process:", *cpu_lines(figures)]))
    print("\nEvery figure:")
    print("\n".join(table(figures)))
    ended = datetime.now(UTC)
    when = ended.strftime("%Y-%m-%d %H:%M UTC")
    run = write_run(figures, started, ended, args.quick, failed)
    print(f"\nwritten: {run}")
    if not args.no_doc and figures:
        write_doc(figures, when, args.quick, run)
        print(f"updated: {DOC}")
    for problem in failed:
        print(f"FAILED {problem}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
