"""The device stream (WebSocket) under a real uvicorn, and credential rotation."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from scanner_gateway.app import create_app
from scanner_gateway.config import ScannerSettings
from teenpatti.events.catalog import CardDealt, CardScanned
from teenpatti.eventsourcing import AsyncpgEventStore

from .conftest import SUPERVISOR, finish, play_table, served, wait_ready


def deal(scan: CardScanned) -> CardDealt:
    return CardDealt(
        round_id="T1-000001",
        table_id=scan.table_id,
        position="B1",
        card=scan.card,
        scan_id=scan.scan_id,
    )


async def credential_of(client: httpx.AsyncClient, device_id: str, table_id: str) -> str:
    response = await client.post(
        "/devices", json={"device_id": device_id, "table_id": table_id}, headers=SUPERVISOR
    )
    assert response.status_code == 201, response.text
    credential: str = response.json()["credential"]
    return credential


async def ask(ws: ClientConnection, message: str | bytes) -> dict[str, Any]:
    await ws.send(message)
    answer: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 60))
    return answer


async def closed_with(ws: ClientConnection) -> int | None:
    with pytest.raises(ConnectionClosed):
        async with asyncio.timeout(30):
            while True:
                await ws.recv()
    assert ws.close_code is not None
    return ws.close_code


async def test_the_stream_answers_each_read_like_post_scans(
    scanner_settings: ScannerSettings, store: AsyncpgEventStore
) -> None:
    async with (
        served(create_app(scanner_settings)) as address,
        httpx.AsyncClient(base_url=f"http://{address}", timeout=30) as client,
    ):
        await wait_ready(client)
        credential = await credential_of(client, "scanner-9", "T1")
        url = f"ws://{address}/devices/scanner-9/stream?credential={credential}"
        async with connect(url, open_timeout=30) as ws:
            table = asyncio.create_task(play_table(scanner_settings, deal))
            registered = await ask(ws, "Q♦")  # the bare read, for the device's own table
            (scan,) = await finish(table)
            assert registered == {
                "scan_id": str(scan.scan_id),
                "status": "registered",
                "reason": None,
                "detail": None,
                "position": "B1",
                "card": "QD",
                "duplicate": False,
            }

            bounce = await ask(ws, json.dumps({"read": "qd", "table_id": "T1"}))
            assert (bounce["scan_id"], bounce["status"], bounce["duplicate"]) == (
                str(scan.scan_id),
                "registered",
                True,
            )

            rescan = await ask(ws, "not a card")
            assert rescan["status"] == "rescan" and rescan["reason"]

            wrong = await ask(ws, json.dumps({"read": "2S", "table_id": "T7"}))
            assert (wrong["status"], wrong["code"]) == (403, "wrong_table")

            huge = await ask(ws, "A" * 100_000)
            assert (huge["status"], huge["code"]) == (413, "payload_too_large")

            binary = await ask(ws, b"\x00\x01")
            assert binary["code"] == "text_expected"

            # a supervisor rotates the credential: the open stream is cut at its next read
            await credential_of(client, "scanner-9", "T1")
            cut = await ask(ws, "3H")
            assert (cut["status"], cut["code"]) == (401, "bad_credential")
            assert await closed_with(ws) == 1008

        async with connect(
            f"ws://{address}/devices/scanner-9/stream?credential=stale", open_timeout=30
        ) as ws:
            refused = json.loads(await asyncio.wait_for(ws.recv(), 30))
            assert refused["code"] == "bad_credential"
            assert await closed_with(ws) == 1008

        async with connect(f"ws://{address}/devices/nobody/stream", open_timeout=30) as ws:
            assert await closed_with(ws) == 1008

    reads = [(e.event_type, e.payload) for e in await store.read_stream("scans-scanner-9")]
    assert [(t, p.get("reason")) for t, p in reads] == [
        ("CardScanned", None),
        ("ScanRejected", "duplicate_read"),
        ("ScanRejected", "unreadable"),
        ("ScanRejected", "wrong_table"),
        ("ScanRejected", "unreadable"),
        ("ScanRejected", "unreadable"),
        ("ScanRejected", "bad_credential"),
        ("ScanRejected", "bad_credential"),
    ]
    nobody = await store.read_stream("unknown-device-nobody")
    assert [(e.event_type, e.payload["reason"]) for e in nobody] == [
        ("ScanRejected", "unknown_device")
    ]


async def test_re_registering_rotates_the_credential_and_may_move_the_device(
    scanner_settings: ScannerSettings, store: AsyncpgEventStore
) -> None:
    async with (
        served(create_app(scanner_settings)) as address,
        httpx.AsyncClient(base_url=f"http://{address}", timeout=30) as client,
    ):
        await wait_ready(client)
        old = await credential_of(client, "scanner-5", "T1")
        new = await credential_of(client, "scanner-5", "T2")
        assert new != old

        def headers(credential: str) -> dict[str, str]:
            return {"X-Device-Id": "scanner-5", "Authorization": f"Bearer {credential}"}

        stale = await client.post(
            "/scans", json={"read": "ZZ", "table_id": "T1"}, headers=headers(old)
        )
        assert (stale.status_code, stale.json()["code"]) == (401, "bad_credential")
        moved = await client.post(
            "/scans", json={"read": "ZZ", "table_id": "T1"}, headers=headers(new)
        )
        assert (moved.status_code, moved.json()["code"]) == (403, "wrong_table")
        here = await client.post(
            "/scans", json={"read": "ZZ", "table_id": "T2"}, headers=headers(new)
        )
        assert (here.status_code, here.json()["status"]) == (200, "rescan")

        listed = (await client.get("/devices", headers=SUPERVISOR)).json()
        assert [(d["device_id"], d["table_id"]) for d in listed] == [("scanner-5", "T2")]

    registrations = await store.read_stream("device-scanner-5")
    assert [e.payload["table_id"] for e in registrations] == ["T1", "T2"]
