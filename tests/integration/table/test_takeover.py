"""A crash, for real: two table-service processes (uvicorn) on one database and one topic
prefix; the one that owns some tables is SIGKILLed while their betting is open. The
survivor takes them over once Kafka gives it the dead one's partitions: betting closes,
the round is dealt and closed once, the next round opens; no round number is skipped or
repeated. The time the tables had no owner is printed (run with -s or -rP to see it)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import uuid4

import asyncpg
import httpx

from table_service.adapters.tables import TableRepository
from table_service.app import SERVICE
from table_service.config import TableSettings
from teenpatti.eventsourcing import AsyncpgEventStore, partition_for
from teenpatti.kernel.migrate import migrate_service
from teenpatti_tools.devrun import free_port

from .helpers import (
    DEALER,
    count,
    events_of,
    full_replay,
    of_type,
    open_table,
    scan,
    wait_for,
)

BETTING_SECONDS = 4.0
CARDS = ["QS", "7H", "QH", "7D", "2C", "9S"]


def _environment(settings: TableSettings) -> dict[str, str]:
    return {
        "TP_PG_HOST": settings.pg_host,
        "TP_PG_PORT": str(settings.pg_port),
        "TP_PG_USER": settings.pg_user,
        "TP_PG_PASSWORD": settings.pg_password.get_secret_value(),
        "TP_KAFKA_BOOTSTRAP": settings.kafka_servers,
        "TP_KAFKA_PARTITIONS": str(settings.kafka_partitions),
        "TP_REDIS_HOST": settings.redis_host,
        "TP_REDIS_PORT": str(settings.redis_port),
        "TP_TOPIC_PREFIX": settings.topic_prefix,
        "TP_TABLE_DATABASE": settings.table_database,
        "TP_SNAPSHOT_EVERY": "2",  # the survivor takes the tables over from snapshots
        "TP_API_KEYS": settings.api_keys.get_secret_value(),  # two supervisors (0086)
    }


@contextlib.asynccontextmanager
async def _instance(
    name: str, env: dict[str, str], log_dir: Path
) -> AsyncIterator[tuple[asyncio.subprocess.Process, httpx.AsyncClient]]:
    """The table service under uvicorn in a process of its own, once it is ready (/ready)."""
    port = free_port()
    with (log_dir / f"{name}.log").open("ab") as log:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "uvicorn",
            "table_service.app:app",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-access-log",
            env={**os.environ, **env},
            stdout=log,
            stderr=log,
        )
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            async with asyncio.timeout(60):
                while True:
                    assert process.returncode is None, f"{name} exited: read {log_dir}/{name}.log"
                    with contextlib.suppress(httpx.TransportError):
                        if (await client.get("/ready")).status_code == 200:
                            break
                    await asyncio.sleep(0.2)
            yield process, client
    finally:
        if process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 20)
            except TimeoutError:
                process.kill()
                await asyncio.wait_for(process.wait(), 10)


async def _clocks(client: httpx.AsyncClient) -> dict[str, Any]:
    response = await client.get("/clocks", headers=DEALER)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


async def _share_the_partitions(
    a: httpx.AsyncClient, b: httpx.AsyncClient, partitions: int
) -> tuple[set[int], set[int]]:
    """Once the group has settled: each instance owns some partitions, none owned twice."""
    async with asyncio.timeout(90):
        while True:
            owned_a = set((await _clocks(a))["partitions"])
            owned_b = set((await _clocks(b))["partitions"])
            settled = owned_a and owned_b and not owned_a & owned_b
            if settled and owned_a | owned_b == set(range(partitions)):
                return owned_a, owned_b
            await asyncio.sleep(0.2)


def _table_in(partitions: set[int], count: int, settings: TableSettings) -> list[str]:
    found: list[str] = []
    while len(found) < count:
        table_id = f"K{uuid4().hex[:8]}"
        if partition_for(table_id, settings.kafka_partitions) in partitions:
            found.append(table_id)
    return found


def _at(event: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(event["occurred_at"])


async def test_the_survivor_takes_over_the_tables_of_an_instance_killed_during_betting(
    table_settings: TableSettings, tmp_path: Path
) -> None:
    env = _environment(table_settings)
    await migrate_service(SERVICE, table_settings)  # the deploy step, before any instance
    async with (
        _instance("victim", env, tmp_path) as (victim, to_victim),
        _instance("survivor", env, tmp_path) as (_, client),
    ):
        owned_by_victim, owned_by_survivor = await _share_the_partitions(
            to_victim, client, table_settings.kafka_partitions
        )
        orphans = _table_in(owned_by_victim, 2, table_settings)
        kept = _table_in(owned_by_survivor, 1, table_settings)[0]
        tables = [*orphans, kept]
        for table_id in tables:
            await open_table(
                client, table_id, betting_seconds=BETTING_SECONDS, result_pause_seconds=0.5
            )
        for table_id in tables:
            await wait_for(client, table_id, count("RoundOpened"))
        async with asyncio.timeout(30):
            while not set(orphans) <= set((await _clocks(to_victim))["tables"]):
                await asyncio.sleep(0.05)

        # the crash, in the middle of the orphans' betting
        for table_id in orphans:
            assert not of_type(await events_of(client, table_id), "BettingClosed"), (
                "betting closed before the kill: the machine is too slow for this test"
            )
        victim.kill()  # SIGKILL: no goodbye to the Kafka group, no rollback but Postgres's
        killed_at, killed_clock = datetime.now(UTC), time.monotonic()
        async with asyncio.timeout(10):
            await victim.wait()

        async with asyncio.timeout(90):
            while not set(orphans) <= set((await _clocks(client))["tables"]):
                await asyncio.sleep(0.05)
        clocks_after = time.monotonic() - killed_clock

        for table_id in orphans:
            events = await wait_for(client, table_id, count("BettingClosed"), timeout=90)
            opened = of_type(events, "RoundOpened")[0]
            closed = of_type(events, "BettingClosed")[0]
            first_after_kill = next(e for e in events if _at(e) > killed_at)
            deadline = datetime.fromisoformat(opened["payload"]["betting_closes_at"])
            ownerless = (_at(first_after_kill) - killed_at).total_seconds()
            late = (_at(closed) - deadline).total_seconds()
            print(
                f"\ntakeover of {table_id}: its clock ran on the survivor {clocks_after:.2f} s"
                f" after SIGKILL; first event there ({first_after_kill['event_type']})"
                f" {ownerless:.2f} s after the kill; BettingClosed {late:.2f} s after the deadline"
            )
            assert first_after_kill["event_type"] == "BettingClosed"

        # the survivor deals and closes every round, and goes on with the next ones
        for table_id in tables:
            for card in CARDS:
                await scan(table_settings, table_id, card)
        for table_id in tables:
            round_2 = f"{table_id}-000002"
            await wait_for(client, table_id, count("BettingClosed", round_id=round_2), timeout=60)
            await asyncio.sleep(0.3)  # a second close or open (if any) would show itself
            events = await events_of(client, table_id)
            numbers = [e["payload"]["number"] for e in of_type(events, "RoundOpened")]
            assert numbers == list(range(1, len(numbers) + 1)), numbers
            assert numbers[:2] == [1, 2]
            first = f"{table_id}-000001"
            dealt = of_type(events, "CardDealt", round_id=first)
            assert [d["payload"]["card"] for d in dealt] == CARDS
            assert [d["payload"]["position"] for d in dealt] == ["A1", "B1", "A2", "B2", "A3", "B3"]
            assert len(of_type(events, "BettingClosed", round_id=first)) == 1
            assert len(of_type(events, "RoundClosed", round_id=first)) == 1
            assert len(of_type(events, "BettingClosed", round_id=f"{table_id}-000002")) == 1
            assert not of_type(events, "CardRefused")
            assert not of_type(events, "RoundCancelled")

    # what a new process would load (snapshot + tail) is what the stream says
    dsn = table_settings.postgres_dsn(table_settings.table_database)
    async with asyncpg.create_pool(dsn, min_size=1, max_size=2) as pool:
        snapshots = await pool.fetchval("SELECT count(*) FROM table_snapshots")
        assert snapshots == len(tables)
        for table_id in tables:
            repository = TableRepository(AsyncpgEventStore(pool, producer="tests"))
            assert await repository.load(table_id) == await full_replay(pool, table_id)
