"""Hostile insiders with API keys of the access database (docs/access.md), on the real stack:
a supervisor scoped to one table acting on another, a key used again after its revocation
or its expiry, a guessed secret. Each is refused, changes nothing, and is logged (key id and
reason, never the key) and counted (`teenpatti_auth_failures_total{reason}`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import pytest

from table_service.app import create_app
from table_service.config import TableSettings
from teenpatti.access import parse_key
from teenpatti.settings import InfrastructureSettings
from tests.integration.access import (
    auth_failures,
    issue_key,
    revoke_key,
    until_refused,
)
from tests.integration.services import running, topics_ready
from tests.integration.table.helpers import open_table_as, with_second_supervisor

pytestmark = pytest.mark.integration

SUPERVISOR = {"X-Api-Key": "dev-supervisor-key"}  # a configured key: every table
BET_TYPES = ("player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus")


@pytest.fixture
async def table_settings(
    settings: InfrastructureSettings, database_name: str, access_database: str
) -> TableSettings:
    await topics_ready(settings)
    # two supervisors' keys: a new table takes both (docs/decisions/0086)
    return with_second_supervisor(
        TableSettings(
            **{
                **settings.model_dump(),
                "table_database": database_name,
                "access_database": access_database,
                "access_cache_seconds": 1.0,
            }
        )
    )


@pytest.fixture
async def client(table_settings: TableSettings) -> AsyncIterator[httpx.AsyncClient]:
    async with running(create_app(table_settings)) as client:
        for table_id in ("T01", "T02"):
            # a long betting window: nothing but the test's requests changes the tables
            await open_table_as(client, _table(table_id))
        for table_id in ("T01", "T02"):
            await _until_betting(client, table_id)
        yield client


async def _until_betting(client: httpx.AsyncClient, table_id: str) -> None:
    """Until the table's clock has opened its first round (then nothing happens by itself
    for the betting window's 600 s)."""
    async with asyncio.timeout(30):
        while True:
            events = await _stream(client, table_id)
            if any(e["event_type"] == "RoundOpened" for e in events):
                return
            await asyncio.sleep(0.05)


def _table(table_id: str, name: str = "Table") -> dict[str, Any]:
    return {
        "table_id": table_id,
        "name": name,
        "betting_seconds": 600,
        "result_pause_seconds": 1,
        "limits": {"EUR": {bet: {"min": 100, "max": 10_000} for bet in BET_TYPES}},
    }


async def _stream(client: httpx.AsyncClient, table_id: str) -> list[dict[str, Any]]:
    response = await client.get(f"/tables/{table_id}/events", headers=SUPERVISOR)
    assert response.status_code == 200, response.text
    events: list[dict[str, Any]] = response.json()["events"]
    return events


def _refusals(caplog: pytest.LogCaptureFixture, reason: str) -> list[logging.LogRecord]:
    return [
        r
        for r in caplog.records
        if r.levelno == logging.WARNING and f"authentication refused ({reason})" in r.getMessage()
    ]


def _assert_nowhere(caplog: pytest.LogCaptureFixture, key: str) -> None:
    """Neither the key nor its secret in any line captured, message or field."""
    _, secret = parse_key(key) or ("", "")
    for record in caplog.records:
        text = record.getMessage() + repr(vars(record))
        assert key not in text and secret not in text


async def test_a_supervisor_key_scoped_to_t01_cannot_act_on_t02(
    client: httpx.AsyncClient,
    monkeypatch: pytest.MonkeyPatch,
    access_database: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    key_id, key = await issue_key(
        monkeypatch, access_database, "mallory", "supervisor", "--tables", "T01"
    )
    mallory = {"X-Api-Key": key}
    before = await _stream(client, "T02")
    counted = await auth_failures(client, "out_of_scope")

    attempts: list[tuple[str, str, dict[str, Any] | None]] = [
        ("POST", "/tables", _table("T02", name="Mallory's odds")),
        ("POST", "/tables/T02/pause", {"reason": "x"}),
        ("POST", "/tables/T02/resume", None),
        ("POST", "/tables/T02/cancel", {"reason": "x"}),
        ("POST", "/tables/T02/close", {"reason": "x"}),
        ("GET", "/tables/T02", None),
        ("GET", "/tables/T02/events", None),
    ]
    with caplog.at_level(logging.WARNING):
        for method, path, body in attempts:
            response = await client.request(method, path, json=body, headers=mallory)
            assert response.status_code == 403, (path, response.text)
            assert response.json()["code"] == "table_not_in_scope"
            assert "T02" in response.json()["detail"]
        listed = await client.get("/tables", headers=mallory)
    assert [t["table_id"] for t in listed.json()["tables"]] == ["T01"]

    # nothing changed on T02: the same stream, still open, its round still betting
    assert await _stream(client, "T02") == before
    state = (await client.get("/tables/T02", headers=SUPERVISOR)).json()
    assert (state["status"], state["phase"]) == ("open", "betting")
    assert state["config"]["name"] == "Table"

    # every attempt refused, logged with the key id and the table, and counted
    assert await auth_failures(client, "out_of_scope") == counted + len(attempts)
    refused = _refusals(caplog, "out_of_scope")
    assert len(refused) == len(attempts)
    assert all(f"key id {key_id}" in r.getMessage() and "T02" in r.getMessage() for r in refused)
    _assert_nowhere(caplog, key)

    # the key itself works where it may act
    paused = await client.post("/tables/T01/pause", json={"reason": "check"}, headers=mallory)
    assert paused.status_code == 200, paused.text
    assert (await _stream(client, "T01"))[-1]["payload"]["actor"] == "mallory"


async def test_a_revoked_key_used_again_is_refused_without_a_restart(
    client: httpx.AsyncClient,
    monkeypatch: pytest.MonkeyPatch,
    access_database: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    key_id, key = await issue_key(monkeypatch, access_database, "trent", "supervisor")
    trent = {"X-Api-Key": key}
    assert (await client.get("/tables/T01", headers=trent)).status_code == 200
    before = await _stream(client, "T01")

    await revoke_key(monkeypatch, access_database, key_id)
    counted = await auth_failures(client, "revoked")
    with caplog.at_level(logging.WARNING):
        # within TP_ACCESS_CACHE_SECONDS (1 s here) of the revocation, in the same process
        refused = await until_refused(client, "/tables/T01", key)
        assert refused.json()["code"] == "invalid_api_key"
        command = await client.post("/tables/T01/pause", json={"reason": "x"}, headers=trent)
    assert (command.status_code, command.json()["code"]) == (401, "invalid_api_key")
    assert await _stream(client, "T01") == before  # not paused

    assert await auth_failures(client, "revoked") == counted + 2
    lines = _refusals(caplog, "revoked")
    assert len(lines) == 2
    assert all(f"key id {key_id}" in r.getMessage() for r in lines)
    _assert_nowhere(caplog, key)


async def test_an_expired_key_is_refused(
    client: httpx.AsyncClient,
    monkeypatch: pytest.MonkeyPatch,
    access_database: str,
    infrastructure: InfrastructureSettings,
    caplog: pytest.LogCaptureFixture,
) -> None:
    key_id, key = await issue_key(
        monkeypatch, access_database, "peggy", "dealer", "--expires", "30m"
    )
    assert (await client.get("/tables/T01/events", headers={"X-Api-Key": key})).status_code == 200
    # its expiry passes, as time would: moved to just after its creation
    connection = await asyncpg.connect(infrastructure.postgres_dsn(access_database))
    try:
        await connection.execute(
            "UPDATE access_keys SET expires_at = created_at + interval '1 millisecond'"
            " WHERE key_id = $1",
            key_id,
        )
    finally:
        await connection.close()
    counted = await auth_failures(client, "expired")
    with caplog.at_level(logging.WARNING):
        refused = await until_refused(client, "/tables/T01/events", key)
    assert refused.json()["code"] == "invalid_api_key"
    assert await auth_failures(client, "expired") == counted + 1
    [line] = _refusals(caplog, "expired")
    assert f"key id {key_id}" in line.getMessage()
    _assert_nowhere(caplog, key)


async def test_a_guessed_secret_for_a_real_key_id_is_refused_logged_and_counted(
    client: httpx.AsyncClient,
    monkeypatch: pytest.MonkeyPatch,
    access_database: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    key_id, key = await issue_key(monkeypatch, access_database, "victor", "supervisor")
    _, secret = parse_key(key) or ("", "")
    guessed = f"tp_{key_id}_{'0' * 64 if secret != '0' * 64 else '1' * 64}"
    before = await _stream(client, "T01")
    counted = await auth_failures(client, "unknown")
    with caplog.at_level(logging.WARNING):
        response = await client.post(
            "/tables/T01/close", json={"reason": "x"}, headers={"X-Api-Key": guessed}
        )
    assert (response.status_code, response.json()["code"]) == (401, "invalid_api_key")
    assert await _stream(client, "T01") == before
    assert await auth_failures(client, "unknown") == counted + 1
    [line] = _refusals(caplog, "unknown")
    assert f"key id {key_id}" in line.getMessage()
    _assert_nowhere(caplog, key)
    _assert_nowhere(caplog, guessed)
