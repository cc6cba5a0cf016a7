"""Device changes take two supervisors (decision 0085): one proposes the device with the hash
of the credential it made, another approves it with the fingerprint the device shows, while
no round of its table is being dealt; no answer ever holds the credential."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import httpx

from scanner_gateway.config import ScannerSettings
from teenpatti.engine import PUBLISHED_PAY_TABLE, pay_table_to_mapping
from teenpatti.events.catalog import (
    TABLE_EVENTS,
    BettingClosed,
    RoundClosed,
    RoundOpened,
    StakeLimit,
)
from teenpatti.eventsourcing import AsyncpgEventStore
from teenpatti_tools.simulator import ScannerSecret
from tests.integration.services import publish

from .conftest import SUPERVISOR, SUPERVISOR_2, enrol, gateway, read_body

LIMITS: Any = {
    "INR": {
        bet: StakeLimit(min=100, max=1_000)
        for bet in ("player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus")
    }
}


def scanning(device_id: str, credential: str) -> dict[str, str]:
    return {"X-Device-Id": device_id, "Authorization": f"Bearer {credential}"}


async def test_a_device_takes_two_supervisors_and_no_answer_holds_its_credential(
    scanner_settings: ScannerSettings, store: AsyncpgEventStore
) -> None:
    secret = ScannerSecret()
    answers: list[httpx.Response] = []
    async with gateway(scanner_settings) as client:

        async def post(path: str, who: dict[str, str], body: dict[str, Any]) -> httpx.Response:
            response = await client.post(path, json=body, headers=who)
            answers.append(response)
            return response

        proposal = {"device_id": "scanner-8", "table_id": "T1"}
        proposed = await post(
            "/devices", SUPERVISOR, proposal | {"credential_hash": secret.credential_hash}
        )
        assert proposed.status_code == 202, proposed.text
        change = proposed.json()
        assert (change["kind"], change["status"], change["proposed_by"]) == (
            "register",
            "pending",
            "sup-1",
        )
        approve = f"/devices/changes/{change['change_id']}/approve"

        # proposed only: the device reads nothing, and is listed as a change waiting
        before = await client.post(
            "/scans", json=read_body("ZZ", "T1"), headers=scanning("scanner-8", secret.credential)
        )
        assert (before.status_code, before.json()["code"]) == (401, "unknown_device")
        assert (await client.get("/devices", headers=SUPERVISOR)).json() == []
        waiting = (await client.get("/devices/changes", headers=SUPERVISOR_2)).json()
        assert [c["change_id"] for c in waiting] == [change["change_id"]]

        again = await post(
            "/devices",
            SUPERVISOR_2,
            proposal | {"credential_hash": ScannerSecret().credential_hash},
        )
        assert (again.status_code, again.json()["code"]) == (409, "change_pending")
        assert again.json()["change_id"] == change["change_id"]
        # its proposer sending it again (the first answer lost): the same change, nothing new
        repeated = await post(
            "/devices", SUPERVISOR, proposal | {"credential_hash": secret.credential_hash}
        )
        assert repeated.status_code == 202, repeated.text
        assert repeated.json() == change

        own = await post(approve, SUPERVISOR, {"fingerprint": secret.fingerprint})
        assert (own.status_code, own.json()["code"]) == (403, "same_supervisor")
        other = ScannerSecret().fingerprint
        wrong = await post(approve, SUPERVISOR_2, {"fingerprint": other})
        assert (wrong.status_code, wrong.json()["code"]) == (409, "fingerprint_mismatch")

        approved = await post(approve, SUPERVISOR_2, {"fingerprint": secret.fingerprint})
        assert approved.status_code == 200, approved.text
        assert (approved.json()["status"], approved.json()["decided_by"]) == ("approved", "sup-2")
        read = await client.post(
            "/scans", json=read_body("ZZ", "T1"), headers=scanning("scanner-8", secret.credential)
        )
        assert (read.status_code, read.json()["status"]) == (200, "rescan")
        twice = await post(approve, SUPERVISOR_2, {"fingerprint": secret.fingerprint})
        assert (twice.status_code, twice.json()["code"]) == (409, "change_decided")

        (device,) = (await client.get("/devices", headers=SUPERVISOR)).json()
        assert (device["registered_by"], device["approved_by"], device["active"]) == (
            "sup-1",
            "sup-2",
            True,
        )
        # a rotation withdrawn by its proposer: the credential in force stays
        rotation = await post(
            "/devices/scanner-8/rotate",
            SUPERVISOR,
            {"credential_hash": ScannerSecret().credential_hash},
        )
        assert rotation.status_code == 202, rotation.text
        withdrawn = await post(
            f"/devices/changes/{rotation.json()['change_id']}/reject",
            SUPERVISOR,
            {"reason": "wrong device"},
        )
        assert (withdrawn.status_code, withdrawn.json()["status"]) == (200, "rejected")
        still = await client.post(
            "/scans", json=read_body("ZZ", "T1"), headers=scanning("scanner-8", secret.credential)
        )
        assert still.json()["status"] == "rescan"
        unknown = await client.post(
            "/devices/changes/00000000-0000-0000-0000-000000000000/reject",
            json={"reason": "x"},
            headers=SUPERVISOR,
        )
        assert (unknown.status_code, unknown.json()["code"]) == (404, "unknown_change")

    for answer in answers:
        for secret_part in (secret.credential, secret.credential_hash, secret.fingerprint):
            assert secret_part not in answer.text, answer.text
    events = [(e.event_type, e.payload) for e in await store.read_stream("device-scanner-8")]
    assert [t for t, _ in events] == [
        "DeviceChangeProposed",
        "DeviceRegistered",
        "DeviceChangeProposed",
        "DeviceChangeRejected",
    ]
    assert events[0][1]["fingerprint"] == secret.fingerprint
    assert (events[1][1]["actor"], events[1][1]["approved_by"]) == ("sup-1", "sup-2")
    assert secret.credential_hash not in str(events)


async def test_a_change_waits_while_a_round_of_its_table_is_dealt(
    scanner_settings: ScannerSettings, pool: asyncpg.Pool
) -> None:
    now = datetime.now(UTC)
    round_id = "T1-000001"
    opened = RoundOpened(
        round_id=round_id,
        table_id="T1",
        number=1,
        opened_at=now,
        betting_closes_at=now + timedelta(seconds=1),
        limits=LIMITS,
        paytable=pay_table_to_mapping(PUBLISHED_PAY_TABLE),
    )
    async with gateway(scanner_settings) as client:
        credential = await enrol(client, "scanner-3", "T1")
        for version, event in enumerate(
            (opened, BettingClosed(round_id=round_id, table_id="T1", closed_at=now)), start=1
        ):
            await publish(
                scanner_settings, TABLE_EVENTS, event, table_id="T1", stream_version=version
            )
        new, spare = ScannerSecret(), ScannerSecret()
        rotation = await client.post(
            "/devices/scanner-3/rotate",
            json={"credential_hash": new.credential_hash},
            headers=SUPERVISOR,
        )
        replacement = await client.post(
            "/devices",
            json={
                "device_id": "scanner-4",
                "table_id": "T1",
                "credential_hash": spare.credential_hash,
            },
            headers=SUPERVISOR,
        )
        assert (rotation.status_code, replacement.status_code) == (202, 202)

        async def approve(change: httpx.Response, secret: ScannerSecret) -> httpx.Response:
            return await client.post(
                f"/devices/changes/{change.json()['change_id']}/approve",
                json={"fingerprint": secret.fingerprint},
                headers=SUPERVISOR_2,
            )

        async with asyncio.timeout(60):  # until the gateway has heard betting close
            while not await pool.fetchval(
                "SELECT betting_closed FROM table_rounds WHERE table_id = 'T1'"
            ):
                await asyncio.sleep(0.1)
        refused = await approve(rotation, new)
        assert refused.status_code == 409, refused.text
        assert (refused.json()["code"], refused.json()["round_id"]) == ("round_dealing", round_id)
        other = await approve(replacement, spare)
        assert (other.status_code, other.json()["code"]) == (409, "round_dealing")
        # the round is dealt with the credential it started with
        read = await client.post(
            "/scans", json=read_body("ZZ", "T1"), headers=scanning("scanner-3", credential)
        )
        assert read.json()["status"] == "rescan"

        cards = ["AS", "KS", "QS", "JS", "10S", "9S"]
        closed = RoundClosed.of(round_id, "T1", cards)
        await publish(scanner_settings, TABLE_EVENTS, closed, table_id="T1", stream_version=3)
        async with asyncio.timeout(60):  # once the gateway has heard the result
            while (approved := await approve(rotation, new)).status_code != 200:
                assert approved.json()["code"] == "round_dealing", approved.text
                await asyncio.sleep(0.1)
        stale = await client.post(
            "/scans", json=read_body("ZZ", "T1"), headers=scanning("scanner-3", credential)
        )
        assert (stale.status_code, stale.json()["code"]) == (401, "bad_credential")
