"""Helpers for the tests of the access database's API keys (docs/access.md): the
`teenpatti keys` command, run as an operator of the system would."""

from __future__ import annotations

import asyncio
import io
import json
import os

import httpx
import pytest

from teenpatti import cli


async def keys_cli(
    monkeypatch: pytest.MonkeyPatch, access_database: str, *argv: str
) -> tuple[int, str, str]:
    """`teenpatti keys ARGV...` on the test's access database: its status, stdout, stderr."""
    monkeypatch.setenv("TP_ACCESS_DATABASE", access_database)
    monkeypatch.setenv("TP_ENV", os.environ.get("TP_ENV", "dev"))
    out, err = io.StringIO(), io.StringIO()
    status = await asyncio.to_thread(cli.main, ["keys", *argv], None, out, err)
    return status, out.getvalue(), err.getvalue()


async def issue_key(
    monkeypatch: pytest.MonkeyPatch, access_database: str, holder: str, role: str, *more: str
) -> tuple[str, str]:
    """A new key of the access database: its id and the key."""
    status, out, err = await keys_cli(
        monkeypatch,
        access_database,
        "issue",
        "--holder",
        holder,
        "--role",
        role,
        "--by",
        "tests",
        "--json",
        *more,
    )
    assert status == 0, err
    issued = json.loads(out)
    return issued["key_id"], issued["key"]


async def revoke_key(monkeypatch: pytest.MonkeyPatch, access_database: str, key_id: str) -> None:
    status, out, err = await keys_cli(
        monkeypatch, access_database, "revoke", key_id, "--by", "tests"
    )
    assert status == 0, err
    assert out.startswith(f"revoked {key_id}"), out


async def auth_failures(client: httpx.AsyncClient, reason: str) -> float:
    """`teenpatti_auth_failures_total{reason}` as the service's /metrics shows it."""
    text = (await client.get("/metrics")).text
    for line in text.splitlines():
        if line.startswith(f'teenpatti_auth_failures_total{{reason="{reason}"}}'):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


async def until_refused(
    client: httpx.AsyncClient, path: str, key: str, *, timeout: float = 30.0
) -> httpx.Response:
    """GET `path` with `key` until it is refused (401): a revocation reaches the service
    within its cache's bound; at most `timeout` seconds."""
    async with asyncio.timeout(timeout):
        while True:
            response = await client.get(path, headers={"X-Api-Key": key})
            if response.status_code == 401:
                return response
            assert response.status_code == 200, response.text
            await asyncio.sleep(0.1)
