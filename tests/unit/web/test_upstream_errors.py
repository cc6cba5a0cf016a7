"""The web front's own refusals when a service is not there: 502 `upstream_unavailable`
naming the service, 503 `not_ready` from `/ready` naming each one down, 503 while the front
is starting or stopping. The services are a real closed port: nothing answers there."""

from __future__ import annotations

import socket

from fastapi.testclient import TestClient

from web_service.app import create_app
from web_service.config import WebSettings


def closed_port() -> int:
    """A port nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def settings_without_services() -> WebSettings:
    down = f"http://127.0.0.1:{closed_port()}"
    return WebSettings(
        table_url=down,
        scanner_url=down,
        wallet_url=down,
        settlement_url=down,
        upstream_timeout_seconds=2.0,
    )


def test_a_service_that_cannot_be_reached_is_named_in_a_502() -> None:
    with TestClient(create_app(settings_without_services())) as client:
        answer = client.get("/api/wallet/players/p1/balances", headers={"X-Api-Key": "k"})
    assert answer.status_code == 502, answer.text
    body = answer.json()
    assert (body["code"], body["service"]) == ("upstream_unavailable", "wallet")
    assert answer.headers["content-type"].startswith("application/problem+json")


def test_ready_is_503_and_names_every_service_down() -> None:
    with TestClient(create_app(settings_without_services())) as client:
        answer = client.get("/ready")
    assert answer.status_code == 503, answer.text
    body = answer.json()
    assert body["code"] == "not_ready"
    assert set(body["checks"]) == {"table", "wallet", "settlement", "scanner"}
    assert all(value.startswith("unreachable") for value in body["checks"].values())


def test_before_its_start_the_front_answers_503() -> None:
    client = TestClient(create_app(settings_without_services()))  # no lifespan: not started
    assert client.get("/ready").json()["code"] == "not_ready"
    forwarded = client.get("/api/table/tables/T1", headers={"X-Api-Key": "k"})
    assert (forwarded.status_code, forwarded.json()["code"]) == (503, "service_unavailable")
