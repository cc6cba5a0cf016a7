"""The edges every app has in front of its routes (`teenpatti.kernel.edges`): the token
buckets' arithmetic, the 429 and 413 they answer, and the settings that turn them on."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

from teenpatti.kernel.edges import (
    BodyLimitMiddleware,
    BodyTooLargeError,
    Rate,
    RateLimitMiddleware,
    TokenBuckets,
)
from teenpatti.settings import InfrastructureSettings


def test_a_caller_gets_its_burst_then_waits_for_its_rate() -> None:
    buckets = TokenBuckets(Rate(per_second=2.0, burst=3))
    for _ in range(3):
        assert buckets.wait("key-a", now=100.0) == 0
        buckets.take("key-a", now=100.0)
    assert buckets.wait("key-a", now=100.0) == pytest.approx(0.5)
    # another caller is unaffected
    assert buckets.wait("key-b", now=100.0) == 0
    # half a second later one token has come back, and only one
    assert buckets.wait("key-a", now=100.5) == 0
    buckets.take("key-a", now=100.5)
    assert buckets.wait("key-a", now=100.5) == pytest.approx(0.5)
    # never more than the burst, however long it waited
    for _ in range(3):
        buckets.take("key-a", now=1000.0)
    assert buckets.wait("key-a", now=1000.0) > 0


def test_a_rate_of_zero_is_no_limit() -> None:
    buckets = TokenBuckets(Rate(per_second=0, burst=1))
    for _ in range(100):
        assert buckets.wait("key", now=0.0) == 0
        buckets.take("key", now=0.0)
    assert len(buckets) == 0


def test_memory_stays_bounded_under_a_spray_of_callers() -> None:
    buckets = TokenBuckets(Rate(per_second=1.0, burst=1), max_callers=10)
    for n in range(1000):
        buckets.wait(f"address-{n}", now=0.0)
    assert len(buckets) == 10


def _app(middleware: Callable[[Starlette], object]) -> httpx.AsyncClient:
    async def echo(request: Request) -> PlainTextResponse:
        body = await request.body()
        return PlainTextResponse(f"{len(body)}")

    async def problem(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, BodyTooLargeError)
        return JSONResponse({"code": error.code}, status_code=error.status)

    app = Starlette(
        routes=[
            Route("/echo", echo, methods=["GET", "POST"]),
            Route("/health", echo),
            Route("/scans", echo, methods=["POST"]),
        ],
        exception_handlers={BodyTooLargeError: problem},
    )
    wrapped = middleware(app)
    transport = httpx.ASGITransport(app=wrapped, client=("10.0.0.1", 1234))  # type: ignore[arg-type]
    return httpx.AsyncClient(transport=transport, base_url="http://edge")


async def test_429_with_retry_after_per_key_and_others_go_on() -> None:
    client = _app(
        lambda app: RateLimitMiddleware(
            app,
            per_key=Rate(per_second=0.001, burst=2),
            per_address=Rate(per_second=0, burst=1),
            clock=lambda: 0.0,
        )
    )
    async with client:
        answers = [await client.get("/echo", headers={"X-Api-Key": "a"}) for _ in range(4)]
        assert [answer.status_code for answer in answers] == [200, 200, 429, 429]
        refused = answers[2]
        assert refused.headers["Retry-After"] == "1000"
        assert refused.json()["code"] == "rate_limited"
        assert refused.json()["limit"] == "api_key"
        assert refused.headers["content-type"] == "application/problem+json"
        # another key, the probes: unaffected
        assert (await client.get("/echo", headers={"X-Api-Key": "b"})).status_code == 200
        for _ in range(5):
            assert (await client.get("/health", headers={"X-Api-Key": "a"})).status_code == 200


async def test_429_per_address_without_a_key() -> None:
    client = _app(
        lambda app: RateLimitMiddleware(
            app,
            per_key=Rate(per_second=0, burst=1),
            per_address=Rate(per_second=1.0, burst=1),
            clock=lambda: 0.0,
        )
    )
    async with client:
        assert (await client.get("/echo")).status_code == 200
        refused = await client.get("/echo", headers={"Authorization": "Bearer x"})
        assert refused.status_code == 429
        assert refused.json()["limit"] == "address"


async def test_a_refusal_by_one_limit_spends_nothing_from_the_other() -> None:
    clock = [0.0]
    client = _app(
        lambda app: RateLimitMiddleware(
            app,
            per_key=Rate(per_second=1.0, burst=1),
            per_address=Rate(per_second=1.0, burst=3),
            clock=lambda: clock[0],
        )
    )
    async with client:
        assert (await client.get("/echo", headers={"X-Api-Key": "a"})).status_code == 200
        for _ in range(5):  # refused by the key's bucket: the address's keeps its tokens
            assert (await client.get("/echo", headers={"X-Api-Key": "a"})).status_code == 429
        assert (await client.get("/echo", headers={"X-Api-Key": "b"})).status_code == 200
        assert (await client.get("/echo", headers={"X-Api-Key": "c"})).status_code == 200


async def _chunks(size: int) -> AsyncIterator[bytes]:
    for _ in range(size // 1024):
        yield b"x" * 1024


async def test_413_by_content_length_and_as_the_body_arrives() -> None:
    client = _app(lambda app: BodyLimitMiddleware(app, limit=4096, exempt=frozenset({"/scans"})))
    async with client:
        assert (await client.post("/echo", content=b"x" * 4096)).text == "4096"
        declared = await client.post("/echo", content=b"x" * 4097)
        assert declared.status_code == 413
        assert declared.json()["code"] == "payload_too_large"
        assert declared.json()["limit"] == 4096
        # no Content-Length: counted as it arrives
        streamed = await client.post("/echo", content=_chunks(8192))
        assert streamed.status_code == 413
        assert streamed.json() == {"code": "payload_too_large"}
        # a route that bounds its own reading
        assert (await client.post("/scans", content=b"x" * 8192)).text == "8192"


def test_rate_limits_are_on_outside_development_and_when_given_in_it() -> None:
    assert InfrastructureSettings(env="production").rate_limited
    assert not InfrastructureSettings(env="dev").rate_limited
    assert InfrastructureSettings(env="dev", rate_limit_key_burst=5).rate_limited


def test_every_pooled_session_has_its_timeouts() -> None:
    options = InfrastructureSettings(
        env="dev",
        pg_statement_timeout_ms=1500,
        pg_idle_in_transaction_timeout_ms=2500,
        pg_command_timeout_seconds=3.5,
    ).postgres_pool_options()
    assert options == {
        "command_timeout": 3.5,
        "server_settings": {
            "statement_timeout": "1500",
            "idle_in_transaction_session_timeout": "2500",
        },
    }
    assert (
        InfrastructureSettings(env="dev", pg_command_timeout_seconds=0).postgres_pool_options()[
            "command_timeout"
        ]
        is None
    )


def test_redis_commands_and_connections_time_out() -> None:
    url = InfrastructureSettings(
        env="dev", redis_socket_timeout_seconds=2.5, redis_connect_timeout_seconds=1.5
    ).redis_url
    assert "socket_timeout=2.5" in url
    assert "socket_connect_timeout=1.5" in url
