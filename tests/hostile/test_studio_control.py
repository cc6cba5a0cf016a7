"""Issue 33, findings 2, 5 and 6, on the real stack (the four services as processes, two
supervisors' keys and the dealer's): one supervisor cannot move a table's limits by closing
and reopening it, nor open a new table alone; the studio's video lost cancels a round that
has not started (every stake refunded) and lets a started one finish, and no round opens
while it is lost; no round opens while the wallet is down; the dealer stops a round at once,
and only a supervisor resumes it (docs/decisions/0086)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any
from uuid import uuid4

import httpx
import pytest

from teenpatti.events.catalog import MAX_STAKE
from teenpatti.settings import DEVELOPMENT_API_KEYS, InfrastructureSettings
from teenpatti_tools.devrun import IsolatedSystem, endpoints, free_base_port, isolated_system
from teenpatti_tools.simulator import BET_TYPES, SUPERVISOR_KEY
from tests.e2e.driver import CURRENCY, LIMITS, SECOND_SUPERVISOR_KEY, Studio

pytestmark = pytest.mark.integration

SUPERVISOR_1 = {"X-Api-Key": SUPERVISOR_KEY}
SUPERVISOR_2 = {"X-Api-Key": SECOND_SUPERVISOR_KEY}
DEALER = {"X-Api-Key": "dev-dealer-key"}  # the studio's key: holder dealer-1
OPERATOR = "operator-1"
CARDS = ["QS", "7H", "QD", "7D", "2C", "9S"]  # Player A wins (Q-Q-2 against 7-7-9)
KEYS = f"{DEVELOPMENT_API_KEYS},supervisor-2:supervisor:{SECOND_SUPERVISOR_KEY}"


@pytest.fixture(scope="module")
async def system(infrastructure: InfrastructureSettings) -> AsyncIterator[IsolatedSystem]:
    async with isolated_system(
        infrastructure,
        label="hostile_studio",
        base_port=free_base_port(),
        extra_env={"TP_API_KEYS": KEYS},
    ) as running_system:
        yield running_system


@pytest.fixture
async def studio(system: IsolatedSystem) -> AsyncIterator[Studio]:
    driver = Studio(endpoints(system.processes.services))
    yield driver
    await driver.close()


def new_table_id() -> str:
    return f"S{uuid4().hex[:8]}"


async def post(
    studio: Studio, path: str, who: dict[str, str], body: dict[str, Any] | None = None
) -> httpx.Response:
    return await studio.http.post(f"{studio.urls.table}{path}", headers=who, json=body or {})


async def table(studio: Studio, table_id: str) -> dict[str, Any]:
    response = await studio.http.get(f"{studio.urls.table}/tables/{table_id}", headers=DEALER)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def table_once(
    studio: Studio, table_id: str, shows: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """The table's state once it `shows` what its events already hold: the live view is
    written after the events' commit."""
    async with asyncio.timeout(10):
        while not shows(state := await table(studio, table_id)):
            await asyncio.sleep(0.1)
    return state


def open_body(table_id: str, **override: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "table_id": table_id,
        "name": f"hostile {table_id}",
        "betting_seconds": 1.5,
        "result_pause_seconds": 0.5,
        "limits": LIMITS,
    }
    return body | override


async def event_types(studio: Studio, table_id: str, after: int = 0) -> list[str]:
    return [event["event_type"] for event in await studio.events(table_id, after)]


# ------------------------------------------------------------------ finding 2: four eyes
async def test_one_supervisor_cannot_open_a_new_table_alone(studio: Studio) -> None:
    table_id = new_table_id()
    proposed = await post(studio, "/tables", SUPERVISOR_1, open_body(table_id))
    assert proposed.status_code == 202, proposed.text
    missing = await studio.http.get(f"{studio.urls.table}/tables/{table_id}", headers=DEALER)
    assert missing.status_code == 404  # nothing opens on one supervisor's word
    change_id = proposed.json()["pending_change"]["change_id"]
    same = await post(studio, f"/tables/{table_id}/changes/{change_id}/approve", SUPERVISOR_1)
    assert same.status_code == 403, same.text
    approved = await post(studio, f"/tables/{table_id}/changes/{change_id}/approve", SUPERVISOR_2)
    assert approved.status_code == 200, approved.text
    assert approved.json()["status"] == "open"
    await studio.close_table(table_id)


async def test_closing_and_reopening_with_other_limits_waits_for_a_second_supervisor(
    studio: Studio,
) -> None:
    table_id = new_table_id()
    await studio.open_table(table_id)  # proposed by one supervisor, approved by the other
    await studio.close_table(table_id)
    # a maximum a million times higher, by the same supervisor alone
    higher = {CURRENCY: {bet: {"min": 100, "max": MAX_STAKE} for bet in BET_TYPES}}
    reopened = await post(studio, "/tables", SUPERVISOR_1, open_body(table_id, limits=higher))
    assert reopened.status_code == 202, reopened.text
    state = await table_once(studio, table_id, lambda s: s["status"] == "closed")
    assert state["config"]["limits"][CURRENCY]["player_a"]["max"] == 100_000
    change_id = reopened.json()["pending_change"]["change_id"]
    rejected = await post(
        studio, f"/tables/{table_id}/changes/{change_id}/reject", SUPERVISOR_2, {"reason": "no"}
    )
    assert rejected.status_code == 200, rejected.text
    # on the terms two approved before, one supervisor reopens it
    again = await post(studio, "/tables", SUPERVISOR_1, open_body(table_id, name="again"))
    assert again.status_code == 200, again.text
    assert again.json()["config"]["limits"][CURRENCY]["player_a"]["max"] == 100_000
    await studio.close_table(table_id)


# ------------------------------------------------------------------ finding 5: the studio
async def test_video_lost_in_betting_cancels_and_refunds_and_no_round_opens_until_restored(
    studio: Studio,
) -> None:
    table_id = new_table_id()
    player = f"p-{uuid4().hex[:8]}"
    await studio.open_table(table_id, betting_seconds=30)
    opened = await studio.next_round(table_id)
    round_id = str(opened["round_id"])
    await studio.deposit(OPERATOR, player, 10_000)
    placed = await studio.bet(OPERATOR, player, round_id, {"player_a": 1_000})
    assert placed.status_code == 201, placed.text

    lost = await post(studio, f"/tables/{table_id}/video-lost", DEALER, {"reason": "encoder"})
    assert lost.status_code == 200, lost.text
    assert lost.json()["video_lost"]["reported_by"] == "dealer-1"
    cancelled = await studio.wait_for(table_id, "RoundCancelled", round_id=round_id)
    assert "video lost before the first card" in cancelled["reason"]
    [bet] = await studio.paid_bets(OPERATOR, player, round_id, 1, timeout=60)
    assert bet["outcome"] == "refunded"
    assert await studio.balance(OPERATOR, player) == 10_000

    await asyncio.sleep(2)  # past the result pause: still no new round
    assert "RoundOpened" not in await event_types(studio, table_id, cancelled["_position"])
    restored = await post(studio, f"/tables/{table_id}/video-restored", DEALER)
    assert restored.status_code == 200, restored.text
    await studio.next_round(table_id, after=cancelled["_position"])
    await studio.close_table(table_id)


async def test_video_lost_after_the_first_card_lets_the_round_finish(studio: Studio) -> None:
    table_id = new_table_id()
    await studio.open_table(table_id)
    opened = await studio.next_round(table_id)
    await studio.wait_for(table_id, "BettingClosed", after=opened["_position"])
    await studio.deal(table_id, CARDS[:1])
    await studio.wait_for(table_id, "CardDealt", after=opened["_position"])
    lost = await post(studio, f"/tables/{table_id}/video-lost", DEALER, {"reason": "stream"})
    assert lost.status_code == 200, lost.text
    await studio.deal(table_id, CARDS[1:])
    closed = await studio.wait_for(table_id, "RoundClosed", round_id=opened["round_id"])
    assert closed["winner"] == "player_a"
    assert "RoundCancelled" not in await event_types(studio, table_id, opened["_position"])
    await studio.close_table(table_id)


async def test_no_round_opens_while_the_wallet_is_down(
    infrastructure: InfrastructureSettings,
) -> None:
    async with isolated_system(
        infrastructure,
        label="hostile_gate",
        base_port=free_base_port(),
        extra_env={"TP_API_KEYS": KEYS},
    ) as system:
        studio = Studio(endpoints(system.processes.services))
        try:
            table_id = new_table_id()
            await studio.open_table(table_id, betting_seconds=1, result_pause_seconds=0.2)
            first = await studio.next_round(table_id)
            [wallet] = [s for s in system.processes.services if s.kind == "wallet"]
            await system.processes.stop(wallet.name)
            await asyncio.sleep(1.5)  # the answers kept (TP_ROUND_GATE_CACHE_SECONDS) are old
            # the round in play ends (no card yet: one supervisor cancels it); the next waits
            cancelled = await studio.command(table_id, "cancel", "wallet down")
            assert cancelled.status_code == 200, cancelled.text
            held = await studio.wait_for(table_id, "RoundsHeld", after=first["_position"])
            assert held["reasons"] == ["wallet unreachable"]
            state = await table_once(studio, table_id, lambda s: bool(s["rounds_held"]))
            assert state["rounds_held"] == ["wallet unreachable"]
            assert state["round"]["round_id"] == first["round_id"]  # no new betting window
            problems = await studio.http.get(f"{studio.urls.table}/problems", headers=SUPERVISOR_1)
            kinds = {p["kind"] for p in problems.json()["items"] if p.get("table_id") == table_id}
            assert "rounds_held" in kinds

            await system.processes.start(wallet)
            released = await studio.wait_for(table_id, "RoundsReleased", after=held["_position"])
            await studio.next_round(table_id, after=released["_position"])
            assert (await table(studio, table_id))["rounds_held"] == []
            await studio.close_table(table_id)
        finally:
            await studio.close()


# ------------------------------------------------------------------ finding 6: the dealer
async def test_the_dealer_pauses_at_once_and_only_a_supervisor_resumes(studio: Studio) -> None:
    table_id = new_table_id()
    await studio.open_table(table_id, betting_seconds=30)
    opened = await studio.next_round(table_id)
    paused = await post(studio, f"/tables/{table_id}/pause", DEALER, {"reason": "card fell"})
    assert paused.status_code == 200, paused.text
    assert paused.json()["round"]["paused_by"] == "dealer-1"
    for action in ("resume", "cancel", "close", "replace-deck"):
        refused = await post(studio, f"/tables/{table_id}/{action}", DEALER, {"reason": "x"})
        assert refused.status_code == 403, (action, refused.text)
    opening = await post(studio, "/tables", DEALER, open_body(new_table_id()))
    assert opening.status_code == 403
    resumed = await post(studio, f"/tables/{table_id}/resume", SUPERVISOR_1)
    assert resumed.status_code == 200, resumed.text
    assert resumed.json()["round"]["round_id"] == opened["round_id"]
    await studio.close_table(table_id)
