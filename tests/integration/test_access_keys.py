"""The access database's API keys on the real stack (docs/access.md): `teenpatti keys` issues,
lists and revokes them, `teenpatti migrate access` creates their table, and the services
accept them beside the configured keys, with their role and tables."""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import re
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import asyncpg
import httpx
import pytest
from fastapi import FastAPI
from pydantic import SecretStr

from scanner_gateway.app import create_app as create_gateway
from scanner_gateway.config import ScannerSettings
from table_service.app import create_app as create_table_service
from table_service.config import TableSettings
from teenpatti import cli
from teenpatti.access import Authenticator, PostgresKeyLookup, parse_key
from teenpatti.access.holders import ApiKeys
from teenpatti.eventsourcing import AsyncpgEventStore
from teenpatti.http import install_problem_handlers
from teenpatti.kernel.problems import Problem, problems_router
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.simulator import ScannerSecret, enrol_device, gateway_post
from tests.integration.access import issue_key, keys_cli
from tests.integration.services import running, topics_ready
from tests.integration.table.helpers import open_table_as, with_second_supervisor

SUPERVISOR = {"X-Api-Key": "dev-supervisor-key"}


async def test_keys_are_issued_once_listed_without_secrets_and_revoked(
    monkeypatch: pytest.MonkeyPatch, access_database: str, infrastructure: InfrastructureSettings
) -> None:
    status, out, err = await keys_cli(
        monkeypatch,
        access_database,
        "issue",
        "--holder",
        "alice",
        "--role",
        "supervisor",
        "--tables",
        "T01,T02",
        "--expires",
        "30d",
        "--by",
        "root",
    )
    assert status == 0, err
    [key] = re.findall(r"tp_[0-9a-f]{12}_[0-9a-f]{64}", out)  # shown once
    key_id, secret = parse_key(key) or ("", "")
    assert f"key id   {key_id}" in out
    assert "alice (supervisor, tables T01,T02)" in out

    connection = await asyncpg.connect(infrastructure.postgres_dsn(access_database))
    try:
        row = await connection.fetchrow("SELECT * FROM access_keys WHERE key_id = $1", key_id)
        stored = await connection.fetchval("SELECT json_agg(access_keys)::text FROM access_keys")
    finally:
        await connection.close()
    assert row is not None
    assert bytes(row["secret_sha256"]) == hashlib.sha256(secret.encode()).digest()
    assert (row["holder"], row["role"], sorted(row["tables"])) == (
        "alice",
        "supervisor",
        ["T01", "T02"],
    )
    assert row["created_by"] == "root" and row["revoked_at"] is None
    assert abs(row["expires_at"] - row["created_at"] - timedelta(days=30)) < timedelta(seconds=1)
    assert secret not in stored  # only its hash is kept

    operator_id, _ = await issue_key(monkeypatch, access_database, "operator-7", "operator")
    digest_hex = hashlib.sha256(secret.encode()).hexdigest()
    for listing in ("list", "list --json", "list --holder alice"):
        status, out, err = await keys_cli(monkeypatch, access_database, *listing.split())
        assert status == 0, err
        assert key_id in out
        assert (operator_id in out) is ("alice" not in listing)
        assert secret not in out and digest_hex not in out
    status, out, _ = await keys_cli(monkeypatch, access_database, "list", "--json")
    listed = {entry["key_id"]: entry for entry in json.loads(out)}
    assert listed[key_id]["status"] == "active"
    assert listed[key_id]["tables"] == ["T01", "T02"]
    assert listed[operator_id]["tables"] is None
    assert "key" not in listed[key_id] and "secret_sha256" not in listed[key_id]

    status, out, err = await keys_cli(monkeypatch, access_database, "revoke", key_id, "--by", "bob")
    assert (status, out) == (0, f"revoked {key_id} (alice, supervisor)\n"), err
    status, out, _ = await keys_cli(monkeypatch, access_database, "revoke", key_id)
    assert status == 0 and "already revoked" in out and "by bob" in out
    status, out, _ = await keys_cli(monkeypatch, access_database, "list", "--json")
    revoked = {entry["key_id"]: entry for entry in json.loads(out)}[key_id]
    assert (revoked["status"], revoked["revoked_by"]) == ("revoked", "bob")


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        ("issue --holder alice --role root --by x", "invalid choice: 'root'"),
        ("issue --holder a:b --role dealer --by x", "holder 'a:b'"),
        ("issue --holder op --role operator --tables T01 --by x", "every table"),
        ("issue --holder alice --role dealer --tables T 1 --by x", "unrecognized arguments"),
        ("issue --holder alice --role dealer --tables ,, --by x", "no table"),
        ("issue --holder alice --role dealer --expires soon --by x", "expiry 'soon'"),
        ("issue --holder alice --role dealer --expires 400d --by x", "at most 366 days"),
        ("issue --holder alice --role dealer --expires 2000-01-01 --by x", "in the future"),
        ("issue --holder alice --role dealer --by", "expected one argument"),
        ("revoke not-an-id --by x", "'not-an-id' is not a key id"),
        ("revoke 0123456789ab --by x", "no key 0123456789ab"),
        ("list --holder a:b", "'a:b' is not a holder's name"),
    ],
)
async def test_bad_input_gets_a_clear_error_and_changes_nothing(
    monkeypatch: pytest.MonkeyPatch,
    access_database: str,
    infrastructure: InfrastructureSettings,
    argv: str,
    says: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = await keys_cli(monkeypatch, access_database, *argv.split())
    assert status == 2
    assert says in err + capsys.readouterr().err  # argparse's own errors go to sys.stderr
    assert out == ""
    connection = await asyncpg.connect(infrastructure.postgres_dsn(access_database))
    try:
        assert await connection.fetchval("SELECT count(*) FROM access_keys") == 0
    finally:
        await connection.close()


async def test_keys_need_a_migrated_access_database(
    monkeypatch: pytest.MonkeyPatch, database_name: str
) -> None:
    status, _, err = await keys_cli(monkeypatch, database_name, "list")
    assert status == 2
    assert "run `teenpatti migrate access`" in err

    out, err_stream = io.StringIO(), io.StringIO()
    for expected in ("applied access 0002_viewer_role", "up to date"):
        status = await asyncio.to_thread(cli.main, ["migrate", "access"], None, out, err_stream)
        assert status == 0, err_stream.getvalue()
        assert out.getvalue().splitlines()[-1] == f"access: {database_name}: {expected}"
    status, out_text, err_text = await keys_cli(monkeypatch, database_name, "list")
    assert (status, out_text) == (0, "no keys\n"), err_text


async def test_the_table_service_takes_stored_keys_with_their_role_and_tables(
    monkeypatch: pytest.MonkeyPatch,
    settings: InfrastructureSettings,
    database_name: str,
    access_database: str,
) -> None:
    await topics_ready(settings)
    # two supervisors' configured keys: a new table takes both (docs/decisions/0086)
    table_settings = with_second_supervisor(
        TableSettings(
            **{
                **settings.model_dump(),
                "table_database": database_name,
                "access_database": access_database,
            }
        )
    )
    _, supervisor = await issue_key(
        monkeypatch, access_database, "carol", "supervisor", "--tables", "T01"
    )
    _, dealer = await issue_key(monkeypatch, access_database, "dan", "dealer", "--tables", "T01")
    _, operator = await issue_key(monkeypatch, access_database, "operator-7", "operator")
    _, viewer = await issue_key(monkeypatch, access_database, "web", "viewer")
    async with running(create_table_service(table_settings)) as client:
        for table_id in ("T01", "T02"):
            await open_table_as(client, _table_body(table_id))

        closed = await client.post(
            "/tables/T01/close", json={"reason": "end of shift"}, headers={"X-Api-Key": supervisor}
        )
        assert closed.status_code == 200, closed.text
        assert closed.json()["status"] == "closed"
        events = (await client.get("/tables/T01/events", headers={"X-Api-Key": dealer})).json()
        assert events["events"][-1]["payload"]["actor"] == "carol"  # the key's holder

        # a dealer's key cannot command (it may pause a round, decision 0086, but only a
        # supervisor resumes one), an operator's reads every table
        refused = await client.post(
            "/tables/T01/resume", json={"reason": "x"}, headers={"X-Api-Key": dealer}
        )
        assert (refused.status_code, refused.json()["code"]) == (403, "forbidden")
        listed = await client.get("/tables", headers={"X-Api-Key": operator})
        assert {t["table_id"] for t in listed.json()["tables"]} == {"T01", "T02"}
        # a scoped key sees only its tables
        listed = await client.get("/tables", headers={"X-Api-Key": dealer})
        assert {t["table_id"] for t in listed.json()["tables"]} == {"T01"}
        # a viewer's key (the web front's) reads every table and commands none
        listed = await client.get("/tables", headers={"X-Api-Key": viewer})
        assert {t["table_id"] for t in listed.json()["tables"]} == {"T01", "T02"}
        refused = await client.post(
            "/tables/T02/pause", json={"reason": "x"}, headers={"X-Api-Key": viewer}
        )
        assert (refused.status_code, refused.json()["code"]) == (403, "forbidden")


async def test_the_gateway_keeps_a_scoped_supervisor_to_the_devices_of_its_tables(
    monkeypatch: pytest.MonkeyPatch,
    settings: InfrastructureSettings,
    database_name: str,
    access_database: str,
) -> None:
    await topics_ready(settings)
    gateway_settings = ScannerSettings(
        **{
            **settings.model_dump(),
            "api_keys": SecretStr(
                "sup-1:supervisor:test-supervisor-key,sup-2:supervisor:test-supervisor-2-key"
            ),
            "scanner_database": database_name,
            "access_database": access_database,
        }
    )
    configured = {"X-Api-Key": "test-supervisor-key"}
    _, scoped = await issue_key(
        monkeypatch, access_database, "erin", "supervisor", "--tables", "T01"
    )
    async with running(create_gateway(gateway_settings)) as client:
        post = gateway_post(client)
        # a device takes two supervisors (docs/decisions/0085): one proposes, another approves
        for device_id, table_id, proposer in (("d-1", "T01", scoped), ("d-2", "T02", None)):
            keys = (proposer or "test-supervisor-key", "test-supervisor-2-key")
            approved = await enrol_device(post, device_id, table_id, ScannerSecret(), keys=keys)
            assert approved.status_code == 200, approved.text
        waiting = await post(
            "/devices/d-2/rotate", "test-supervisor-key", {"credential_hash": "ab" * 32}
        )
        assert waiting.status_code == 202, waiting.text
        change = waiting.json()["change_id"]

        as_scoped = {"X-Api-Key": scoped}
        hashed = {"credential_hash": "cd" * 32}
        for path, body in (
            ("/devices", {"device_id": "d-3", "table_id": "T02", **hashed}),
            ("/devices", {"device_id": "d-2", "table_id": "T01", **hashed}),  # a move: T02 too
            ("/devices/d-2/rotate", hashed),
            ("/devices/d-2/revoke", {"reason": "x"}),
            (f"/devices/changes/{change}/approve", {"fingerprint": "abab-abab-abab-abab"}),
            (f"/devices/changes/{change}/reject", {"reason": "x"}),
        ):
            response = await client.post(path, json=body, headers=as_scoped)
            assert (response.status_code, response.json()["code"]) == (403, "table_not_in_scope")

        listed = await client.get("/devices", headers={"X-Api-Key": scoped})
        assert [d["device_id"] for d in listed.json()] == ["d-1"]
        changes = await client.get("/devices/changes", headers={"X-Api-Key": scoped})
        assert changes.json() == []  # T02's rotation is not theirs to see
        everything = await client.get("/devices", headers=configured)
        devices = {d["device_id"]: d for d in everything.json()}
        assert set(devices) == {"d-1", "d-2"}  # d-3 was never registered
        assert devices["d-2"]["table_id"] == "T02"  # not moved, not revoked
        assert devices["d-2"].get("active", True) is True


def _table_body(table_id: str) -> dict[str, object]:
    bets = ("player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus")
    return {
        "table_id": table_id,
        "name": f"Table {table_id}",
        "betting_seconds": 30,
        "result_pause_seconds": 1,
        "limits": {"EUR": {bet: {"min": 100, "max": 10_000} for bet in bets}},
    }


async def test_problems_show_a_scoped_supervisor_only_its_tables(
    monkeypatch: pytest.MonkeyPatch,
    access_database: str,
    infrastructure: InfrastructureSettings,
    store: AsyncpgEventStore,
) -> None:
    since = datetime.now(UTC)

    async def held(pool: asyncpg.Pool, limit: int) -> list[Problem]:
        return [
            Problem(kind="held_settlement", detail="held", since=since, table_id=table_id)
            for table_id in ("T01", "T02", None)
        ]

    app = FastAPI()
    install_problem_handlers(app)
    app.include_router(problems_router("test"))
    app.state.kernel = SimpleNamespace(pool=store.pool)
    app.state.problem_sources = {"held_settlement": held}
    app.state.authenticator = Authenticator(
        ApiKeys("supervisor-1:supervisor:configured-key"),
        PostgresKeyLookup(infrastructure.postgres_dsn(access_database)),
        cache_seconds=0,
    )
    _, scoped = await issue_key(
        monkeypatch, access_database, "gina", "supervisor", "--tables", "T01"
    )
    try:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://service"
        ) as client:
            seen = {
                name: [p["table_id"] for p in response.json()["items"]]
                for name, response in (
                    ("scoped", await client.get("/problems", headers={"X-Api-Key": scoped})),
                    ("all", await client.get("/problems", headers={"X-Api-Key": "configured-key"})),
                )
            }
    finally:
        await app.state.authenticator.close()
    assert sorted(seen["all"], key=str) == sorted(["T01", "T02", None], key=str)
    assert sorted(seen["scoped"], key=str) == sorted(["T01", None], key=str)


async def test_an_unreadable_access_database_refuses_its_keys_and_not_the_configured_ones(
    settings: InfrastructureSettings, database_name: str
) -> None:
    await topics_ready(settings)
    table_settings = TableSettings(
        **{
            **settings.model_dump(),
            "table_database": database_name,
            "access_database": "test_access_that_does_not_exist",
        }
    )
    made_up = "tp_0123456789ab_" + "0" * 64
    async with running(create_table_service(table_settings)) as client:
        refused = await client.get("/tables", headers={"X-Api-Key": made_up})
        configured = await client.get("/tables", headers=SUPERVISOR)
    assert (refused.status_code, refused.json()["code"]) == (503, "service_unavailable")
    assert refused.headers["Retry-After"] == "1"
    assert configured.status_code == 200  # the service itself started and answers
