"""The benchmarks of the transfer wallet and the tables run, at their smoke sizes, on one
system of the four services (starting it is most of their time): each produces its figures
and the goals it owns. A benchmark that measures nothing raises `NothingHappenedError`."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from benchmarks import bench_intake, bench_scan, bench_settlement, bench_tables
from teenpatti_tools.bench import System, fresh_system
from teenpatti_tools.devrun import free_base_port

from .figures import produced


@pytest.fixture(scope="module")
async def system() -> AsyncIterator[System]:
    async with fresh_system(base_port=free_base_port()) as started:
        yield started


async def test_intake_measures_slips_and_their_cpu(system: System) -> None:
    figures = await bench_intake.measure(quick=True, smoke=True, system=system)
    produced(figures, {"intake", "intake-p99", "cpu-per-slip"})
    cpu = next(f for f in figures if f.goal_key == "cpu-per-slip")
    assert cpu.by_process is not None and {"wallet", "postgres"} <= cpu.by_process.keys()


async def test_settlement_pays_a_round_and_measures_its_cpu_per_bet(system: System) -> None:
    figures = await bench_settlement.measure(quick=True, smoke=True, system=system)
    produced(figures, {"settlement", "cpu-per-bet"})
    cpu = next(f for f in figures if f.goal_key == "cpu-per-bet")
    assert cpu.by_process is not None
    assert {"wallet", "settlement", "postgres"} <= cpu.by_process.keys()


async def test_scan_times_rounds_closed_on_a_players_feed(system: System) -> None:
    produced(await bench_scan.measure(quick=True, smoke=True, system=system), {"scan"})


async def test_tables_deal_and_close_rounds(system: System) -> None:
    # on a busy machine the one step may be late: 0 tables is a figure, not a failure; the
    # benchmark itself fails when its step dealt no card or closed no round
    figures = await bench_tables.measure(quick=True, smoke=True, system=system)
    produced(figures, {"tables"}, counts=False)
    assert all(figure.value in (0.0, 3.0) for figure in figures)
