"""Hostile insiders at the scanner's registration (issue 33, finding 1, and the gateway's part
of finding 4; docs/decisions/0085-a-scanner-needs-two-supervisors.md), on the table service
and the gateway as deployed:

- one supervisor cannot put a device of their own at a table, nor approve it themselves;
- no supervisor's answer holds a device's credential;
- a device change while a round is dealt deals nothing in that round, at the gateway or,
  should the gateway not have heard the round yet, at the table;
- the audit reports a round dealt by a device registered by one supervisor;
- a card read before betting closed is sealed at the gateway (its reads and devices);
- the gateway's Redis user cannot publish on the table's live feed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any
from uuid import uuid4

import httpx
import pytest
from redis.asyncio import Redis
from redis.exceptions import NoPermissionError

from scanner_gateway.adapters import postgres as db
from scanner_gateway.domain import Device, credential_hash_of
from teenpatti.audit import Scope, StoreSpec, run_audit
from teenpatti.events.catalog import (
    SCANNER_EVENTS,
    TABLE_EVENTS,
    DeviceCredentialRotated,
    DeviceRegistered,
)
from teenpatti.eventsourcing import AsyncpgEventStore
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.simulator import ScannerSecret, enrol_device
from tests.integration.services import publish

from .scanning import SUPERVISOR, SUPERVISOR_2, Scanning, dealing, device_heard, table_and_gateway
from .test_scanner import deal_one, dealt_cards, forge, table

pytestmark = pytest.mark.integration

CARDS = ["AS", "KS", "QS", "JS", "10S", "9S"]


@pytest.fixture
async def scanning(settings: InfrastructureSettings) -> AsyncIterator[Scanning]:
    async with table_and_gateway(settings) as running:
        yield running


async def gateway_post(
    scanning: Scanning, path: str, who: dict[str, str], body: dict[str, Any]
) -> httpx.Response:
    url = f"http://{scanning.gateway_address}{path}"
    return await scanning.studio.http.post(url, headers=who, json=body)


async def test_one_supervisor_cannot_put_a_device_of_their_own_at_a_table(
    scanning: Scanning,
) -> None:
    table_id = table()
    await scanning.studio.open_table(table_id)
    rogue, mine = f"rogue-{table_id}", ScannerSecret()

    # the one-step registration that handed back a credential is gone
    one_step = await gateway_post(
        scanning, "/devices", SUPERVISOR, {"device_id": rogue, "table_id": table_id}
    )
    assert one_step.status_code == 422, one_step.text
    # a proposal of their own device, approved by themselves: refused
    proposal = {"device_id": rogue, "table_id": table_id, "credential_hash": mine.credential_hash}
    proposed = await gateway_post(scanning, "/devices", SUPERVISOR, proposal)
    assert proposed.status_code == 202, proposed.text
    approve = f"/devices/changes/{proposed.json()['change_id']}/approve"
    self_approved = await gateway_post(
        scanning, approve, SUPERVISOR, {"fingerprint": mine.fingerprint}
    )
    assert (self_approved.status_code, self_approved.json()["code"]) == (403, "same_supervisor")

    round_id = await dealing(scanning, table_id)
    read = await scanning.studio.scan(table_id, "AH", device=(rogue, mine.credential))
    assert (read.status_code, read.json()["code"]) == (401, "unknown_device")
    await deal_one(scanning, table_id, "2H")  # the table's own device
    assert await dealt_cards(scanning, table_id, round_id) == ["2H"]
    devices = await scanning.studio.http.get(
        f"http://{scanning.gateway_address}/devices", headers=SUPERVISOR
    )
    assert [d["device_id"] for d in devices.json()] == [f"scanner-{table_id}"]
    assert await scanning.gateway_events(f"device-{rogue}") == [
        ("DeviceChangeProposed", proposed_event(proposed.json(), mine))
    ]


def proposed_event(change: dict[str, Any], secret: ScannerSecret) -> dict[str, Any]:
    return {
        "change_id": change["change_id"],
        "device_id": change["device_id"],
        "table_id": change["table_id"],
        "kind": "register",
        "fingerprint": secret.fingerprint,
        "actor": "supervisor-1",
    }


async def test_no_supervisors_answer_holds_a_device_credential(scanning: Scanning) -> None:
    table_id = table()
    answers: list[httpx.Response] = []
    secrets: list[ScannerSecret] = []

    async def post(path: str, key: str, body: Any) -> httpx.Response:
        answers.append(await gateway_post(scanning, path, {"X-Api-Key": key}, dict(body)))
        return answers[-1]

    for device_table in (table_id, None):  # a registration, then a rotation
        secrets.append(ScannerSecret())
        approved = await enrol_device(post, f"scanner-{table_id}", device_table, secrets[-1])
        assert approved.status_code == 200, approved.text
    gateway = f"http://{scanning.gateway_address}"
    for path in ("/devices", "/devices/changes", f"/tables/{table_id}/scans"):
        answers.append(await scanning.studio.http.get(f"{gateway}{path}", headers=SUPERVISOR_2))
    assert all(answer.status_code in (200, 202) for answer in answers), answers
    for answer in answers:
        assert "credential" not in answer.text, answer.text
        for secret in secrets:
            assert secret.credential not in answer.text
            assert secret.credential_hash not in answer.text
    # the device reads with the credential it made
    read = await scanning.studio.scan(
        table_id, "ZZ", device=(f"scanner-{table_id}", secrets[-1].credential)
    )
    assert read.json()["status"] == "rescan", read.text


async def test_a_device_change_while_a_round_is_dealt_deals_nothing_in_it(
    scanning: Scanning,
) -> None:
    table_id = table()
    await scanning.studio.open_table(table_id)
    device_id, credential = scanning.studio.devices[table_id]
    round_id = await dealing(scanning, table_id)
    await deal_one(scanning, table_id, "AD")

    # at the gateway: a rotation or another device waits for the round's result
    new, spare = ScannerSecret(), ScannerSecret()
    post = scanning.studio.gateway_post
    for device, device_table, secret in ((device_id, None, new), ("spare", table_id, spare)):
        refused = await enrol_device(post, device, device_table, secret)
        assert (refused.status_code, refused.json()["code"]) == (409, "round_dealing")
        assert refused.json()["round_id"] == round_id
    await deal_one(scanning, table_id, "KD")  # the round goes on with its credential

    # at the table: a rotation it hears mid-round (the gateway had not heard betting close)
    # deals nothing in that round
    rotation = DeviceCredentialRotated(
        device_id=device_id, table_id=table_id, actor="supervisor-1", approved_by="supervisor-2"
    )
    await publish(
        scanning.settings,
        SCANNER_EVENTS,
        rotation,
        table_id=table_id,
        stream_id=f"device-{device_id}",
        stream_version=1000,
        producer="scanner-gateway",
    )
    renewed = await forge(
        scanning.settings,
        table_id=table_id,
        device_id=device_id,
        round_id=round_id,
        sequence=1,
        card="QD",
    )
    refusal = await scanning.studio.wait_for(table_id, "CardRefused", scan_id=str(renewed))
    assert (refusal["reason"], refusal["card"]) == ("unregistered_device", None)
    assert "first card" in refusal["detail"]
    assert await dealt_cards(scanning, table_id, round_id) == ["AD", "KD"]
    assert credential  # the round's credential, unchanged at the gateway
    still = await scanning.studio.scan(table_id, "ZZ")
    assert still.json()["status"] == "rescan", still.text


async def test_the_audit_reports_a_round_dealt_by_a_device_one_supervisor_registered(
    scanning: Scanning,
) -> None:
    table_id = table()
    await scanning.studio.open_table(table_id, betting_seconds=3.0)
    # a registration made by one supervisor, as the gateway once allowed: its event and its
    # device written to the gateway's store, as that route wrote them
    device_id, credential = f"alone-{table_id}", uuid4().hex
    store = AsyncpgEventStore(scanning.gateway_pool, producer="scanner-gateway")
    async with scanning.gateway_pool.acquire() as connection, connection.transaction():
        now = await db.clock(connection)
        event = DeviceRegistered(device_id=device_id, table_id=table_id, actor="supervisor-1")
        stream = f"device-{device_id}"
        version = await store.lock_stream(stream, connection=connection)
        await store.append(
            stream, version, [event], table_id=table_id, occurred_at=now, connection=connection
        )
        await connection.execute("UPDATE devices SET active = false WHERE table_id = $1", table_id)
        device = Device(device_id, table_id, credential_hash_of(credential))
        await db.save_registration(
            connection, device, actor="supervisor-1", approved_by=None, at=now
        )
    await device_heard(scanning, device_id, table_id=table_id, active=True)
    round_id = await dealing(scanning, table_id)
    for card in CARDS:
        await deal_one(scanning, table_id, card, device=(device_id, credential))
    await scanning.studio.wait_for(table_id, "RoundClosed", round_id=round_id)

    dsn = scanning.settings.postgres_dsn
    stores = [
        StoreSpec("table", dsn(await database_of(scanning.table_pool)), TABLE_EVENTS),
        StoreSpec("scanner", dsn(await database_of(scanning.gateway_pool)), SCANNER_EVENTS),
    ]
    report = await run_audit(stores, Scope(table_id=table_id), settle_grace=timedelta(0))
    found = {(f.code, f.subject.split(" (")[0]) for f in report.findings if f.check == "device"}
    assert found == {("device_not_approved", f"round {round_id}")}


async def database_of(pool: Any) -> str:
    name: str = await pool.fetchval("SELECT current_database()")
    return name


async def test_a_card_read_before_betting_closed_is_sealed_at_the_gateway(
    scanning: Scanning,
) -> None:
    table_id = table()
    await scanning.studio.open_table(table_id, betting_seconds=5.0)
    await scanning.studio.next_round(table_id)
    # read while bets are taken: the table refuses it sealed and pauses the round
    read = await scanning.studio.scan(table_id, "QC")
    assert read.status_code in (200, 202), read.text
    await scanning.studio.wait_for(table_id, "CardRefused", scan_id=read.json()["scan_id"])
    garbled = await scanning.studio.scan(table_id, "QC QC")  # not a card, kept by the gateway
    assert garbled.json()["status"] == "rescan", garbled.text

    gateway = f"http://{scanning.gateway_address}"
    for key in (SUPERVISOR, {"X-Api-Key": "dev-dealer-key"}):
        scans = await scanning.studio.http.get(f"{gateway}/tables/{table_id}/scans", headers=key)
        assert scans.status_code == 200, scans.text
        assert "QC" not in scans.text, scans.text
        body = scans.json()
        assert {(s["raw"], s["sealed"]) for s in body["scans"]} == {("sealed", True)}
        assert [d["last_card"] for d in body["devices"]] == ["sealed"]
    devices = await scanning.studio.http.get(f"{gateway}/devices", headers=SUPERVISOR)
    assert "QC" not in devices.text, devices.text
    assert [d["last_card"] for d in devices.json() if d["table_id"] == table_id] == ["sealed"]


async def test_the_gateways_redis_user_cannot_publish_on_the_tables_feed(
    settings: InfrastructureSettings,
) -> None:
    if not settings.credentials_dir:
        pytest.fail("the stack runs without authentication; `make up` turns it on")
    feed = f"{settings.topic_prefix}feed:T01"
    gateway = Redis.from_url(settings.as_principal("scanner-gateway").redis_url, socket_timeout=5)
    table_side = Redis.from_url(settings.as_principal("table").redis_url, socket_timeout=5)
    try:
        forged = '{"position": 99, "event_type": "CardDealt", "payload": {"card": "AS"}}'
        with pytest.raises(NoPermissionError):
            await gateway.publish(feed, forged)
        # its own channels, and the one pattern it listens on: allowed (the control)
        await gateway.publish(f"{settings.topic_prefix}scan:{uuid4()}", "verdict")
        pubsub = gateway.pubsub()
        await pubsub.psubscribe("*scan:*")
        await pubsub.aclose()  # type: ignore[no-untyped-call]
        await table_side.publish(feed, "{}")  # the table's own feed (the control)
    finally:
        await gateway.aclose()
        await table_side.aclose()
