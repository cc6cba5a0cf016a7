"""The web front's own edges, in-process with the services faked: which paths it forwards, its
limits per client address and per session (429 before any service is asked), and the
client address it passes on (`X-Forwarded-For`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from teenpatti.http import ProblemError
from teenpatti.settings import InfrastructureSettings
from web_service.app import create_app
from web_service.config import WebSettings
from web_service.forwarding import target


@pytest.mark.parametrize(
    ("raw_path", "expected"),
    [
        ("/api/table/tables", ("table", "/tables")),
        ("/api/%74able/tables/T01", ("table", "/tables/T01")),
        ("/api/wallet/me/bets?x", ("wallet", "/me/bets?x")),
        ("/api/table/", ("table", "/")),
        ("/api/table/tables/T%2D01", ("table", "/tables/T%2D01")),  # as sent
    ],
)
def test_what_is_forwarded_goes_as_it_was_sent(raw_path: str, expected: tuple[str, str]) -> None:
    assert target(raw_path) == expected


@pytest.mark.parametrize(
    ("raw_path", "status", "code"),
    [
        ("/api/table%2Ftables", 404, "unknown_service"),
        ("/api/table%2F", 404, "unknown_service"),
        ("/api/table", 404, "unknown_service"),
        ("/api/kitchen/x", 404, "unknown_service"),
        ("/api/table/metrics", 404, "not_found"),
        ("/api/wallet/openapi.json", 404, "not_found"),
        ("/api/settlement/docs", 404, "not_found"),
        ("/api/settlement/docs/oauth2-redirect", 404, "not_found"),
        ("/api/scanner/redoc", 404, "not_found"),
        ("/api/table/ready", 404, "not_found"),
        ("/api/table/%6Detrics", 404, "not_found"),
        ("/api/table//metrics", 404, "not_found"),
        ("/api/table/METRICS", 404, "not_found"),
        ("/api/table/tables%2F..%2Fmetrics", 400, "invalid_path"),
        ("/api/table/tables/%2e%2e/metrics", 400, "invalid_path"),
        ("/api/table/tables/../metrics", 400, "invalid_path"),
        ("/api/table/tables/T01%5Cpause", 400, "invalid_path"),
    ],
)
def test_what_is_not_the_pages_business_is_refused(raw_path: str, status: int, code: str) -> None:
    with pytest.raises(ProblemError) as refused:
        target(raw_path)
    assert (refused.value.status, refused.value.code) == (status, code)


class FakeServices:
    """What the web front sends the services: each request, answered 200 with `answer`."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.answer: dict[str, Any] = {"ok": True}

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return httpx.Response(200, json=self.answer)


@asynccontextmanager
async def front(**settings: Any) -> AsyncIterator[tuple[Any, FakeServices]]:
    app = create_app(WebSettings(**settings), InfrastructureSettings(env="production"))
    services = FakeServices()
    async with app.router.lifespan_context(app):
        await app.state.upstreams.http.aclose()
        app.state.upstreams.http = httpx.AsyncClient(transport=httpx.MockTransport(services))
        yield app, services


def client_at(app: Any, address: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://front")


async def test_a_percent_encoded_slash_answers_a_problem_never_a_500() -> None:
    async with front(api_key="own-key") as (app, services), client_at(app, "198.51.100.7") as c:
        for path in ("/api/table%2Ftables", "/api/table%2F", "/api/table/x%2F..%2Fmetrics"):
            answer = await c.get(path)
            assert answer.status_code in (400, 404), (path, answer.text)
            assert answer.headers["content-type"] == "application/problem+json"
        for path in ("/api/table/metrics", "/api/wallet/docs", "/api/settlement/openapi.json"):
            assert (await c.get(path)).status_code == 404
        assert services.requests == []


async def test_one_address_past_its_burst_gets_429_and_another_is_served() -> None:
    limits = {"rate_limit_address_per_second": 0.001, "rate_limit_address_burst": 5}
    async with (
        front(api_key="own-key", **limits) as (app, services),
        client_at(app, "198.51.100.7") as flooding,
        client_at(app, "198.51.100.8") as other,
    ):
        answers = [await flooding.get("/api/table/tables") for _ in range(8)]
        assert [a.status_code for a in answers] == [200] * 5 + [429] * 3
        refused = answers[-1]
        assert refused.headers["content-type"] == "application/problem+json"
        assert refused.json()["code"] == "rate_limited"
        assert refused.json()["limit"] == "address"
        assert int(refused.headers["Retry-After"]) >= 1
        assert len(services.requests) == 5  # the refused ones reached no service
        assert (await other.get("/api/table/tables")).status_code == 200
        assert (await flooding.get("/health")).status_code == 200  # probes are never limited


async def test_one_session_past_its_burst_gets_429_from_any_address() -> None:
    limits = {"rate_limit_credential_per_second": 0.001, "rate_limit_credential_burst": 3}
    session = {"Authorization": "Session tps_one"}
    async with front(api_key="own-key", **limits) as (app, _):
        statuses = []
        for n in range(5):
            async with client_at(app, f"198.51.100.{n}") as moving:
                statuses.append((await moving.get("/api/wallet/me", headers=session)).status_code)
        assert statuses == [200, 200, 200, 429, 429]
        async with client_at(app, "198.51.100.1") as other:
            answer = await other.get("/api/wallet/me", headers={"Authorization": "Session tps_2"})
            assert answer.status_code == 200


async def test_the_services_are_told_the_client_and_never_what_it_wrote() -> None:
    async with (
        front(api_key="own-key", trusted_proxies="10.0.0.0/8") as (app, services),
        client_at(app, "198.51.100.7") as direct,
        client_at(app, "10.1.2.3") as balancer,
    ):
        await direct.get("/api/table/tables", headers={"X-Forwarded-For": "1.2.3.4"})
        await balancer.get("/api/table/tables", headers={"X-Forwarded-For": "1.2.3.4, 203.0.113.5"})
    assert [r.headers["x-forwarded-for"] for r in services.requests] == [
        "198.51.100.7",
        "203.0.113.5",
    ]


def test_the_limits_are_on_outside_development_and_when_given_in_it() -> None:
    assert WebSettings().rate_limited("production")
    assert not WebSettings().rate_limited("dev")
    assert WebSettings(rate_limit_address_burst=50).rate_limited("dev")
    with pytest.raises(ValueError, match="nonsense"):
        WebSettings(trusted_proxies="10.0.0.0/8,nonsense")
