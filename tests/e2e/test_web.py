"""The web front over the four running services, on the real stack: forwarding with the
caller's own credentials, the player's read-only window on its own table, the relayed feeds,
the console's problems, the pages' headers, and the viewer role's reach."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import httpx
import pytest
import websockets
from pydantic import SecretStr
from websockets.exceptions import ConnectionClosed

from teenpatti.settings import DefaultSecretError, InfrastructureSettings
from web_service.app import create_app
from web_service.config import WebSettings
from web_service.play import HIDDEN_PAYLOAD_FIELDS, PLAYER_EVENTS

from ..browser import system
from ..browser.system import Front
from .driver import LIMITS
from .test_rounds import betting_round

pytestmark = pytest.mark.integration
front = system.front  # the four services and the web front, for this module

SUPERVISOR = {"X-Api-Key": "dev-supervisor-key"}
SUPERVISOR_2 = {"X-Api-Key": system.Front.second_supervisor_key}
VIEWER = {"X-Api-Key": "dev-web-key"}
FEED_SECONDS = 30


def table() -> str:
    return f"W{uuid.uuid4().hex[:6].upper()}"


def player() -> str:
    return f"p-{uuid.uuid4().hex[:8]}"


def ws(url: str) -> str:
    return url.replace("http://", "ws://", 1)


async def session(front: Front, table_id: str) -> dict[str, Any]:
    launch_url = await front.open_session("operator-2", player(), "INR", table_id)
    return await front.launch(launch_url)


def problem(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    assert body["code"] == code, body
    return body


# ---------------------------------------------------------------------------- forwarding
async def test_forwarding_answers_with_the_callers_credentials_only(front: Front) -> None:
    http, url = front.http, front.url
    # no key: the table service's own 401, not an answer made with the web front's key
    refused = problem(await http.get(f"{url}/api/table/tables"), 401, "missing_api_key")
    assert refused["instance"] == "/tables"  # the service's own problem, passed on
    problem(
        await http.post(f"{url}/api/table/tables/T1/pause", json={"reason": "x"}),
        401,
        "missing_api_key",
    )
    problem(await http.get(f"{url}/api/wallet/me"), 401, "invalid_session")
    listed = await http.get(f"{url}/api/table/tables", headers=SUPERVISOR)
    assert listed.status_code == 200, listed.text
    assert "tables" in listed.json()


async def test_forwarding_carries_the_method_body_query_and_idempotency_key(front: Front) -> None:
    table_id, http, url = table(), front.http, front.url
    # a new table: one supervisor proposes its terms, another approves them (decision 0086),
    # each with their own key through the web front
    proposed = await http.post(
        f"{url}/api/table/tables",
        headers=SUPERVISOR,
        json={
            "table_id": table_id,
            "name": "through the web front",
            "betting_seconds": 30,
            "result_pause_seconds": 0.5,
            "limits": LIMITS,
        },
    )
    assert proposed.status_code == 202, proposed.text
    change_id = proposed.json()["pending_change"]["change_id"]
    approved = await http.post(
        f"{url}/api/table/tables/{table_id}/changes/{change_id}/approve", headers=SUPERVISOR_2
    )
    assert approved.status_code == 200, approved.text
    events = await http.get(
        f"{url}/api/table/tables/{table_id}/events", params={"after": 0}, headers=SUPERVISOR
    )
    assert events.status_code == 200, events.text
    proposal, opened = events.json()["events"][:2]
    assert proposal["event_type"] == "ConfigChangeProposed"
    assert proposal["payload"]["name"] == "through the web front"
    assert opened["event_type"] == "TableOpened"
    assert (opened["payload"]["actor"], opened["payload"]["approved_by"]) == (
        "supervisor-1",
        "supervisor-2",
    )
    # the query too: nothing after the opening but what the table's clock does
    later = await http.get(
        f"{url}/api/table/tables/{table_id}/events", params={"after": 2}, headers=SUPERVISOR
    )
    assert later.status_code == 200, later.text
    assert all(event["position"] > 2 for event in later.json()["events"])
    # the player's slip through the web front, its Idempotency-Key kept: the same slip twice
    launched = await session(front, table_id)
    opened_round = await betting_round(front.studio, table_id)
    slip = {
        "round_id": opened_round["round_id"],
        "bets": [{"bet_type": "player_a", "stake": 1000}],
    }
    headers = {
        "Authorization": f"Session {launched['session_token']}",
        "Idempotency-Key": str(uuid.uuid4()),
    }
    for _ in range(50):  # the round may not have reached the wallet yet
        first = await http.post(f"{url}/api/wallet/bets", headers=headers, json=slip)
        if first.status_code != 404:
            break
        await asyncio.sleep(0.1)
    again = await http.post(f"{url}/api/wallet/bets", headers=headers, json=slip)
    assert first.status_code == 201, first.text
    assert again.json()["slip_id"] == first.json()["slip_id"]
    await front.studio.close_table(table_id)


async def test_a_body_over_64_kib_is_refused(front: Front) -> None:
    answer = await front.http.post(
        f"{front.url}/api/table/tables",
        headers={**SUPERVISOR, "Content-Type": "application/json"},
        content=b'{"name": "' + b"x" * (64 * 1024) + b'"}',
    )
    problem(answer, 413, "payload_too_large")


async def test_an_unknown_service_is_a_404(front: Front) -> None:
    problem(await front.http.get(f"{front.url}/api/kitchen/tables"), 404, "unknown_service")


async def test_a_percent_encoded_service_name_reaches_that_service_s_path(front: Front) -> None:
    # `/api/%74able/tables` is the table service's `/tables`, not a path cut at a length
    answer = await front.http.get(f"{front.url}/api/%74able/tables", headers=SUPERVISOR)
    assert answer.status_code == 200, answer.text
    assert "tables" in answer.json()


# ---------------------------------------------------------------------------- the player's
async def test_the_player_sees_its_own_table_without_the_supervisors_names(
    front: Front,
) -> None:
    ours, other = table(), table()
    await front.studio.open_table(ours, betting_seconds=30)
    await front.studio.open_table(other, betting_seconds=30)
    launched = await session(front, ours)
    await front.studio.next_round(ours)
    paused = await front.studio.command(ours, "pause", "dealer change, Alice to Bob")
    assert paused.status_code == 200, paused.text
    # the supervisor's own view names who paused and why
    assert paused.json()["round"]["paused_by"] == "supervisor-1"

    async with asyncio.timeout(FEED_SECONDS):  # the live state follows the events closely
        while True:
            seen = await front.http.get(
                f"{front.url}/api/play/table",
                headers={"Authorization": f"Session {launched['session_token']}"},
            )
            assert seen.status_code == 200, seen.text
            view = seen.json()
            if view["round"]["paused"]:
                break
            await asyncio.sleep(0.1)
    assert view["table_id"] == ours
    for hidden in ("paused_by", "pause_reason", "cancelled_by", "cancel_reason"):
        assert hidden not in view["round"]
    assert "pending_change" not in view
    assert "supervisor-1" not in seen.text
    assert "Alice" not in seen.text

    problem(await front.http.get(f"{front.url}/api/play/table"), 401, "invalid_session")
    problem(
        await front.http.get(
            f"{front.url}/api/play/table", headers={"Authorization": "Session not-a-session"}
        ),
        401,
        "invalid_session",
    )
    await front.studio.close_table(ours)
    await front.studio.close_table(other)


async def received(connection: Any, until: str, seconds: float = FEED_SECONDS) -> list[Any]:
    """The feed's messages up to the first of `until`'s type."""
    messages = []
    async with asyncio.timeout(seconds):
        while True:
            message = json.loads(await connection.recv())
            messages.append(message)
            if message["event_type"] == until:
                return messages


def as_player_sees(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            **event,
            "payload": {
                k: v for k, v in event["payload"].items() if k not in HIDDEN_PAYLOAD_FIELDS
            },
        }
        for event in events
        if event["event_type"] in PLAYER_EVENTS
    ]


async def test_the_player_feed_relays_in_order_filtered_and_resumes(front: Front) -> None:
    table_id, studio = table(), front.studio
    await studio.open_table(table_id, betting_seconds=1.5)
    launched = await session(front, table_id)
    token = str(launched["session_token"])
    feed = f"{ws(front.url)}/api/play/feed"

    async with websockets.connect(feed) as connection:
        await connection.send(json.dumps({"session": token, "after": 0}))
        first = await received(connection, "RoundOpened")
        round_id = first[-1]["payload"]["round_id"]
        assert (await studio.command(table_id, "pause", "a card fell")).status_code == 200
        paused = await received(connection, "RoundPaused")
    last_seen = paused[-1]["position"]

    # away: the round resumes and is dealt meanwhile
    assert (await studio.command(table_id, "resume")).status_code == 200
    await studio.wait_for(table_id, "BettingClosed", round_id=round_id)
    await studio.deal(table_id, ["AS", "KS"])
    await studio.scan(table_id, "AS")  # again: the table refuses it, a dealer's business
    await studio.wait_for(table_id, "CardRefused", round_id=round_id)
    await studio.wait_for(table_id, "RoundPaused", after=last_seen, round_id=round_id)
    assert (await studio.command(table_id, "resume")).status_code == 200
    await studio.deal(table_id, ["AC", "KH", "AD", "2D"])
    await studio.wait_for(table_id, "RoundClosed", round_id=round_id)

    async with websockets.connect(feed) as connection:
        await connection.send(json.dumps({"session": token, "after": last_seen}))
        later = await received(connection, "RoundClosed")

    seen = first + paused + later
    positions = [message["position"] for message in seen]
    assert positions == sorted(set(positions)), "in order, nothing twice"
    expected = as_player_sees(await studio.events(table_id))
    upto = [event for event in expected if event["position"] <= positions[-1]]
    assert seen == upto  # the same messages, nothing missing, the hidden fields removed
    types = {message["event_type"] for message in seen}
    assert {"RoundPaused", "CardDealt", "RoundClosed"} <= types
    assert all(not HIDDEN_PAYLOAD_FIELDS & set(m["payload"]) for m in seen)
    sent = [e for e in await studio.events(table_id) if e["position"] <= positions[-1]]
    assert "CardRefused" in {e["event_type"] for e in sent}
    assert "CardRefused" not in types

    # the roadmap of the session's table, as the table answers it
    results = await front.http.get(
        f"{front.url}/api/play/results",
        params={"limit": 5},
        headers={"Authorization": f"Session {token}"},
    )
    assert results.status_code == 200, results.text
    assert results.json()["table_id"] == table_id
    (latest, *_) = results.json()["results"]
    assert latest["round_id"] == round_id
    assert latest["cards"] == ["AS", "KS", "AC", "KH", "AD", "2D"]
    await studio.close_table(table_id)


async def test_the_player_feed_closes_4401_on_a_bad_session(front: Front) -> None:
    async with websockets.connect(f"{ws(front.url)}/api/play/feed") as connection:
        await connection.send(json.dumps({"session": "not-a-session", "after": 0}))
        with pytest.raises(ConnectionClosed):
            async with asyncio.timeout(FEED_SECONDS):
                await connection.recv()
    assert connection.close_code == 4401


async def test_the_player_feed_of_a_table_never_opened_closes_4404(front: Front) -> None:
    launched = await session(front, table())  # the wallet does not know tables
    async with websockets.connect(f"{ws(front.url)}/api/play/feed") as connection:
        await connection.send(json.dumps({"session": launched["session_token"], "after": 0}))
        with pytest.raises(ConnectionClosed):
            async with asyncio.timeout(FEED_SECONDS):
                await connection.recv()
    assert connection.close_code == 4404


async def test_a_bad_first_frame_closes_4400(front: Front) -> None:
    async with websockets.connect(f"{ws(front.url)}/api/play/feed") as connection:
        await connection.send("hello")
        with pytest.raises(ConnectionClosed):
            async with asyncio.timeout(FEED_SECONDS):
                await connection.recv()
    assert connection.close_code == 4400


# ---------------------------------------------------------------------------- the console's
async def test_the_console_feed_relays_everything_with_the_supervisors_key(front: Front) -> None:
    table_id, studio = table(), front.studio
    await studio.open_table(table_id, betting_seconds=30)
    await studio.next_round(table_id)
    assert (await studio.command(table_id, "pause", "checking the shoe")).status_code == 200
    feed = f"{ws(front.url)}/api/console/feed/{table_id}"
    async with websockets.connect(feed) as connection:
        await connection.send(json.dumps({"api_key": "dev-supervisor-key", "after": 0}))
        messages = await received(connection, "RoundPaused")
    assert messages == (await studio.events(table_id))[: len(messages)]
    assert messages[-1]["payload"]["actor"] == "supervisor-1"
    assert messages[-1]["payload"]["reason"] == "checking the shoe"

    for key, code in (("not-a-key", 4401),):
        async with websockets.connect(feed) as connection:
            await connection.send(json.dumps({"api_key": key, "after": 0}))
            with pytest.raises(ConnectionClosed):
                async with asyncio.timeout(FEED_SECONDS):
                    await connection.recv()
        assert connection.close_code == code
    async with websockets.connect(f"{ws(front.url)}/api/console/feed/NOPE") as connection:
        await connection.send(json.dumps({"api_key": "dev-supervisor-key", "after": 0}))
        with pytest.raises(ConnectionClosed):
            async with asyncio.timeout(FEED_SECONDS):
                await connection.recv()
    assert connection.close_code == 4404
    await studio.close_table(table_id)


async def test_the_problems_of_every_service_in_one_answer(front: Front) -> None:
    table_id, studio = table(), front.studio
    await studio.open_table(table_id, betting_seconds=30)
    await studio.next_round(table_id)
    assert (await studio.command(table_id, "pause", "problem for the list")).status_code == 200
    answer = await front.http.get(f"{front.url}/api/console/problems", headers=SUPERVISOR)
    assert answer.status_code == 200, answer.text
    services = answer.json()["services"]
    assert set(services) == {"table", "wallet", "settlement", "scanner"}
    assert all(found["reachable"] for found in services.values())
    assert any(p.get("table_id") == table_id for p in services["table"]["problems"])
    # no key, or a key that may not read problems: the services' own refusal
    problem(await front.http.get(f"{front.url}/api/console/problems"), 401, "missing_api_key")
    problem(
        await front.http.get(f"{front.url}/api/console/problems", headers=VIEWER),
        403,
        "forbidden",
    )
    await studio.close_table(table_id)


# ---------------------------------------------------------------------------- pages, probes
@pytest.mark.parametrize(
    ("path", "framing"),
    [("/", "'none'"), ("/console", "'none'"), ("/play/T1?ticket=x&lang=en", "'self'")],
)
async def test_pages_carry_the_security_headers(front: Front, path: str, framing: str) -> None:
    answer = await front.http.get(f"{front.url}{path}")
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/html")
    policy = answer.headers["content-security-policy"]
    for directive in (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        f"frame-ancestors {framing}",
    ):
        assert directive in policy, policy
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["referrer-policy"] == "no-referrer"


async def test_the_web_front_is_ready_when_the_services_answer(front: Front) -> None:
    answer = await front.http.get(f"{front.url}/ready")
    assert answer.status_code == 200, answer.text
    assert answer.json()["checks"] == dict.fromkeys(
        ("table", "wallet", "settlement", "scanner"), "ok"
    )


async def test_the_demo_opens_a_fresh_session_in_development(front: Front) -> None:
    table_id = table()
    await front.studio.open_table(table_id, betting_seconds=30)
    answer = await front.http.get(f"{front.url}/demo/play", params={"table": table_id})
    assert answer.status_code == 303, answer.text
    launch_url = answer.headers["location"]
    assert launch_url.startswith(f"{front.url}/play/{table_id}?ticket=")
    launched = await front.launch(launch_url)
    assert launched["table_id"] == table_id
    balance = await front.http.get(
        f"{front.url}/api/wallet/me/balance",
        headers={"Authorization": f"Session {launched['session_token']}"},
    )
    assert balance.json()["balance"] >= 1_000_000
    await front.studio.close_table(table_id)


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        (None, "TP_WEB_API_KEY is not set, so its development default is in use"),
        ("dev-web-key", "TP_WEB_API_KEY is set to its development default"),
        ("replace-me-4", "TP_WEB_API_KEY is still the placeholder of deploy/docker/.env.example"),
    ],
)
async def test_the_web_front_refuses_its_development_key_outside_development(
    key: str | None, reason: str
) -> None:
    settings = WebSettings() if key is None else WebSettings(api_key=SecretStr(key))
    app = create_app(settings, InfrastructureSettings(env="production"))
    with pytest.raises(DefaultSecretError) as refused:
        async with app.router.lifespan_context(app):
            pass
    assert refused.value.reasons == [reason]
    assert "dev-web-key" not in str(refused.value)


async def test_the_demo_is_not_found_outside_development() -> None:
    app = create_app(
        WebSettings(api_key=SecretStr("an-own-key")), InfrastructureSettings(env="production")
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://web") as client:
        problem(await client.get("/demo/play"), 404, "not_found")


# ---------------------------------------------------------------------------- the viewer role
async def test_a_viewer_key_reads_and_changes_nothing(front: Front) -> None:
    table_id, http, url = table(), front.http, front.services.table
    await front.studio.open_table(table_id, betting_seconds=30)
    for path in ("/tables", f"/tables/{table_id}", f"/tables/{table_id}/events"):
        read = await http.get(f"{url}{path}", headers=VIEWER)
        assert read.status_code == 200, (path, read.text)
    for action in ("pause", "close", "cancel"):
        refused = await http.post(
            f"{url}/tables/{table_id}/{action}", headers=VIEWER, json={"reason": "no"}
        )
        problem(refused, 403, "forbidden")
    services = front.services
    for method, url, body in (
        ("POST", f"{services.wallet}/players/p-1/deposits", {"transfer_id": str(uuid.uuid4())}),
        ("POST", f"{services.wallet}/bets", {"round_id": f"{table_id}-1", "bets": []}),
        ("POST", f"{services.scanner}/devices", {"device_id": "d-1", "table_id": table_id}),
        (
            "POST",
            f"{services.settlement}/rounds/{table_id}-1/settlement/resolutions",
            {"action": "void", "reason": "no"},
        ),
        ("GET", f"{services.table}/problems", None),
    ):
        headers = {**VIEWER, "Idempotency-Key": str(uuid.uuid4())}
        refused = await http.request(method, url, headers=headers, json=body)
        problem(refused, 403, "forbidden")
    await front.studio.close_table(table_id)


# ------------------------------------------------------- the front's own refusals
async def test_a_key_the_table_refuses_is_the_fronts_fault_not_the_players(front: Front) -> None:
    table_id = table()
    await front.studio.open_table(table_id, betting_seconds=30)
    launched = await session(front, table_id)
    app = create_app(
        WebSettings(
            table_url=front.services.table,
            scanner_url=front.services.scanner,
            wallet_url=front.services.wallet,
            settlement_url=front.services.settlement,
            api_key=SecretStr("a-key-nobody-issued"),
        )
    )
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://web") as web,
    ):
        answer = await web.get(
            "/api/play/table", headers={"Authorization": f"Session {launched['session_token']}"}
        )
    body = problem(answer, 502, "upstream_refused")
    assert body["service"] == "table"
    await front.studio.close_table(table_id)


async def test_a_demo_that_cannot_fund_its_player_says_what_failed(front: Front) -> None:
    table_id = table()
    await front.studio.open_table(table_id, betting_seconds=30)
    # the wallet's address points at the settlement service: it has no balances to read
    app = create_app(
        WebSettings(
            table_url=front.services.table,
            scanner_url=front.services.scanner,
            wallet_url=front.services.settlement,
            settlement_url=front.services.settlement,
        )
    )
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://web") as web,
    ):
        answer = await web.get("/demo/play", params={"table": table_id})
    body = problem(answer, 502, "demo_failed")
    assert "read the balance" in body["detail"]
    await front.studio.close_table(table_id)
