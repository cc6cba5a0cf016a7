"""The studio's view of a table's scanner (`GET /tables/{table_id}/scans`), on the real stack:
its devices with their state, and its last reads, accepted and rejected, newest first, with
what arrived and why a read was turned down; bad input and unknown tables get a problem."""

from __future__ import annotations

import asyncio
from datetime import datetime
from uuid import UUID

import pytest

from scanner_gateway.config import ScannerSettings
from teenpatti.events.catalog import CardDealt, CardRefused, CardScanned
from tests.integration.access import issue_key

from .conftest import DEALER, SUPERVISOR, finish, gateway, play_table, read_body, register


async def test_a_tables_devices_and_last_reads_accepted_and_rejected(
    scanner_settings: ScannerSettings,
) -> None:
    answered: list[UUID] = []

    def refuse_then_deal(scan: CardScanned) -> CardRefused | CardDealt | None:
        if scan.scan_id in answered:
            return None  # answered already
        answered.append(scan.scan_id)
        if len(answered) == 1:
            return CardRefused(
                table_id=scan.table_id,
                round_id="T1-000001",
                scan_id=scan.scan_id,
                card=None,  # read during betting: sealed (decision 0058)
                reason="betting_open",
                detail="betting closes at 12:00:20",
            )
        return CardDealt(
            round_id="T1-000001",
            table_id=scan.table_id,
            position="A1",
            card=scan.card,
            scan_id=scan.scan_id,
        )

    async with gateway(scanner_settings) as client:
        device = await register(client)
        table = asyncio.create_task(play_table(scanner_settings, refuse_then_deal, scans=1))
        refused = await client.post("/scans", json=read_body("KH", "T1"), headers=device)
        await finish(table)
        (listed,) = (await client.get("/devices", headers=SUPERVISOR)).json()
        assert listed["last_card"] == "sealed"  # read during betting
        table = asyncio.create_task(play_table(scanner_settings, refuse_then_deal, scans=2))
        dealt = await client.post("/scans", json=read_body("A♠", "T1"), headers=device)
        await finish(table)
        unreadable = await client.post("/scans", json=read_body("ZZ", "T1"), headers=device)
        wrong = await client.post("/scans", json=read_body("QD", "T2"), headers=device)
        assert [r.status_code for r in (refused, dealt, unreadable, wrong)] == [200, 200, 200, 403]

        answer = await client.get("/tables/T1/scans", headers=SUPERVISOR)
        assert answer.status_code == 200, answer.text
        found = answer.json()
        assert found["table_id"] == "T1"
        scans = found["scans"]
        assert [s["scan_id"] for s in scans] == [
            wrong.json()["scan_id"],
            unreadable.json()["scan_id"],
            dealt.json()["scan_id"],
            refused.json()["scan_id"],
        ]
        # a value is shown only once the table's verdict shows it: the card it dealt
        fields = ("raw", "card", "sealed", "verdict", "status", "reason", "position")
        assert [tuple(s[f] for f in fields) for s in scans] == [
            ("sealed", None, True, "rejected", "rejected", "wrong_table", None),
            ("sealed", None, True, "rejected", "rescan", "unreadable", None),
            ("A♠", "AS", False, "accepted", "registered", None, "A1"),
            ("sealed", "sealed", True, "rejected", "refused", "betting_open", None),
        ]
        assert "names table 'T2'" in scans[0]["detail"]
        assert scans[1]["detail"] == "sealed"  # the engine's reason quotes the read
        assert "KH" not in answer.text and "QD" not in answer.text
        assert scans[2]["detail"] is None
        assert scans[2]["decided_at"] is not None
        assert scans[3]["detail"] == "betting closes at 12:00:20"
        assert all(s["device_id"] == "scanner-1" for s in scans)

        (scanner,) = found["devices"]
        assert {k: scanner[k] for k in ("device_id", "status", "last_card", "retired_at")} == {
            "device_id": "scanner-1",
            "status": "active",
            "last_card": "AS",
            "retired_at": None,
        }
        assert _at(scanner["last_seen_at"]) == _at(scans[0]["scanned_at"])

        # the newest reads first, as many as asked; the dealer's key sees them too
        two = await client.get("/tables/T1/scans", params={"limit": 2}, headers=DEALER)
        assert two.status_code == 200, two.text
        assert [s["scan_id"] for s in two.json()["scans"]] == [s["scan_id"] for s in scans[:2]]

        # a new device replaces the table's: both are shown, the active one first
        await register(client, "scanner-2")
        devices = (await client.get("/tables/T1/scans", headers=SUPERVISOR)).json()["devices"]
        assert [(d["device_id"], d["status"], d["last_seen_at"]) for d in devices] == [
            ("scanner-2", "active", None),
            ("scanner-1", "replaced", scanner["last_seen_at"]),
        ]


def _at(value: str) -> datetime:
    return datetime.fromisoformat(value)


async def test_bad_input_and_unknown_tables_get_a_problem(
    scanner_settings: ScannerSettings,
) -> None:
    async with gateway(scanner_settings) as client:
        await register(client)
        for limit in (0, 101, "all"):
            response = await client.get(
                "/tables/T1/scans", params={"limit": limit}, headers=SUPERVISOR
            )
            assert response.status_code == 422, response.text
            assert response.json()["code"] == "invalid_request"
        unknown = await client.get("/tables/T9/scans", headers=SUPERVISOR)
        assert unknown.status_code == 404, unknown.text
        assert unknown.headers["content-type"] == "application/problem+json"
        assert unknown.json()["code"] == "unknown_table"
        # a table that has a device but no read yet is known: its device, no reads
        empty = await client.get("/tables/T1/scans", headers=SUPERVISOR)
        assert empty.status_code == 200, empty.text
        assert empty.json()["scans"] == []
        assert [d["device_id"] for d in empty.json()["devices"]] == ["scanner-1"]
        assert (await client.get("/tables/T1/scans")).status_code == 401


async def test_a_tables_reads_need_a_supervisor_or_dealer_key_for_the_table(
    monkeypatch: pytest.MonkeyPatch, scanner_settings: ScannerSettings, access_database: str
) -> None:
    settings = scanner_settings.model_copy(update={"access_database": access_database})
    _, here = await issue_key(monkeypatch, access_database, "dan", "dealer", "--tables", "T1")
    _, there = await issue_key(monkeypatch, access_database, "dee", "dealer", "--tables", "T2")
    _, operator = await issue_key(monkeypatch, access_database, "operator-7", "operator")
    async with gateway(settings) as client:
        await register(client)
        allowed = await client.get("/tables/T1/scans", headers={"X-Api-Key": here})
        assert allowed.status_code == 200, allowed.text
        for key, code in ((there, "table_not_in_scope"), (operator, "forbidden")):
            refused = await client.get("/tables/T1/scans", headers={"X-Api-Key": key})
            assert refused.status_code == 403, refused.text
            assert refused.json()["code"] == code
