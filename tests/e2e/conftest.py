"""The four services as real processes on the real stack, for end-to-end tests.

One system per test module (starting four services takes a few seconds): fresh databases,
a fresh topic prefix, free ports. Tests keep apart by using their own table ids.
"""

from __future__ import annotations

import os
import random
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from uuid import uuid4

import asyncpg
import pytest

from teenpatti.databases import drop_database
from teenpatti.devrun import ServiceProcesses, endpoints, services
from teenpatti.settings import InfrastructureSettings

from ..conftest import delete_topics
from .driver import Studio

DATABASES = ("table", "scanner", "wallet", "settlement")


def _free_base(instances: int) -> int:
    """A base port whose service ports are all free, below the kernel's ephemeral range
    (32768-60999), where no outgoing connection can take one before the services start."""
    while True:
        base = random.randrange(20_000, 32_000 - 10 * instances)
        if all(_port_free(s.port) for s in services(base, instances)):
            return base


def _port_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


@asynccontextmanager
async def running_system(
    infrastructure: InfrastructureSettings, instances: int = 1
) -> AsyncIterator[ServiceProcesses]:
    """`instances` of each service as processes, on fresh databases and topics."""
    suffix = uuid4().hex[:8]
    names = {db: f"e2e_{db}_{suffix}" for db in DATABASES}
    admin = await asyncpg.connect(infrastructure.postgres_dsn("postgres"))
    try:
        for name in names.values():
            await admin.execute(f"CREATE DATABASE {name}")
        env = {
            "TP_PG_HOST": infrastructure.pg_host,
            "TP_PG_PORT": str(infrastructure.pg_port),
            "TP_KAFKA_BOOTSTRAP": infrastructure.kafka_servers,
            "TP_REDIS_HOST": infrastructure.redis_host,
            "TP_REDIS_PORT": str(infrastructure.redis_port),
            "TP_TOPIC_PREFIX": f"e2e{suffix}.",
            **{f"TP_{db.upper()}_DATABASE": name for db, name in names.items()},
        }
        log_dir = Path(os.environ.get("TP_HOME", ".local")) / "logs" / f"e2e-{suffix}"
        async with ServiceProcesses(
            services(_free_base(instances), instances), env=env, log_dir=log_dir
        ) as processes:
            yield processes
        await delete_topics(infrastructure.kafka_servers, env["TP_TOPIC_PREFIX"])
        for name in names.values():
            await drop_database(admin, name)
    finally:
        await admin.close()


@pytest.fixture(scope="module")
async def system(infrastructure: InfrastructureSettings) -> AsyncIterator[ServiceProcesses]:
    async with running_system(infrastructure) as processes:
        yield processes


@pytest.fixture
async def studio(system: ServiceProcesses) -> AsyncIterator[Studio]:
    driver = Studio(endpoints(system.services))
    yield driver
    await driver.close()
