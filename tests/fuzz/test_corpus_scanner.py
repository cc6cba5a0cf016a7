"""Hostile inputs at the scanner gateway: forged and replayed device credentials, unknown
devices, replayed sequence numbers, scanner garbage, malformed and oversized bodies. Every
read is answered with its specific problem (or `rescan`), recorded exactly once as
`ScanRejected`, and none becomes a `CardScanned`; the device keeps working afterwards."""

from __future__ import annotations

import itertools
import json
import secrets
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from uuid import uuid4

import httpx
import pytest
from fastapi import FastAPI

from scanner_gateway.config import ScannerSettings
from teenpatti_tools.simulator import ScannerSecret, enrol_device, gateway_post

from .hostile import connect, problem_mismatch, stored_events
from .report import record

pytestmark = pytest.mark.integration

SUPERVISOR = {"X-Api-Key": "dev-supervisor-key"}
App = tuple[FastAPI, httpx.AsyncClient]
# a JSON body without `sequence` gets the next of these; one that names it keeps its own
SEQUENCES = itertools.count(1000)


@dataclass
class Read:
    kind: str
    label: str
    status: int
    code: str  # a problem code, or the answer's `status` for a 200 (`rescan`)
    body: Any = None
    raw: bytes | None = None
    device: str | None = "D1"
    authorization: str | None = None  # None: the device's current credential
    recorded: bool = True
    headers: dict[str, str] = field(default_factory=dict)


def bearer(credential: str) -> str:
    return f"Bearer {credential}"


def hostile_reads(old: str, current: str, other: str) -> list[Read]:
    flipped = ("B" if current[0] != "B" else "C") + current[1:]
    good = {"read": "AS", "table_id": "T1"}
    credentials = [
        Read(
            "replayed credential",
            "the credential before rotation",
            401,
            "bad_credential",
            good,
            authorization=bearer(old),
        ),
        Read(
            "replayed credential",
            "the credential before rotation, as a bare token",
            401,
            "bad_credential",
            good,
            authorization=old,
        ),
        *(
            Read("forged credential", label, 401, "bad_credential", good, authorization=value)
            for label, value in (
                ("a random token", bearer(secrets.token_urlsafe(24))),
                ("the credential minus its last character", bearer(current[:-1])),
                ("the credential plus a character", bearer(current + "A")),
                ("the credential with its first character changed", bearer(flipped)),
                ("the credential upper-cased", bearer(current.upper())),
                ("another device's credential", bearer(other)),
                ("an empty bearer", "Bearer "),
                ("the credential as Basic", f"Basic {current}"),
                ("10 000 characters", bearer("x" * 10_000)),
                ("SQL in the token", bearer("' OR '1'='1")),
                ("no Authorization header", ""),
            )
        ),
        *(
            Read("unknown device", label, 401, "unknown_device", good, device=device)
            for label, device in (
                ("a device never registered", "ghost"),
                ("the device id lower-cased", "d1"),
                ("an empty device id", ""),
                ("no X-Device-Id header", None),
                ("a device id of 1000 characters", "D" * 1000),
                ("SQL in the device id", "D1'; DROP TABLE devices; --"),
                ("a path in the device id", "../../D1"),
            )
        ),
        *(
            Read(
                "wrong table",
                f"table {table!r}",
                403,
                "wrong_table",
                {"read": "AS", "table_id": table},
            )
            for table in ("T2", "t1", "", "T1 ", "T1\u0000", "x" * 500)
        ),
        *(
            Read("replayed sequence", label, 409, "stale_sequence", good | {"sequence": number})
            for label, number in (
                ("a number used before", 1000),
                ("the first number there is", 1),
            )
        ),
    ]
    garbage = [
        Read("scanner garbage", f"read {text!r}", 200, "rescan", {"read": text, "table_id": "T1"})
        for text in (
            "",
            " ",
            "ZZ",
            "A",
            "10",
            "11H",
            "1H",
            "0S",
            "AS AS",
            "AAS",
            "XS",
            "A♠♠",
            "🂡",
            "A\u0000S",
            "\u0000",
            "\u200bAS\u200b\u200b",
            "ＡＳ",
            "<script>alert(1)</script>",
            "'; DROP TABLE scans; --",
            "%s%s%n",
            "A" * 33,
            "\ud800",
            "\n\r\t",
            "AS" * 2000,
            "\x1b[31mAS",
            "NaN",
            "null",
            "-1",
        )
    ]
    bodies = [
        *(
            Read("malformed body", label, 422, "invalid_request", raw=raw)
            for label, raw in (
                ("empty", b""),
                ("truncated JSON", b'{"read": "AS", "table_id": '),
                ("JSON null", b"null"),
                ("JSON array", b'["AS", "T1"]'),
                ("JSON string", b'"AS"'),
                ("invalid UTF-8", b'{"read": "\xff\xfe", "table_id": "T1"}'),
                ("deeply nested (2000 levels, under 4 kB)", b"[" * 2000 + b"]" * 2000),
                ("NUL bytes", b"\x00" * 64),
            )
        ),
        *(
            Read("malformed body", label, 422, "invalid_request", body)
            for label, body in (
                ("read is a number", {"read": 5, "table_id": "T1"}),
                ("read is null", {"read": None, "table_id": "T1"}),
                ("read is a list", {"read": ["AS"], "table_id": "T1"}),
                ("no read", {"table_id": "T1"}),
                ("no table_id", {"read": "AS"}),
                ("table_id is a number", {"read": "AS", "table_id": 1}),
                ("no sequence", {"read": "AS", "table_id": "T1", "sequence": None}),
                ("sequence 0", {"read": "AS", "table_id": "T1", "sequence": 0}),
                ("sequence negative", {"read": "AS", "table_id": "T1", "sequence": -1}),
                ("sequence a string", {"read": "AS", "table_id": "T1", "sequence": "9999"}),
                ("sequence a float", {"read": "AS", "table_id": "T1", "sequence": 5000.5}),
                ("sequence true", {"read": "AS", "table_id": "T1", "sequence": True}),
                ("sequence 2**63", {"read": "AS", "table_id": "T1", "sequence": 2**63}),
            )
        ),
        Read(
            "oversized body",
            "4097 bytes",
            413,
            "payload_too_large",
            raw=json.dumps({"read": "AS", "table_id": "T1", "pad": "x" * 4100}).encode(),
        ),
        Read("oversized body", "1 MB", 413, "payload_too_large", raw=b"A" * 1_000_000),
    ]
    return credentials + garbage + bodies


async def test_hostile_reads_and_credentials(
    scanner_settings: ScannerSettings, scanner_app: App
) -> None:
    _, client = scanner_app

    async def register(device_id: str, table_id: str) -> str:
        secret = ScannerSecret()
        approved = await enrol_device(gateway_post(client), device_id, table_id, secret)
        assert approved.status_code == 200, approved.text
        return secret.credential

    old = await register("D1", "T1")
    current = await register("D1", "T1")  # rotated: `old` stops working
    other = await register("D2", "T2")
    # a read of D2's, which D1 must not be able to look up
    foreign = await client.post(
        "/scans",
        json={"read": "KH", "table_id": "T2", "sequence": 1},
        headers={"X-Device-Id": "D2", "Authorization": bearer(other)},
    )
    assert foreign.status_code in (200, 202), foreign.text

    connection = await connect(scanner_settings, scanner_settings.scanner_database)
    try:
        before = await stored_events(connection)
        tried: Counter[str] = Counter()
        mismatches: list[str] = []
        reads = hostile_reads(old, current, other)
        for read in reads:
            headers = dict(read.headers)
            if read.device is not None:
                headers["X-Device-Id"] = read.device
            authorization = bearer(current) if read.authorization is None else read.authorization
            if authorization:
                headers["Authorization"] = authorization
            body = read.body
            if isinstance(body, dict) and "sequence" not in body:
                body = body | {"sequence": next(SEQUENCES)}
            # json.dumps escapes lone surrogates, which httpx's own encoder refuses
            raw = read.raw if read.raw is not None else json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
            response = await client.post("/scans", content=raw, headers=headers)
            label = f"{read.kind}: {read.label}"
            if read.status == 200:
                answer = response.json() if response.status_code == 200 else {}
                if response.status_code != 200 or answer.get("status") != read.code:
                    mismatches.append(f"{label}: {response.status_code} {response.text[:300]}")
            else:
                mismatch = problem_mismatch(response, read.status, read.code, label)
                if mismatch:
                    mismatches.append(mismatch)
            tried[read.kind] += 1
        assert not mismatches, "\n".join(mismatches)

        lookups = [
            (
                "foreign or forged lookup",
                f"/scans/{foreign.json()['scan_id']}",
                bearer(current),
                404,
                "unknown_scan",
            ),
            ("foreign or forged lookup", f"/scans/{uuid4()}", bearer(current), 404, "unknown_scan"),
            (
                "foreign or forged lookup",
                "/scans/not-a-uuid",
                bearer(current),
                422,
                "invalid_request",
            ),
            ("foreign or forged lookup", f"/scans/{uuid4()}", bearer(old), 401, "unauthorized"),
            ("foreign or forged lookup", f"/scans/{uuid4()}", bearer(other), 401, "unauthorized"),
        ]
        for kind, url, authorization, status, code in lookups:
            response = await client.get(
                url, headers={"X-Device-Id": "D1", "Authorization": authorization}
            )
            mismatch = problem_mismatch(response, status, code, f"{kind}: {url}")
            assert mismatch is None, mismatch
            tried[kind] += 1
        registrations = [
            ({"device_id": "D 1", "table_id": "T1"}, SUPERVISOR, 422, "invalid_request"),
            ({"device_id": "D1\u0000", "table_id": "T1"}, SUPERVISOR, 422, "invalid_request"),
            ({"device_id": "D3", "table_id": "../T1"}, SUPERVISOR, 422, "invalid_request"),
            ({"device_id": "D3", "table_id": "T" * 65}, SUPERVISOR, 422, "invalid_request"),
            ({"device_id": "D3"}, SUPERVISOR, 422, "invalid_request"),
            (
                {"device_id": "D1", "table_id": "T1"},
                {"X-Api-Key": "dev-operator-1-key"},
                403,
                "forbidden",
            ),
            (
                {"device_id": "D1", "table_id": "T1"},
                {"X-Api-Key": "dev-dealer-key"},
                403,
                "forbidden",
            ),
            (
                {"device_id": "D1", "table_id": "T1"},
                {"X-Api-Key": "forged"},
                401,
                "invalid_api_key",
            ),
            ({"device_id": "D1", "table_id": "T1"}, {}, 401, "missing_api_key"),
        ]
        for body, headers, status, code in registrations:
            response = await client.post("/devices", json=body, headers=headers)
            mismatch = problem_mismatch(response, status, code, f"registration {body}")
            assert mismatch is None, mismatch
            tried["device registration: bad ids or keys"] += 1

        after = await stored_events(connection)
        recorded = sum(read.recorded for read in reads)
        assert after.get("ScanRejected", 0) - before.get("ScanRejected", 0) == recorded, (
            f"every hostile read is recorded exactly once: {before} -> {after}"
        )
        assert {k: v for k, v in after.items() if k != "ScanRejected"} == {
            k: v for k, v in before.items() if k != "ScanRejected"
        }, "a hostile input became a card or a registration"

        # the device still reads with its current credential
        good = await client.post(
            "/scans",
            json={"read": "AS", "table_id": "T1", "sequence": next(SEQUENCES)},
            headers={"X-Device-Id": "D1", "Authorization": bearer(current)},
        )
        assert good.status_code in (200, 202), good.text
        assert good.json()["status"] == "pending"  # no table answers in this test
        final = await stored_events(connection)
        assert final.get("CardScanned", 0) == before.get("CardScanned", 0) + 1
    finally:
        await connection.close()
    record("scanner-gateway: hostile HTTP inputs", tried)
