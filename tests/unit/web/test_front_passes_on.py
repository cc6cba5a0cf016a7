"""What the web front passes on to the services for a request besides the caller's own
headers: its `X-Correlation-Id` (the caller's, or one it makes; the answer names it) and its
W3C trace context (`traceparent`, `tracestate`), on every path that calls a service: the
forwarding and the player's routes. In-process, the services faked."""

from __future__ import annotations

import re

from tests.unit.web.test_front_edges import client_at, front

TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


async def test_a_callers_correlation_id_and_trace_reach_the_service_and_the_id_comes_back() -> None:
    async with front(api_key="own-key") as (app, services), client_at(app, "198.51.100.7") as c:
        answer = await c.get(
            "/api/table/tables",
            headers={
                "X-Correlation-Id": "slip-42.a",
                "traceparent": TRACEPARENT,
                "tracestate": "vendor=opaque",
                "X-Api-Key": "caller-key",
            },
        )
    assert answer.status_code == 200
    assert answer.headers["x-correlation-id"] == "slip-42.a"
    [sent] = services.requests
    assert sent.headers["x-correlation-id"] == "slip-42.a"
    assert sent.headers["traceparent"] == TRACEPARENT
    assert sent.headers["tracestate"] == "vendor=opaque"
    assert sent.headers["x-api-key"] == "caller-key"


async def test_without_a_correlation_id_the_front_makes_one_passes_it_on_and_answers_it() -> None:
    async with front(api_key="own-key") as (app, services), client_at(app, "198.51.100.7") as c:
        first = await c.get("/api/wallet/me", headers={"Authorization": "Bearer t"})
        # one the logs could not carry safely is replaced, never passed on
        second = await c.get("/api/wallet/me", headers={"X-Correlation-Id": "a b\\c" * 40})
    made = [first.headers["x-correlation-id"], second.headers["x-correlation-id"]]
    assert all(UUID.match(value) for value in made) and made[0] != made[1]
    assert [r.headers["x-correlation-id"] for r in services.requests] == made
    # no trace arrived and none is recorded here: none is made up
    assert all("traceparent" not in r.headers for r in services.requests)


async def test_the_players_own_routes_pass_them_on_too() -> None:
    session = {
        "session_id": "s-1",
        "player_id": "p-1",
        "currency": "INR",
        "language": "en",
        "table_id": "T01",
    }
    async with front(api_key="own-key") as (app, services), client_at(app, "198.51.100.7") as c:
        services.answer = session  # the wallet's /me, then the table (fields ignored)
        await c.get(
            "/api/play/table",
            headers={
                "Authorization": "Session session-token",
                "X-Correlation-Id": "player-7",
                "traceparent": TRACEPARENT,
            },
        )
    # the wallet asked for the session, then the table with the front's own key
    assert [r.url.path for r in services.requests] == ["/me", "/tables/T01"]
    for sent in services.requests:
        assert sent.headers["x-correlation-id"] == "player-7"
        assert sent.headers["traceparent"] == TRACEPARENT
