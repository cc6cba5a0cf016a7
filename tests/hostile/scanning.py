"""The table service and the scanner gateway under uvicorn in this process, on databases of
their own and the test's topics, with the development keys and a second supervisor's: what
the scanner's hostile tests and the log test run on."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any
from uuid import uuid4

import asyncpg
from pydantic import SecretStr

from scanner_gateway.app import create_app as create_gateway
from scanner_gateway.config import ScannerSettings
from table_service.app import create_app as create_table
from table_service.config import TableSettings
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.databases import create_database, drop_database, service_roles
from teenpatti_tools.simulator import (
    SECOND_SUPERVISOR_KEY,
    STUDIO_API_KEYS,
    SUPERVISOR_KEY,
    Endpoints,
)
from tests.e2e.driver import Studio
from tests.integration.services import topics_ready
from tests.integration.table.helpers import serving

SUPERVISOR = {"X-Api-Key": SUPERVISOR_KEY}
SUPERVISOR_2 = {"X-Api-Key": SECOND_SUPERVISOR_KEY}


@dataclass
class Scanning:
    """The two services: a studio driving them over HTTP, their addresses and pools."""

    studio: Studio
    table_address: str
    gateway_address: str
    table_pool: asyncpg.Pool
    gateway_pool: asyncpg.Pool
    settings: InfrastructureSettings

    async def table_events(self, table_id: str) -> list[dict[str, Any]]:
        return await self.studio.events(table_id)

    async def gateway_events(self, stream_id: str) -> list[tuple[str, dict[str, Any]]]:
        rows = await self.gateway_pool.fetch(
            "SELECT event_type, payload FROM events WHERE stream_id = $1 ORDER BY stream_version",
            stream_id,
        )
        return [(row["event_type"], _payload(row["payload"])) for row in rows]


def _payload(value: Any) -> dict[str, Any]:
    return dict(json.loads(value) if isinstance(value, str) else value)


@asynccontextmanager
async def table_and_gateway(
    settings: InfrastructureSettings,
) -> AsyncIterator[Scanning]:
    """The table service and the gateway under uvicorn (access logs on, as deployed), each
    on a fresh database, on `settings`' topics."""
    suffix = uuid4().hex[:8]
    names = {"table": f"hostile_table_{suffix}", "scanner": f"hostile_scanner_{suffix}"}
    for name in names.values():
        await create_database(settings, name, users=service_roles(settings))
    try:
        await topics_ready(settings)
        base = settings.model_dump() | {"api_keys": SecretStr(STUDIO_API_KEYS)}
        table = create_table(TableSettings(**base, table_database=names["table"]))
        gateway = create_gateway(ScannerSettings(**base, scanner_database=names["scanner"]))
        async with AsyncExitStack() as stack:
            table_address = await stack.enter_async_context(serving(table))
            gateway_address = await stack.enter_async_context(serving(gateway))
            studio = Studio(
                Endpoints(
                    {
                        "table": [f"http://{table_address}"],
                        "scanner-gateway": [f"http://{gateway_address}"],
                    }
                )
            )
            stack.push_async_callback(studio.close)
            await _ready(studio, f"http://{gateway_address}/ready")
            await _ready(studio, f"http://{table_address}/ready")
            yield Scanning(
                studio,
                table_address,
                gateway_address,
                table.state.kernel.pool,
                gateway.state.kernel.pool,
                settings,
            )
    finally:
        admin = await asyncpg.connect(settings.postgres_dsn("postgres"))
        try:
            for name in names.values():
                await drop_database(admin, name)
        finally:
            await admin.close()


async def _ready(studio: Studio, url: str) -> None:
    async with asyncio.timeout(60):
        while (await studio.http.get(url)).status_code != 200:
            await asyncio.sleep(0.1)


async def dealing(scanning: Scanning, table_id: str, *, after: int = 0) -> str:
    """The table's round once its betting has closed (its id)."""
    opened = await scanning.studio.next_round(table_id, after=after)
    round_id = str(opened["round_id"])
    await scanning.studio.wait_for(table_id, "BettingClosed", round_id=round_id)
    return round_id


async def device_heard(scanning: Scanning, device_id: str, *, table_id: str, active: bool) -> None:
    """Until the table service has heard the device's latest registration or revocation."""
    async with asyncio.timeout(30):
        while (
            await scanning.table_pool.fetchval(
                "SELECT active FROM scanner_devices WHERE device_id = $1 AND table_id = $2",
                device_id,
                table_id,
            )
            is not active
        ):
            await asyncio.sleep(0.1)
