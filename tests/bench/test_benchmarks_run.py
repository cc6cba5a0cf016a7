"""Every benchmark runs, at its smoke size against the real stack, and produces its figures:
a change that breaks one fails here, not in the next `make bench`. The sizes are tiny, so
the figures say nothing of speed; what is checked is that each measured something (a
benchmark that measures nothing raises `NothingHappenedError`), that its figures are
numbers of the right sign, and that it reports the goals it owns."""

from __future__ import annotations

import math
from collections.abc import Sequence

from benchmarks import (
    bench_all,
    bench_engine,
    bench_intake,
    bench_rebuild,
    bench_scan,
    bench_seamless,
    bench_seamless_client,
    bench_settlement,
    bench_store,
    bench_tables,
)
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
            assert math.isfinite(figure.baseline_value) and figure.baseline_value > 0, figure
        if figure.by_process is not None:
            assert figure.by_process and sum(figure.by_process.values()) == figure.value
    assert goals <= {figure.goal_key for figure in figures}
    table = "\n".join(bench_all.goals_table(list(figures)))
    for figure in figures:
        if figure.goal_key:
            assert f"{figure.value:,.1f} {figure.unit}" in table


async def test_intake_measures_slips_and_their_cpu() -> None:
    figures = await bench_intake.measure(quick=True, smoke=True)
    produced(figures, {"intake", "intake-p99", "cpu-per-slip"})
    cpu = next(f for f in figures if f.goal_key == "cpu-per-slip")
    assert cpu.by_process is not None and {"wallet", "postgres"} <= cpu.by_process.keys()


async def test_settlement_pays_a_round_and_measures_its_cpu_per_bet() -> None:
    figures = await bench_settlement.measure(quick=True, smoke=True)
    produced(figures, {"settlement", "cpu-per-bet"})
    cpu = next(f for f in figures if f.goal_key == "cpu-per-bet")
    assert cpu.by_process is not None
    assert {"wallet", "settlement", "postgres"} <= cpu.by_process.keys()


async def test_scan_times_rounds_closed_on_a_players_feed() -> None:
    produced(await bench_scan.measure(quick=True, smoke=True), {"scan"})


async def test_tables_deal_and_close_rounds() -> None:
    # on a busy machine the one step may be late: 0 tables is a figure, not a failure; the
    # benchmark itself fails when its step dealt no card or closed no round
    figures = await bench_tables.measure(quick=True, smoke=True)
    produced(figures, {"tables"}, counts=False)
    assert all(figure.value in (0.0, 3.0) for figure in figures)


async def test_rebuild_replays_the_stored_events() -> None:
    produced(await bench_rebuild.measure(quick=True, smoke=True), {"rebuild"})


async def test_seamless_intake_and_round_at_the_reference_operator() -> None:
    figures = await bench_seamless.measure(quick=True, smoke=True)
    produced(figures, {"seamless-intake", "seamless-round"}, counts=False)
    saturation, p50 = figures[0], figures[1]
    assert saturation.value > 0 and p50.value > 0


async def test_operator_calls_cost_the_client_some_cpu() -> None:
    produced(await bench_seamless_client.measure(quick=True, smoke=True), {"operator-call"})


async def test_store_appends_and_replays_against_its_peers() -> None:
    results = await bench_store.run(quick=True, smoke=True)
    for contender in ("raw", "eventsourcing", "teenpatti"):
        figures = results[contender]
        assert isinstance(figures, dict)
        assert all(value > 0 for value in figures.values()), (contender, figures)


def test_engine_figures_agree_with_treys_and_the_par_sheet() -> None:
    figures = bench_engine.run(smoke=True)
    assert figures["rounds_per_second"] > 0
    assert figures["bonus_agreeing_with_treys"] == 1.0
    assert figures["bonus_agreeing_scalar_numpy"] == 1.0
    assert figures["par_sheet_seconds"] > 0 and figures["par_sheet_command_seconds"] > 0
    assert 0.9 < figures["player_a_rtp"] < 1.0
