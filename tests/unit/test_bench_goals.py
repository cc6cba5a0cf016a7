"""`make bench`'s report of the goals: each goal's figure beside its raw limit, or said to
be missing; the CPU "of all processes" is the system's, not the load generator's."""

import pytest

from benchmarks.bench_all import cpu_lines, goals_table
from teenpatti_tools.bench import (
    GOALS,
    Figure,
    NothingHappenedError,
    SharedCpu,
    happened,
    system_cpu,
)


def figure(goal_key: str, value: float, baseline: str, baseline_value: float) -> Figure:
    return Figure("b", "m", value, "s", baseline, baseline_value, "g", False, goal_key=goal_key)


def test_each_goal_has_its_figure_raw_limit_and_ratio_or_says_it_was_not_measured() -> None:
    rows = goals_table(
        [
            figure("settlement", 6.3, "insert 100,000 rows (s)", 1.0),
            figure("cpu-per-bet", 101, "-", 0),
        ]
    )

    assert len(rows) == 2 + len(GOALS)
    settlement, cpu = rows[2], rows[3]
    assert "| 6.3 s | insert 100,000 rows (s): 1.0 | 6.30 |" in settlement
    assert "| 101.0 s | - | - |" in cpu  # no raw limit named: no ratio either
    assert all("not measured" in row for row in rows[4:])


def test_a_figure_names_only_a_known_goal() -> None:
    with pytest.raises(ValueError, match="unknown goal"):
        figure("settlement-typo", 1, "-", 0)


def test_the_cpu_of_all_processes_is_the_services_postgres_and_kafka_not_the_machine() -> None:
    used = {
        "wallet": 3.0,
        "wallet-2": 1.0,
        "scanner-gateway": 0.5,
        "postgres": 2.0,
        "postgres:wallet": 1.5,  # within "postgres" already
        "kafka": 0.7,
        "machine": 9.0,
        "operator": 0.8,
    }

    assert system_cpu(used) == {
        "wallet": 3.0,
        "wallet-2": 1.0,
        "scanner-gateway": 0.5,
        "postgres": 2.0,
        "kafka": 0.7,
    }


def test_cpu_lines_list_each_process_largest_first() -> None:
    cpu = Figure(
        "b", "CPU per slip", 3.0, "ms", "-", 0, "<= 2.5 ms", False,
        goal_key="cpu-per-slip", by_process={"postgres": 1.0, "wallet": 2.0},
    )  # fmt: skip

    assert cpu_lines([cpu]) == ["- **CPU per slip**: 3.0 ms: wallet 2.00 ms, postgres 1.00 ms"]


def test_a_benchmark_that_measured_nothing_fails() -> None:
    happened("scans sent", 36)
    with pytest.raises(NothingHappenedError, match="scans sent = 0"):
        happened("scans sent", 0)


def test_the_cpu_of_shared_processes_never_goes_down_when_one_ends() -> None:
    # another test's Postgres backend ending mid-span must not make a span's CPU negative
    kept = SharedCpu()
    before = kept.read({("postgres", 10): 5.0, ("postgres", 11): 2.0, ("kafka", 20): 9.0})
    # backend 11 ended; 12 started; 10 worked 1 s more; pid 20 is now a new broker
    after = kept.read({("postgres", 10): 6.0, ("postgres", 12): 0.5, ("kafka", 20): 1.0})
    used = {name: after[name] - before[name] for name in before}
    assert used == {"postgres": 1.5, "kafka": 1.0}
    # and again, with nothing new: nothing used
    assert kept.read({("postgres", 10): 6.0, ("postgres", 12): 0.5, ("kafka", 20): 1.0}) == after
