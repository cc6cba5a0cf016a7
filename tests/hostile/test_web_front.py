"""Hostile callers of the web front (issue 33), against the four services and the web front as
processes on the real stack, with the services' limits on (production's bursts, refilled too
slowly to matter within a test, so that no outcome depends on the machine's speed): a flood
from one address, a player draining the web front's one key, calls to what the services
keep for themselves. Each caller comes from its own loopback address (127.0.0.x), as
separate machines would, so the limits see who is who. Each fails on the web front without
its own limits, the client address passed on and its refusals (issue 33's findings).

The services believe the web front's `X-Forwarded-For` (`TP_TRUSTED_PROXIES` names it), and
uvicorn's own reading of that header is off (`FORWARDED_ALLOW_IPS`): the processes see their
peers as they would in separate containers."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.devrun import endpoints, free_base_port, isolated_system

from ..browser.system import API_KEYS, Front
from ..e2e.driver import Studio
from ..e2e.test_rounds import betting_round

pytestmark = pytest.mark.integration

# the driver (tables, rounds, sessions) calls the services from here, not from the web
# front's address
DRIVER = "127.0.0.2"
WEB_FRONT = "127.0.0.1"
# the services believe the web front; uvicorn believes no one; the web front's own limits
PROXIES_AND_FRONT = {
    "TP_TRUSTED_PROXIES": WEB_FRONT,
    "FORWARDED_ALLOW_IPS": "",
    "TP_WEB_RATE_LIMIT_ADDRESS_PER_SECOND": "50",
    "TP_WEB_RATE_LIMIT_ADDRESS_BURST": "200",
    "TP_WEB_RATE_LIMIT_CREDENTIAL_PER_SECOND": "10",
    "TP_WEB_RATE_LIMIT_CREDENTIAL_BURST": "50",
}
# a client address's bucket at a service as in production (2,000), refilled too slowly to
# matter within a test: the outcome does not depend on how fast the machine is
ADDRESS_LIMITS = {
    **PROXIES_AND_FRONT,
    "TP_RATE_LIMIT_ADDRESS_PER_SECOND": "0.01",
    "TP_RATE_LIMIT_ADDRESS_BURST": "2000",
}
# a key's bucket of 1,000, as slow to refill; addresses unbounded for the purpose
KEY_LIMITS = {
    **PROXIES_AND_FRONT,
    "TP_RATE_LIMIT_KEY_PER_SECOND": "0.01",
    "TP_RATE_LIMIT_KEY_BURST": "1000",
    "TP_RATE_LIMIT_ADDRESS_PER_SECOND": "1000",
    "TP_RATE_LIMIT_ADDRESS_BURST": "100000",
}
AT_ONCE = 32


def client_at(address: str) -> httpx.AsyncClient:
    """A client whose connections leave from `address` (any of 127.0.0.0/8)."""
    return httpx.AsyncClient(timeout=30, transport=httpx.AsyncHTTPTransport(local_address=address))


@asynccontextmanager
async def running(
    infrastructure: InfrastructureSettings, limits: dict[str, str]
) -> AsyncIterator[Front]:
    """The four services and the web front as processes with `limits`; the driver at
    `DRIVER`."""
    async with (
        isolated_system(
            infrastructure,
            label="hostileweb",
            base_port=free_base_port(),
            extra_env={"TP_API_KEYS": API_KEYS, **limits},
            web=True,
        ) as system,
        client_at(DRIVER) as http,
    ):
        assert system.web is not None
        services = endpoints(system.processes.services)
        # the driver's requests leave from their own address
        studio = Studio(services, transport=httpx.AsyncHTTPTransport(local_address=DRIVER))
        try:
            yield Front(system.web.url, studio, services, system, http)
        finally:
            await studio.close()


@pytest.fixture(scope="module")
async def front(infrastructure: InfrastructureSettings) -> AsyncIterator[Front]:
    async with running(infrastructure, ADDRESS_LIMITS) as started:
        yield started


async def flood(
    client: httpx.AsyncClient, n: int, method: str, url: str, **options: Any
) -> tuple[Counter[int], httpx.Response | None]:
    """`n` requests, `AT_ONCE` at a time: how many got each status, and the last refusal."""
    statuses: Counter[int] = Counter()
    refused = None
    for start in range(0, n, AT_ONCE):
        answers = await asyncio.gather(
            *(client.request(method, url, **options) for _ in range(min(AT_ONCE, n - start)))
        )
        statuses.update(answer.status_code for answer in answers)
        refused = next((a for a in answers if a.status_code == 429), refused)
    return statuses, refused


def assert_the_web_front_refused(refused: httpx.Response | None) -> None:
    """A 429 of the web front's own: a problem, with Retry-After, for an address or a
    session."""
    assert refused is not None
    assert refused.headers["content-type"] == "application/problem+json"
    assert refused.json()["code"] == "rate_limited"
    assert refused.json()["instance"].startswith("/api/")  # its path, not a service's
    assert int(refused.headers["Retry-After"]) >= 1


async def player(front: Front, table_id: str) -> dict[str, str]:
    """A new player's session at `table_id`, launched: its `Authorization` header."""
    launch_url = await front.open_session(
        "operator-2", f"p-{uuid.uuid4().hex[:8]}", "INR", table_id
    )
    launched = await front.launch(launch_url)
    return {"Authorization": f"Session {launched['session_token']}"}


def new_table() -> str:
    return f"H{uuid.uuid4().hex[:6].upper()}"


async def test_one_player_cannot_drain_the_web_front_s_key_for_the_others(
    infrastructure: InfrastructureSettings,
) -> None:
    async with running(infrastructure, KEY_LIMITS) as front:
        table_id = new_table()
        await front.studio.open_table(table_id, betting_seconds=120)
        # one player with two sessions reads its table as fast as it can: every read is the
        # web front's one viewer key at the table service, 1,200 of them against its 1,000
        sessions = [await player(front, table_id) for _ in range(2)]
        async with client_at("127.0.0.9") as greedy:
            for session in sessions:
                _, refused = await flood(
                    greedy, 600, "GET", f"{front.url}/api/play/table", headers=session
                )

        other = await player(front, table_id)
        async with client_at("127.0.0.10") as reading:
            table = await reading.get(f"{front.url}/api/play/table", headers=other)
            results = await reading.get(f"{front.url}/api/play/results", headers=other)
        assert table.status_code == 200, table.text
        assert table.json()["table_id"] == table_id
        assert results.status_code == 200, results.text
        assert_the_web_front_refused(refused)
        await front.studio.close_table(table_id)


async def test_a_flood_from_one_address_leaves_the_other_players_betting(front: Front) -> None:
    table_id = new_table()
    await front.studio.open_table(table_id, betting_seconds=120)
    session = await player(front, table_id)
    opened = await betting_round(front.studio, table_id)

    # 3,000 junk requests from one address: more than a service's whole burst per address
    async with client_at("127.0.0.7") as flooding:
        statuses, refused = await flood(flooding, 3000, "GET", f"{front.url}/api/wallet/me")
    assert set(statuses) <= {401, 429}, statuses

    # another player, at another address, through the same web front: its slip is taken
    slip = {"round_id": opened["round_id"], "bets": [{"bet_type": "player_a", "stake": 1000}]}
    headers = {**session, "Idempotency-Key": str(uuid.uuid4())}
    async with client_at("127.0.0.8") as other:
        for _ in range(50):  # the round may not have reached the wallet yet
            placed = await other.post(f"{front.url}/api/wallet/bets", headers=headers, json=slip)
            if placed.status_code != 404:
                break
            await asyncio.sleep(0.1)
    assert placed.status_code == 201, placed.text
    assert_the_web_front_refused(refused)  # most of the flood never reached the wallet
    await front.studio.close_table(table_id)


@pytest.mark.parametrize(
    "path",
    [
        "/api/table/metrics",
        "/api/wallet/metrics",
        "/api/settlement/docs",
        "/api/scanner/redoc",
        "/api/table/openapi.json",
        "/api/wallet/%6Fpenapi.json",
        "/api/table/ready",
    ],
)
async def test_what_the_services_keep_for_themselves_is_not_passed_on(
    front: Front, path: str
) -> None:
    async with client_at("127.0.0.11") as prying:
        answer = await prying.get(f"{front.url}{path}")
    assert answer.status_code == 404, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json()["code"] == "not_found"
    assert answer.json()["instance"].startswith("/api/")  # the web front's, not the service's
    assert "# HELP" not in answer.text and '"paths"' not in answer.text


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/api/table%2Ftables", 404, "unknown_service"),
        ("/api/table%2F", 404, "unknown_service"),
        ("/api/table%2fmetrics", 404, "unknown_service"),
        ("/api/table/tables%2F..%2Fmetrics", 400, "invalid_path"),
        ("/api/table/tables/%2e%2e/metrics", 400, "invalid_path"),
    ],
)
async def test_an_encoded_slash_or_dot_segment_is_refused_never_a_500_nor_passed_on(
    front: Front, path: str, status: int, code: str
) -> None:
    async with client_at("127.0.0.11") as prying:
        answer = await prying.get(f"{front.url}{path}", headers={"X-Api-Key": "dev-supervisor-key"})
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json()["code"] == code
    assert answer.json()["instance"].startswith("/api/")  # the web front's answer
