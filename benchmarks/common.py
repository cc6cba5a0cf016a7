"""What the end-to-end benchmarks share: a fresh system to measure, and how figures are kept.

`fresh_system()` starts the four services as processes on the local stack, each with a
fresh database and a fresh topic prefix, and removes them afterwards. A benchmark returns
`Figure`s: the measured value, the raw limit measured in the same run, and the goal.
"""

from __future__ import annotations

import statistics
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass

from teenpatti.devrun import ServiceProcesses, isolated_system
from teenpatti.settings import InfrastructureSettings


@dataclass(frozen=True)
class Figure:
    benchmark: str  # "bet intake", "settlement", ...
    measure: str  # what was measured, with its conditions
    value: float
    unit: str  # "bets/s", "ms", "events/s", "tables"
    baseline: str  # the raw limit measured in the same run
    baseline_value: float
    goal: str  # the goal, in words
    met: bool
    bound_by: str = ""  # what the profile says limits it

    @property
    def ratio(self) -> float:
        return self.value / self.baseline_value if self.baseline_value else 0.0

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "ratio": self.ratio}


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
    base_port: int = 18101, extra_env: dict[str, str] | None = None
) -> AsyncIterator[System]:
    async with isolated_system(
        InfrastructureSettings(), label="bench", base_port=base_port, extra_env=extra_env
    ) as system:
        yield System(system.processes, system.settings, dict(system.databases))
