"""The wallet's benchmarks run, at their smoke sizes, on one system of the four services
(starting it is most of their time), started with our signing key for the seamless one:
bet intake, settlement, and the seamless wallet against the reference operator. Each
produces its figures and the goals it owns; one that measures nothing raises
`NothingHappenedError`. The sizes are tiny: the figures say nothing of speed."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from benchmarks import bench_intake, bench_seamless, bench_settlement
from teenpatti_tools.bench import System, fresh_system
from teenpatti_tools.devrun import GameKeys, free_base_port, game_keys

from .figures import produced


@pytest.fixture(scope="module")
async def system() -> AsyncIterator[tuple[System, GameKeys]]:
    keys = await asyncio.to_thread(game_keys, Path(".local/bench") / f"smoke-{uuid.uuid4().hex}")
    env = bench_seamless.signing_env(keys)
    async with fresh_system(base_port=free_base_port(), extra_env=env) as started:
        yield started, keys


async def test_intake_measures_slips_and_their_cpu(system: tuple[System, GameKeys]) -> None:
    figures = await bench_intake.measure(quick=True, smoke=True, system=system[0])
    produced(figures, {"intake", "intake-p99", "cpu-per-slip"})
    cpu = next(f for f in figures if f.goal_key == "cpu-per-slip")
    assert cpu.by_process is not None and {"wallet", "postgres"} <= cpu.by_process.keys()


async def test_settlement_pays_a_round_and_measures_its_cpu_per_bet(
    system: tuple[System, GameKeys],
) -> None:
    figures = await bench_settlement.measure(quick=True, smoke=True, system=system[0])
    produced(figures, {"settlement", "cpu-per-bet"})
    cpu = next(f for f in figures if f.goal_key == "cpu-per-bet")
    assert cpu.by_process is not None
    assert {"wallet", "settlement", "postgres"} <= cpu.by_process.keys()


async def test_seamless_intake_and_round_at_the_reference_operator(
    system: tuple[System, GameKeys],
) -> None:
    figures = await bench_seamless.measure(quick=True, smoke=True, shared=system)
    # the p99 added may be below the operator's fixed latency: not a count
    produced(figures, {"seamless-intake", "seamless-round"}, counts=False)
    assert all(f.value > 0 for f in figures if f.goal_key != "seamless-intake")
