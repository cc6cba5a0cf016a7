"""Reads through the gateway: verdicts from the (played) table, rejections, bounce, pending."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from uuid import UUID

from scanner_gateway.app import create_app
from scanner_gateway.config import ScannerSettings
from teenpatti.events.catalog import (
    SCANNER_EVENTS,
    CardDealt,
    CardRefused,
    CardScanned,
    DeviceRegistered,
    Position,
    ScanRejected,
)
from teenpatti.eventsourcing import AsyncpgEventStore
from tests.integration.services import count_of, of_type, running

from .conftest import (
    DEALER,
    SUPERVISOR,
    collect_explained,
    finish,
    gateway,
    play_table,
    read_body,
    register,
    wait_ready,
)


def dealt(position: Position = "A1") -> Callable[[CardScanned], CardDealt]:
    def verdict(scan: CardScanned) -> CardDealt:
        return CardDealt(
            round_id="T1-000001",
            table_id=scan.table_id,
            position=position,
            card=scan.card,
            scan_id=scan.scan_id,
        )

    return verdict


async def events_of(
    store: AsyncpgEventStore, stream_id: str
) -> list[tuple[str, dict[str, object]]]:
    return [(e.event_type, e.payload) for e in await store.read_stream(stream_id)]


async def test_a_dealt_card_is_registered_and_its_bounce_absorbed(
    scanner_settings: ScannerSettings, store: AsyncpgEventStore
) -> None:
    async with gateway(scanner_settings) as client:
        device = await register(client)
        table = asyncio.create_task(play_table(scanner_settings, dealt("A1")))

        first = await client.post("/scans", json=read_body("A♠", "T1"), headers=device)
        (scan,) = await finish(table)

        assert first.status_code == 200, first.text
        assert first.json() == {
            "scan_id": str(scan.scan_id),
            "status": "registered",
            "reason": None,
            "detail": None,
            "position": "A1",
            "card": "AS",
            "duplicate": False,
        }
        assert (scan.card, scan.raw, scan.device_id, scan.table_id) == (
            "AS",
            "A♠",
            "scanner-1",
            "T1",
        )

        bounce = await client.post("/scans", json=read_body("as", "T1"), headers=device)
        assert bounce.status_code == 200, bounce.text
        assert bounce.json() | {"duplicate": None} == first.json() | {"duplicate": None}
        assert bounce.json()["duplicate"] is True

        later = await client.get(f"/scans/{scan.scan_id}", headers=device)
        assert (later.status_code, later.json()["status"], later.json()["position"]) == (
            200,
            "registered",
            "A1",
        )

        listed = await client.get("/devices", headers=SUPERVISOR)
        assert [(d["device_id"], d["table_id"], d["last_card"]) for d in listed.json()] == [
            ("scanner-1", "T1", "AS")
        ]
        assert "credential" not in listed.text and "hash" not in listed.text

    proposed, registered = await events_of(store, "device-scanner-1")
    assert registered == (
        "DeviceRegistered",
        {
            "device_id": "scanner-1",
            "table_id": "T1",
            "actor": "sup-1",
            "change_id": proposed[1]["change_id"],
            "approved_by": "sup-2",
        },
    )
    assert (proposed[0], proposed[1]["kind"], proposed[1]["actor"]) == (
        "DeviceChangeProposed",
        "register",
        "sup-1",
    )
    reads = await events_of(store, "scans-scanner-1")
    assert [t for t, _ in reads] == ["CardScanned", "ScanRejected"]
    assert reads[1][1]["reason"] == "duplicate_read"
    assert str(scan.scan_id) in str(reads[1][1]["detail"])


async def test_a_refused_card_carries_the_tables_reason_and_may_be_tried_again(
    scanner_settings: ScannerSettings,
) -> None:
    def refuse_then_deal(scan: CardScanned) -> CardRefused | CardDealt | None:
        if scan.scan_id in answered:
            return None  # answered already
        answered.append(scan.scan_id)
        if len(answered) == 1:
            return CardRefused(
                table_id=scan.table_id,
                round_id="T1-000001",
                scan_id=scan.scan_id,
                card=scan.card,
                reason="betting_open",
                detail="betting closes at 12:00:20",
            )
        return dealt("A1")(scan)

    answered: list[UUID] = []
    async with gateway(scanner_settings) as client:
        device = await register(client)
        body = read_body("10H", "T1")
        table = asyncio.create_task(play_table(scanner_settings, refuse_then_deal, scans=1))
        refused = await client.post("/scans", json=body, headers=device)
        await finish(table)
        assert refused.status_code == 200, refused.text
        assert {k: refused.json()[k] for k in ("status", "reason", "detail", "position")} == {
            "status": "refused",
            "reason": "betting_open",
            "detail": "betting closes at 12:00:20",
            "position": None,
        }

        # the same card again, within the bounce window: the dealer trying again after a
        # refusal is passed on, not absorbed
        table = asyncio.create_task(play_table(scanner_settings, refuse_then_deal, scans=2))
        again = await client.post("/scans", json=read_body("10H", "T1"), headers=device)
        scans = await finish(table)
        assert again.status_code == 200, again.text
        assert again.json()["status"] == "registered"
        assert again.json()["scan_id"] == str(scans[1].scan_id) != refused.json()["scan_id"]


async def test_reads_that_are_not_the_devices_to_send_are_refused_and_recorded(
    scanner_settings: ScannerSettings, store: AsyncpgEventStore
) -> None:
    async with gateway(scanner_settings) as client:
        device = await register(client)
        good = read_body("AS", "T1")

        unknown = await client.post(
            "/scans", json=good, headers={"X-Device-Id": "ghost", "Authorization": "Bearer x"}
        )
        bad = await client.post(
            "/scans", json=good, headers=device | {"Authorization": "Bearer not-it"}
        )
        missing = await client.post("/scans", json=good, headers={"X-Device-Id": "scanner-1"})
        wrong = await client.post("/scans", json=read_body("AS", "T2"), headers=device)
        for response, status, code in [
            (unknown, 401, "unknown_device"),
            (bad, 401, "bad_credential"),
            (missing, 401, "bad_credential"),
            (wrong, 403, "wrong_table"),
        ]:
            assert response.status_code == status, response.text
            assert response.headers["content-type"] == "application/problem+json"
            assert response.json()["code"] == code
            UUID(response.json()["scan_id"])

        unreadable = await client.post("/scans", json=read_body("ZZ", "T1"), headers=device)
        assert unreadable.status_code == 200, unreadable.text
        assert unreadable.json()["status"] == "rescan"
        assert "unknown suit 'Z'" in unreadable.json()["reason"]
        assert (await client.get(f"/scans/{unreadable.json()['scan_id']}", headers=device)).json()[
            "status"
        ] == "rescan"

        too_long = await client.post("/scans", json=read_body("A" * 500, "T1"), headers=device)
        assert too_long.status_code == 200 and too_long.json()["status"] == "rescan"

    unknown_reads = await events_of(store, "unknown-device-ghost")
    assert [(t, p["reason"], p["table_id"]) for t, p in unknown_reads] == [
        ("ScanRejected", "unknown_device", "T1")
    ]
    reads = await events_of(store, "scans-scanner-1")
    assert [(t, p["reason"]) for t, p in reads] == [
        ("ScanRejected", "bad_credential"),
        ("ScanRejected", "bad_credential"),
        ("ScanRejected", "wrong_table"),
        ("ScanRejected", "unreadable"),
        ("ScanRejected", "unreadable"),
    ]
    assert all(len(str(p["raw"])) <= 100 for _, p in reads)

    # and they reach scanner.events for the audit, none of them as a card
    seen = await collect_explained(scanner_settings, SCANNER_EVENTS, count_of("ScanRejected", 6))
    assert not of_type(seen, "CardScanned")
    assert {e.reason for e in of_type(seen, "ScanRejected") if isinstance(e, ScanRejected)} == {
        "unknown_device",
        "bad_credential",
        "wrong_table",
        "unreadable",
    }


async def test_garbage_is_a_problem_never_a_server_error(
    scanner_settings: ScannerSettings, store: AsyncpgEventStore
) -> None:
    async with gateway(scanner_settings) as client:
        device = await register(client)
        json_headers = device | {"Content-Type": "application/json"}
        cases = [
            (b"not json", 422, "invalid_request"),
            (b"\xff\xfe\x00", 422, "invalid_request"),
            (b"[" * 3000, 422, "invalid_request"),
            (b'{"read": null, "table_id": "T1", "sequence": 1}', 422, "invalid_request"),
            (b'{"read": "A\\u0000S", "table_id": "T1", "sequence": 2}', 200, None),  # a rescan
            (b'{"read": "\\ud800", "table_id": "T1", "sequence": 3}', 200, None),
            (b"x" * 100_000, 413, "payload_too_large"),
        ]
        for body, status, code in cases:
            response = await client.post("/scans", content=body, headers=json_headers)
            assert response.status_code == status, (body[:20], response.text)
            if code is not None:
                assert response.json()["code"] == code
            else:
                assert response.json()["status"] == "rescan"

        # unknown devices with garbage ids are recorded, bounded
        ghost = await client.post(
            "/scans", content=b"x" * 10_000, headers={"X-Device-Id": "\x01" + "g" * 3000}
        )
        assert ghost.status_code == 401 and ghost.json()["code"] == "unknown_device"

        # the other routes: validation and body limits as problems too
        for response, status, code in [
            (
                await client.post("/devices", content=b"{", headers=SUPERVISOR),
                422,
                "invalid_request",
            ),
            (
                await client.post("/devices", content=b" " * 100_000, headers=SUPERVISOR),
                413,
                "payload_too_large",
            ),
            (
                await client.post(
                    "/devices", json={"device_id": "bad id!", "table_id": "T1"}, headers=SUPERVISOR
                ),
                422,
                "invalid_request",
            ),
            (
                await client.post(
                    "/devices",
                    json={"device_id": "d", "table_id": "T1", "credential_hash": "ab" * 32},
                ),
                401,
                "missing_api_key",
            ),
            (
                await client.post(
                    "/devices",
                    json={"device_id": "d", "table_id": "T1", "credential_hash": "ab" * 32},
                    headers=DEALER,
                ),
                403,
                "forbidden",
            ),
            (await client.get("/devices", headers=DEALER), 403, "forbidden"),
            (await client.get("/scans/not-a-uuid", headers=device), 422, "invalid_request"),
        ]:
            assert (response.status_code, response.json()["code"]) == (status, code), response.text

    reads = await events_of(store, "scans-scanner-1")
    assert [p["reason"] for _, p in reads] == ["unreadable"] * 7
    assert all(len(str(p["raw"])) <= 100 for _, p in reads)
    (ghost_read,) = [
        p
        for stream in await store.pool.fetch("SELECT DISTINCT stream_id FROM streams")
        if stream[0].startswith("unknown-device-")
        for _, p in await events_of(store, stream[0])
    ]
    assert ghost_read["reason"] == "unknown_device" and ghost_read["table_id"] == "-"
    assert len(str(ghost_read["device_id"])) < 100 and len(str(ghost_read["raw"])) < 100


async def test_without_a_verdict_in_time_the_read_is_pending_until_the_table_speaks(
    scanner_settings: ScannerSettings,
) -> None:
    settings = scanner_settings.model_copy(update={"verdict_timeout_seconds": 0.3})
    async with gateway(settings) as client:
        device = await register(client)
        other = await register(client, "scanner-2", "T2")  # one active device per table

        pending = await client.post("/scans", json=read_body("KC", "T1"), headers=device)
        assert pending.status_code == 202, pending.text
        scan_id = pending.json()["scan_id"]
        assert pending.json()["status"] == "pending"
        assert pending.headers["Location"] == f"/scans/{scan_id}"
        still = await client.get(f"/scans/{scan_id}", headers=device)
        assert (still.status_code, still.json()["status"]) == (202, "pending")

        assert (await client.get(f"/scans/{scan_id}", headers=other)).status_code == 404
        stranger = device | {"Authorization": "Bearer nope"}
        assert (await client.get(f"/scans/{scan_id}", headers=stranger)).status_code == 401

        (scan,) = await play_table(settings, dealt("B3"))
        assert str(scan.scan_id) == scan_id
        async with asyncio.timeout(60):
            while (
                answer := await client.get(f"/scans/{scan_id}", headers=device)
            ).status_code == 202:
                await asyncio.sleep(0.1)
        assert (answer.status_code, answer.json()["status"], answer.json()["position"]) == (
            200,
            "registered",
            "B3",
        )


async def test_a_bounce_is_absorbed_across_gateway_instances(
    scanner_settings: ScannerSettings, store: AsyncpgEventStore
) -> None:
    first_app, second_app = create_app(scanner_settings), create_app(scanner_settings)
    async with running(first_app) as first, running(second_app) as second:
        await wait_ready(first)
        await wait_ready(second)
        device = await register(first)
        table = asyncio.create_task(play_table(scanner_settings, dealt("A2")))
        # one device's reads come one after another (each with a higher sequence number)
        answers = [await first.post("/scans", json=read_body("7D", "T1"), headers=device)]
        answers.append(await second.post("/scans", json=read_body("7D", "T1"), headers=device))
        (scan,) = await finish(table)

    assert [a.status_code for a in answers] == [200, 200], [a.text for a in answers]
    assert {a.json()["scan_id"] for a in answers} == {str(scan.scan_id)}
    assert {a.json()["status"] for a in answers} == {"registered"}
    assert sorted(a.json()["duplicate"] for a in answers) == [False, True]
    reads = await events_of(store, "scans-scanner-1")
    assert sorted((t, p.get("reason")) for t, p in reads) == [
        ("CardScanned", None),
        ("ScanRejected", "duplicate_read"),
    ]
    registered = await events_of(store, "device-scanner-1")
    assert [t for t, _ in registered] == ["DeviceChangeProposed", DeviceRegistered.event_type]
