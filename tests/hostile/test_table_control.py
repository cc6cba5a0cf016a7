"""Hostile insiders against the table's game control (issue 23: configuration, card secrecy,
voids and stalls), on the real stack: the four services as processes (two supervisors' keys),
or the table service in-process where a test needs its own timeouts. Each case ends with
nothing lost and nothing paid that should not be: every stake paid by the result or refunded,
proven by reading the topics to their end once the system is quiet.

- one supervisor cannot put a pay table above the RTP ceiling, nor approve their own change,
  nor void a started round alone (docs/decisions/0057);
- a card read while betting is open never shows its value on the feed, the table's public
  reads or `table.events` (docs/decisions/0058);
- a deal that stalls pauses itself and is shown to a person (docs/decisions/0059).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any
from uuid import uuid4

import asyncpg
import httpx
import pytest
from redis.asyncio import Redis

from table_service.app import create_app as create_table
from table_service.config import TableSettings
from teenpatti.engine import PUBLISHED_PAY_TABLE, pay_table_to_mapping
from teenpatti.events.catalog import SETTLEMENT_EVENTS, TABLE_EVENTS, WALLET_EVENTS
from teenpatti.settings import DEVELOPMENT_API_KEYS, InfrastructureSettings
from teenpatti_tools.devrun import IsolatedSystem, endpoints, free_base_port, isolated_system
from teenpatti_tools.simulator import BET_TYPES, SUPERVISOR_KEY
from tests.e2e.driver import LIMITS, Studio
from tests.integration.services import read_to_end, running, topics_ready
from tests.integration.table.helpers import (
    count,
    of_type,
    open_table,
    scan,
    wait_for,
    with_second_supervisor,
)

pytestmark = pytest.mark.integration

SUPERVISOR_2_KEY = "dev-supervisor-2-key"
SUPERVISOR_1 = {"X-Api-Key": SUPERVISOR_KEY}
SUPERVISOR_2 = {"X-Api-Key": SUPERVISOR_2_KEY}
PUBLISHED = pay_table_to_mapping(PUBLISHED_PAY_TABLE)
OPERATOR = "operator-1"
CARDS = ["QS", "7H", "QD", "7D", "2C", "9S"]  # Player A wins (Q-Q-2 against 7-7-9)
SECRET = "KH"  # the card read during betting: in none of the cards dealt


@pytest.fixture(scope="module")
async def system(infrastructure: InfrastructureSettings) -> AsyncIterator[IsolatedSystem]:
    keys = f"{DEVELOPMENT_API_KEYS},supervisor-2:supervisor:{SUPERVISOR_2_KEY}"
    async with isolated_system(
        infrastructure,
        label="hostile_table",
        base_port=free_base_port(),
        extra_env={"TP_API_KEYS": keys},
    ) as running_system:
        yield running_system


@pytest.fixture
async def studio(system: IsolatedSystem) -> AsyncIterator[Studio]:
    driver = Studio(endpoints(system.processes.services))
    yield driver
    await driver.close()


def new_table_id() -> str:
    return f"H{uuid4().hex[:8]}"


def new_player() -> str:
    return f"p-{uuid4().hex[:8]}"


async def post(
    studio: Studio, path: str, who: dict[str, str], body: dict[str, Any] | None = None
) -> httpx.Response:
    return await studio.http.post(f"{studio.urls.table}{path}", headers=who, json=body or {})


def open_body(table_id: str, **override: Any) -> dict[str, Any]:
    """What `Studio.open_table` sends, changed by `override`."""
    body: dict[str, Any] = {
        "table_id": table_id,
        "name": f"e2e {table_id}",
        "betting_seconds": 1.5,
        "result_pause_seconds": 0.5,
        "limits": LIMITS,
    }
    return body | override


async def betting_round(studio: Studio, table_id: str, player: str, stake: int) -> str:
    """A round with one bet of `player` on Player A (placed while betting is open)."""
    opened = await studio.next_round(table_id)
    round_id = str(opened["round_id"])
    await studio.deposit(OPERATOR, player, 10_000)
    placed = await studio.bet(OPERATOR, player, round_id, {"player_a": stake})
    assert placed.status_code == 201, placed.text
    return round_id


async def round_money(
    system: IsolatedSystem, round_id: str
) -> tuple[list[bool], list[str], list[str]]:
    """Once the system is quiet: the round's RoundSettled `cancelled` flags, and each settled
    and each paid bet line's outcome, every record of the topics read to their end."""
    settings = system.settings
    settled = [e for e in await read_to_end(settings, SETTLEMENT_EVENTS) if _of(e, round_id)]
    paid = [e for e in await read_to_end(settings, WALLET_EVENTS) if _of(e, round_id)]
    flags = [e.payload["cancelled"] for e in settled if e.event_type == "RoundSettled"]
    lines = [
        b["outcome"] for e in settled if e.event_type == "BetsSettled" for b in e.payload["bets"]
    ]
    payments = [b["outcome"] for e in paid if e.event_type == "BetsPaid" for b in e.payload["bets"]]
    return flags, lines, payments


def _of(envelope: Any, round_id: str) -> bool:
    return bool(envelope.payload.get("round_id") == round_id)


async def settled_and_paid(studio: Studio, player: str, round_id: str) -> dict[str, Any]:
    [bet] = await studio.paid_bets(OPERATOR, player, round_id, 1, timeout=60)
    return bet


# ------------------------------------------------------------------ the pay table's RTP
async def test_a_pay_table_above_the_ceiling_is_refused_and_nothing_is_recorded(
    studio: Studio,
) -> None:
    table_id = new_table_id()
    generous = PUBLISHED | {"tie": "10000:1"}

    refused = await post(studio, "/tables", SUPERVISOR_1, open_body(table_id, paytable=generous))

    assert refused.status_code == 422, refused.text
    problem = refused.json()
    assert (problem["code"], problem["bet_type"], problem["ceiling_percent"]) == (
        "rtp_above_ceiling",
        "tie",
        "97.50",
    )
    unknown = await studio.http.get(
        f"{studio.urls.table}/tables/{table_id}/events", headers=SUPERVISOR_1
    )
    assert unknown.status_code == 404  # no stream: nothing recorded

    # nor on an open table: the refusal leaves its stream as it was
    await studio.open_table(table_id)
    before = await studio.events(table_id)
    again = await post(studio, "/tables", SUPERVISOR_2, open_body(table_id, paytable=generous))
    assert again.status_code == 422, again.text
    after = await studio.events(table_id)
    # the opening's own proposal (and its approval) before; nothing proposed since
    changes = [e for e in before if e["event_type"].startswith("ConfigChange")]
    assert [e for e in after if e["event_type"].startswith("ConfigChange")] == changes
    assert [e for e in after if e["event_type"] == "TableOpened"] == [
        e for e in before if e["event_type"] == "TableOpened"
    ]
    await studio.close_table(table_id)


# ------------------------------------------------------------------ four eyes on a change
async def test_a_limits_change_needs_another_supervisor_and_applies_from_the_next_round(
    studio: Studio,
) -> None:
    table_id = new_table_id()
    await studio.open_table(table_id)
    first = await studio.next_round(table_id)
    wider = {"INR": {bet: {"min": 100, "max": 200_000} for bet in BET_TYPES}}

    proposed = await post(studio, "/tables", SUPERVISOR_1, open_body(table_id, limits=wider))
    assert proposed.status_code == 202, proposed.text
    change_id = proposed.json()["pending_change"]["change_id"]
    path = f"/tables/{table_id}/changes/{change_id}/approve"

    own = await post(studio, path, SUPERVISOR_1)
    assert (own.status_code, own.json()["code"]) == (403, "same_supervisor")
    approved = await post(studio, path, SUPERVISOR_2)
    assert approved.status_code == 200, approved.text
    assert approved.json()["pending_change"] is None

    # the round in play keeps its limits; the next one opens with the approved ones
    await studio.wait_for(table_id, "BettingClosed", round_id=first["round_id"])
    await studio.deal(table_id, CARDS)
    second = await studio.next_round(table_id, after=first["_position"])
    events = await studio.events(table_id)
    [proposal] = [
        e["payload"]
        for e in events
        if e["event_type"] == "ConfigChangeProposed" and e["payload"]["change_id"] == change_id
    ]
    reopened = [e["payload"] for e in events if e["event_type"] == "TableOpened"][-1]
    assert proposal["actor"] == reopened["actor"] == "supervisor-1"
    assert reopened["approved_by"] == "supervisor-2"
    assert first["limits"]["INR"]["tie"]["max"] == 100_000
    assert second["limits"]["INR"]["tie"]["max"] == 200_000
    await studio.close_table(table_id)


# ------------------------------------------------------------------ a card read during betting
@contextlib.asynccontextmanager
async def feed_of(settings: InfrastructureSettings, table_id: str) -> AsyncIterator[list[str]]:
    """Every message the table's live feed publishes (Redis), as text, while inside."""
    redis = Redis.from_url(settings.redis_url, decode_responses=True)
    pubsub = redis.pubsub()
    await pubsub.subscribe(f"{settings.topic_prefix}feed:{table_id}")
    heard: list[str] = []

    async def listen() -> None:
        while True:
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.5)
            if message is not None:
                heard.append(str(message["data"]))

    task = asyncio.create_task(listen())
    try:
        yield heard
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await pubsub.aclose()  # type: ignore[no-untyped-call]
        await redis.aclose()


async def expose(
    system: IsolatedSystem, studio: Studio, table_id: str, round_id: str
) -> dict[str, Any]:
    """Scan SECRET while betting is open on `round_id`; check that its value is nowhere a
    player or the bus can see it, only in the table's store. The round's state after."""
    async with feed_of(system.settings, table_id) as heard:
        answer = await studio.scan(table_id, SECRET)
        assert answer.status_code in (200, 202), answer.text
        paused = await studio.wait_for(table_id, "RoundPaused", round_id=round_id)
        assert paused["actor"] == "system"
        state = await studio.http.get(
            f"{studio.urls.table}/tables/{table_id}", headers=SUPERVISOR_1
        )
        # the feed publishes each event after its commit: wait for the pause to be heard
        async with asyncio.timeout(30):
            while not any('"RoundPaused"' in message for message in heard):
                await asyncio.sleep(0.1)
    events = await studio.events(table_id)
    [refused] = [e["payload"] for e in events if e["event_type"] == "CardRefused"]
    assert (refused["reason"], refused["card"]) == ("betting_open", None)
    published = [
        e.payload
        for e in await read_to_end(system.settings, TABLE_EVENTS)
        if e.table_id == table_id
    ]
    for where, text in (
        ("the live feed", "\n".join(heard)),
        ("GET /tables/{id}", state.text),
        ("GET /tables/{id}/events", json.dumps(events)),
        ("table.events", json.dumps(published)),
    ):
        assert SECRET not in text, f"{SECRET} shown on {where}"
    assert state.json()["round"]["exposed"] is True and state.json()["round"]["paused"] is True
    # the value is kept, for an investigation, only in the table's store
    connection = await asyncpg.connect(system.settings.postgres_dsn(system.databases["table"]))
    try:
        sealed = await connection.fetch(
            "SELECT card, round_id FROM sealed_cards WHERE table_id = $1", table_id
        )
    finally:
        await connection.close()
    assert [(row["card"], row["round_id"]) for row in sealed] == [(SECRET, round_id)]
    problems = await studio.http.get(f"{studio.urls.table}/problems", headers=SUPERVISOR_1)
    kinds = {(p["kind"], p["round_id"]) for p in problems.json()["items"]}
    assert ("exposed_card", round_id) in kinds
    body: dict[str, Any] = state.json()
    return body


async def test_a_card_read_during_betting_is_sealed_and_the_round_resumes_on_a_new_deck(
    system: IsolatedSystem, studio: Studio
) -> None:
    table_id, player = new_table_id(), new_player()
    await studio.open_table(table_id, betting_seconds=20)
    round_id = await betting_round(studio, table_id, player, 1_000)

    await expose(system, studio, table_id, round_id)

    blocked = await post(studio, f"/tables/{table_id}/resume", SUPERVISOR_1)
    assert (blocked.status_code, blocked.json()["code"]) == (409, "card_exposed")
    replaced = await post(
        studio, f"/tables/{table_id}/replace-deck", SUPERVISOR_1, {"reason": "new deck"}
    )
    assert replaced.status_code == 200, replaced.text
    resumed = await post(studio, f"/tables/{table_id}/resume", SUPERVISOR_1)
    assert resumed.status_code == 200, resumed.text
    await studio.wait_for(table_id, "BettingClosed", round_id=round_id, timeout=60)
    await studio.deal(table_id, CARDS)
    await studio.wait_for(table_id, "RoundClosed", round_id=round_id)

    bet = await settled_and_paid(studio, player, round_id)
    assert bet["outcome"] == "won"
    assert await studio.balance(OPERATOR, player) == 10_000 - 1_000 + 1_950
    flags, lines, payments = await round_money(system, round_id)
    assert (flags, lines, payments) == ([False], ["won"], ["won"])
    await studio.close_table(table_id)


async def test_a_card_read_during_betting_and_the_round_cancelled_refunds_every_stake(
    system: IsolatedSystem, studio: Studio
) -> None:
    table_id, player = new_table_id(), new_player()
    await studio.open_table(table_id, betting_seconds=20)
    round_id = await betting_round(studio, table_id, player, 1_000)
    await expose(system, studio, table_id, round_id)

    # before its first card, one supervisor voids the round
    cancelled = await post(
        studio, f"/tables/{table_id}/cancel", SUPERVISOR_1, {"reason": "card exposed"}
    )
    assert cancelled.status_code == 200, cancelled.text

    bet = await settled_and_paid(studio, player, round_id)
    assert bet["outcome"] == "refunded"
    assert await studio.balance(OPERATOR, player) == 10_000
    assert await round_money(system, round_id) == ([True], ["refunded"], ["refunded"])
    await studio.close_table(table_id)


# ------------------------------------------------------------------ voids take two
async def test_a_void_after_the_first_card_takes_two_supervisors_and_refunds_every_stake(
    system: IsolatedSystem, studio: Studio
) -> None:
    table_id, player = new_table_id(), new_player()
    await studio.open_table(table_id, betting_seconds=6)
    round_id = await betting_round(studio, table_id, player, 1_000)
    await studio.wait_for(table_id, "BettingClosed", round_id=round_id)
    await studio.deal(table_id, CARDS[:2])
    await studio.wait_for(table_id, "CardDealt", round_id=round_id, position="B1")

    alone = await post(studio, f"/tables/{table_id}/cancel", SUPERVISOR_1, {"reason": "misdeal"})
    assert alone.status_code == 202, alone.text
    assert alone.json()["round"]["phase"] == "dealing"  # not void on one person's word
    again = await post(studio, f"/tables/{table_id}/cancel", SUPERVISOR_1, {"reason": "really"})
    assert (again.status_code, again.json()["code"]) == (403, "same_supervisor")
    problems = await studio.http.get(f"{studio.urls.table}/problems", headers=SUPERVISOR_2)
    assert ("void_requested", round_id) in {
        (p["kind"], p["round_id"]) for p in problems.json()["items"]
    }
    confirmed = await post(studio, f"/tables/{table_id}/cancel", SUPERVISOR_2, {"reason": "ok"})
    assert confirmed.status_code == 200, confirmed.text

    bet = await settled_and_paid(studio, player, round_id)
    assert bet["outcome"] == "refunded"
    assert await studio.balance(OPERATOR, player) == 10_000
    assert await round_money(system, round_id) == ([True], ["refunded"], ["refunded"])
    await studio.close_table(table_id)


async def test_a_confirmed_void_racing_the_sixth_card_ends_the_round_once_and_money_follows(
    system: IsolatedSystem, studio: Studio
) -> None:
    table_id, player = new_table_id(), new_player()
    await studio.open_table(table_id, betting_seconds=6)
    round_id = await betting_round(studio, table_id, player, 1_000)
    await studio.wait_for(table_id, "BettingClosed", round_id=round_id)
    await studio.deal(table_id, CARDS[:5])
    await studio.wait_for(table_id, "CardDealt", round_id=round_id, position="A3")
    requested = await post(studio, f"/tables/{table_id}/cancel", SUPERVISOR_1, {"reason": "x"})
    assert requested.status_code == 202, requested.text

    confirm, sixth = await asyncio.gather(
        post(studio, f"/tables/{table_id}/cancel", SUPERVISOR_2, {"reason": "race"}),
        studio.scan(table_id, CARDS[5]),
    )
    assert confirm.status_code in (200, 409), confirm.text
    assert sixth.status_code in (200, 202), sixth.text
    bet = await settled_and_paid(studio, player, round_id)

    events = [e for e in await studio.events(table_id) if e["payload"].get("round_id") == round_id]
    ends = [e["event_type"] for e in events if e["event_type"] in ("RoundClosed", "RoundCancelled")]
    assert len(ends) == 1, ends
    cancelled = ends == ["RoundCancelled"]
    assert (confirm.status_code == 200) is cancelled
    outcome = "refunded" if cancelled else "won"
    assert bet["outcome"] == outcome
    balance = 10_000 if cancelled else 10_000 - 1_000 + 1_950
    assert await studio.balance(OPERATOR, player) == balance
    # settlement and wallet agree, each fact once
    assert await round_money(system, round_id) == ([cancelled], [outcome], [outcome])
    await studio.close_table(table_id)


# ------------------------------------------------------------------ a stalled deal
async def test_a_deal_without_its_next_card_pauses_itself_and_is_shown_to_a_person(
    settings: InfrastructureSettings, database_name: str
) -> None:
    table_settings = TableSettings(
        **settings.model_dump(),
        table_database=database_name,
        dealing_stall_seconds=5,
        paused_round_alert_minutes=0.01,  # overdue after 0.6 s
    )
    table_settings = with_second_supervisor(table_settings)  # a new table takes two (0086)
    table_id = new_table_id()
    await topics_ready(settings)
    async with running(create_table(table_settings)) as client:
        await open_table(client, table_id, betting_seconds=0.5)
        await wait_for(client, table_id, count("BettingClosed"))
        await scan(table_settings, table_id, "AS")

        events = await wait_for(client, table_id, count("RoundPaused"))
        [paused] = of_type(events, "RoundPaused")
        assert paused["payload"]["actor"] == "system"
        assert "waiting for B1" in paused["payload"]["reason"]
        assert not of_type(events, "RoundCancelled")  # a started round is never cancelled

        async with asyncio.timeout(30):
            while True:
                listed = await client.get("/problems", headers=SUPERVISOR_1)
                assert listed.status_code == 200, listed.text
                mine = [p for p in listed.json()["items"] if p.get("table_id") == table_id]
                if mine and mine[0]["facts"].get("overdue"):
                    break
                await asyncio.sleep(0.2)
        [problem] = mine
        assert problem["kind"] == "paused_round"
        assert problem["facts"]["started"] is True and problem["facts"]["cards_dealt"] == 1
        assert f"POST /tables/{table_id}/resume" in problem["actions"]

        # a person resumes it; the dealer goes on and the round completes
        resumed = await client.post(f"/tables/{table_id}/resume", headers=SUPERVISOR_1)
        assert resumed.status_code == 200, resumed.text
        for card in CARDS[1:]:
            await scan(table_settings, table_id, card)
        events = await wait_for(client, table_id, count("RoundClosed"))
        assert not of_type(events, "RoundCancelled")
        listed = await client.get("/problems", headers=SUPERVISOR_1)
        assert not [p for p in listed.json()["items"] if p.get("table_id") == table_id]
