"""The other benchmarks run, at their smoke sizes: the seamless wallet against the
reference operator, the operator calls' client, the rebuild, the event store and the rules
engine. Each produces its figures and the goals it owns; one that measures nothing raises
`NothingHappenedError`. The sizes are tiny: the figures say nothing of speed."""

from __future__ import annotations

from benchmarks import (
    bench_engine,
    bench_rebuild,
    bench_seamless,
    bench_seamless_client,
    bench_store,
)

from .figures import produced


async def test_seamless_intake_and_round_at_the_reference_operator() -> None:
    figures = await bench_seamless.measure(quick=True, smoke=True)
    # the p99 added may be below the operator's fixed latency: not a count
    produced(figures, {"seamless-intake", "seamless-round"}, counts=False)
    assert all(f.value > 0 for f in figures if f.goal_key != "seamless-intake")


async def test_operator_calls_cost_the_client_some_cpu() -> None:
    produced(await bench_seamless_client.measure(quick=True, smoke=True), {"operator-call"})


async def test_rebuild_replays_the_stored_events() -> None:
    produced(await bench_rebuild.measure(quick=True, smoke=True), {"rebuild"})


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
