"""No secret in a log line (issue 23; decision 0056): every line the table service and the
scanner gateway write during a run of keys, device credentials (issued, rotated, refused,
revoked) and feed tickets (used, reused, forged), uvicorn's access lines included, holds
none of them."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from teenpatti.observability.logs import LogHandler
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.simulator import SUPERVISOR_KEY, ScannerSecret, enrol_device

from .scanning import SUPERVISOR, dealing, table_and_gateway

pytestmark = pytest.mark.integration

DEALER_KEY = "dev-dealer-key"


@pytest.fixture
def log_lines() -> Iterator[io.StringIO]:
    """Every line logged meanwhile, as the services write it (JSON, their level: INFO)."""
    buffer = io.StringIO()
    handler = LogHandler(buffer, "json")
    handler.setLevel(logging.INFO)
    root = logging.getLogger()
    root.addHandler(handler)
    yield buffer
    root.removeHandler(handler)


async def closed_code(url: str, headers: dict[str, str] | None = None) -> int | None:
    async with connect(url, additional_headers=headers or {}, open_timeout=30) as ws:
        with pytest.raises(ConnectionClosed):
            async with asyncio.timeout(30):
                while True:
                    await ws.recv()
        return ws.close_code


async def test_no_key_credential_or_ticket_is_ever_logged(
    settings: InfrastructureSettings, log_lines: io.StringIO
) -> None:
    secrets: set[str] = {SUPERVISOR_KEY, DEALER_KEY}
    table_id = "LOG1"
    async with table_and_gateway(settings) as scanning:
        studio, http = scanning.studio, scanning.studio.http
        table = f"http://{scanning.table_address}"
        gateway = f"http://{scanning.gateway_address}"
        await studio.open_table(table_id, betting_seconds=3)
        device_id, first = studio.devices[table_id]
        # rotation, while bets are taken: a credential the device made, two supervisors
        rotated = ScannerSecret()
        approved = await enrol_device(studio.gateway_post, device_id, None, rotated)
        assert approved.status_code == 200, approved.text
        credential = rotated.credential
        studio.devices[table_id] = (device_id, credential)
        secrets.update({first, credential, rotated.credential_hash})
        await dealing(scanning, table_id)

        # reads: good, refused, with a wrong credential, replayed
        await studio.scan(table_id, "AS")
        await studio.scan(table_id, "KS", device=(device_id, credential + "x"))
        await studio.scan(table_id, "QS", sequence=1)
        # the device stream, with its credential in a header; then a credential in a URL
        stream = f"ws://{scanning.gateway_address}/devices/{device_id}/stream"
        async with connect(
            stream, additional_headers={"Authorization": f"Bearer {credential}"}
        ) as ws:
            await ws.send(json.dumps({"read": "2C", "sequence": 10**12}))
            answer = json.loads(await asyncio.wait_for(ws.recv(), 30))
            assert answer["status"] in ("registered", "pending"), answer
        assert await closed_code(f"{stream}?credential={credential}") == 1008

        # the credential before the rotation, then revocation
        await studio.scan(table_id, "3C", device=(device_id, first))
        revoked = await http.post(
            f"{gateway}/devices/{device_id}/revoke", json={"reason": "test"}, headers=SUPERVISOR
        )
        assert revoked.status_code == 200, revoked.text
        await studio.scan(table_id, "4C", device=(device_id, credential))

        # the feed: a key in a header, a ticket used, used again, another table's, forged
        feed = f"ws://{scanning.table_address}/tables/{table_id}/feed"
        async with connect(feed, additional_headers={"X-Api-Key": DEALER_KEY}) as ws:
            assert json.loads(await asyncio.wait_for(ws.recv(), 30))["position"] == 1
        issued: list[str] = []
        for _ in range(2):
            response = await http.post(
                f"{table}/tables/{table_id}/feed/tickets", headers={"X-Api-Key": DEALER_KEY}
            )
            assert response.status_code == 201, response.text
            issued.append(response.json()["ticket"])
        secrets.update(issued)
        async with connect(f"{feed}?ticket={issued[0]}") as ws:
            assert json.loads(await asyncio.wait_for(ws.recv(), 30))["position"] == 1
        assert await closed_code(f"{feed}?ticket={issued[0]}") == 4401  # used
        assert await closed_code(f"{feed}?ticket={issued[1]}x") == 4401  # forged
        assert await closed_code(f"{feed}?key={DEALER_KEY}") == 4401  # a key in a URL
        wrong = await http.get(f"{table}/tables", headers={"X-Api-Key": DEALER_KEY + "x"})
        assert wrong.status_code == 401

    text = log_lines.getvalue()
    lines: list[dict[str, Any]] = [json.loads(line) for line in text.splitlines()]
    # the run was logged, its WebSockets and refusals included
    access = [line for line in lines if line["logger"] == "uvicorn.access"]
    assert any(line.get("http_path") == "/scans" for line in access), "no access line"
    assert any("WebSocket" in line["message"] and "/feed" in line["message"] for line in lines)
    assert any("/stream" in line["message"] for line in lines)
    leaked = sorted(secret for secret in secrets if secret in text)
    assert not leaked, f"{len(leaked)} secret(s) in the logs"
    assert "ticket=" not in text and "credential=" not in text
