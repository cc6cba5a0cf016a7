"""The device stream (WebSocket) under a real uvicorn; credential rotation, revocation and
one active device per table."""

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

from .conftest import SUPERVISOR, enrol, finish, play_table, read_body, served, wait_ready


def deal(scan: CardScanned) -> CardDealt:
    return CardDealt(
        round_id="T1-000001",
        table_id=scan.table_id,
        position="B1",
        card=scan.card,
        scan_id=scan.scan_id,
    )


def bearer(credential: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {credential}"}


def own(read: str) -> str:
    """A stream message: a read for the device's own table, with a fresh sequence number."""
    return json.dumps(read_body(read, None))


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
        credential = await enrol(client, "scanner-9", "T1")
        url = f"ws://{address}/devices/scanner-9/stream"
        async with connect(url, additional_headers=bearer(credential), open_timeout=30) as ws:
            table = asyncio.create_task(play_table(scanner_settings, deal))
            registered = await ask(ws, own("Q♦"))  # no table_id: the device's own table
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

            bounce = await ask(ws, json.dumps(read_body("qd", "T1")))
            assert (bounce["scan_id"], bounce["status"], bounce["duplicate"]) == (
                str(scan.scan_id),
                "registered",
                True,
            )

            rescan = await ask(ws, own("not a card"))
            assert rescan["status"] == "rescan" and rescan["reason"]

            wrong = await ask(ws, json.dumps(read_body("2S", "T7")))
            assert (wrong["status"], wrong["code"]) == (403, "wrong_table")

            huge = await ask(ws, "A" * 100_000)
            assert (huge["status"], huge["code"]) == (413, "payload_too_large")

            bare = await ask(ws, "KD")  # a read without its sequence number is not a read
            assert (bare["status"], bare["code"]) == (422, "invalid_request")

            replayed = await ask(ws, json.dumps({"read": "5C", "sequence": 1}))
            assert (replayed["status"], replayed["code"]) == (409, "stale_sequence")

            binary = await ask(ws, b"\x00\x01")
            assert binary["code"] == "text_expected"

            # two supervisors give the device a new credential: the open stream is cut at its
            # next read
            await enrol(client, "scanner-9", "T1")
            cut = await ask(ws, own("3H"))
            assert (cut["status"], cut["code"]) == (401, "bad_credential")
            assert await closed_with(ws) == 1008

        async with connect(url, additional_headers=bearer("stale"), open_timeout=30) as ws:
            refused = json.loads(await asyncio.wait_for(ws.recv(), 30))
            assert refused["code"] == "bad_credential"
            assert await closed_with(ws) == 1008

        # a credential in the URL authenticates nothing (no secret travels in a URL)
        current = await enrol(client, "scanner-9", "T1")
        async with connect(f"{url}?credential={current}", open_timeout=30) as ws:
            refused = json.loads(await asyncio.wait_for(ws.recv(), 30))
            assert (refused["code"], refused["detail"]) == (
                "bad_credential",
                "no credential was sent",
            )
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
        ("ScanRejected", "stale_sequence"),
        ("ScanRejected", "unreadable"),
        ("ScanRejected", "bad_credential"),
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
        old = await enrol(client, "scanner-5", "T1")
        new = await enrol(client, "scanner-5", "T2")
        assert new != old

        def headers(credential: str) -> dict[str, str]:
            return {"X-Device-Id": "scanner-5", "Authorization": f"Bearer {credential}"}

        stale = await client.post("/scans", json=read_body("ZZ", "T1"), headers=headers(old))
        assert (stale.status_code, stale.json()["code"]) == (401, "bad_credential")
        moved = await client.post("/scans", json=read_body("ZZ", "T1"), headers=headers(new))
        assert (moved.status_code, moved.json()["code"]) == (403, "wrong_table")
        here = await client.post("/scans", json=read_body("ZZ", "T2"), headers=headers(new))
        assert (here.status_code, here.json()["status"]) == (200, "rescan")

        listed = (await client.get("/devices", headers=SUPERVISOR)).json()
        assert [(d["device_id"], d["table_id"]) for d in listed] == [("scanner-5", "T2")]

        # one active device per table: registering another to T2 retires scanner-5
        replacement = await enrol(client, "scanner-6", "T2")
        retired = await client.post("/scans", json=read_body("ZZ", "T2"), headers=headers(new))
        assert (retired.status_code, retired.json()["code"]) == (401, "revoked_device")
        listed = (await client.get("/devices", headers=SUPERVISOR)).json()
        assert [(d["device_id"], d["active"], d["retired_reason"]) for d in listed] == [
            ("scanner-5", False, "replaced"),
            ("scanner-6", True, None),
        ]

        # rotation: a new credential, the old one refused at once
        rotated = await enrol(client, "scanner-6", None)
        six = {"X-Device-Id": "scanner-6"}
        old_six = await client.post(
            "/scans", json=read_body("ZZ", "T2"), headers=six | bearer(replacement)
        )
        assert (old_six.status_code, old_six.json()["code"]) == (401, "bad_credential")
        new_six = six | bearer(rotated)
        fresh = await client.post("/scans", json=read_body("ZZ", "T2"), headers=new_six)
        assert fresh.json()["status"] == "rescan"

        # revocation: the device can do nothing more; a second revocation is a conflict
        revoked = await client.post(
            "/devices/scanner-6/revoke", json={"reason": "stolen"}, headers=SUPERVISOR
        )
        assert (revoked.status_code, revoked.json()["active"]) == (200, False)
        after = await client.post("/scans", json=read_body("ZZ", "T2"), headers=new_six)
        assert (after.status_code, after.json()["code"]) == (401, "revoked_device")
        again = await client.post(
            "/devices/scanner-6/revoke", json={"reason": "stolen"}, headers=SUPERVISOR
        )
        assert (again.status_code, again.json()["code"]) == (409, "device_revoked")
        new_hash = {"credential_hash": "ab" * 32}
        for path, code in (
            ("/devices/ghost/rotate", "unknown_device"),
            ("/devices/scanner-6/rotate", "device_revoked"),
        ):
            refused = await client.post(path, json=new_hash, headers=SUPERVISOR)
            assert refused.json()["code"] == code, refused.text
        dealer = await client.post(
            "/devices/scanner-5/rotate", json=new_hash, headers={"X-Api-Key": "test-dealer-key"}
        )
        assert dealer.status_code == 403

    def kinds(stream: list[Any]) -> list[tuple[str, str, str | None]]:
        return [(e.event_type, e.payload["table_id"], e.payload.get("reason")) for e in stream]

    assert kinds(await store.read_stream("device-scanner-5")) == [
        ("DeviceChangeProposed", "T1", None),
        ("DeviceRegistered", "T1", None),
        ("DeviceChangeProposed", "T2", None),
        ("DeviceRevoked", "T1", "moved"),
        ("DeviceRegistered", "T2", None),
        ("DeviceRevoked", "T2", "replaced"),
    ]
    assert kinds(await store.read_stream("device-scanner-6")) == [
        ("DeviceChangeProposed", "T2", None),
        ("DeviceRegistered", "T2", None),
        ("DeviceChangeProposed", "T2", None),
        ("DeviceCredentialRotated", "T2", None),
        ("DeviceRevoked", "T2", "revoked"),
    ]
