"""Hostile inputs at the wallet's edge: each gets its specific problem, and no money moves."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from uuid import uuid4

import httpx
import pytest
from fastapi import FastAPI

from tests.integration.wallet.helpers import (
    OPERATOR_1,
    OPERATOR_2,
    close_betting,
    deposit,
    open_round,
    place,
    wait_for_round,
)
from wallet_service.config import WalletSettings

from .hostile import connect, problem_mismatch
from .report import record

pytestmark = pytest.mark.integration

ROUND = "T1-000001"
SEALED = "T1-000002"
App = tuple[FastAPI, httpx.AsyncClient]


@dataclass
class Hostile:
    kind: str
    label: str
    method: str
    url: str
    status: int
    code: str
    body: Any = None
    raw: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    auth: dict[str, str] | None = None  # None: operator-1


def slip(**override: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "player_id": "p1",
        "round_id": ROUND,
        "currency": "INR",
        "bets": [{"bet_type": "player_b", "stake": 200}],
    }
    body.update(override)
    return body


def stake(value: Any) -> dict[str, Any]:
    return slip(bets=[{"bet_type": "player_b", "stake": value}])


def bet_slip(kind: str, label: str, status: int, code: str, **override: Any) -> Hostile:
    return Hostile(kind, label, "POST", "/bets", status, code, body=slip(**override))


def raw_slip(
    kind: str, label: str, raw: bytes, status: int = 422, code: str = "invalid_request"
) -> Hostile:
    return Hostile(kind, label, "POST", "/bets", status, code, raw=raw)


def transfer(kind: str, label: str, status: int, code: str, **override: Any) -> Hostile:
    body = {"transfer_id": f"t-{uuid4()}", "currency": "INR", "amount": 100}
    body.update(override)
    return Hostile(kind, label, "POST", "/players/p1/deposits", status, code, body=body)


def corpus(bet_id: str, good_key: str) -> list[Hostile]:
    six = ["player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus"]
    huge = [10**30, 2**63, 2**64, 2**53 + 1, 9_007_199_254_740_993, 10_001, 9_999_999]
    cases: list[Hostile] = [
        # stakes
        *(
            Hostile(
                "stake: zero or negative",
                f"stake {v}",
                "POST",
                "/bets",
                422,
                "invalid_bet",
                stake(v),
            )
            for v in (0, -1, -100, -(2**63), -(10**30))
        ),
        *(
            Hostile(
                "stake: fractional or not an integer",
                f"stake {v!r}",
                "POST",
                "/bets",
                422,
                "invalid_request",
                stake(v),
            )
            for v in (1.5, 100.0, 0.01, 199.999, "100", "1e2", True, False, None, [100], {"v": 100})
        ),
        raw_slip(
            "stake: fractional or not an integer",
            "stake NaN",
            b'{"player_id":"p1","round_id":"T1-000001","currency":"INR",'
            b'"bets":[{"bet_type":"tie","stake":NaN}]}',
        ),
        raw_slip(
            "stake: fractional or not an integer",
            "stake 1e400 (infinity)",
            b'{"player_id":"p1","round_id":"T1-000001","currency":"INR",'
            b'"bets":[{"bet_type":"tie","stake":1e400}]}',
        ),
        raw_slip(
            "stake: fractional or not an integer",
            "stake 1E2 literal",
            b'{"player_id":"p1","round_id":"T1-000001","currency":"INR",'
            b'"bets":[{"bet_type":"tie","stake":1E2}]}',
        ),
        *(
            Hostile("stake: huge", f"stake {v}", "POST", "/bets", 422, "above_maximum", stake(v))
            for v in huge
        ),
        Hostile(
            "stake: below the table minimum",
            "stake 99",
            "POST",
            "/bets",
            422,
            "below_minimum",
            stake(99),
        ),
        Hostile(
            "stake: below the table minimum",
            "stake 1",
            "POST",
            "/bets",
            422,
            "below_minimum",
            stake(1),
        ),
        # currencies
        *(
            bet_slip(
                "unknown currency", f"currency {c!r}", 422, "currency_not_accepted", currency=c
            )
            for c in ("XXX", "inr", "INR ", "USD", "€", "BTC", "I\u0000R", "ZZZZZZZZZZ")
        ),
        *(
            bet_slip("unknown currency", f"currency {c!r}", 422, "invalid_request", currency=c)
            for c in ("", "X" * 11, None, 978, ["INR"])
        ),
        # bet types and slip shape
        *(
            bet_slip(
                "unknown bet type",
                f"bet type {t!r}",
                422,
                "invalid_bet",
                bets=[{"bet_type": t, "stake": 200}],
            )
            for t in (
                "banker",
                "PLAYER_A",
                "player_a ",
                "player_c",
                "tie\u0000",
                "🂡",
                "x" * 50,
                "'; DROP TABLE wallet_bets; --",
            )
        ),
        *(
            bet_slip(
                "unknown bet type",
                f"bet type {t!r}",
                422,
                "invalid_request",
                bets=[{"bet_type": t, "stake": 200}],
            )
            for t in ("", "x" * 51, None, 1)
        ),
        bet_slip("malformed slip", "no bets", 422, "invalid_bet", bets=[]),
        bet_slip(
            "malformed slip",
            "the same bet type twice",
            422,
            "invalid_bet",
            bets=[{"bet_type": "tie", "stake": 200}, {"bet_type": "tie", "stake": 300}],
        ),
        bet_slip(
            "malformed slip",
            "seven bets",
            422,
            "invalid_bet",
            bets=[{"bet_type": t, "stake": 200} for t in [*six, "player_a"]],
        ),
        bet_slip(
            "malformed slip",
            "51 bets",
            422,
            "invalid_request",
            bets=[{"bet_type": "tie", "stake": 200}] * 51,
        ),
        bet_slip(
            "malformed slip",
            "bets is an object",
            422,
            "invalid_request",
            bets={"bet_type": "tie", "stake": 200},
        ),
        bet_slip(
            "malformed slip",
            "an unknown field in a bet",
            422,
            "invalid_request",
            bets=[{"bet_type": "tie", "stake": 200, "odds": "1000/1"}],
        ),
        bet_slip(
            "malformed slip",
            "an unknown field in the slip",
            422,
            "invalid_request",
            operator_id="operator-2",
        ),
        Hostile(
            "malformed slip",
            "no player_id",
            "POST",
            "/bets",
            422,
            "invalid_request",
            body={k: v for k, v in slip().items() if k != "player_id"},
        ),
        # ids that do not exist or are not ids
        *(
            bet_slip("unknown or foreign id", f"round {r!r}", 404, "unknown_round", round_id=r)
            for r in (
                "T1-999999",
                "T9-000001",
                "'; DROP TABLE wallet_rounds; --",
                "r" * 100,
                "../T1-000001",
                "T1-000001 ",
            )
        ),
        bet_slip(
            "unknown or foreign id",
            "round with NUL",
            422,
            "invalid_text",
            round_id="T1-000001\u0000",
        ),
        bet_slip(
            "unknown or foreign id",
            "round of 101 characters",
            422,
            "invalid_request",
            round_id="r" * 101,
        ),
        *(
            bet_slip("unknown or foreign id", f"player {p!r}", 422, "invalid_request", player_id=p)
            for p in ("", "p 1", "operator-2:p1", "../p1", "p1\u0000", "p" * 101, "é")
        ),
        Hostile(
            "unknown or foreign id",
            "another operator's bet",
            "GET",
            f"/bets/{bet_id}",
            404,
            "unknown_bet",
            auth=OPERATOR_2,
        ),
        Hostile(
            "unknown or foreign id",
            "a bet that does not exist",
            "GET",
            f"/bets/{uuid4()}",
            404,
            "unknown_bet",
        ),
        Hostile(
            "unknown or foreign id",
            "a bet id that is not a UUID",
            "GET",
            "/bets/not-a-uuid",
            422,
            "invalid_request",
        ),
        Hostile(
            "unknown or foreign id",
            "a round that does not exist",
            "GET",
            "/rounds/T7-000001/book",
            404,
            "unknown_round",
        ),
        Hostile(
            "unknown or foreign id",
            "a round id with NUL",
            "GET",
            "/rounds/T1-000001%00/book",
            422,
            "invalid_text",
        ),
        Hostile(
            "unknown or foreign id",
            "a player id with NUL",
            "GET",
            "/players/p1%00/balances",
            422,
            "invalid_request",
        ),
        Hostile(
            "unknown or foreign id",
            "a cursor not given out",
            "GET",
            "/players/p1/bets?cursor=abc",
            422,
            "invalid_cursor",
        ),
        Hostile(
            "unknown or foreign id",
            "a cursor with NUL",
            "GET",
            "/players/p1/bets?cursor=1%00",
            422,
            "invalid_cursor",
        ),
        Hostile(
            "unknown or foreign id",
            "another operator's player's money",
            "POST",
            "/players/p1/withdrawals",
            409,
            "insufficient_funds",
            body={"transfer_id": f"t-{uuid4()}", "currency": "INR", "amount": 4000},
            auth=OPERATOR_2,
        ),
        # betting window and funds
        bet_slip(
            "closed or unaffordable", "a sealed round", 409, "betting_closed", round_id=SEALED
        ),
        bet_slip(
            "closed or unaffordable",
            "more than the balance",
            409,
            "insufficient_funds",
            bets=[{"bet_type": t, "stake": 1000} for t in six],
        ),
        # idempotency
        bet_slip(
            "idempotency", "the first slip's key with another body", 422, "idempotency_key_reused"
        ),
        # malformed and oversized bodies
        *(
            raw_slip("malformed or oversized body", label, raw)
            for label, raw in (
                ("empty", b""),
                ("truncated JSON", b'{"player_id": "p1", "round_id": '),
                ("not JSON", b"player_a 100"),
                ("JSON null", b"null"),
                ("JSON array", b"[]"),
                ("JSON string", b'"a slip"'),
                ("JSON number", b"100"),
                ("trailing garbage", json.dumps(slip()).encode() + b"}}"),
                ("NUL bytes", b"\x00" * 64),
            )
        ),
        # over the kernel's body limit (TP_HTTP_MAX_BODY_BYTES, 64 KiB), refused as it arrives
        *(
            raw_slip("malformed or oversized body", label, raw, 413, "payload_too_large")
            for label, raw in (
                ("2 MB of padding in a field", json.dumps(slip(pad="x" * 2_000_000)).encode()),
                (
                    "100000 bets",
                    json.dumps(slip(bets=[{"bet_type": "tie", "stake": 1}] * 100_000)).encode(),
                ),
                ("deeply nested, 200 kB", b"[" * 100_000 + b"]" * 100_000),
            )
        ),
        raw_slip("malformed or oversized body", "invalid UTF-8", b'{"player_id": "\xff\xfe"}', 400),
        raw_slip(
            "malformed or oversized body",
            "deeply nested, 60 kB",
            b"[" * 30_000 + b"]" * 30_000,
            400,
        ),
        # transfers
        *(
            transfer("deposit: bad amount", f"amount {a!r}", 422, "invalid_request", amount=a)
            for a in (0, -5, 1.5, 100.0, "100", True, None, 2**53, 2**63, 10**30)
        ),
        *(
            transfer(
                "deposit: bad currency or id", f"currency {c!r}", 422, "invalid_request", currency=c
            )
            for c in ("inr", "EURO", "", "I R", None)
        ),
        *(
            transfer(
                "deposit: bad currency or id",
                f"transfer id {t!r}",
                422,
                "invalid_request",
                transfer_id=t,
            )
            for t in ("", "t" * 101, None, 7)
        ),
        transfer(
            "deposit: bad currency or id",
            "transfer id reused for another amount",
            422,
            "transfer_id_reused",
            transfer_id="dep-fixed",
            amount=999,
        ),
        Hostile(
            "withdrawal above the balance",
            "withdraw 1,000,000",
            "POST",
            "/players/p1/withdrawals",
            409,
            "insufficient_funds",
            body={"transfer_id": f"w-{uuid4()}", "currency": "INR", "amount": 1_000_000},
        ),
        Hostile(
            "withdrawal above the balance",
            "withdraw a currency never deposited",
            "POST",
            "/players/p1/withdrawals",
            409,
            "insufficient_funds",
            body={"transfer_id": f"w-{uuid4()}", "currency": "JPY", "amount": 1},
        ),
        # credentials
        bet_slip("missing or wrong API key", "no key", 401, "missing_api_key"),
        bet_slip("missing or wrong API key", "an unknown key", 401, "invalid_api_key"),
        bet_slip("missing or wrong API key", "a supervisor's key", 403, "forbidden"),
        bet_slip("missing or wrong API key", "a dealer's key", 403, "forbidden"),
        bet_slip("idempotency", "no Idempotency-Key", 400, "idempotency_key_required"),
        bet_slip(
            "idempotency", "an Idempotency-Key of 201 characters", 400, "idempotency_key_required"
        ),
    ]
    auths = {
        "no key": {},
        "an unknown key": {"X-Api-Key": "dev-operator-1-key "},
        "a supervisor's key": {"X-Api-Key": "dev-supervisor-key"},
        "a dealer's key": {"X-Api-Key": "dev-dealer-key"},
    }
    for case in cases:
        if case.label in auths:
            case.auth = auths[case.label]
        if case.method == "POST" and case.url == "/bets":
            key = {
                "no Idempotency-Key": None,
                "an Idempotency-Key of 201 characters": "k" * 201,
                "the first slip's key with another body": good_key,
            }.get(case.label, str(uuid4()))
            if key is not None:
                case.headers["Idempotency-Key"] = key
    return cases


async def money(settings: WalletSettings, client: httpx.AsyncClient) -> dict[str, Any]:
    """Everything that would show money moving or an event being recorded."""
    connection = await connect(settings, settings.wallet_database)
    try:
        counts = {
            table: await connection.fetchval(f"SELECT count(*) FROM {table}")
            for table in ("events", "wallet_ledger", "wallet_bets", "wallet_transfers")
        }
        house = await connection.fetchval(
            "SELECT coalesce(sum(amount), 0) FROM wallet_ledger WHERE account = 'house'"
        )
    finally:
        await connection.close()
    op1 = (await client.get("/players/p1/balances", headers=OPERATOR_1)).json()
    op2 = (await client.get("/players/p1/balances", headers=OPERATOR_2)).json()
    return {**counts, "house": house, "operator-1 p1": op1, "operator-2 p1": op2}


async def test_hostile_slips_and_transfers(
    wallet_settings: WalletSettings, wallet_app: App
) -> None:
    _, client = wallet_app
    await open_round(wallet_settings, client, ROUND)
    await open_round(wallet_settings, client, SEALED)
    await close_betting(wallet_settings, SEALED)
    await wait_for_round(client, SEALED, "sealed")
    await deposit(client, "p1", 5000)
    await deposit(client, "p1", 3000, headers=OPERATOR_2)
    fixed = await client.post(
        "/players/p1/deposits",
        json={"transfer_id": "dep-fixed", "currency": "INR", "amount": 100},
        headers=OPERATOR_1,
    )
    assert fixed.status_code == 200, fixed.text
    good_key = str(uuid4())
    first = await place(client, "p1", ROUND, [("player_a", 100)], key=good_key)
    assert first.status_code == 201, first.text
    bet_id = first.json()["bets"][0]["bet_id"]

    before = await money(wallet_settings, client)
    tried: Counter[str] = Counter()
    mismatches: list[str] = []
    for case in corpus(bet_id, good_key):
        headers = {**(OPERATOR_1 if case.auth is None else case.auth), **case.headers}
        if case.raw is not None:
            headers["Content-Type"] = "application/json"
            response = await client.request(
                case.method, case.url, content=case.raw, headers=headers
            )
        elif case.body is not None:
            response = await client.request(case.method, case.url, json=case.body, headers=headers)
        else:
            response = await client.request(case.method, case.url, headers=headers)
        mismatch = problem_mismatch(response, case.status, case.code, f"{case.kind}: {case.label}")
        if mismatch:
            mismatches.append(mismatch)
        tried[case.kind] += 1
    assert not mismatches, "\n".join(mismatches)
    assert await money(wallet_settings, client) == before, "a hostile input changed something"

    # the wallet still serves: a good slip and a good deposit
    second = await place(client, "p1", ROUND, [("player_b", 200)])
    assert second.status_code == 201, second.text
    assert second.json()["balance"] == 5000 + 100 - 100 - 200
    assert await deposit(client, "p1", 50) == 4850
    record("wallet: hostile HTTP inputs", tried)
