"""The transactions API, the daily report and `teenpatti reconcile` on the real stack: a
seamless operator through the reference operator process (`control.launched`, its own
database) and a transfer operator beside it play a round to its result and a cancelled one;
then every movement is read back, page by page, and our calls are reconciled with the
operator's transactions (issue 22, item 6)."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
from collections import Counter
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import uuid4

import asyncpg
import httpx
import pytest

from teenpatti import cli
from teenpatti.events.catalog import (
    TABLE_EVENTS,
    RoundCancelled,
)
from teenpatti.seamless import OperatorConfig, WalletMode
from teenpatti.seamless.signing import (
    PrivateKey,
    generate_private_key,
    private_key_pem,
    public_key_pem,
)
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.databases import create_database, drop_database
from teenpatti_tools.devrun import free_port
from teenpatti_tools.operator.control import LaunchedOperator, launched
from teenpatti_tools.operator.faults import FaultPlan, FaultSwitch
from tests.integration.seamless.support import CARDS, settle
from tests.integration.wallet.helpers import (
    OPERATOR_1,
    OPERATOR_2,
    close_betting,
    close_round,
    database,
    deposit,
    engine_settles,
    eventually,
    open_round,
    place,
    send,
    wait_for_round,
    wallet,
)
from wallet_service.config import WalletSettings

SEAMLESS, TRANSFER = "operator-1", "operator-2"  # OPERATOR_1's and OPERATOR_2's keys
FUNDS = 10_000_000  # INR minor units
UNITS = 1_000  # protocol units per INR minor unit
P1_BETS = [("player_a", 1_000), ("tie", 800), ("pair_plus_a", 700)]


@pytest.fixture
def game_key() -> PrivateKey:
    """Our signing key: the wallet signs with it, the reference operator trusts its public half."""
    return generate_private_key()


@pytest.fixture
def wallet_settings(
    settings: InfrastructureSettings, database_name: str, game_key: PrivateKey, tmp_path: Path
) -> WalletSettings:
    key_file = tmp_path / "signing.pem"
    key_file.write_bytes(private_key_pem(game_key))
    return WalletSettings(
        **settings.model_dump(),
        wallet_database=database_name,
        seamless_signing_key_file=str(key_file),
        seamless_config_cache_seconds=0.0,
        seamless_sender_interval_seconds=0.05,
    )


@pytest.fixture
async def operator(
    infrastructure: InfrastructureSettings, game_key: PrivateKey, tmp_path: Path
) -> AsyncIterator[LaunchedOperator]:
    """The reference operator process on its own new database, trusting our key."""
    name = f"test_op_{uuid4().hex[:12]}"
    await create_database(infrastructure, name)
    try:
        async with launched(
            public_key_pem(game_key.public_key()),
            port=free_port(),
            folder=tmp_path / "operator",
            database=name,
        ) as running:
            yield running
            assert (await running.admin.check())["ok"]
    finally:
        admin = await asyncpg.connect(infrastructure.postgres_dsn("postgres"))
        try:
            await drop_database(admin, name)
        finally:
            await admin.close()


async def make_seamless(
    settings: WalletSettings, operator: LaunchedOperator, timeout: float = 2.0
) -> None:
    config = OperatorConfig(
        operator_id=SEAMLESS,
        mode=WalletMode.SEAMLESS,
        base_url=operator.url,
        public_keys=(operator.public_key_pem.decode(),),
        timeout_seconds=timeout,
        base_backoff_seconds=0.05,
        max_backoff_seconds=0.2,
    )
    async with database(settings) as connection:
        await connection.execute(
            "INSERT INTO operators (operator_id, config, updated_by) VALUES ($1, $2::jsonb, 't')",
            SEAMLESS,
            json.dumps(config.model_dump(mode="json", exclude={"operator_id"})),
        )


async def seamless_slip(
    client: httpx.AsyncClient, user: str, token: str, round_id: str, bets: list[tuple[str, int]]
) -> dict[str, Any]:
    response = await client.post(
        "/bets",
        json={
            "player_id": user,
            "round_id": round_id,
            "currency": "INR",
            "bets": [{"bet_type": bet_type, "stake": stake} for bet_type, stake in bets],
            "token": token,
        },
        headers={**OPERATOR_1, "Idempotency-Key": str(uuid4())},
    )
    assert response.status_code == 201, response.text
    taken: dict[str, Any] = response.json()
    return taken


async def every_page(
    client: httpx.AsyncClient, headers: dict[str, str], limit: int, **params: str
) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(1_000):
        query = {**params, "limit": str(limit), **({"cursor": cursor} if cursor else {})}
        response = await client.get("/transactions", params=query, headers=headers)
        assert response.status_code == 200, response.text
        page = response.json()
        assert len(page["items"]) <= limit
        found += page["items"]
        cursor = page["next_cursor"]
        if cursor is None:
            return found
    raise AssertionError("the pages never ended")


async def reconcile(
    monkeypatch: pytest.MonkeyPatch, settings: WalletSettings, *argv: str
) -> tuple[int, str, str]:
    """`teenpatti reconcile --operator operator-1 ARGV...` on the test's wallet database."""
    monkeypatch.setenv("TP_WALLET_DATABASE", settings.wallet_database)
    monkeypatch.setenv("TP_ENV", os.environ.get("TP_ENV", "dev"))
    out, err = io.StringIO(), io.StringIO()
    status = await asyncio.to_thread(
        cli.main, ["reconcile", "--operator", SEAMLESS, *argv], None, out, err
    )
    return status, out.getvalue(), err.getvalue()


def write_csv(path: Path, transactions: list[dict[str, Any]]) -> None:
    columns = [
        "transaction_uuid",
        "kind",
        "user",
        "round",
        "amount",
        "currency",
        "created_at",
        "reference_transaction_uuid",
        "tombstone",
        "round_closed",
    ]
    with path.open("w", newline="") as file:
        writer = csv.DictWriter(file, columns, extrasaction="ignore")
        writer.writeheader()
        for transaction in transactions:
            writer.writerow(
                {
                    **transaction,
                    "reference_transaction_uuid": transaction["reference_transaction_uuid"] or "",
                    "tombstone": str(transaction["tombstone"]).lower(),
                }
            )


# ------------------------------------------------------------------------------ the tests
async def test_every_movement_of_both_wallets_is_listed_paged_and_reconciled(
    monkeypatch: pytest.MonkeyPatch,
    wallet_settings: WalletSettings,
    operator: LaunchedOperator,
    tmp_path: Path,
) -> None:
    settings = wallet_settings
    began = datetime.now(UTC) - timedelta(seconds=1)
    async with wallet(settings) as client:
        await make_seamless(settings, operator)
        p1, p2 = f"sp-{uuid4().hex[:10]}", f"sp-{uuid4().hex[:10]}"
        p1_token = await operator.admin.player(p1, "INR", FUNDS * UNITS)
        p2_token = await operator.admin.player(p2, "INR", FUNDS * UNITS)

        # a round played to its result: seamless slips of two players, a transfer slip
        await open_round(settings, client, "T1-000101")
        won = await seamless_slip(client, p1, p1_token, "T1-000101", P1_BETS)
        lost = await seamless_slip(client, p2, p2_token, "T1-000101", [("player_b", 2_000)])
        await deposit(client, "tp1", 5_000, headers=OPERATOR_2)
        transfer_won = await place(
            client, "tp1", "T1-000101", [("player_a", 1_000)], headers=OPERATOR_2
        )
        assert transfer_won.status_code == 201, transfer_won.text
        await close_betting(settings, "T1-000101")
        await close_round(settings, client, "T1-000101", CARDS)
        await settle(
            settings,
            "T1-000101",
            [(SEAMLESS, won), (SEAMLESS, lost), (TRANSFER, transfer_won.json())],
            cancelled=False,
        )
        # a cancelled round: a seamless rollback and a transfer refund
        await open_round(settings, client, "T1-000102")
        voided = await seamless_slip(client, p1, p1_token, "T1-000102", [("tie", 500)])
        transfer_voided = await place(
            client, "tp1", "T1-000102", [("player_b", 300)], headers=OPERATOR_2
        )
        assert transfer_voided.status_code == 201, transfer_voided.text
        await send(
            settings,
            TABLE_EVENTS,
            RoundCancelled(
                round_id="T1-000102", table_id="T1", actor="sup", reason="shoe", cards_dealt=0
            ),
            table_id="T1",
        )
        await wait_for_round(client, "T1-000102", "cancelled")
        await settle(
            settings,
            "T1-000102",
            [(SEAMLESS, voided), (TRANSFER, transfer_voided.json())],
            cancelled=True,
        )

        async def all_ended() -> bool:
            seamless = await every_page(client, OPERATOR_1, 1_000)
            transfer = await every_page(client, OPERATOR_2, 1_000)
            calls = [m for m in seamless if m["kind"] in ("bet", "win", "rollback")]
            return (
                len(calls) == 6
                and all(m["status"] == "ok" for m in calls)
                and sum(m["kind"] in ("win", "refund") for m in transfer) == 2
            )

        await eventually(all_ended, what="every win, rollback and transfer payment")
        withdrawn = await client.post(
            "/players/tp1/withdrawals",
            json={"transfer_id": "w-1", "currency": "INR", "amount": 500},
            headers=OPERATOR_2,
        )
        assert withdrawn.status_code == 200, withdrawn.text
        seamless = await every_page(client, OPERATOR_1, 1_000)
        transfer = await every_page(client, OPERATOR_2, 1_000)

        # ---- each movement, its kind, amount, status and the operator's answer
        assert Counter(m["kind"] for m in seamless) == {
            "slip": 3,
            "bet": 3,
            "win": 2,
            "rollback": 1,
        }
        assert {m["wallet"] for m in seamless} == {"seamless"}
        assert {m["player_id"] for m in seamless} == {p1, p2}  # scoped to the key's operator
        returns = sum(engine_settles(t, s, CARDS)[1] for t, s in P1_BETS)
        by_kind = {(m["kind"], m["slip_id"]): m for m in seamless}
        won_win = by_kind[("win", won["slip_id"])]
        assert (won_win["amount"], won_win["reference_transaction_uuid"]) == (
            returns,
            won["slip_id"],
        )
        assert won_win["operator_answer"]["status"] == "RS_OK"
        assert json.loads(won_win["operator_answer"]["body"])["status"] == "RS_OK"
        assert by_kind[("win", lost["slip_id"])]["amount"] == 0
        assert by_kind[("win", lost["slip_id"])]["round_closed"] is True
        bet = by_kind[("bet", won["slip_id"])]
        assert (bet["amount"], bet["transaction_uuid"], bet["attempts"]) == (
            2_500,
            won["slip_id"],
            1,
        )
        rollback = by_kind[("rollback", voided["slip_id"])]
        assert (rollback["amount"], rollback["round_id"]) == (500, "T1-000102")
        slip = by_kind[("slip", won["slip_id"])]
        assert (slip["amount"], slip["status"], slip["operator_answer"]) == (
            2_500,
            "accepted",
            None,
        )

        transfer_returns = engine_settles("player_a", 1_000, CARDS)[1]
        assert [(m["kind"], m["amount"]) for m in transfer] == [
            ("deposit", 5_000),
            ("slip", 1_000),
            ("win", transfer_returns),
            ("slip", 300),
            ("refund", 300),
            ("withdrawal", 500),
        ]
        assert {m["wallet"] for m in transfer} == {"transfer"}

        # ---- pages: in (at, id) order, without a gap or a repeat, whatever their size
        keys = [(m["at"], m["id"]) for m in seamless]
        assert keys == sorted(keys) and len(set(keys)) == len(keys)
        for limit in (1, 2, 4):
            assert await every_page(client, OPERATOR_1, limit) == seamless

        # ---- by round, and by time range (from inclusive, to exclusive)
        voided_round = await every_page(client, OPERATOR_1, 2, round_id="T1-000102")
        # the bet call is recorded (pending) before the slip it lets in
        assert [m["kind"] for m in voided_round] == ["bet", "slip", "rollback"]
        assert [
            m["kind"] for m in await every_page(client, OPERATOR_2, 10, round_id="T1-000102")
        ] == [
            "slip",
            "refund",
        ]
        since, until = transfer[1]["at"], transfer[4]["at"]
        ranged = await every_page(client, OPERATOR_2, 2, **{"from": since, "to": until})
        assert ranged == transfer[1:4]

        # ---- the daily report: bets settled today, void rounds' refunds apart
        today = datetime.now(UTC).date().isoformat()
        report = await client.get("/reports/daily", params={"date": today}, headers=OPERATOR_2)
        assert report.status_code == 200, report.text
        assert report.json()["currencies"] == [
            {
                "currency": "INR",
                "bets": 1,
                "stakes": 1_000,
                "returns": transfer_returns,
                "ggr": 1_000 - transfer_returns,
                "refunded_bets": 1,
                "refunded": 300,
                "corrections": None,
            }
        ]
        report = await client.get("/reports/daily", params={"date": today}, headers=OPERATOR_1)
        (inr,) = report.json()["currencies"]
        assert (inr["bets"], inr["stakes"], inr["returns"], inr["ggr"], inr["refunded"]) == (
            4,
            4_500,
            returns,
            4_500 - returns,
            500,
        )

    # ---- reconciliation with the reference operator: nothing differs
    window = [
        "--from",
        began.isoformat(),
        "--to",
        (datetime.now(UTC) + timedelta(seconds=1)).isoformat(),
    ]
    token_file = tmp_path / "operator" / "admin-token"
    status, out, err = await reconcile(
        monkeypatch,
        settings,
        *window,
        "--reference-operator",
        operator.url,
        "--admin-token-file",
        str(token_file),
        "--json",
    )
    assert status == 0, err + out
    result = json.loads(out)
    assert (result["ours"], result["theirs"], result["differences"]) == (6, 6, [])

    # ---- the operator's list as a CSV with a difference of each kind injected
    listed = await operator.admin.transactions()
    p2_bet = next(t for t in listed if t["kind"] == "bet" and t["user"] == p2)
    p1_win = next(t for t in listed if t["kind"] == "win" and t["user"] == p1)
    changed = [
        {**t, "amount": t["amount"] + UNITS} if t is p1_win else t
        for t in listed
        if t is not p2_bet
    ]
    ghost = {**p1_win, "transaction_uuid": "only-theirs", "amount": 7 * UNITS}
    write_csv(tmp_path / "operator.csv", [*changed, ghost])
    status, out, err = await reconcile(
        monkeypatch, settings, *window, "--csv", str(tmp_path / "operator.csv"), "--json"
    )
    assert status == 1, err
    found = {(d["problem"], d["transaction_uuid"]) for d in json.loads(out)["differences"]}
    assert found == {
        ("missing_at_operator", p2_bet["transaction_uuid"]),
        ("amount_mismatch", p1_win["transaction_uuid"]),
        ("missing_here", "only-theirs"),
        # the ghost win names p1's bet too: by the operator's own list, it is ended twice
        ("bet_ended_twice", p1_win["reference_transaction_uuid"]),
    }
    # the text form: one line per difference and a count
    status, out, _ = await reconcile(
        monkeypatch, settings, *window, "--csv", str(tmp_path / "operator.csv")
    )
    assert status == 1
    assert out.splitlines()[-1].startswith("4 difference(s): 6 call(s) of ours")

    # ---- bad input: exit status 2 and a reason
    status, _, err = await reconcile(
        monkeypatch, settings, "--from", "2026-12-02", "--to", "2026-12-01", "--csv", "x.csv"
    )
    assert (status, "is after" in err) == (2, True), err
    (tmp_path / "bad.csv").write_text("transaction_uuid,kind\n")
    status, _, err = await reconcile(
        monkeypatch, settings, *window, "--csv", str(tmp_path / "bad.csv")
    )
    assert (status, "no column user" in err) == (2, True), err


async def test_a_timed_out_bet_and_a_lost_win_answer_reconcile_without_a_difference(
    monkeypatch: pytest.MonkeyPatch,
    wallet_settings: WalletSettings,
    operator: LaunchedOperator,
    tmp_path: Path,
) -> None:
    """The faults that make the two sides' records differ in shape, not in money: a bet held
    past our timeout (rolled back: applied late and rolled back, or refused after the
    rollback's tombstone) and a win applied whose answer was lost (sent again, applied once)."""
    settings = wallet_settings
    began = datetime.now(UTC) - timedelta(seconds=1)
    async with wallet(settings) as client:
        await make_seamless(settings, operator, timeout=0.5)
        user = f"sp-{uuid4().hex[:10]}"
        token = await operator.admin.player(user, "INR", FUNDS * UNITS)
        await open_round(settings, client, "T1-000201")
        await operator.admin.set_faults(
            FaultPlan(
                switches=(
                    FaultSwitch(kind="timeout", calls=frozenset({"bet"}), seconds=1.0, next=1),
                    FaultSwitch(kind="lost", calls=frozenset({"win"}), next=1),
                )
            )
        )
        refused = await client.post(
            "/bets",
            json={
                "player_id": user,
                "round_id": "T1-000201",
                "currency": "INR",
                "bets": [{"bet_type": "tie", "stake": 700}],
                "token": token,
            },
            headers={**OPERATOR_1, "Idempotency-Key": str(uuid4())},
        )
        assert (refused.status_code, refused.json()["code"]) == (503, "operator_unavailable")
        taken = await seamless_slip(client, user, token, "T1-000201", [("player_a", 1_000)])
        await close_betting(settings, "T1-000201")
        await close_round(settings, client, "T1-000201", CARDS)
        await settle(settings, "T1-000201", [(SEAMLESS, taken)], cancelled=False)

        async def ended() -> bool:
            calls = [
                m
                for m in await every_page(client, OPERATOR_1, 100)
                if m["kind"] in ("bet", "win", "rollback")
            ]
            return len(calls) == 4 and all(m["status"] in ("ok", "failed") for m in calls)

        await eventually(ended, what="the win and the rollback to end")
        movements = await every_page(client, OPERATOR_1, 100, round_id="T1-000201")
        calls = {(m["kind"], m["status"]) for m in movements if m["kind"] != "slip"}
        assert calls == {("bet", "failed"), ("rollback", "ok"), ("bet", "ok"), ("win", "ok")}
        (win,) = [m for m in movements if m["kind"] == "win"]
        assert win["attempts"] >= 2  # its first answer was lost

    # whether the held bet reached the operator before its rollback (applied, then rolled
    # back for its amount) or after it (refused by the rollback's tombstone), nothing differs
    listed = await operator.admin.transactions(user=user)
    assert [t["kind"] for t in listed].count("win") == 1  # applied once
    window = ["--from", began.isoformat(), "--to", datetime.now(UTC).isoformat()]
    status, out, err = await reconcile(
        monkeypatch,
        settings,
        *window,
        "--reference-operator",
        operator.url,
        "--admin-token-file",
        str(tmp_path / "operator" / "admin-token"),
        "--json",
    )
    assert status == 0, err + out
    assert json.loads(out)["differences"] == []


async def test_bad_queries_are_refused_with_problems(wallet_settings: WalletSettings) -> None:
    async with wallet(wallet_settings) as client:
        cases = [
            ("/transactions", {"from": "yesterday"}, 400, "invalid_time"),
            ("/transactions", {"to": "2026-12-02T09:00:00"}, 400, "invalid_time"),
            (
                "/transactions",
                {"from": "2026-12-02T10:00:00Z", "to": "2026-12-02T09:00:00Z"},
                400,
                "invalid_range",
            ),
            ("/transactions", {"cursor": "not-a-cursor"}, 400, "invalid_cursor"),
            ("/transactions", {"limit": "0"}, 422, "invalid_request"),
            ("/reports/daily", {"date": "2026-13-01"}, 400, "invalid_date"),
            ("/reports/daily", {}, 422, "invalid_request"),
        ]
        for path, params, status, code in cases:
            response = await client.get(path, params=params, headers=OPERATOR_1)
            assert (response.status_code, response.json()["code"]) == (status, code), params
            assert response.headers["content-type"].startswith("application/problem+json")
        # the operator's key, never a player's session nor none
        keyless = await client.get("/transactions")
        assert (keyless.status_code, keyless.json()["code"]) == (401, "missing_api_key")
        empty = await client.get("/transactions", headers=OPERATOR_1)
        assert empty.json() == {"items": [], "next_cursor": None}
