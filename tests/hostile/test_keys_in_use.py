"""Hostile holders of keys that should no longer work (issue 33), on the real stack: the table
service under uvicorn, and the web front in front of it. A live feed kept open after its
key is revoked, a key given in the configuration used after it was withdrawn, beyond its
tables or after its expiry: each is refused, the feed closed (4401), without a restart."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
import uvicorn
from fastapi import FastAPI
from pydantic import SecretStr
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from table_service.app import create_app as create_table
from table_service.config import TableSettings
from teenpatti.settings import DEVELOPMENT_API_KEYS, InfrastructureSettings
from web_service.app import create_app as create_web
from web_service.config import WebSettings

from ..integration.access import issue_key, revoke_key, until_refused
from ..integration.services import topics_ready
from ..integration.table.helpers import new_table_id, open_table, serving

pytestmark = pytest.mark.integration

KEYS = (
    f"{DEVELOPMENT_API_KEYS},supervisor-2:supervisor:dev-supervisor-2-key,"
    "carol:supervisor:carol-key:tables=T01|T03,"
    "dave:dealer:dave-key:expires=2026-01-01T00:00:00Z"
)
CLOSED_WITHIN_SECONDS = 30  # a bound for the test, far above TP_ACCESS_CACHE_SECONDS (1 s)


@pytest.fixture
def keys_file(tmp_path: Path) -> Path:
    path = tmp_path / "api-keys"
    path.write_text("# the studio's keys\nerin:supervisor:erin-key\n")
    return path


@pytest.fixture
async def table(
    settings: InfrastructureSettings, database_name: str, access_database: str, keys_file: Path
) -> AsyncIterator[str]:
    """The table service under uvicorn, its keys from TP_API_KEYS, a keys file and the
    access database, a revocation seen within 1 s: its `host:port`."""
    await topics_ready(settings)
    configured = TableSettings(
        **{
            **settings.model_dump(),
            "table_database": database_name,
            "access_database": access_database,
            "access_cache_seconds": 1.0,
            "api_keys": SecretStr(KEYS),
            "api_keys_file": str(keys_file),
        }
    )
    async with serving(create_table(configured)) as address:
        async with httpx.AsyncClient(base_url=f"http://{address}", timeout=10) as client:
            for table_id in ("T01", "T02"):
                await open_table(client, table_id)
        yield address


@asynccontextmanager
async def served(app: FastAPI) -> AsyncIterator[str]:
    """`app` under uvicorn on a free port: its `host:port`."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        async with asyncio.timeout(30):
            while not server.started:
                assert not task.done(), "the server stopped while starting"
                await asyncio.sleep(0.05)
        yield f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 30)
        sock.close()


@pytest.fixture
async def web(table: str) -> AsyncIterator[str]:
    """The web front in front of that table service: its `host:port`."""
    app = create_web(WebSettings(table_url=f"http://{table}"), InfrastructureSettings(env="dev"))
    async with served(app) as address:
        yield address


async def closing_code(feed: ClientConnection) -> int | None:
    """Read the feed until it is closed: its close code."""
    with contextlib.suppress(ConnectionClosed):
        async with asyncio.timeout(CLOSED_WITHIN_SECONDS):
            async for _ in feed:
                pass
    return feed.close_code


async def first_message(feed: ClientConnection) -> dict[str, object]:
    async with asyncio.timeout(10):
        message: dict[str, object] = json.loads(await feed.recv())
    return message


async def test_an_open_feed_is_closed_once_its_key_is_revoked(
    table: str, web: str, monkeypatch: pytest.MonkeyPatch, access_database: str
) -> None:
    key_id, key = await issue_key(monkeypatch, access_database, "trent", "supervisor")
    async with httpx.AsyncClient(base_url=f"http://{table}", timeout=10) as client:
        ticket = await client.post("/tables/T01/feed/tickets", headers={"X-Api-Key": key})
        assert ticket.status_code == 201, ticket.text
        # three ways in: the key in a header, a ticket bought with it, the console's feed
        async with (
            connect(f"ws://{table}/tables/T01/feed", additional_headers={"X-Api-Key": key}) as a,
            connect(f"ws://{table}/tables/T01/feed?ticket={ticket.json()['ticket']}") as b,
            connect(f"ws://{web}/api/console/feed/T01") as c,
        ):
            await c.send(json.dumps({"api_key": key, "after": 0}))
            for feed in (a, b, c):
                assert (await first_message(feed))["position"] == 1  # the feed is live

            await revoke_key(monkeypatch, access_database, key_id)
            codes = await asyncio.gather(closing_code(a), closing_code(b), closing_code(c))
        assert codes == [4401, 4401, 4401]
        assert (a.close_reason or "").startswith("the API key is not known")
        refused = await until_refused(client, "/tables/T01", key)
        assert refused.json()["code"] == "invalid_api_key"


async def test_a_key_taken_out_of_the_keys_file_is_refused_without_a_restart(
    table: str, keys_file: Path
) -> None:
    erin = {"X-Api-Key": "erin-key"}
    async with httpx.AsyncClient(base_url=f"http://{table}", timeout=10) as client:
        assert (await client.get("/tables/T01", headers=erin)).status_code == 200
        async with connect(f"ws://{table}/tables/T02/feed", additional_headers=erin) as feed:
            assert (await first_message(feed))["position"] == 1
            await asyncio.to_thread(keys_file.write_text, "# erin left\n")
            code = await closing_code(feed)
        assert code == 4401
        refused = await until_refused(client, "/tables/T01", "erin-key")
        assert refused.json()["code"] == "invalid_api_key"
        paused = await client.post("/tables/T01/pause", json={"reason": "x"}, headers=erin)
        assert paused.status_code == 401


async def test_a_configured_key_keeps_to_its_tables_and_its_expiry(table: str) -> None:
    carol, dave = {"X-Api-Key": "carol-key"}, {"X-Api-Key": "dave-key"}
    async with httpx.AsyncClient(base_url=f"http://{table}", timeout=10) as client:
        assert (await client.get("/tables/T01", headers=carol)).status_code == 200
        other = await client.post("/tables/T02/pause", json={"reason": "x"}, headers=carol)
        assert other.status_code == 403, other.text
        assert other.json()["code"] == "table_not_in_scope"
        listed = await client.get("/tables", headers=carol)
        assert [t["table_id"] for t in listed.json()["tables"]] == ["T01"]
        new = await client.post(
            "/tables",
            headers=carol,
            json={"table_id": new_table_id(), "name": "not hers", "betting_seconds": 5},
        )
        assert new.status_code in (403, 422), new.text
        # dave's key expired at the start of 2026: refused, whatever else it says
        expired = await client.get("/tables/T01/events", headers=dave)
        assert (expired.status_code, expired.json()["code"]) == (401, "invalid_api_key")
