"""Hostile inputs at the table service's edge: bad table configurations, commands on tables
that do not exist, bad reasons, wrong keys. Each gets its specific problem, the table's
stream does not move, and the table still takes a normal command afterwards."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from table_service.config import TableSettings
from tests.integration.table.helpers import (
    BET_TYPES,
    SUPERVISOR,
    count,
    open_table_as,
    table_body,
    wait_for,
)

from .hostile import connect, problem_mismatch, stored_events
from .report import record

pytestmark = pytest.mark.integration

App = tuple[FastAPI, httpx.AsyncClient]
TABLE = "T1"
LIMIT = {"min": 100, "max": 10_000}


def config(**override: Any) -> dict[str, Any]:
    body = table_body(TABLE, betting_seconds=600, result_pause_seconds=5)
    body.update(override)
    return body


def limits(**per_type: Any) -> dict[str, Any]:
    table = {bet: dict(LIMIT) for bet in BET_TYPES}
    table.update(per_type)
    return {"EUR": table}


Case = tuple[str, str, str, str, Any, dict[str, str] | None, int, str]


def corpus() -> list[Case]:
    """(kind, label, method, url, body (bytes: raw), headers (None: supervisor), status, code)"""
    open_ = "POST", "/tables"
    cases: list[Case] = []

    def add(
        kind: str,
        label: str,
        body: Any,
        status: int,
        code: str,
        *,
        method_url: tuple[str, str] = open_,
        headers: dict[str, str] | None = None,
    ) -> None:
        cases.append((kind, label, *method_url, body, headers, status, code))

    for table_id in (
        "T 1",
        "../T1",
        "T1;DROP TABLE tables",
        "x" * 33,
        "é",
        "-T1",
        "T1\u0000",
        "🂡",
        "T1\n",
    ):
        add("bad table id", repr(table_id), config(table_id=table_id), 422, "invalid_table_id")
    for wrong in ("", "x" * 201, None, 7):
        add("bad table id", repr(wrong), config(table_id=wrong), 422, "invalid_request")
    add("bad name", "blank", config(name="   "), 422, "invalid_name")
    for name in ("", "x" * 101, None, ["Salon"]):
        add("bad name", repr(name), config(name=name), 422, "invalid_request")
    for seconds in (0, -1, 600.001, 1e308, -1e308):
        add(
            "bad timing",
            f"betting {seconds}",
            config(betting_seconds=seconds),
            422,
            "invalid_timing",
        )
    for seconds in (-0.001, 601, 1e308):
        add(
            "bad timing",
            f"result pause {seconds}",
            config(result_pause_seconds=seconds),
            422,
            "invalid_timing",
        )
    for label, literal in (("NaN", b"NaN"), ("Infinity", b"Infinity"), ("-Infinity", b"-Infinity")):
        raw = json.dumps(config(betting_seconds=999)).replace("999", literal.decode()).encode()
        add("bad timing", f"betting {label}", raw, 422, "invalid_timing")
    for value in ("fifteen", None, [15], {"s": 15}):
        add(
            "bad timing",
            f"betting {value!r}",
            config(betting_seconds=value),
            422,
            "invalid_request",
        )
    add("bad limits", "no currency", config(limits={}), 422, "invalid_limits")
    add("bad limits", "a list", config(limits=[]), 422, "invalid_request")
    add(
        "bad limits",
        "a currency that is not an object",
        config(limits={"EUR": 5}),
        422,
        "invalid_limits",
    )
    for currency in ("eur", "EURO", "E", "", "€€€", "EU\u0000", "EUR\n"):
        add(
            "unknown currency",
            repr(currency),
            config(limits={currency: limits()["EUR"]}),
            422,
            "invalid_currency",
        )
    for bet_type in ("banker", "PLAYER_A", "", "tie\u0000"):
        add(
            "unknown bet type",
            repr(bet_type),
            config(limits=limits(**{bet_type: LIMIT})),
            422,
            "unknown_bet_type",
        )
    missing = {bet: LIMIT for bet in BET_TYPES if bet != "tie"}
    add("bad limits", "tie not priced", config(limits={"EUR": missing}), 422, "bet_type_not_priced")
    for label, limit in (
        ("min 0", {"min": 0, "max": 100}),
        ("min -1", {"min": -1, "max": 100}),
        ("min 1.5", {"min": 1.5, "max": 100}),
        ("min 100.0", {"min": 100.0, "max": 1000}),
        ("min '100'", {"min": "100", "max": 1000}),
        ("min true", {"min": True, "max": 1000}),
        ("max null", {"min": 100, "max": None}),
        ("no max", {"min": 100}),
        ("an extra key", {"min": 100, "max": 1000, "step": 5}),
        ("a list", [100, 1000]),
    ):
        add("bad stake limits", label, config(limits=limits(tie=limit)), 422, "invalid_stake_limit")
    add(
        "bad stake limits",
        "min above max",
        config(limits=limits(tie={"min": 500, "max": 100})),
        422,
        "min_above_max",
    )
    for label, paytable in (("empty", {}), ("unknown keys", {"x": 1}), ("a string", "generous")):
        status, code = (
            (422, "invalid_paytable") if isinstance(paytable, dict) else (422, "invalid_request")
        )
        add("bad pay table", label, config(paytable=paytable), status, code)
    add(
        "bad pay table",
        "an unknown field in the body",
        {**config(), "rtp": 2.0},
        422,
        "invalid_request",
    )
    for label, raw in (
        ("empty", b""),
        ("truncated", b'{"table_id": "T1", '),
        ("JSON null", b"null"),
        ("JSON array", b"[]"),
        ("invalid UTF-8", b'{"table_id": "\xff"}'),
        ("deeply nested", b"[" * 30_000 + b"]" * 30_000),  # 60 kB: under the body limit
    ):
        add(
            "malformed or oversized body",
            label,
            raw,
            400 if label in ("invalid UTF-8", "deeply nested") else 422,
            "invalid_request",
        )
    # over the kernel's body limit (TP_HTTP_MAX_BODY_BYTES, 64 KiB), refused as it arrives
    for label, raw in (
        ("deeply nested, 200 kB", b"[" * 100_000 + b"]" * 100_000),
        ("2 MB name", json.dumps(config(name="x" * 2_000_000)).encode()),
    ):
        add("malformed or oversized body", label, raw, 413, "payload_too_large")

    reason = {"reason": "hostile"}
    for table_id in ("T404", "T1%00", "x" * 300, "T1%20", "%C3%A9", "..%2FT1"):
        # "../T1" is no route at all (the router's `not_found`)
        code = "not_found" if "%2F" in table_id else "unknown_table"
        for command in ("pause", "resume", "cancel", "close"):
            add(
                "unknown table",
                f"{command} {table_id}",
                reason,
                404,
                code,
                method_url=("POST", f"/tables/{table_id}/{command}"),
            )
        add(
            "unknown table",
            f"read {table_id}",
            None,
            404,
            code,
            method_url=("GET", f"/tables/{table_id}"),
        )
        add(
            "unknown table",
            f"events of {table_id}",
            None,
            404,
            code,
            method_url=("GET", f"/tables/{table_id}/events"),
        )
    for label, body in (
        ("no reason", {}),
        ("empty reason", {"reason": ""}),
        ("reason of 501 characters", {"reason": "x" * 501}),
        ("reason is a number", {"reason": 5}),
        ("an unknown field", {"reason": "x", "actor": "system"}),
    ):
        add(
            "bad command body",
            label,
            body,
            422,
            "invalid_request",
            method_url=("POST", f"/tables/{TABLE}/pause"),
        )
    add(
        "bad command body",
        "reason with NUL",
        {"reason": "camera\u0000"},
        422,
        "invalid_text",
        method_url=("POST", f"/tables/{TABLE}/pause"),
    )
    add(
        "command out of turn",
        "resume a round that is not paused",
        {},
        409,
        "nothing_to_resume",
        method_url=("POST", f"/tables/{TABLE}/resume"),
    )
    for label, query in (
        ("after -1", "after=-1"),
        ("after 2^31", "after=2147483648"),
        ("after 10^30", "after=1000000000000000000000000000000"),
        ("after 1.5", "after=1.5"),
        ("limit 0", "limit=0"),
        ("limit 1001", "limit=1001"),
    ):
        add(
            "bad query",
            label,
            None,
            422,
            "invalid_request",
            method_url=("GET", f"/tables/{TABLE}/events?{query}"),
        )
    for label, headers, status, code in (
        ("an operator's key", {"X-Api-Key": "dev-operator-1-key"}, 403, "forbidden"),
        ("a dealer's key", {"X-Api-Key": "dev-dealer-key"}, 403, "forbidden"),
        ("a forged key", {"X-Api-Key": "dev-supervisor-key2"}, 401, "invalid_api_key"),
        ("no key", {}, 401, "missing_api_key"),
    ):
        add(
            "missing or wrong API key",
            f"open with {label}",
            config(name="Hijacked"),
            status,
            code,
            headers=headers,
        )
        add(
            "missing or wrong API key",
            f"cancel with {label}",
            reason,
            status,
            code,
            method_url=("POST", f"/tables/{TABLE}/cancel"),
            headers=headers,
        )
    return cases


async def test_hostile_table_commands(table_settings: TableSettings, table_app: App) -> None:
    _, client = table_app
    await open_table_as(client, config())  # one supervisor proposes, another approves (0086)
    stream = await wait_for(client, TABLE, count("RoundOpened"))
    connection = await connect(table_settings, table_settings.table_database)
    try:
        before = await stored_events(connection)
        tried: Counter[str] = Counter()
        mismatches: list[str] = []
        for kind, label, method, url, body, headers, status, code in corpus():
            sent = dict(SUPERVISOR if headers is None else headers)
            if body is None:
                response = await client.request(method, url, headers=sent)
            else:
                raw = body if isinstance(body, bytes) else json.dumps(body).encode()
                sent["Content-Type"] = "application/json"
                response = await client.request(method, url, content=raw, headers=sent)
            mismatch = problem_mismatch(response, status, code, f"{kind}: {label}")
            if mismatch:
                mismatches.append(mismatch)
            tried[kind] += 1
        assert not mismatches, "\n".join(mismatches)
        assert await stored_events(connection) == before, "a hostile input was recorded"
    finally:
        await connection.close()
    assert await wait_for(client, TABLE, lambda events: True) == stream

    # the table still takes normal commands
    paused = await client.post(
        f"/tables/{TABLE}/pause", json={"reason": "camera"}, headers=SUPERVISOR
    )
    assert paused.status_code == 200, paused.text
    assert paused.json()["round"]["paused"] is True
    resumed = await client.post(f"/tables/{TABLE}/resume", headers=SUPERVISOR)
    assert resumed.status_code == 200, resumed.text
    record("table: hostile HTTP inputs", tried)
