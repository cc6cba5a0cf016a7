"""The four services as real processes on the real stack, for end-to-end tests.

One system per test module (starting four services takes a few seconds): fresh databases,
a fresh topic prefix, free ports. Tests keep apart by using their own table ids.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from teenpatti.settings import DEVELOPMENT_API_KEYS, InfrastructureSettings
from teenpatti_tools.devrun import ServiceProcesses, endpoints, free_base_port, isolated_system

from .driver import SECOND_SUPERVISOR_KEY, Studio

# the development keys and a second supervisor's (`Studio.command(..., key=...)`)
SECOND_SUPERVISOR = f"{DEVELOPMENT_API_KEYS},supervisor-2:supervisor:{SECOND_SUPERVISOR_KEY}"


@asynccontextmanager
async def running_system(
    infrastructure: InfrastructureSettings, instances: int = 1
) -> AsyncIterator[ServiceProcesses]:
    """`instances` of each service as processes, on fresh databases and topics."""
    async with isolated_system(
        infrastructure,
        label="e2e",
        base_port=free_base_port(instances),
        instances=instances,
        extra_env={"TP_API_KEYS": SECOND_SUPERVISOR},
    ) as system:
        yield system.processes


@pytest.fixture(scope="module")
async def system(infrastructure: InfrastructureSettings) -> AsyncIterator[ServiceProcesses]:
    async with running_system(infrastructure) as processes:
        yield processes


@pytest.fixture
async def studio(system: ServiceProcesses) -> AsyncIterator[Studio]:
    driver = Studio(endpoints(system.services))
    yield driver
    await driver.close()
