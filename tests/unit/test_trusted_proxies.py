"""Who a request comes from (`teenpatti.kernel.proxies`): `X-Forwarded-For` believed only
from a trusted proxy, read from the right; and the limiter counting a proxy's callers, not
the proxy (`teenpatti.kernel.edges.RateLimitMiddleware`)."""

from __future__ import annotations

import httpx
import pytest
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.types import Scope

from teenpatti.kernel.edges import Rate, RateLimitMiddleware
from teenpatti.kernel.proxies import ClientAddress, TrustedProxies, client_address
from teenpatti.settings import InfrastructureSettings

PROXIES = TrustedProxies.parse("10.0.0.0/8, 192.0.2.7")


def scope(peer: str, *forwarded: str) -> Scope:
    headers = [(b"x-forwarded-for", value.encode()) for value in forwarded]
    return {"type": "http", "client": (peer, 4711), "headers": headers}


def test_without_a_trusted_peer_the_address_is_the_peer_whatever_the_header_says() -> None:
    assert client_address(scope("203.0.113.9", "198.51.100.1"), PROXIES) == ClientAddress(
        "203.0.113.9"
    )
    # no proxy trusted at all (the default)
    assert client_address(scope("10.0.0.5", "198.51.100.1"), TrustedProxies()) == ClientAddress(
        "10.0.0.5"
    )


def test_from_a_trusted_peer_the_right_most_untrusted_entry_is_the_client() -> None:
    # the caller wrote 1.1.1.1 itself; the balancer (10.0.0.2) appended what it saw
    found = client_address(scope("10.0.0.5", "1.1.1.1, 198.51.100.1, 10.0.0.2"), PROXIES)
    assert found == ClientAddress("198.51.100.1", forwarded=True)
    # several headers are one list, in order
    found = client_address(scope("192.0.2.7", "1.1.1.1", "198.51.100.2"), PROXIES)
    assert found == ClientAddress("198.51.100.2", forwarded=True)
    # a trusted peer that names no one: the peer
    assert client_address(scope("10.0.0.5"), PROXIES) == ClientAddress("10.0.0.5")


def test_ports_spellings_and_garbage_in_the_header() -> None:
    found = client_address(scope("10.0.0.5", "[2001:DB8::1]:443"), PROXIES)
    assert found == ClientAddress("2001:db8::1", forwarded=True)
    assert client_address(scope("10.0.0.5", "198.51.100.1:8080"), PROXIES).address == (
        "198.51.100.1"
    )
    # not an address: the walk stops at the last address a trusted proxy gave
    found = client_address(scope("10.0.0.5", "198.51.100.1, unknown"), PROXIES)
    assert found == ClientAddress("10.0.0.5")
    found = client_address(scope("10.0.0.5", "garbage, 10.0.0.9"), PROXIES)
    assert found == ClientAddress("10.0.0.9", forwarded=True)


def test_an_ipv6_caller_counts_by_its_64() -> None:
    assert ClientAddress("2001:db8:1:2:aaaa::1").caller == "2001:db8:1:2::/64"
    assert ClientAddress("2001:db8:1:2:bbbb::7").caller == "2001:db8:1:2::/64"
    assert ClientAddress("198.51.100.1").caller == "198.51.100.1"
    assert ClientAddress("::ffff:198.51.100.1").caller == "::ffff:198.51.100.1"


def test_a_bad_trusted_proxy_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"'10\.0\.0\.300'"):
        TrustedProxies.parse("10.0.0.0/8,10.0.0.300")
    with pytest.raises(ValidationError, match="trusted_proxies"):
        InfrastructureSettings(trusted_proxies="10.0.0.0/8, nonsense")
    assert InfrastructureSettings(trusted_proxies="10.0.0.0/8, ::1").trusted_proxies


def _limited(per_key: Rate, per_address: Rate, peer: str) -> httpx.AsyncClient:
    async def ok(request: Request) -> PlainTextResponse:
        return PlainTextResponse("ok")

    app = RateLimitMiddleware(
        Starlette(routes=[Route("/read", ok)]),
        per_key=per_key,
        per_address=per_address,
        trusted_proxies=TrustedProxies.parse("10.0.0.0/8"),
        clock=lambda: 0.0,
    )
    transport = httpx.ASGITransport(app=app, client=(peer, 1234))  # type: ignore[arg-type]
    return httpx.AsyncClient(transport=transport, base_url="http://service")


async def test_behind_a_trusted_proxy_each_client_has_its_own_address_bucket() -> None:
    no_refill = Rate(per_second=0.001, burst=2)
    async with _limited(Rate(per_second=0, burst=1), no_refill, peer="10.0.0.5") as front:
        flood = [
            (await front.get("/read", headers={"X-Forwarded-For": "198.51.100.1"})).status_code
            for _ in range(4)
        ]
        assert flood == [200, 200, 429, 429]
        other = await front.get("/read", headers={"X-Forwarded-For": "198.51.100.2"})
        assert other.status_code == 200
    # a caller that is no trusted proxy cannot pick its own bucket with the header
    async with _limited(Rate(per_second=0, burst=1), no_refill, peer="203.0.113.9") as direct:
        answers = [
            (await direct.get("/read", headers={"X-Forwarded-For": f"198.51.100.{n}"})).status_code
            for n in range(4)
        ]
        assert answers == [200, 200, 429, 429]


async def test_a_proxy_s_one_key_is_counted_per_client_not_as_one_bucket() -> None:
    viewer = {"X-Api-Key": "the-web-front-s-viewer-key"}
    limits = (Rate(per_second=0.001, burst=2), Rate(per_second=0, burst=1))
    async with _limited(*limits, peer="10.0.0.5") as front:
        one = {**viewer, "X-Forwarded-For": "198.51.100.1"}
        answers = [(await front.get("/read", headers=one)).status_code for _ in range(3)]
        assert answers == [200, 200, 429]
        assert (await front.get("/read", headers=one)).json()["limit"] == "api_key"
        two = {**viewer, "X-Forwarded-For": "198.51.100.2"}
        assert (await front.get("/read", headers=two)).status_code == 200
    # the same key straight from its holder: one bucket, wherever it comes from
    async with _limited(*limits, peer="203.0.113.9") as direct:
        answers = [
            (
                await direct.get("/read", headers={**viewer, "X-Forwarded-For": f"1.1.1.{n}"})
            ).status_code
            for n in range(3)
        ]
        assert answers == [200, 200, 429]
