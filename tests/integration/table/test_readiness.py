"""The kernel's probes on the table service: `/ready` names a background loop that has
stopped, while `/health` (the process answers) stays up."""

from __future__ import annotations

import asyncio

import httpx

from table_service.app import create_app
from table_service.config import TableSettings
from tests.integration.services import running


async def wait_ready(client: httpx.AsyncClient) -> None:
    async with asyncio.timeout(60):
        while (await client.get("/ready")).status_code != 200:
            await asyncio.sleep(0.1)


async def test_a_stopped_consumer_makes_the_service_not_ready_but_still_alive(
    table_settings: TableSettings,
) -> None:
    app = create_app(table_settings)
    async with running(app) as client:
        await wait_ready(client)
        tasks = app.state.kernel.tasks
        scanner, feed = table_settings.topic("table-scanner"), table_settings.topic("table-table")
        assert set(tasks) == {"relay", "clocks", scanner, feed}  # the consumers by group name

        tasks[feed].cancel()
        await asyncio.wait([tasks[feed]], timeout=10)
        assert tasks[feed].cancelled()

        ready = await client.get("/ready")
        assert ready.status_code == 503, ready.text
        checks = ready.json()["checks"]
        assert checks[f"task {feed}"] == "stopped"
        assert {name for name, check in checks.items() if check != "ok"} == {f"task {feed}"}, (
            "only the stopped consumer is named"
        )
        assert checks[f"task {scanner}"] == checks["task clocks"] == "ok"

        health = await client.get("/health")
        assert (health.status_code, health.json()) == (200, {"service": "table", "status": "ok"})
