"""The scanner gateway against the real stack; the tests play the table themselves."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import asyncpg
import httpx
import pytest
import uvicorn
from fastapi import FastAPI
from pydantic import SecretStr

from scanner_gateway.app import create_app
from scanner_gateway.config import ScannerSettings
from teenpatti.events import Event, EventEnvelope
from teenpatti.events.catalog import SCANNER_EVENTS, TABLE_EVENTS, CardScanned
from teenpatti.kernel.migrate import migrate_service
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.simulator import ScannerSecret, enrol_device, gateway_post
from tests.integration.services import (
    collect,
    count_of,
    of_type,
    publish,
    running,
    topics_ready,
)

SUPERVISOR = {"X-Api-Key": "test-supervisor-key"}
SUPERVISOR_2 = {"X-Api-Key": "test-supervisor-2-key"}
DEALER = {"X-Api-Key": "test-dealer-key"}
API_KEYS = (
    "sup-1:supervisor:test-supervisor-key,sup-2:supervisor:test-supervisor-2-key,"
    "dealer-1:dealer:test-dealer-key"
)


@pytest.fixture
async def scanner_settings(settings: InfrastructureSettings, database_name: str) -> ScannerSettings:
    await topics_ready(settings)
    # a long verdict timeout and bounce window: the fake table is slow on a busy machine,
    # and no test may depend on timing; the tests that want `pending` shorten it
    return ScannerSettings(
        **{
            **settings.model_dump(),
            "api_keys": SecretStr(API_KEYS),
            "scanner_database": database_name,
            "verdict_timeout_seconds": 20.0,
            "duplicate_window_seconds": 30.0,
        }
    )


async def wait_ready(client: httpx.AsyncClient) -> None:
    """Until the gateway hears verdicts (in its consumer group, subscribed in Redis)."""
    async with asyncio.timeout(60):
        while (await client.get("/ready")).status_code != 200:
            await asyncio.sleep(0.1)


@asynccontextmanager
async def gateway(settings: ScannerSettings) -> AsyncIterator[httpx.AsyncClient]:
    async with running(create_app(settings)) as client:
        await wait_ready(client)
        yield client


@asynccontextmanager
async def served(app: FastAPI) -> AsyncIterator[str]:
    """The app under uvicorn on a free local port (for WebSockets); its `host:port`."""
    await migrate_service(app.state.service, app.state.settings)
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, lifespan="on", log_level="warning")
    )
    task = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(60):
            while not server.started:
                if task.done():
                    task.result()
                    raise AssertionError("uvicorn stopped before it started")
                await asyncio.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 30)


_sequences = itertools.count(1)


def read_body(read: str, table_id: str | None = "T1", **more: object) -> dict[str, object]:
    """A read's request body (or stream message) with a sequence number above every one
    sent before it (per device it only has to grow)."""
    body: dict[str, object] = {"read": read, "sequence": next(_sequences), **more}
    if table_id is not None:
        body["table_id"] = table_id
    return body


async def enrol(
    client: httpx.AsyncClient, device_id: str = "scanner-1", table_id: str | None = "T1"
) -> str:
    """The device registered to `table_id` (None: its credential rotated) with a credential
    it made, proposed by one supervisor and approved by the other; that credential."""
    secret = ScannerSecret()
    keys = (SUPERVISOR["X-Api-Key"], SUPERVISOR_2["X-Api-Key"])
    approved = await enrol_device(gateway_post(client), device_id, table_id, secret, keys=keys)
    assert approved.status_code == 200, approved.text
    assert secret.credential not in approved.text
    return secret.credential


async def register(
    client: httpx.AsyncClient, device_id: str = "scanner-1", table_id: str = "T1"
) -> dict[str, str]:
    """Register a device; the headers it reads with."""
    credential = await enrol(client, device_id, table_id)
    return {"X-Device-Id": device_id, "Authorization": f"Bearer {credential}"}


async def play_table(
    settings: InfrastructureSettings,
    verdict: Callable[[CardScanned], Event | None],
    *,
    scans: int = 1,
) -> list[CardScanned]:
    """The table's part: wait for the gateway's first `scans` CardScanned and publish the
    verdict for each (None: stay silent) to table.events."""
    seen = await collect_explained(settings, SCANNER_EVENTS, count_of("CardScanned", scans))
    scanned = [e for e in of_type(seen, "CardScanned") if isinstance(e, CardScanned)][:scans]
    for scan in scanned:
        event = verdict(scan)
        if event is not None:
            await publish(settings, TABLE_EVENTS, event, table_id=scan.table_id)
    return scanned


async def collect_explained(
    settings: InfrastructureSettings,
    topic: str,
    until: Callable[[list[EventEnvelope]], bool],
) -> list[EventEnvelope]:
    """`collect`, and on a time-out the cluster's oldest open transactions: an outbox relay
    reads below the oldest one open on its database (the read barrier), so a transaction
    left open there holds the relay back."""
    try:
        return await collect(settings, topic, until, timeout=60)
    except AssertionError as error:
        raise AssertionError(f"{error}; oldest transactions: {await oldest(settings)}") from None


async def oldest(settings: InfrastructureSettings) -> list[str]:
    connection = await asyncpg.connect(settings.postgres_dsn("postgres"))
    try:
        rows = await connection.fetch(
            "SELECT datname, state, now() - xact_start AS age, left(query, 80) AS query"
            " FROM pg_stat_activity WHERE backend_xid IS NOT NULL OR backend_xmin IS NOT NULL"
            " ORDER BY xact_start LIMIT 3"
        )
    finally:
        await connection.close()
    return [f"{r['datname']} {r['state']} {r['age']} {r['query']!r}" for r in rows]


async def finish(task: asyncio.Task[list[CardScanned]]) -> list[CardScanned]:
    return await asyncio.wait_for(task, 90)
