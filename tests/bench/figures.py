"""What the benchmarks' smoke runs check of every benchmark's figures."""

from __future__ import annotations

import math
from collections.abc import Sequence

from benchmarks import bench_all
from teenpatti_tools.bench import Figure

# a figure over these is not a measurement of a tiny run but a broken one
MOST_MS = 60_000.0


def produced(figures: Sequence[Figure], goals: set[str], *, counts: bool = True) -> None:
    """Each figure a positive, finite number beside a positive raw limit (where it has one),
    and the benchmark's goals among them, each shown in `make bench`'s goals table."""
    assert figures
    for figure in figures:
        assert math.isfinite(figure.value), figure
        if counts:
            assert figure.value > 0, figure
        if figure.unit == "ms":
            assert figure.value < MOST_MS, figure
        if figure.baseline != "-":
            # a raw limit counted like its figure (tables on time) may be 0 on a busy machine
            assert math.isfinite(figure.baseline_value), figure
            assert figure.baseline_value > 0 or (not counts and figure.baseline_value == 0), figure
        if figure.by_process is not None:
            assert figure.by_process and sum(figure.by_process.values()) == figure.value
    assert goals <= {figure.goal_key for figure in figures}
    table = "\n".join(bench_all.goals_table(list(figures)))
    for figure in figures:
        if figure.goal_key:
            assert f"{figure.value:,.1f} {figure.unit}" in table
