"""Owed wins and rollbacks in sight and in hand (issue 32, items 3 and 5): one not RS_OK past
its time is a problem, counted in metrics; one that failed for good is sent again by a
person, recorded, with the same transaction_uuid; one claimed by an instance that dies is
leased for the operator's timeout plus a margin only, so another sends it soon after."""

from __future__ import annotations

import json
import re

import httpx
import pytest

from tests.integration.seamless.game import (
    FUNDS,
    SEAMLESS,
    Keys,
    call_done,
    calls_of,
    operators_cli,
    seamless_game,
    settle,
    slip,
)
from tests.integration.seamless.support import CARDS
from tests.integration.wallet.helpers import (
    close_betting,
    close_round,
    database,
    engine_settles,
    eventually,
)
from wallet_service.config import WalletSettings

SUPERVISOR = {"X-Api-Key": "dev-supervisor-key"}


def gauge(metrics: str, name: str, **labels: str) -> float | None:
    """A gauge's value in a /metrics text, or None when the series is absent."""
    for line in metrics.splitlines():
        if not line.startswith(name + "{"):
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line[: line.index("}")]))
        if all(found.get(key) == value for key, value in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return None


async def counted(client: httpx.AsyncClient, *, overdue: int, failed: int) -> bool:
    """Whether /metrics counts so many of the operator's owed calls overdue and failed (the
    gauges are read at most every 5 s: a scrape may get the reading before)."""
    metrics = (await client.get("/metrics")).text
    found = {
        state: gauge(metrics, "teenpatti_operator_owed_calls", operator=SEAMLESS, state=state)
        for state in ("overdue", "failed")
    }
    return found == {"overdue": overdue, "failed": failed}


async def test_an_owed_win_not_ok_past_its_time_is_shown_counted_and_once_failed_resent(
    monkeypatch: pytest.MonkeyPatch,
    wallet_settings: WalletSettings,
    keys: Keys,
    operator_database: str,
) -> None:
    async with seamless_game(
        wallet_settings, keys, operator_database, "T1-000101", timeout=0.5
    ) as game:
        settings, operator, client, user, token = game
        taken = await slip(client, user, token, "T1-000101", [("player_a", 1_000)])
        assert taken.status_code == 201, taken.text
        slip_id = taken.json()["slip_id"]
        # the operator answers the win RS_ERROR_UNKNOWN for a while: retried, and overdue
        await operator.faults(
            {"kind": "refuse", "status": "RS_ERROR_UNKNOWN", "next": 40, "calls": ["win"]}
        )
        await close_betting(settings, "T1-000101")
        await close_round(settings, client, "T1-000101", CARDS)
        await settle(settings, "T1-000101", [taken.json()], cancelled=False)

        async def overdue() -> bool:
            problems = (await client.get("/problems", headers=SUPERVISOR)).json()["items"]
            return any(p["kind"] == "overdue_operator_call" for p in problems)

        await eventually(overdue, what="the win to be shown overdue")
        problems = (await client.get("/problems", headers=SUPERVISOR)).json()["items"]
        (problem,) = [p for p in problems if p["kind"] == "overdue_operator_call"]
        facts = problem["facts"]
        assert (facts["kind"], facts["status"], facts["slip_id"]) == ("win", "pending", slip_id)
        assert facts["answer_status"] == "RS_ERROR_UNKNOWN"
        assert facts["attempts"] >= 1 and facts["age_seconds"] >= 0
        assert "RS_ERROR_UNKNOWN" in problem["detail"]
        await eventually(
            lambda: counted(client, overdue=1, failed=0), what="the overdue win to be counted"
        )
        metrics = (await client.get("/metrics")).text
        assert gauge(
            metrics,
            "teenpatti_operator_owed_call_oldest_age_seconds",
            operator=SEAMLESS,
            state="pending",
        )

        # then a refusal retrying cannot fix (our key, say, was rolled over in the wrong order)
        await operator.faults(
            {"kind": "refuse", "status": "RS_ERROR_INVALID_SIGNATURE", "next": 1, "calls": ["win"]}
        )
        await call_done(settings, slip_id, "win", status="failed")
        win = (await calls_of(settings, slip_id))["win"]
        problems = (await client.get("/problems", headers=SUPERVISOR)).json()["items"]
        (problem,) = [p for p in problems if p["kind"] == "failed_operator_call"]
        assert problem["facts"]["call_id"] == str(win["call_id"])
        assert f"teenpatti operators resend {win['call_id']}" in problem["detail"]
        await eventually(
            lambda: counted(client, overdue=0, failed=1), what="the failed win to be counted"
        )
        metrics = (await client.get("/metrics")).text
        # its age by state: failed now, and no pending one to age
        age = "teenpatti_operator_owed_call_oldest_age_seconds"
        assert (gauge(metrics, age, operator=SEAMLESS, state="failed") or 0) > 0
        assert gauge(metrics, age, operator=SEAMLESS, state="pending") is None
        assert await operator.balance(user) == FUNDS - 1_000  # nothing paid yet

        name = settings.wallet_database
        # a call that has not failed, an unknown one, or a bet: refused, nothing changed
        bet_call = str((await calls_of(settings, slip_id))["bet"]["call_id"])
        for call_id, why in (
            (bet_call, "is a bet"),
            ("7d1f6c9e-0000-4000-8000-000000000000", "no call"),
            ("not-a-uuid", "not a call id"),
        ):
            status, _, err = await operators_cli(
                monkeypatch, name, "resend", call_id, "--reason", "r", "--by", "alice"
            )
            assert (status, why in err) == (2, True), err
        status, _, err = await operators_cli(
            monkeypatch, name, "resend", str(win["call_id"]), "--reason", " ", "--by", "alice"
        )
        assert (status, "--reason" in err) == (2, True), err

        status, out, err = await operators_cli(
            monkeypatch, name, "resend", str(win["call_id"]), "--json",
            "--reason", "the operator trusts our new key now", "--by", "alice",
        )  # fmt: skip
        assert status == 0, err
        resent = json.loads(out)
        assert (resent["call_id"], resent["status"], resent["resent_by"]) == (
            str(win["call_id"]),
            "pending",
            "alice",
        )
        assert resent["answer_status_before"] == "RS_ERROR_INVALID_SIGNATURE"
        await call_done(settings, slip_id, "win")
        returned = engine_settles("player_a", 1_000, CARDS)[1]
        assert await operator.balance(user) == FUNDS - 1_000 + returned
        # the same transaction_uuid: the operator applied it once
        wins = [t for t in await operator.transactions(user) if t["kind"] == "win"]
        assert [t["transaction_uuid"] for t in wins] == [win["transaction_uuid"]]
        async with database(settings) as connection:
            resends = await connection.fetch(
                "SELECT reason, resent_by, answer_status_before FROM operator_call_resends"
                " WHERE call_id = $1",
                win["call_id"],
            )
        assert [tuple(r) for r in resends] == [
            ("the operator trusts our new key now", "alice", "RS_ERROR_INVALID_SIGNATURE")
        ]
        # nothing left to show, and a call already ok is not sent again
        problems = (await client.get("/problems", headers=SUPERVISOR)).json()["items"]
        assert [p for p in problems if p["kind"].endswith("_operator_call")] == []
        status, _, err = await operators_cli(
            monkeypatch, name, "resend", str(win["call_id"]), "--reason", "r", "--by", "alice"
        )
        assert (status, "not failed" in err) == (2, True), err


async def test_a_closing_win_waits_behind_a_failed_rollback_of_its_round_until_it_is_resent(
    monkeypatch: pytest.MonkeyPatch,
    wallet_settings: WalletSettings,
    keys: Keys,
    operator_database: str,
) -> None:
    async with seamless_game(
        wallet_settings, keys, operator_database, "T1-000102", timeout=0.5
    ) as game:
        settings, operator, client, user, token = game
        kept = await slip(client, user, token, "T1-000102", [("player_a", 1_000)])
        assert kept.status_code == 201, kept.text
        # the next bet times out: refused and rolled back, and the rollback refused for good
        await operator.faults(
            {"kind": "timeout", "seconds": 1.0, "applied_first": True, "next": 1,
             "calls": ["bet"]},
            {"kind": "refuse", "status": "RS_ERROR_INVALID_SIGNATURE", "next": 1,
             "calls": ["rollback"]},
        )  # fmt: skip
        lost = await slip(client, user, token, "T1-000102", [("tie", 500)])
        assert lost.status_code == 503, lost.text
        lost_slip = str(
            [c for c in (await operator_calls(settings, user)) if c["kind"] == "bet"][-1]["slip_id"]
        )
        await call_done(settings, lost_slip, "rollback", status="failed")
        await close_betting(settings, "T1-000102")
        await close_round(settings, client, "T1-000102", CARDS)
        await settle(settings, "T1-000102", [kept.json()], cancelled=False)
        kept_id = kept.json()["slip_id"]

        async def win_owed() -> bool:
            return "win" in await calls_of(settings, kept_id)

        await eventually(win_owed, what="the round's win to be owed")
        # the closing win is not sent while a rollback of its round has no RS_OK
        assert (await calls_of(settings, kept_id))["win"]["attempts"] == 0
        assert [t["kind"] for t in await operator.transactions(user)] == ["bet", "bet"]

        rollback = (await calls_of(settings, lost_slip))["rollback"]
        status, _, err = await operators_cli(
            monkeypatch, settings.wallet_database, "resend", str(rollback["call_id"]),
            "--reason", "key fixed", "--by", "bob",
        )  # fmt: skip
        assert status == 0, err
        await call_done(settings, lost_slip, "rollback")
        await call_done(settings, kept_id, "win")
        kinds = [t["kind"] for t in await operator.transactions(user)]
        assert kinds == ["bet", "bet", "rollback", "win"]
        returned = engine_settles("player_a", 1_000, CARDS)[1]
        assert await operator.balance(user) == FUNDS - 1_000 + returned


async def operator_calls(settings: WalletSettings, user: str) -> list[dict[str, object]]:
    async with database(settings) as connection:
        rows = await connection.fetch(
            "SELECT * FROM operator_calls WHERE player_id = $1 ORDER BY created_at", user
        )
    return [dict(row) for row in rows]


async def test_an_owed_call_is_leased_for_its_operators_timeout_and_a_margin_only(
    wallet_settings: WalletSettings, keys: Keys, operator_database: str
) -> None:
    async with seamless_game(
        wallet_settings, keys, operator_database, "T1-000103", timeout=3.0
    ) as game:
        settings, operator, client, user, token = game
        taken = await slip(client, user, token, "T1-000103", [("player_a", 1_000)])
        assert taken.status_code == 201, taken.text
        slip_id = taken.json()["slip_id"]
        # the operator holds the win's answer: the call stays claimed, in flight
        await operator.faults({"kind": "latency", "seconds": 2.0, "next": 1, "calls": ["win"]})
        await close_betting(settings, "T1-000103")
        await close_round(settings, client, "T1-000103", CARDS)
        await settle(settings, "T1-000103", [taken.json()], cancelled=False)

        async def claimed() -> bool:
            win = (await calls_of(settings, slip_id)).get("win")
            return win is not None and win["attempts"] == 1

        await eventually(claimed, what="the win to be claimed")
        async with database(settings) as connection:
            lease = await connection.fetchval(
                "SELECT extract(epoch FROM next_attempt_at - now()) FROM operator_calls"
                " WHERE slip_id = $1 AND kind = 'win'",
                taken.json()["slip_id"],
            )
        # were this instance to die now, another sends the win within the lease: the
        # operator's 3 s and the 1.5 s margin, never a minute
        margin = settings.seamless_lease_margin_seconds
        assert 0 < lease <= 3.0 + margin
        await call_done(settings, slip_id, "win")


async def test_a_win_owed_by_a_payment_is_sent_at_once_not_at_the_sender_s_next_look(
    wallet_settings: WalletSettings, keys: Keys, operator_database: str
) -> None:
    # the sender looks for due calls every 60 s; the eventual wait below gives up after 30
    async with seamless_game(
        wallet_settings, keys, operator_database, "T1-000104", sender_interval=60
    ) as game:
        settings, _, client, user, token = game
        taken = await slip(client, user, token, "T1-000104", [("player_a", 1_000)])
        assert taken.status_code == 201, taken.text
        await close_betting(settings, "T1-000104")
        await close_round(settings, client, "T1-000104", CARDS)
        await settle(settings, "T1-000104", [taken.json()], cancelled=False)
        await call_done(settings, taken.json()["slip_id"], "win")
