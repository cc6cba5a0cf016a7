"""Hostile insiders against the money path, on the real stack (the wallet and the settlement
services in-process, real Kafka and Postgres). Whoever can write on `settlement.events` (a
forger) or sends the table's facts twice (a broken or subverted table) gets nothing paid that
should not be, and nothing is lost: every case ends with each stake paid or refunded exactly
once, or unpaid and shown to a person. A held round is released or voided by two different
supervisors from the API, never by a database edit.

Covered elsewhere, not repeated here: a forged line for a bet already paid and a part with one
forged line parked whole (tests/integration/wallet/test_payments.py); one bad settlement in a
batch of good ones, and settlements paying the engine's amounts, not twice the stake
(tests/integration/wallet/test_batch_payments.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from typing import Any
from uuid import uuid4

import asyncpg
import httpx
import pytest
from aiokafka import AIOKafkaProducer
from pydantic import SecretStr

from settlement_service.app import create_app as create_settlement
from settlement_service.config import SettlementSettings
from teenpatti.engine import PUBLISHED_PAY_TABLE, pay_table_to_mapping
from teenpatti.events import EventEnvelope, new_envelope
from teenpatti.events.catalog import (
    MAX_MINOR_UNITS,
    SETTLEMENT_EVENTS,
    TABLE_EVENTS,
    WALLET_EVENTS,
    BetsSettled,
    BettingClosed,
    RoundCancelled,
    RoundClosed,
    RoundOpened,
)
from teenpatti.settings import DEVELOPMENT_API_KEYS, InfrastructureSettings
from teenpatti_tools.databases import create_database, drop_database, service_roles
from tests.integration.services import (
    of_type,
    outbox_published,
    publish,
    read_to_end,
    running,
    topics_ready,
)
from tests.integration.wallet.helpers import (
    LIMITS,
    OPERATOR_1,
    balances,
    close_betting,
    close_round,
    database,
    deposit,
    engine_settles,
    eventually,
    open_round,
    place,
    send,
    wait_for_round,
    wallet,
)
from tests.integration.wallet.test_payments import CARDS, line
from wallet_service.config import WalletSettings

pytestmark = pytest.mark.integration

ROUND = "T1-000001"
SUPERVISOR_1 = {"X-Api-Key": "dev-supervisor-key"}
SUPERVISOR_2 = {"X-Api-Key": "test-supervisor-2-key"}
# two supervisors, so that one can ask and the other confirm
API_KEYS = SecretStr(f"{DEVELOPMENT_API_KEYS},supervisor-2:supervisor:test-supervisor-2-key")
OTHER_CARDS = ["KS", "2C", "KH", "3D", "4C", "9H"]  # Player A wins otherwise: another result


@pytest.fixture
def wallet_settings(settings: InfrastructureSettings, database_name: str) -> WalletSettings:
    # a forged part that waits for a round that never closes is parked after 2 s
    return WalletSettings(
        **{**settings.model_dump(), "api_keys": API_KEYS, "consumer_wait_seconds": 2.0},
        wallet_database=database_name,
    )


@pytest.fixture
async def settlement_database(infrastructure: InfrastructureSettings) -> AsyncIterator[str]:
    """A second fresh database, the settlement's, beside the wallet's (`database_name`)."""
    name = f"test_{uuid4().hex[:12]}"
    await create_database(infrastructure, name, users=service_roles(infrastructure))
    try:
        yield name
    finally:
        admin = await asyncpg.connect(infrastructure.postgres_dsn("postgres"))
        try:
            await drop_database(admin, name)
        finally:
            await admin.close()


@pytest.fixture
async def settlement_settings(
    settings: InfrastructureSettings, settlement_database: str
) -> SettlementSettings:
    await topics_ready(settings)
    return SettlementSettings(
        **{**settings.model_dump(), "api_keys": API_KEYS},
        settlement_database=settlement_database,
    )


async def bets_of(client: httpx.AsyncClient, placed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [(await client.get(f"/bets/{b['bet_id']}", headers=OPERATOR_1)).json() for b in placed]


async def parked(settings: WalletSettings) -> list[str]:
    """The errors of the wallet's parked events, oldest first."""
    async with database(settings) as connection:
        rows = await connection.fetch("SELECT error FROM parked_events ORDER BY parked_at")
    return [row[0] for row in rows]


async def ledger_matches_balances(settings: WalletSettings) -> None:
    """Every unit accounted for: each account's balance is the sum of its ledger entries,
    and the house's entries mirror the players' (each movement has two sides, or one for a
    transfer in or out)."""
    async with database(settings) as connection:
        mismatched = await connection.fetch(
            "SELECT a.player_id, a.currency, a.balance, coalesce(sum(l.amount), 0) AS ledger"
            " FROM wallet_accounts a LEFT JOIN wallet_ledger l ON l.account = 'player'"
            " AND l.operator_id = a.operator_id AND l.player_id = a.player_id"
            " AND l.currency = a.currency"
            " GROUP BY a.operator_id, a.player_id, a.currency, a.balance"
            " HAVING a.balance <> coalesce(sum(l.amount), 0)"
        )
        negative = await connection.fetchval(
            "SELECT count(*) FROM wallet_accounts WHERE balance < 0"
        )
        unbalanced = await connection.fetch(
            "SELECT reference, sum(amount) FROM wallet_ledger WHERE kind IN ('stake', 'return')"
            " GROUP BY reference HAVING sum(amount) <> 0"
        )
    assert mismatched == []
    assert negative == 0
    assert unbalanced == []


@contextlib.contextmanager
def consumer_log() -> Iterator[list[str]]:
    """What the consumers log, from INFO, while the block runs."""
    messages: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.append(record.getMessage())

    logger = logging.getLogger("teenpatti.eventsourcing.consumer")
    handler, level = Keep(logging.INFO), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield messages
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


# ------------------------------------------------------------------ forged settlements
async def test_a_forged_settlement_with_an_inflated_amount_pays_nothing_and_the_genuine_one_pays(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, ROUND)
        await deposit(client, "p1", 5_000)
        response = await place(client, "p1", ROUND, [("player_a", 1_000), ("tie", 200)])
        assert response.status_code == 201, response.text
        a, tie = await bets_of(client, response.json()["bets"])
        await close_betting(wallet_settings, ROUND)
        await wait_for_round(client, ROUND, "sealed")
        await close_round(wallet_settings, client, ROUND, CARDS)  # Player A wins

        # the bet as it is, the round closed: only the amount is forged, twice the stake
        # where the table pays 0.95:1
        forged = BetsSettled(
            round_id=ROUND,
            table_id="T1",
            bets=[line(a, "operator-1", "won", 2_000), line(tie, "operator-1", "lost", 0)],
        )
        await send(wallet_settings, SETTLEMENT_EVENTS, forged, table_id="T1")

        async def parked_once() -> bool:
            return len(await parked(wallet_settings)) == 1

        await eventually(parked_once, what="the forged settlement to be parked", timeout=60)
        assert await balances(client, "p1") == {"INR": 5_000 - 1_200}
        assert {b["status"] for b in await bets_of(client, [a, tie])} == {"placed"}

        # a supervisor sees why; an operator may not look
        assert (await client.get("/problems", headers=OPERATOR_1)).status_code == 403
        shown = await client.get("/problems", headers=SUPERVISOR_1)
        assert shown.status_code == 200, shown.text
        assert shown.json()["service"] == "wallet"
        (problem,) = shown.json()["items"]
        assert problem["kind"] == "parked_event"
        assert problem["facts"]["event_type"] == "BetsSettled"
        assert problem["facts"]["topic"] == wallet_settings.topic(SETTLEMENT_EVENTS)
        assert problem["detail"].startswith("PayoutMismatchError: ")
        assert f"bet {a['bet_id']}" in problem["detail"]
        assert (
            "says won returning 2000, the wallet computes won returning 1950" in (problem["detail"])
        )

        genuine = BetsSettled(
            round_id=ROUND,
            table_id="T1",
            bets=[line(a, "operator-1", "won", 1_950), line(tie, "operator-1", "lost", 0)],
        )
        await send(wallet_settings, SETTLEMENT_EVENTS, genuine, table_id="T1")

        async def paid() -> bool:
            return {b["status"] for b in await bets_of(client, [a, tie])} == {"paid"}

        await eventually(paid, what="the genuine settlement to be paid")
        assert await balances(client, "p1") == {"INR": 5_000 - 1_200 + 1_950}
        assert [(b["outcome"], b["returned"]) for b in await bets_of(client, [a, tie])] == [
            ("won", 1_950),
            ("lost", 0),
        ]
        assert len((await client.get("/problems", headers=SUPERVISOR_1)).json()["items"]) == 1
        async with database(wallet_settings) as connection:
            await eventually(lambda: outbox_published(connection), what="a quiet outbox")
    # exactly once: one payment of each bet on the wallet's topic, read to its end
    payments = [
        paid
        for event in of_type(await read_to_end(wallet_settings, WALLET_EVENTS), "BetsPaid")
        for paid in event.bets  # type: ignore[attr-defined]
    ]
    assert sorted((str(p.bet_id), p.amount) for p in payments) == sorted(
        [(a["bet_id"], 1_950), (tie["bet_id"], 0)]
    )
    await ledger_matches_balances(wallet_settings)


async def test_a_forged_loss_with_a_return_pays_nothing(wallet_settings: WalletSettings) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, ROUND)
        await deposit(client, "p1", 5_000)
        response = await place(client, "p1", ROUND, [("player_b", 1_000)])
        assert response.status_code == 201, response.text
        (b,) = await bets_of(client, response.json()["bets"])
        await close_betting(wallet_settings, ROUND)
        await close_round(wallet_settings, client, ROUND, CARDS)  # Player B loses

        forged = BetsSettled(
            round_id=ROUND, table_id="T1", bets=[line(b, "operator-1", "lost", 900)]
        )
        await send(wallet_settings, SETTLEMENT_EVENTS, forged, table_id="T1")

        async def parked_once() -> bool:
            return len(await parked(wallet_settings)) == 1

        await eventually(parked_once, what="the forged loss to be parked", timeout=60)
        (error,) = await parked(wallet_settings)
        assert "says lost returning 900, the wallet computes lost returning 0" in error
        assert await balances(client, "p1") == {"INR": 4_000}
        assert (await bets_of(client, [b]))[0]["status"] == "placed"
    await ledger_matches_balances(wallet_settings)


async def test_a_forged_settlement_for_an_open_round_waits_then_is_parked_and_pays_nothing(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, ROUND)
        await deposit(client, "p1", 5_000)
        response = await place(client, "p1", ROUND, [("player_a", 1_000)])
        assert response.status_code == 201, response.text
        (a,) = await bets_of(client, response.json()["bets"])

        # betting is still open: there is no result to settle by
        forged = BetsSettled(
            round_id=ROUND, table_id="T1", bets=[line(a, "operator-1", "won", 1_950)]
        )
        await send(wallet_settings, SETTLEMENT_EVENTS, forged, table_id="T1")

        async def parked_once() -> bool:
            return len(await parked(wallet_settings)) == 1

        await eventually(parked_once, what="the early forgery to be parked", timeout=60)
        (error,) = await parked(wallet_settings)
        assert error.startswith("NotYetError after 2 s: ")
        assert "whose result or cancellation the wallet does not hold" in error
        assert await balances(client, "p1") == {"INR": 4_000}
        assert (await bets_of(client, [a]))[0]["status"] == "placed"
        # the round goes on, and its bet is still open to its genuine settlement
        await close_betting(wallet_settings, ROUND)
        await close_round(wallet_settings, client, ROUND, CARDS)
        genuine = BetsSettled(
            round_id=ROUND, table_id="T1", bets=[line(a, "operator-1", "won", 1_950)]
        )
        await send(wallet_settings, SETTLEMENT_EVENTS, genuine, table_id="T1")

        async def paid() -> bool:
            return bool((await bets_of(client, [a]))[0]["status"] == "paid")

        await eventually(paid, what="the genuine settlement to be paid")
        assert await balances(client, "p1") == {"INR": 4_000 + 1_950}
    await ledger_matches_balances(wallet_settings)


async def test_a_settlement_before_the_wallet_holds_the_result_waits_for_it(
    settings: InfrastructureSettings, database_name: str
) -> None:
    # the default wait (longer than the result takes to come)
    wallet_settings = WalletSettings(**settings.model_dump(), wallet_database=database_name)
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, ROUND)
        await deposit(client, "p1", 5_000)
        response = await place(client, "p1", ROUND, [("player_a", 1_000)])
        assert response.status_code == 201, response.text
        (a,) = await bets_of(client, response.json()["bets"])
        await close_betting(wallet_settings, ROUND)
        await wait_for_round(client, ROUND, "sealed")

        # settlement got the result first (table.events is another topic, another consumer)
        early = BetsSettled(
            round_id=ROUND, table_id="T1", bets=[line(a, "operator-1", "won", 1_950)]
        )
        with consumer_log() as logged:
            await send(wallet_settings, SETTLEMENT_EVENTS, early, table_id="T1")

            async def waiting() -> bool:
                return any("not yet" in m and a["bet_id"] in m for m in logged)

            # the consumer has met it and waits: neither paid nor parked
            await eventually(waiting, what="the consumer to wait for the result")
        assert (await bets_of(client, [a]))[0]["status"] == "placed"
        assert await parked(wallet_settings) == []

        await close_round(wallet_settings, client, ROUND, CARDS)

        async def paid() -> bool:
            return bool((await bets_of(client, [a]))[0]["status"] == "paid")

        await eventually(paid, what="the early settlement to be paid once the result is in")
        assert await balances(client, "p1") == {"INR": 5_000 - 1_000 + 1_950}
        assert await parked(wallet_settings) == []


async def test_a_settlement_for_a_bet_the_wallet_never_took_pays_nothing(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, ROUND)
        await deposit(client, "p1", 1_000)
        await close_betting(wallet_settings, ROUND)
        await close_round(wallet_settings, client, ROUND, CARDS)
        invented = {
            "bet_id": str(uuid4()),
            "player_id": "p1",
            "bet_type": "player_a",
            "stake": 1_000,
            "currency": "INR",
        }
        forged = BetsSettled(
            round_id=ROUND, table_id="T1", bets=[line(invented, "operator-1", "won", 1_950)]
        )
        await send(wallet_settings, SETTLEMENT_EVENTS, forged, table_id="T1")

        async def parked_once() -> bool:
            return len(await parked(wallet_settings)) == 1

        await eventually(parked_once, what="the invented bet's settlement to be parked")
        (error,) = await parked(wallet_settings)
        assert error.startswith("UnknownBetError: ")
        assert "which the wallet never took" in error
        assert await balances(client, "p1") == {"INR": 1_000}
    await ledger_matches_balances(wallet_settings)


async def test_an_amount_beyond_any_plausible_bound_is_parked_unread(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, ROUND)
        await deposit(client, "p1", 1_000)
        response = await place(client, "p1", ROUND, [("tie", 1_000)])
        (tie,) = await bets_of(client, response.json()["bets"])
        await close_betting(wallet_settings, ROUND)
        await close_round(wallet_settings, client, ROUND, CARDS)
        # the catalog refuses it (MinorUnits), so it is forged as JSON
        envelope = EventEnvelope.model_validate(
            {
                **new_envelope(
                    BetsSettled(
                        round_id=ROUND, table_id="T1", bets=[line(tie, "operator-1", "lost", 0)]
                    ),
                    stream_id=f"settlement-{ROUND}",
                    stream_version=1,
                    table_id="T1",
                    producer="forger",
                ).model_dump(),
                "payload": {
                    "round_id": ROUND,
                    "table_id": "T1",
                    "bets": [
                        {
                            **line(tie, "operator-1", "won", 0).model_dump(mode="json"),
                            "returned": MAX_MINOR_UNITS + 1,
                        }
                    ],
                },
            }
        )
        await _publish_raw(wallet_settings, SETTLEMENT_EVENTS, envelope)

        async def parked_once() -> bool:
            return len(await parked(wallet_settings)) == 1

        await eventually(parked_once, what="the oversized amount to be parked")
        (error,) = await parked(wallet_settings)
        assert f"less than or equal to {MAX_MINOR_UNITS}" in error
        assert await balances(client, "p1") == {"INR": 0}
        assert (await bets_of(client, [tie]))[0]["status"] == "placed"


async def _publish_raw(
    settings: InfrastructureSettings, topic: str, envelope: EventEnvelope
) -> None:
    kafka = AIOKafkaProducer(**settings.kafka_options(), acks="all")
    await kafka.start()
    try:
        await kafka.send_and_wait(
            settings.topic(topic), envelope.to_json_bytes(), key=envelope.table_id.encode()
        )
    finally:
        await kafka.stop()


# ------------------------------------------------------------------- stakes and funds
async def test_withdrawals_racing_a_slip_never_overdraw_and_every_unit_is_accounted_for(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, ROUND)
        for attempt in range(5):
            player = f"racer-{attempt}"
            await deposit(client, player, 1_000)

            async def withdraw(n: int, player: str = player) -> httpx.Response:
                return await client.post(
                    f"/players/{player}/withdrawals",
                    json={"transfer_id": f"w-{uuid4()}", "currency": "INR", "amount": 600},
                    headers=OPERATOR_1,
                )

            answers = await asyncio.gather(
                withdraw(1), place(client, player, ROUND, [("player_a", 600)]), withdraw(2)
            )
            taken = [r for r in answers if r.status_code in (200, 201)]
            refused = [r for r in answers if r.status_code not in (200, 201)]
            # each asks 600 of 1,000: exactly one is taken, the others refused for funds
            assert len(taken) == 1, [r.text for r in answers]
            assert {r.json()["code"] for r in refused} == {"insufficient_funds"}
            assert await balances(client, player) == {"INR": 400}
        async with database(wallet_settings) as connection:
            await eventually(lambda: outbox_published(connection), what="a quiet outbox")
    await ledger_matches_balances(wallet_settings)
    # every movement is on the topic once: 5 deposits, and 5 withdrawals or slips in all
    published = await read_to_end(wallet_settings, WALLET_EVENTS)
    kinds = [e.event_type for e in published]
    assert kinds.count("FundsDeposited") == 5
    assert kinds.count("FundsWithdrawn") + kinds.count("BetsPlaced") == 5
    assert len({e.event_id for e in published}) == len(published)


async def test_stakes_of_several_slips_stay_within_the_table_maximum(
    wallet_settings: WalletSettings,
) -> None:
    maximum = LIMITS["INR"]["player_a"]["max"]  # 10,000
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, ROUND)
        await deposit(client, "p1", 50_000)
        await deposit(client, "p2", 50_000)

        assert (await place(client, "p1", ROUND, [("player_a", 6_000)])).status_code == 201
        slip = [("tie", 100), ("player_a", 5_000)]
        refused = await place(client, "p1", ROUND, slip, key="exposure-1")
        assert refused.status_code == 422, refused.text
        # the refusal is stored under its key: a retry gets it again, limit and all
        again = await place(client, "p1", ROUND, slip, key="exposure-1")
        assert (again.status_code, again.json()) == (422, refused.json())
        problem = refused.json()
        assert problem["code"] == "exposure_limit"
        assert (problem["limit"], problem["staked"], problem["left"]) == (maximum, 6_000, 4_000)
        assert (problem["bet_type"], problem["currency"]) == ("player_a", "INR")
        assert "4000 left" in problem["detail"]
        assert (await place(client, "p1", ROUND, [("player_a", 4_000)])).status_code == 201
        full = await place(client, "p1", ROUND, [("player_a", 100)])
        assert (full.json()["code"], full.json()["left"]) == ("exposure_limit", 0)
        # another bet type, another player: their own limits
        assert (await place(client, "p1", ROUND, [("player_b", 10_000)])).status_code == 201
        assert (await place(client, "p2", ROUND, [("player_a", 10_000)])).status_code == 201

        # two slips of one player at once, each within the limit alone: one passes
        await deposit(client, "p3", 50_000)
        answers = await asyncio.gather(
            *(place(client, "p3", ROUND, [("tie", 6_000)]) for _ in range(3))
        )
        assert sorted(r.status_code for r in answers) == [201, 422, 422], [r.text for r in answers]

        book = (await client.get(f"/rounds/{ROUND}/book", headers=OPERATOR_1)).json()
        staked: dict[tuple[str, str], int] = {}
        for bet in book["bets"]:
            key = (bet["player_id"], bet["bet_type"])
            staked[key] = staked.get(key, 0) + bet["stake"]
        assert staked == {
            ("p1", "player_a"): 10_000,
            ("p1", "player_b"): 10_000,
            ("p2", "player_a"): 10_000,
            ("p3", "tie"): 6_000,
        }
        assert await balances(client, "p1") == {"INR": 30_000}
        assert await balances(client, "p3") == {"INR": 44_000}
    await ledger_matches_balances(wallet_settings)


# ------------------------------------------------- held rounds, resolved by two people
@contextlib.asynccontextmanager
async def settlement(settings: SettlementSettings) -> AsyncIterator[httpx.AsyncClient]:
    async with running(create_settlement(settings)) as client:
        yield client


async def settlement_problems(settings: SettlementSettings, round_id: str) -> list[str]:
    connection = await asyncpg.connect(settings.postgres_dsn(settings.settlement_database))
    try:
        rows = await connection.fetch(
            "SELECT kind FROM settlement_problems WHERE round_id = $1 AND resolved_at IS NULL"
            " ORDER BY kind",
            round_id,
        )
    finally:
        await connection.close()
    return [row[0] for row in rows]


async def settlement_bets(settings: SettlementSettings, round_id: str) -> int:
    connection = await asyncpg.connect(settings.postgres_dsn(settings.settlement_database))
    try:
        return int(
            await connection.fetchval("SELECT count(*) FROM bets WHERE round_id = $1", round_id)
        )
    finally:
        await connection.close()


async def book_sealed(settings: SettlementSettings, *, and_result: bool = False) -> bool:
    """Whether settlement holds the round's sealed book (and its result)."""
    connection = await asyncpg.connect(settings.postgres_dsn(settings.settlement_database))
    try:
        return bool(
            await connection.fetchval(
                "SELECT book_closed AND (result IS NOT NULL OR NOT $2) FROM rounds"
                " WHERE round_id = $1",
                ROUND,
                and_result,
            )
        )
    finally:
        await connection.close()


async def held_by(settings: SettlementSettings, round_id: str, kind: str) -> None:
    async def held() -> bool:
        return kind in await settlement_problems(settings, round_id)

    await eventually(held, what=f"round {round_id} to be held by {kind}", timeout=60)


async def place_the_bets(
    wallet_settings: WalletSettings,
    settlement_settings: SettlementSettings,
    client: httpx.AsyncClient,
) -> list[dict[str, Any]]:
    """p1 and p2 bet on round 1 (open), and settlement holds every bet."""
    await deposit(client, "p1", 5_000)
    await deposit(client, "p2", 5_000)
    bets: list[dict[str, Any]] = []
    for player, slip in (
        ("p1", [("player_a", 1_000), ("tie", 200)]),
        ("p2", [("player_b", 500), ("pair_plus_a", 300)]),
    ):
        response = await place(client, player, ROUND, slip)
        assert response.status_code == 201, response.text
        bets += await bets_of(client, response.json()["bets"])

    async def recorded() -> bool:
        return await settlement_bets(settlement_settings, ROUND) == len(bets)

    await eventually(recorded, what="settlement to record every bet")
    return bets


async def resolve(client: httpx.AsyncClient, action: str, reason: str) -> dict[str, Any]:
    """One supervisor asks, the same one may not confirm, a second one does."""
    asked = await client.post(
        f"/rounds/{ROUND}/settlement/resolutions",
        json={"action": action, "reason": reason},
        headers=SUPERVISOR_1,
    )
    assert asked.status_code == 201, asked.text
    resolution = asked.json()
    assert (resolution["status"], resolution["requested_by"]) == ("pending", "supervisor-1")
    confirm = f"/rounds/{ROUND}/settlement/resolutions/{resolution['resolution_id']}/confirm"

    problems = (await client.get("/problems", headers=SUPERVISOR_1)).json()["items"]
    held = [p for p in problems if p["round_id"] == ROUND]
    assert held and all(p["facts"]["round_settled"] is False for p in held)
    assert all(f"POST {confirm}" in p["actions"] for p in held)
    assert all(p["facts"]["requested_by"] == "supervisor-1" for p in held)

    alone = await client.post(confirm, headers=SUPERVISOR_1)
    assert alone.status_code == 403, alone.text
    assert alone.json()["code"] == "same_supervisor"
    assert (await client.post(confirm, headers=OPERATOR_1)).status_code == 403

    confirmed = await client.post(confirm, headers=SUPERVISOR_2)
    assert confirmed.status_code == 200, confirmed.text
    again = await client.post(confirm, headers=SUPERVISOR_2)
    assert again.json()["code"] == "resolution_not_pending"
    body: dict[str, Any] = confirmed.json()
    return body


async def every_stake_settled_once(
    wallet_settings: WalletSettings,
    settlement_settings: SettlementSettings,
    client: httpx.AsyncClient,
    bets: list[dict[str, Any]],
    expected: dict[str, tuple[str, int]],
) -> None:
    """Each bet paid what `expected` says (bet id -> outcome, return), exactly once on both
    topics once both services are quiet, and the ledger whole."""

    async def all_paid() -> bool:
        return {b["status"] for b in await bets_of(client, bets)} == {"paid"}

    await eventually(all_paid, what="every bet paid or refunded", timeout=60)
    assert {b["bet_id"]: (b["outcome"], b["returned"]) for b in await bets_of(client, bets)} == (
        expected
    )
    for player in ("p1", "p2"):
        staked = sum(b["stake"] for b in bets if b["player_id"] == player)
        returned = sum(expected[b["bet_id"]][1] for b in bets if b["player_id"] == player)
        assert await balances(client, player) == {"INR": 5_000 - staked + returned}
    async with database(wallet_settings) as wallet_connection:
        settlement_connection = await asyncpg.connect(
            settlement_settings.postgres_dsn(settlement_settings.settlement_database)
        )
        try:
            await eventually(lambda: outbox_published(wallet_connection), what="wallet quiet")
            await eventually(
                lambda: outbox_published(settlement_connection), what="settlement quiet"
            )
        finally:
            await settlement_connection.close()
    settled = [
        (str(line.bet_id), line.outcome, line.returned)
        for event in of_type(
            await read_to_end(settlement_settings, SETTLEMENT_EVENTS), "BetsSettled"
        )
        for line in event.bets  # type: ignore[attr-defined]
    ]
    paid = [
        (str(line.bet_id), line.outcome, line.amount)
        for event in of_type(await read_to_end(wallet_settings, WALLET_EVENTS), "BetsPaid")
        for line in event.bets  # type: ignore[attr-defined]
    ]
    once = sorted((bet_id, *result) for bet_id, result in expected.items())
    assert sorted(settled) == once
    assert sorted(paid) == once
    assert await parked(wallet_settings) == []
    await ledger_matches_balances(wallet_settings)


def by_engine(bets: list[dict[str, Any]], cards: list[str]) -> dict[str, tuple[str, int]]:
    return {b["bet_id"]: engine_settles(b["bet_type"], b["stake"], cards) for b in bets}


async def test_a_second_pay_table_holds_the_round_until_two_supervisors_release_it(
    wallet_settings: WalletSettings, settlement_settings: SettlementSettings
) -> None:
    async with settlement(settlement_settings) as settling, wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, ROUND)
        bets = await place_the_bets(wallet_settings, settlement_settings, client)
        # the same round opened again with a richer table: Player A at 1:1
        richer = {**pay_table_to_mapping(PUBLISHED_PAY_TABLE), "player_a": "1"}
        first = (await _round_opened(wallet_settings, ROUND)).model_copy(
            update={"paytable": richer}
        )
        await publish(settlement_settings, TABLE_EVENTS, first, table_id="T1")
        await held_by(settlement_settings, ROUND, "conflicting_paytable")
        await close_betting(wallet_settings, ROUND)
        await close_round(wallet_settings, client, ROUND, CARDS)  # Player A wins
        await eventually(
            lambda: book_sealed(settlement_settings, and_result=True),
            what="settlement to hold the book and the result",
        )

        # the round is held, nothing paid, until two people say so
        round_ = (await settling.get(f"/rounds/{ROUND}/settlement", headers=OPERATOR_1)).json()
        assert round_["status"] == "pending"
        assert {b["status"] for b in await bets_of(client, bets)} == {"placed"}

        resolution = await resolve(settling, "release", "the second RoundOpened was a replay")
        assert (resolution["status"], resolution["outcome"]) == ("confirmed", "settled")
        assert resolution["problems"] == ["conflicting_paytable"]
        assert resolution["confirmed_by"] == "supervisor-2"
        # paid by the first (published) table: 0.95:1 on Player A, not 1:1
        expected = by_engine(bets, CARDS)
        assert expected[bets[0]["bet_id"]] == ("won", 1_950)
        await every_stake_settled_once(wallet_settings, settlement_settings, client, bets, expected)
        assert await settlement_problems(settlement_settings, ROUND) == []
    recorded = of_type(
        await read_to_end(settlement_settings, SETTLEMENT_EVENTS), "SettlementResolved"
    )
    assert [(e.action, e.requested_by, e.confirmed_by) for e in recorded] == [  # type: ignore[attr-defined]
        ("release", "supervisor-1", "supervisor-2")
    ]


async def test_a_second_result_holds_the_round_until_two_supervisors_release_it(
    wallet_settings: WalletSettings, settlement_settings: SettlementSettings
) -> None:
    async with settlement(settlement_settings) as settling:
        async with wallet(wallet_settings) as client:
            await open_round(wallet_settings, client, ROUND)
            bets = await place_the_bets(wallet_settings, settlement_settings, client)
        # the wallet is away: settlement hears both results before the book is sealed
        await send(wallet_settings, TABLE_EVENTS, _betting_closed(), table_id="T1")
        await send(wallet_settings, TABLE_EVENTS, RoundClosed.of(ROUND, "T1", CARDS), table_id="T1")
        await send(
            wallet_settings, TABLE_EVENTS, RoundClosed.of(ROUND, "T1", OTHER_CARDS), table_id="T1"
        )
        await held_by(settlement_settings, ROUND, "conflicting_result")
        async with wallet(wallet_settings) as client:
            await wait_for_round(client, ROUND, "closed")
            await eventually(
                lambda: book_sealed(settlement_settings), what="settlement to hold the book"
            )
            assert {b["status"] for b in await bets_of(client, bets)} == {"placed"}

            resolution = await resolve(settling, "release", "the second result was a misread")
            assert resolution["outcome"] == "settled"
            # the first result stands, in the settlement and in the wallet alike
            await every_stake_settled_once(
                wallet_settings, settlement_settings, client, bets, by_engine(bets, CARDS)
            )


async def test_a_result_and_a_cancellation_hold_the_round_until_two_supervisors_void_it(
    wallet_settings: WalletSettings, settlement_settings: SettlementSettings
) -> None:
    async with settlement(settlement_settings) as settling:
        async with wallet(wallet_settings) as client:
            await open_round(wallet_settings, client, ROUND)
            bets = await place_the_bets(wallet_settings, settlement_settings, client)
        await send(wallet_settings, TABLE_EVENTS, _betting_closed(), table_id="T1")
        await send(wallet_settings, TABLE_EVENTS, RoundClosed.of(ROUND, "T1", CARDS), table_id="T1")
        cancelled = RoundCancelled(
            round_id=ROUND, table_id="T1", actor="supervisor-1", reason="shoe", cards_dealt=6
        )
        await send(wallet_settings, TABLE_EVENTS, cancelled, table_id="T1")
        await held_by(settlement_settings, ROUND, "conflicting_outcome")
        # a void before the book is sealed would leave bets out of it: refused, nothing changes
        early = await settling.post(
            f"/rounds/{ROUND}/settlement/resolutions",
            json={"action": "void", "reason": "both a result and a cancellation"},
            headers=SUPERVISOR_1,
        )
        assert early.status_code == 201, early.text
        refused = await settling.post(
            f"/rounds/{ROUND}/settlement/resolutions/{early.json()['resolution_id']}/confirm",
            headers=SUPERVISOR_2,
        )
        assert refused.status_code == 409, refused.text
        assert refused.json()["code"] == "cannot_void"
        assert "the bet book is not sealed yet" in refused.json()["detail"]
        async with wallet(wallet_settings) as client:
            await wait_for_round(client, ROUND, "closed")
            await eventually(
                lambda: book_sealed(settlement_settings), what="settlement to hold the book"
            )
            # a new request supersedes the pending one
            resolution = await resolve(settling, "void", "both a result and a cancellation")
            assert (resolution["action"], resolution["outcome"]) == ("void", "settled")
            round_ = (await settling.get(f"/rounds/{ROUND}/settlement", headers=OPERATOR_1)).json()
            assert round_["cancelled"] is True
            assert round_["cancel_reason"] == "voided: both a result and a cancellation"
            # every stake back, whatever the cards said
            refunds = {b["bet_id"]: ("refunded", b["stake"]) for b in bets}
            await every_stake_settled_once(
                wallet_settings, settlement_settings, client, bets, refunds
            )
            assert (await client.get(f"/rounds/{ROUND}/book", headers=OPERATOR_1)).json()[
                "status"
            ] == "cancelled"
    published = await read_to_end(settlement_settings, SETTLEMENT_EVENTS)
    requests = of_type(published, "SettlementResolutionRequested")
    assert [r.requested_by for r in requests] == ["supervisor-1", "supervisor-1"]  # type: ignore[attr-defined]
    types = [e.event_type for e in published]
    # the void comes before the refunds it allows
    assert types.index("SettlementResolved") < types.index("BetsSettled")


def _betting_closed() -> BettingClosed:
    return BettingClosed(round_id=ROUND, table_id="T1", closed_at=datetime.now(UTC))


async def _round_opened(settings: InfrastructureSettings, round_id: str) -> RoundOpened:
    """The round's RoundOpened as published on table.events."""
    (opened,) = [
        e
        for e in of_type(await read_to_end(settings, TABLE_EVENTS), "RoundOpened")
        if isinstance(e, RoundOpened) and e.round_id == round_id
    ]
    return opened
