"""A round voided after its result, over HTTP against the real Postgres, Kafka and Redis: one
supervisor asks, the same one cannot confirm, any supervisor rejects, another confirms:
`RoundVoided` in the table's stream and the roadmap row voided with the result it voided;
and the correction window closes it."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

import httpx

from table_service.app import create_app
from table_service.config import TableSettings
from tests.integration.services import running

from .helpers import (
    DEALER,
    SUPERVISOR,
    SUPERVISOR_2,
    count,
    new_table_id,
    of_type,
    open_table,
    wait_for,
    with_second_supervisor,
)
from .test_round_results import PLAYER_A_WINS, TIE, deal, results, round_id

Answer = tuple[int, dict[str, Any]]


async def void(
    client: httpx.AsyncClient, table_id: str, number: int, headers: dict[str, str], reason: str
) -> Answer:
    response = await client.post(
        f"/tables/{table_id}/rounds/{round_id(table_id, number)}/void",
        json={"reason": reason},
        headers=headers,
    )
    body: dict[str, Any] = response.json()
    return response.status_code, body


async def reject(
    client: httpx.AsyncClient, table_id: str, number: int, headers: dict[str, str], reason: str
) -> Answer:
    response = await client.post(
        f"/tables/{table_id}/rounds/{round_id(table_id, number)}/void/reject",
        json={"reason": reason},
        headers=headers,
    )
    body: dict[str, Any] = response.json()
    return response.status_code, body


async def pending_voids(client: httpx.AsyncClient, table_id: str, version: int) -> Any:
    """The table state's `result_voids` once its live state is at `version` or newer."""
    async with asyncio.timeout(10):
        while True:
            state = (await client.get(f"/tables/{table_id}", headers=DEALER)).json()
            if state["version"] >= version:
                return state["result_voids"]
            await asyncio.sleep(0.05)


async def test_two_supervisors_void_a_round_after_its_result(
    table_settings: TableSettings,
) -> None:
    table_settings = with_second_supervisor(table_settings)
    table_id = new_table_id()
    first = round_id(table_id, 1)
    async with running(create_app(table_settings)) as client:
        await open_table(client, table_id)
        await deal(client, table_settings, table_id, 1, PLAYER_A_WINS)
        events = await wait_for(client, table_id, count("RoundOpened", number=2))
        [closed] = of_type(events, "RoundClosed")
        _, page = await results(client, table_id)
        [as_closed] = page["results"]
        assert as_closed["status"] == "closed" and as_closed["voided_at"] is None

        # asked by one, rejected by another: the result stands
        status, asked = await void(client, table_id, 1, SUPERVISOR, "A2 was QD, not QH")
        assert status == 202, asked
        assert asked == {
            "table_id": table_id,
            "round_id": first,
            "status": "requested",
            "requested_by": "supervisor-1",
            "actor": "supervisor-1",
            "reason": "A2 was QD, not QH",
            "round": as_closed,
        }
        stream = await wait_for(client, table_id, count("ResultVoidRequested"))
        [requested] = of_type(stream, "ResultVoidRequested")
        [pending] = await pending_voids(client, table_id, requested["position"])
        assert pending == {
            "round_id": first,
            "requested_by": "supervisor-1",
            "reason": "A2 was QD, not QH",
            "requested_at": requested["occurred_at"],
        }
        status, rejected = await reject(client, table_id, 1, SUPERVISOR_2, "QH on camera")
        assert status == 200, rejected
        assert (rejected["status"], rejected["requested_by"], rejected["actor"]) == (
            "rejected",
            "supervisor-1",
            "supervisor-2",
        )
        assert rejected["round"] == as_closed
        status, nothing = await reject(client, table_id, 1, SUPERVISOR_2, "again")
        assert (status, nothing["code"]) == (409, "no_void_requested")

        # asked again; the one who asked cannot confirm it; another supervisor does
        status, asked = await void(client, table_id, 1, SUPERVISOR, "A2 was QD after all")
        assert (status, asked["status"]) == (202, "requested")
        status, alone = await void(client, table_id, 1, SUPERVISOR, "confirming myself")
        assert (status, alone["code"]) == (403, "same_supervisor")
        assert "another supervisor must confirm it" in alone["detail"]
        status, voided = await void(client, table_id, 1, SUPERVISOR_2, "checked on camera")
        assert status == 200, voided
        assert (voided["status"], voided["requested_by"], voided["actor"]) == (
            "voided",
            "supervisor-1",
            "supervisor-2",
        )
        reason = "A2 was QD after all (confirmed: checked on camera)"
        assert voided["reason"] == reason

        stream = await wait_for(client, table_id, count("RoundVoided"))
        [event] = of_type(stream, "RoundVoided")
        payload = dict(event["payload"])
        closed_at = datetime.fromisoformat(payload.pop("closed_at"))
        assert closed_at == datetime.fromisoformat(closed["occurred_at"])
        assert payload == {
            "round_id": first,
            "table_id": table_id,
            "requested_by": "supervisor-1",
            "actor": "supervisor-2",
            "reason": reason,
            "cards": PLAYER_A_WINS,
            "player_a_hand": "pair",
            "player_b_hand": "pair",
            "winner": "player_a",
            "six_card_bonus_hand": None,
        }
        as_voided = {
            **as_closed,
            "status": "voided",
            "voided_at": event["occurred_at"],
            "void_reason": reason,
        }
        assert voided["round"] == as_voided
        _, page = await results(client, table_id)
        assert page["results"] == [as_voided]
        assert await pending_voids(client, table_id, event["position"]) == []

        # once voided, never again; a round in play, or none at all, is not one to void
        status, twice = await void(client, table_id, 1, SUPERVISOR_2, "again")
        assert (status, twice["code"]) == (409, "already_voided")
        status, in_play = await void(client, table_id, 2, SUPERVISOR, "too early")
        assert (status, in_play["code"]) == (409, "no_result_yet")
        assert f"/tables/{table_id}/cancel" in in_play["detail"]
        for missing in (f"{table_id}-000099", "garbage", f"{table_id}-1"):
            response = await client.post(
                f"/tables/{table_id}/rounds/{missing}/void",
                json={"reason": "x"},
                headers=SUPERVISOR,
            )
            assert (response.status_code, response.json()["code"]) == (404, "no_such_round")
        status, unknown = await void(client, "NEVER1", 1, SUPERVISOR, "x")
        assert (status, unknown["code"]) == (404, "unknown_table")
        status, dealer = await void(client, table_id, 1, DEALER, "x")
        assert (status, dealer["code"]) == (403, "forbidden")
        for body in ({}, {"reason": ""}, {"reason": "x" * 501}):
            response = await client.post(
                f"/tables/{table_id}/rounds/{first}/void", json=body, headers=SUPERVISOR
            )
            assert response.status_code == 422, body


async def test_a_result_is_voided_only_within_the_correction_window(
    table_settings: TableSettings,
) -> None:
    window = 0.5 / 3600  # half a second
    table_settings = with_second_supervisor(table_settings).model_copy(
        update={"correction_window_hours": window}
    )
    table_id = new_table_id()
    async with running(create_app(table_settings)) as client:
        await open_table(client, table_id)
        await deal(client, table_settings, table_id, 1, TIE)
        events = await wait_for(client, table_id, count("RoundClosed"))
        [closed] = of_type(events, "RoundClosed")
        closes_at = datetime.fromisoformat(closed["occurred_at"]) + timedelta(hours=window)
        await asyncio.sleep(0.6)
        status, late = await void(client, table_id, 1, SUPERVISOR, "found too late")
        assert (status, late["code"]) == (409, "correction_window_passed")
        assert late["closes_at"] == closes_at.isoformat()
        assert "0.000138889 h" in late["detail"]
        assert of_type(await wait_for(client, table_id, count("RoundOpened")), "RoundVoided") == []
