"""Hostile insiders at the card scanner (issue 23; decision 0055), on the real stack: a
forged `CardScanned` written straight to `scanner.events` from an unregistered device or
from another table's device, a replayed or reordered read, a read delayed from an earlier
round, a rotated or revoked credential used again. Each is refused and recorded, and each
case ends with exactly the genuine cards dealt: read from the table's stream once the last
genuine card, which travels behind the hostile ones on the table's partition, is dealt."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any
from uuid import UUID, uuid4

import pytest

from teenpatti.events.catalog import SCANNER_EVENTS, CardScanned
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.simulator import ScannerSecret, enrol_device
from tests.integration.services import publish

from .scanning import SUPERVISOR, Scanning, dealing, device_heard, table_and_gateway

pytestmark = pytest.mark.integration


@pytest.fixture
async def scanning(settings: InfrastructureSettings) -> AsyncIterator[Scanning]:
    async with table_and_gateway(settings) as running:
        yield running


def table() -> str:
    return f"H{uuid4().hex[:8]}"


async def forge(
    settings: InfrastructureSettings,
    *,
    table_id: str,
    device_id: str,
    round_id: str | None,
    sequence: int,
    card: str,
) -> UUID:
    """A `CardScanned` written straight to scanner.events, not through the gateway."""
    scan_id = uuid4()
    await publish(
        settings,
        SCANNER_EVENTS,
        CardScanned(
            scan_id=scan_id,
            device_id=device_id,
            table_id=table_id,
            round_id=round_id,
            sequence=sequence,
            card=card,
            raw=card,
            scanned_at=datetime.now(UTC),
        ),
        table_id=table_id,
        stream_id=f"forged-{scan_id}",
        producer="scanner-gateway",
    )
    return scan_id


async def deal_one(scanning: Scanning, table_id: str, card: str, **scan: Any) -> dict[str, Any]:
    """A genuine read through the gateway, once the table has dealt it."""
    response = await scanning.studio.scan(table_id, card, **scan)
    assert response.status_code in (200, 202), response.text
    answer: dict[str, Any] = response.json()
    dealt = await scanning.studio.wait_for(table_id, "CardDealt", scan_id=answer["scan_id"])
    assert dealt["card"] == card
    return answer


async def dealt_cards(scanning: Scanning, table_id: str, round_id: str) -> list[str]:
    events = await scanning.table_events(table_id)
    return [
        e["payload"]["card"]
        for e in events
        if e["event_type"] == "CardDealt" and e["payload"]["round_id"] == round_id
    ]


async def refusals(scanning: Scanning, table_id: str) -> dict[str, dict[str, Any]]:
    """The table's refusals by scan id, as every client reads them."""
    events = await scanning.table_events(table_id)
    return {
        e["payload"]["scan_id"]: e["payload"] for e in events if e["event_type"] == "CardRefused"
    }


async def test_a_forged_scan_from_an_unregistered_or_another_tables_device_is_not_dealt(
    scanning: Scanning,
) -> None:
    here, there = table(), table()
    await scanning.studio.open_table(here)
    await scanning.studio.open_table(there)
    round_id = await dealing(scanning, here)
    other_device, _ = scanning.studio.devices[there]
    await device_heard(scanning, other_device, table_id=there, active=True)

    ghost = await forge(
        scanning.settings,
        table_id=here,
        device_id="ghost",
        round_id=round_id,
        sequence=1,
        card="AS",
    )
    foreign = await forge(
        scanning.settings,
        table_id=here,
        device_id=other_device,
        round_id=round_id,
        sequence=10**15,
        card="KS",
    )
    await deal_one(scanning, here, "2H")  # behind the forged ones on the table's partition

    assert await dealt_cards(scanning, here, round_id) == ["2H"]
    refused = await refusals(scanning, here)
    assert (refused[str(ghost)]["reason"], refused[str(ghost)]["card"]) == (
        "unregistered_device",
        None,
    )
    assert (refused[str(foreign)]["reason"], refused[str(foreign)]["card"]) == (
        "foreign_device",
        None,
    )
    assert round_id in {refused[str(ghost)]["round_id"], refused[str(foreign)]["round_id"]}


async def test_a_replayed_or_reordered_read_is_refused_and_recorded(scanning: Scanning) -> None:
    table_id = table()
    await scanning.studio.open_table(table_id)
    round_id = await dealing(scanning, table_id)
    device_id, _ = scanning.studio.devices[table_id]

    first = await deal_one(scanning, table_id, "AS", sequence=100)
    replayed = await scanning.studio.scan(table_id, "KS", sequence=100)
    reordered = await scanning.studio.scan(table_id, "QS", sequence=99)
    for response in (replayed, reordered):
        assert (response.status_code, response.json()["code"]) == (409, "stale_sequence")
    # a copy of the first read's CardScanned, sent to the table behind the gateway's back
    copied = await forge(
        scanning.settings,
        table_id=table_id,
        device_id=device_id,
        round_id=round_id,
        sequence=100,
        card="JS",
    )
    await deal_one(scanning, table_id, "2S", sequence=101)

    assert await dealt_cards(scanning, table_id, round_id) == ["AS", "2S"]
    refused = await refusals(scanning, table_id)
    assert (refused[str(copied)]["reason"], refused[str(copied)]["card"]) == (
        "stale_sequence",
        None,
    )
    reads = await scanning.gateway_events(f"scans-{device_id}")
    assert [(t, p.get("reason"), p["sequence"]) for t, p in reads] == [
        ("CardScanned", None, 100),
        ("ScanRejected", "stale_sequence", 100),
        ("ScanRejected", "stale_sequence", 99),
        ("CardScanned", None, 101),
    ]
    assert reads[0][1]["scan_id"] == first["scan_id"]
    assert reads[0][1]["round_id"] == round_id  # the gateway stamps the round in play


async def test_a_scan_delayed_from_an_earlier_round_is_not_dealt_into_the_round_in_play(
    scanning: Scanning,
) -> None:
    table_id = table()
    await scanning.studio.open_table(table_id, betting_seconds=1.0, result_pause_seconds=0.2)
    earlier = await dealing(scanning, table_id)
    await scanning.studio.deal(table_id, ["AS", "KS", "QS", "JS", "10S", "9S"])
    closed = await scanning.studio.wait_for(table_id, "RoundClosed", round_id=earlier)
    in_play = await dealing(scanning, table_id, after=closed["_position"])
    assert in_play != earlier
    device_id, _ = scanning.studio.devices[table_id]

    # a read the gateway stamped with the earlier round, held up in a backlog until now
    delayed = await forge(
        scanning.settings,
        table_id=table_id,
        device_id=device_id,
        round_id=earlier,
        sequence=10**15,
        card="8S",
    )
    await deal_one(scanning, table_id, "2D", sequence=10**15 + 1)

    assert await dealt_cards(scanning, table_id, in_play) == ["2D"]
    assert await dealt_cards(scanning, table_id, earlier) == ["AS", "KS", "QS", "JS", "10S", "9S"]
    refused = (await refusals(scanning, table_id))[str(delayed)]
    assert (refused["reason"], refused["card"], refused["round_id"]) == (
        "wrong_round",
        None,
        in_play,
    )


async def test_a_rotated_or_revoked_credential_used_again_is_refused(
    scanning: Scanning,
) -> None:
    table_id = table()
    await scanning.studio.open_table(table_id, betting_seconds=3.0)
    device_id, old = scanning.studio.devices[table_id]
    http, gateway = scanning.studio.http, f"http://{scanning.gateway_address}"

    # a new credential the device made, approved by two supervisors while bets are taken
    new = ScannerSecret()
    rotated = await enrol_device(scanning.studio.gateway_post, device_id, None, new)
    assert rotated.status_code == 200, rotated.text
    round_id = await dealing(scanning, table_id)
    stale = await scanning.studio.scan(table_id, "AH", device=(device_id, old))
    assert (stale.status_code, stale.json()["code"]) == (401, "bad_credential")
    await deal_one(scanning, table_id, "KH", device=(device_id, new.credential))

    revoked = await http.post(
        f"{gateway}/devices/{device_id}/revoke", json={"reason": "lost"}, headers=SUPERVISOR
    )
    assert revoked.status_code == 200, revoked.text
    for credential in (old, new.credential):
        refused = await scanning.studio.scan(table_id, "QH", device=(device_id, credential))
        assert refused.status_code == 401, refused.text
        assert refused.json()["code"] in ("bad_credential", "revoked_device")
    # the table has heard the revocation: the device's card is refused even off the gateway
    await device_heard(scanning, device_id, table_id=table_id, active=False)
    behind_its_back = await forge(
        scanning.settings,
        table_id=table_id,
        device_id=device_id,
        round_id=round_id,
        sequence=10**15,
        card="JH",
    )
    refused = await scanning.studio.wait_for(table_id, "CardRefused", scan_id=str(behind_its_back))
    assert (refused["reason"], refused["card"]) == ("unregistered_device", None)
    assert await dealt_cards(scanning, table_id, round_id) == ["KH"]

    registrations = await scanning.gateway_events(f"device-{device_id}")
    assert [t for t, _ in registrations] == [
        "DeviceChangeProposed",
        "DeviceRegistered",
        "DeviceChangeProposed",
        "DeviceCredentialRotated",
        "DeviceRevoked",
    ]
