"""The other benchmarks run, at their smoke sizes: scan to result and the tables on one
system of the four services (starting it is most of their time), the operator calls'
client, the rebuild, the event payloads' decoding, the event store and the rules engine.
Each produces its figures and the goals it owns; one that measures nothing raises
`NothingHappenedError`. The sizes are tiny: the figures say nothing of speed."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from benchmarks import (
    bench_decode,
    bench_engine,
    bench_rebuild,
    bench_scan,
    bench_seamless_client,
    bench_store,
    bench_tables,
)
from teenpatti_tools.bench import System, fresh_system
from teenpatti_tools.devrun import free_base_port

from .figures import produced


@pytest.fixture(scope="module")
async def system() -> AsyncIterator[System]:
    async with fresh_system(base_port=free_base_port()) as started:
        yield started


async def test_scan_times_rounds_closed_on_a_players_feed(system: System) -> None:
    produced(await bench_scan.measure(quick=True, smoke=True, system=system), {"scan"})


async def test_tables_deal_and_close_rounds(system: System) -> None:
    # on a busy machine the one step may be late: 0 tables is a figure, not a failure; the
    # benchmark itself fails when its step dealt no card or closed no round
    figures = await bench_tables.measure(quick=True, smoke=True, system=system)
    produced(figures, {"tables"}, counts=False)
    assert all(figure.value in (0.0, 3.0) for figure in figures)


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


def test_decoding_is_measured_by_pydantic_alone_and_compiled() -> None:
    rows = bench_decode.measure(smoke=True)
    assert {row.measure.split()[0] for row in rows} >= {"RoundOpened", "CardDealt", "BetsSettled"}
    assert all(row.pydantic_us > 0 and row.compiled_us > 0 for row in rows)
