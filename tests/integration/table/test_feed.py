"""The WebSocket feed under uvicorn: catch-up from a position, then live events, in order,
with no gap and no repeat, across a reconnection."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from redis.asyncio import Redis
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from table_service.app import create_app
from table_service.config import TableSettings

from .helpers import DEALER, count, events_of, new_table_id, open_table, scan, serving, wait_for


async def receive(ws: ClientConnection, n: int, timeout: float = 20.0) -> list[dict[str, Any]]:
    received = []
    async with asyncio.timeout(timeout):
        for _ in range(n):
            received.append(json.loads(await ws.recv()))
    return received


async def test_a_client_gets_the_missed_events_then_live_ones_and_resumes_after_reconnecting(
    table_settings: TableSettings,
) -> None:
    table_id = new_table_id()
    app = create_app(table_settings)
    async with (
        serving(app) as address,
        httpx.AsyncClient(base_url=f"http://{address}", timeout=10) as client,
    ):
        await open_table(client, table_id)
        await wait_for(client, table_id, count("BettingClosed"))
        url = f"ws://{address}/tables/{table_id}/feed"
        redis = Redis.from_url(table_settings.redis_url, decode_responses=True)
        channel = redis.pubsub()
        await channel.subscribe(f"{table_settings.topic_prefix}feed:{table_id}")

        # a browser's way in: a single-use ticket bought with the key in a header
        ticket = await client.post(f"/tables/{table_id}/feed/tickets", headers=DEALER)
        assert ticket.status_code == 201, ticket.text
        assert ticket.json()["expires_in_seconds"] == 10
        # positions 1 and 2: the new table's terms proposed and approved (decision 0086)
        async with connect(f"{url}?after=2&ticket={ticket.json()['ticket']}") as ws:
            caught_up = await receive(ws, 2)
            assert [m["position"] for m in caught_up] == [3, 4]
            assert [m["event_type"] for m in caught_up] == ["RoundOpened", "BettingClosed"]
            await scan(table_settings, table_id, "AS")
            await scan(table_settings, table_id, "KD")
            live = await receive(ws, 2)
            assert [m["position"] for m in live] == [5, 6]
            assert [m["payload"]["position"] for m in live] == ["A1", "B1"]

        # the feed consumer (`table-table`) published them on the Redis channel and keeps
        # the live state
        published: list[dict[str, Any]] = []
        async with asyncio.timeout(20):
            while 6 not in [m["position"] for m in published]:
                message = await channel.get_message(ignore_subscribe_messages=True, timeout=1)
                if message is not None:
                    published.append(json.loads(message["data"]))
        assert [m for m in published if m["position"] > 4] == live
        await channel.aclose()  # type: ignore[no-untyped-call]
        kept = await redis.get(f"{table_settings.topic_prefix}table:{table_id}")
        assert kept is not None
        live_state = json.loads(kept)
        assert live_state["version"] >= 6
        assert live_state["round"]["cards"][:2] == [
            {"position": "A1", "card": "AS"},
            {"position": "B1", "card": "KD"},
        ]
        await redis.aclose()

        # while the client is away: another card
        await scan(table_settings, table_id, "QH")
        await wait_for(client, table_id, count("CardDealt", 3))

        async with connect(f"{url}?after=5", additional_headers=DEALER) as ws:
            missed = await receive(ws, 2)
            assert [m["position"] for m in missed] == [6, 7]
            for card in ("2C", "5S", "9D"):
                await scan(table_settings, table_id, card)
            live = await receive(ws, 4)  # three cards and RoundClosed
            assert [m["position"] for m in live] == [8, 9, 10, 11]
            assert live[-1]["event_type"] == "RoundClosed"

        stored = await events_of(client, table_id)
        by_position = {e["position"]: e for e in stored}
        for message in [*missed, *live]:
            assert message == by_position[message["position"]]


async def test_the_feed_needs_a_valid_key_and_a_known_table(table_settings: TableSettings) -> None:
    table_id = new_table_id()
    async with (
        serving(create_app(table_settings)) as address,
        httpx.AsyncClient(base_url=f"http://{address}", timeout=10) as client,
    ):
        await open_table(client, table_id, betting_seconds=60)
        other = new_table_id()
        await open_table(client, other, betting_seconds=60)

        async def ticket(for_table: str) -> str:
            issued = await client.post(f"/tables/{for_table}/feed/tickets", headers=DEALER)
            assert issued.status_code == 201, issued.text
            value: str = issued.json()["ticket"]
            return value

        used = await ticket(table_id)
        async with connect(f"ws://{address}/tables/{table_id}/feed?ticket={used}") as ws:
            assert json.loads(await ws.recv())["position"] == 1  # it opened the feed
        refused = await client.post(f"/tables/{table_id}/feed/tickets")
        assert refused.status_code == 401  # a ticket needs a key, in a header
        for path, headers, code in (
            (f"/tables/{table_id}/feed?key=dev-dealer-key", {}, 4401),  # no key in a URL
            (f"/tables/{table_id}/feed", {"X-Api-Key": "wrong"}, 4401),
            (f"/tables/{table_id}/feed", {}, 4401),
            (f"/tables/{table_id}/feed?ticket={used}", {}, 4401),  # single use
            (f"/tables/{table_id}/feed?ticket={await ticket(other)}", {}, 4401),  # another's
            (f"/tables/{table_id}/feed?ticket=made-up", {}, 4401),
            ("/tables/NOPE/feed", DEALER, 4404),
        ):
            async with connect(f"ws://{address}{path}", additional_headers=headers) as ws:
                with pytest.raises(ConnectionClosed) as closed:
                    async with asyncio.timeout(10):
                        await ws.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == code
