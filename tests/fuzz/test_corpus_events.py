"""Hostile records on every service's input topics: not JSON, not an envelope, unknown event
types, unsupported schema versions, payloads that do not validate or that Postgres cannot
store. Each consumer parks what it cannot read (`parked_events`), applies none of it, and
goes on to handle the next good event on the same partition."""

from __future__ import annotations

import contextlib
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import asyncpg
import httpx
import pytest
from fastapi import FastAPI

from scanner_gateway.config import ScannerSettings
from settlement_service.config import SettlementSettings
from table_service.config import TableSettings
from table_service.domain.decisions import round_closed
from teenpatti.engine import PUBLISHED_PAY_TABLE, pay_table_to_mapping
from teenpatti.events.catalog import (
    SCANNER_EVENTS,
    SETTLEMENT_EVENTS,
    TABLE_EVENTS,
    WALLET_EVENTS,
    BetSettled,
    BetsPlaced,
    BetsSettled,
    CardDealt,
    CardScanned,
    RoundOpened,
    SlipBet,
)
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.simulator import ScannerSecret, enrol_device, gateway_post
from tests.integration.services import publish
from tests.integration.table.helpers import open_table_as
from tests.integration.wallet.helpers import LIMITS, OPERATOR_1, deposit, open_round, place
from wallet_service.config import WalletSettings

from .hostile import connect, eventually, garbage_records, publish_raw, stored_events
from .report import record

pytestmark = pytest.mark.integration

App = tuple[FastAPI, httpx.AsyncClient]
SUPERVISOR = {"X-Api-Key": "dev-supervisor-key"}

# what a consumer may skip rather than park: it does not read the payload of these at all
# (none now: the kernel decodes every event it hands a subscription, the table's feed too)
NOT_READ: dict[str, set[str]] = {}
TRIED: Counter[str] = Counter()


def round_opened(round_id: str = "T1-000001") -> RoundOpened:
    now = datetime.now(UTC)
    return RoundOpened(
        round_id=round_id,
        table_id="T1",
        number=1,
        opened_at=now,
        betting_closes_at=now + timedelta(seconds=120),
        limits=LIMITS,
        paytable=pay_table_to_mapping(PUBLISHED_PAY_TABLE),
    )


def payload(event: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = event.model_dump(mode="json")
    return dumped


async def send_garbage(
    settings: InfrastructureSettings, topic: str, consumed_type: str, valid: dict[str, Any]
) -> dict[bytes, str]:
    """Publish every hostile record to `topic`; which kind each record value is."""
    records = garbage_records(consumed_type, valid)
    await publish_raw(settings, topic, list(records.values()))
    for kind in records:
        TRIED[f"{topic}: {kind}"] += 1
    return {value: kind for kind, value in records.items()}


async def check_parked(
    connection: asyncpg.Connection,
    settings: InfrastructureSettings,
    consumer: str,
    topic: str,
    sent: dict[bytes, str],
) -> None:
    """`consumer` parked every record of `sent` it reads, and nothing else from `topic`.
    Waits (up to WAIT) for as many parked records as expected: a good event read after the
    garbage may have reached the service another way (an HTTP command also stores the live
    state), so it does not prove the consumer is past the garbage."""
    expected = Counter(kind for kind in sent.values() if kind not in NOT_READ.get(consumer, set()))
    query = "SELECT record_value, error FROM parked_events WHERE consumer = $1 AND topic = $2"
    rows: list[asyncpg.Record] = []

    async def all_parked() -> bool:
        nonlocal rows
        rows = await connection.fetch(query, settings.topic(consumer), settings.topic(topic))
        return len(rows) >= expected.total()

    with contextlib.suppress(AssertionError):  # the assertion below says what is missing
        await eventually(all_parked, what=f"{consumer} to park the garbage")
    parked = Counter(sent.get(bytes(row["record_value"] or b""), "(a good event!)") for row in rows)
    assert parked == expected, (
        f"{consumer} on {topic}: parked {dict(parked)}, expected {dict(expected)};"
        f" errors: {[row['error'][:120] for row in rows]}"
    )


async def test_wallet_parks_garbage(wallet_settings: WalletSettings, wallet_app: App) -> None:
    _, client = wallet_app
    await open_round(wallet_settings, client, "T1-000001")
    await deposit(client, "p1", 5000)
    slip = await place(client, "p1", "T1-000001", [("player_a", 1000)])
    assert slip.status_code == 201, slip.text
    bet = slip.json()["bets"][0]
    connection = await connect(wallet_settings, wallet_settings.wallet_database)
    try:
        before = await stored_events(connection)
        on_table = await send_garbage(
            wallet_settings, TABLE_EVENTS, "RoundOpened", payload(round_opened("T1-000009"))
        )
        settled = BetSettled(
            bet_id=UUID(bet["bet_id"]),
            operator_id="operator-1",
            player_id="p1",
            bet_type="player_a",
            stake=1000,
            currency="INR",
            outcome="won",
            returned=1950,
            fraction_kept="0",
            odds="19/20",
        )
        (part,) = BetsSettled.parts("T1-000001", "T1", [settled])  # what settlement emits
        on_settlement = await send_garbage(
            wallet_settings, SETTLEMENT_EVENTS, "BetsSettled", payload(part)
        )
        # the good events after the garbage, on the same partition (key T1): the round's
        # result (Player A wins, so the wallet computes the part's 1,950 itself), then the part
        await publish(wallet_settings, TABLE_EVENTS, round_opened("T1-000002"), table_id="T1")
        a_wins = round_closed("T1", "T1-000001", ["AS", "2D", "KS", "3C", "QS", "5H"])
        await publish(wallet_settings, TABLE_EVENTS, a_wins, table_id="T1")
        await publish(wallet_settings, SETTLEMENT_EVENTS, part, table_id="T1")

        async def paid() -> bool:
            balances = await client.get("/players/p1/balances", headers=OPERATOR_1)
            return bool(balances.json().get("INR") == 4000 + 1950)

        async def opened() -> bool:
            book = await client.get("/rounds/T1-000002/book", headers=OPERATOR_1)
            return book.status_code == 200

        await eventually(paid, what="the good BetsSettled to be paid")
        await eventually(opened, what="the good RoundOpened to be taken in")
        await check_parked(connection, wallet_settings, "wallet-table", TABLE_EVENTS, on_table)
        await check_parked(
            connection, wallet_settings, "wallet-settlement", SETTLEMENT_EVENTS, on_settlement
        )
        after = await stored_events(connection)
        # the round's result sealed its book, and the part paid the bet: nothing else
        assert after == {
            **before,
            "BetBookClosed": before.get("BetBookClosed", 0) + 1,
            "BetsPaid": before.get("BetsPaid", 0) + 1,
        }, (before, after)
        unknown = await client.get("/rounds/T1-000009/book", headers=OPERATOR_1)
        assert unknown.status_code == 404, "a hostile RoundOpened was applied"
    finally:
        await connection.close()


async def test_settlement_parks_garbage(
    settlement_settings: SettlementSettings, settlement_app: App
) -> None:
    _, client = settlement_app
    bet_id = uuid4()
    slip = BetsPlaced(  # what the wallet emits
        slip_id=uuid4(),
        round_id="T1-000001",
        table_id="T1",
        operator_id="operator-1",
        player_id="p1",
        currency="INR",
        placed_at=datetime.now(UTC),
        bets=[SlipBet(bet_id=bet_id, bet_type="tie", stake=500)],
    )
    connection = await connect(settlement_settings, settlement_settings.settlement_database)
    try:
        on_table = await send_garbage(
            settlement_settings, TABLE_EVENTS, "RoundOpened", payload(round_opened("T1-000009"))
        )
        hostile_slip = payload(slip) | {
            "round_id": "T1-000009",
            "bets": [{"bet_id": str(uuid4()), "bet_type": "tie", "stake": 500}],
        }
        on_wallet = await send_garbage(
            settlement_settings, WALLET_EVENTS, "BetsPlaced", hostile_slip
        )
        await publish(settlement_settings, TABLE_EVENTS, round_opened(), table_id="T1")
        await publish(settlement_settings, WALLET_EVENTS, slip, table_id="T1")

        async def known() -> bool:
            response = await client.get(f"/bets/{bet_id}/settlement", headers=OPERATOR_1)
            return response.status_code == 200

        await eventually(known, what="the good BetsPlaced to be taken in")
        await check_parked(
            connection, settlement_settings, "settlement-table", TABLE_EVENTS, on_table
        )
        await check_parked(
            connection, settlement_settings, "settlement-wallet", WALLET_EVENTS, on_wallet
        )
        assert await stored_events(connection) == {}, "settlement emitted something"
        hostile = await client.get("/rounds/T1-000009/settlement", headers=OPERATOR_1)
        assert hostile.status_code == 404, "a hostile event was applied"
        assert await connection.fetchval("SELECT count(*) FROM bets") == 1
    finally:
        await connection.close()


async def test_scanner_gateway_parks_garbage(
    scanner_settings: ScannerSettings, scanner_app: App
) -> None:
    _, client = scanner_app
    secret = ScannerSecret()
    registered = await enrol_device(gateway_post(client), "D1", "T1", secret)
    assert registered.status_code == 200, registered.text
    device = {"X-Device-Id": "D1", "Authorization": f"Bearer {secret.credential}"}
    read = {"read": "AS", "table_id": "T1", "sequence": 1}
    pending = await client.post("/scans", json=read, headers=device)
    assert pending.status_code == 202, pending.text  # no table in this test
    scan_id = UUID(pending.json()["scan_id"])
    dealt = CardDealt(
        round_id="T1-000001", table_id="T1", position="A1", card="AS", scan_id=scan_id
    )
    connection = await connect(scanner_settings, scanner_settings.scanner_database)
    try:
        before = await stored_events(connection)
        sent = await send_garbage(
            scanner_settings, TABLE_EVENTS, "CardDealt", payload(dealt) | {"scan_id": str(uuid4())}
        )
        await publish(scanner_settings, TABLE_EVENTS, dealt, table_id="T1")

        async def registered_now() -> bool:
            answer = await client.get(f"/scans/{scan_id}", headers=device)
            return bool(answer.status_code == 200 and answer.json()["status"] == "registered")

        await eventually(registered_now, what="the good CardDealt to reach the device")
        await check_parked(
            connection, scanner_settings, "scanner-gateway-table", TABLE_EVENTS, sent
        )
        assert await stored_events(connection) == before
    finally:
        await connection.close()


async def test_table_parks_garbage(table_settings: TableSettings, table_app: App) -> None:
    _, client = table_app
    body = {
        "table_id": "T1",
        "name": "Garbage",
        "betting_seconds": 600,
        "result_pause_seconds": 5,
        "limits": LIMITS,
    }
    await open_table_as(client, body)  # one supervisor proposes, another approves (0086)

    async def events() -> list[str]:
        response = await client.get("/tables/T1/events", headers=SUPERVISOR)
        return [e["event_type"] for e in response.json()["events"]]

    async def betting() -> bool:
        return "RoundOpened" in await events()

    await eventually(betting, what="the first round")
    scan = CardScanned(
        scan_id=uuid4(),
        device_id="D1",
        table_id="T1",
        round_id="T1-000001",
        sequence=1,
        card="AS",
        raw="AS",
        scanned_at=datetime.now(UTC),
    )
    connection = await connect(table_settings, table_settings.table_database)
    try:
        before = await stored_events(connection)
        on_scans = await send_garbage(table_settings, SCANNER_EVENTS, "CardScanned", payload(scan))
        on_table = await send_garbage(
            table_settings, TABLE_EVENTS, "RoundOpened", payload(round_opened("T1-000009"))
        )
        await publish(table_settings, SCANNER_EVENTS, scan, table_id="T1")

        async def refused() -> bool:
            return "CardRefused" in await events()  # D1 is no registered device: refused

        await eventually(refused, what="the good CardScanned to be judged")
        paused = await client.post("/tables/T1/pause", json={"reason": "x"}, headers=SUPERVISOR)
        assert paused.status_code == 200, paused.text

        async def mirrored() -> bool:  # table-table put the pause into Redis
            state = (await client.get("/tables/T1", headers=SUPERVISOR)).json()
            return bool(state["round"]["paused"])

        await eventually(mirrored, what="table-table to mirror the pause")
        await check_parked(connection, table_settings, "table-scanner", SCANNER_EVENTS, on_scans)
        await check_parked(connection, table_settings, "table-table", TABLE_EVENTS, on_table)
        after = await stored_events(connection)
        assert after == {
            **before,
            "CardRefused": before.get("CardRefused", 0) + 1,
            "RoundPaused": before.get("RoundPaused", 0) + 1,
        }, (before, after)
    finally:
        await connection.close()


def teardown_module() -> None:
    if TRIED:
        record("Kafka: hostile records published (each read by every consumer of the topic)", TRIED)
