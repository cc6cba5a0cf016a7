"""The studio's word on the real Postgres, Kafka and Redis: the dealer's key pauses and
reports the video lost and restored (and nothing else), a lost video cancels a round in
betting and holds the next one, and a table whose gate finds a service not ready holds its
rounds and says why (docs/decisions/0086)."""

from __future__ import annotations

import asyncio

from table_service.app import create_app
from table_service.config import TableSettings
from tests.integration.services import running

from .helpers import (
    DEALER,
    SUPERVISOR,
    count,
    events_of,
    new_table_id,
    of_type,
    open_table,
    types,
    wait_for,
)


async def test_the_dealer_reports_the_video_lost_and_a_round_in_betting_is_cancelled(
    table_settings: TableSettings,
) -> None:
    table_id = new_table_id()
    async with running(create_app(table_settings)) as client:
        await open_table(client, table_id, betting_seconds=60, result_pause_seconds=0.2)
        await wait_for(client, table_id, count("RoundOpened"))
        paused = await client.post(
            f"/tables/{table_id}/pause", json={"reason": "card fell"}, headers=DEALER
        )
        assert paused.status_code == 200, paused.text
        refused = await client.post(f"/tables/{table_id}/resume", headers=DEALER)
        assert refused.status_code == 403

        lost = await client.post(
            f"/tables/{table_id}/video-lost", json={"reason": "encoder"}, headers=DEALER
        )
        assert lost.status_code == 200, lost.text
        body = lost.json()
        assert body["round"]["phase"] == "cancelled"
        assert body["video_lost"]["reported_by"] == "dealer-1"
        again = await client.post(
            f"/tables/{table_id}/video-lost", json={"reason": "still"}, headers=DEALER
        )
        assert again.json()["version"] == body["version"]  # reported twice: nothing appended
        problems = await client.get("/problems", headers=SUPERVISOR)
        kinds = {p["kind"] for p in problems.json()["items"] if p.get("table_id") == table_id}
        assert "video_lost" in kinds

        await asyncio.sleep(1)  # past the result pause: no round opens meanwhile
        events = await events_of(client, table_id)
        assert types(events).count("RoundOpened") == 1
        restored = await client.post(f"/tables/{table_id}/video-restored", headers=DEALER)
        assert restored.status_code == 200, restored.text
        events = await wait_for(client, table_id, count("RoundOpened", 2))
        [cancelled] = of_type(events, "RoundCancelled")
        assert cancelled["payload"]["actor"] == "dealer-1"
        assert cancelled["payload"]["cards_dealt"] == 0


async def test_a_table_holds_its_rounds_while_a_service_a_round_needs_is_not_ready(
    table_settings: TableSettings,
) -> None:
    gated = table_settings.model_copy(
        update={
            # nothing listens there: the wallet is unreachable
            "round_gate_urls": "wallet=http://127.0.0.1:9",
            "round_gate_timeout_seconds": 0.5,
            "round_gate_cache_seconds": 0.5,
        }
    )
    table_id = new_table_id()
    async with running(create_app(gated)) as client:
        await open_table(client, table_id)
        events = await wait_for(client, table_id, count("RoundsHeld"))
        [held] = of_type(events, "RoundsHeld")
        assert held["payload"]["reasons"] == ["wallet unreachable"]
        await asyncio.sleep(1.5)  # asked again meanwhile: said once, and still no round
        events = await events_of(client, table_id)
        assert "RoundOpened" not in types(events)
        assert types(events).count("RoundsHeld") == 1
        state = await client.get(f"/tables/{table_id}", headers=DEALER)
        assert state.json()["rounds_held"] == ["wallet unreachable"]
        problems = await client.get("/problems", headers=SUPERVISOR)
        [problem] = [
            p
            for p in problems.json()["items"]
            if p.get("table_id") == table_id and p["kind"] == "rounds_held"
        ]
        assert "wallet unreachable" in problem["detail"]
