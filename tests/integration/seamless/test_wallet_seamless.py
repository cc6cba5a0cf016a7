"""The wallet with a seamless operator, end to end on the real stack: the wallet service
(Postgres, Kafka) calls the reference operator (teenpatti_tools.operator, its own database,
a real HTTP server) for every bet, win and rollback; another operator stays on the transfer
wallet beside it (issue 22, items 1 to 4)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from uuid import uuid4

import asyncpg
import pytest

from teenpatti.audit.runner import read_balance_tables
from teenpatti.events.catalog import (
    TABLE_EVENTS,
    RoundCancelled,
)
from teenpatti.kernel.migrate import migrate_service
from teenpatti.seamless import WalletMode, WinPer
from teenpatti.seamless.signing import (
    generate_private_key,
    public_key_pem,
)
from tests.integration.seamless.game import (
    ALL_BETS,
    FUNDS,
    SEAMLESS,
    UNITS,
    Keys,
    bet_slip_of,
    call_done,
    calls_of,
    configure,
    operators_cli,
    reference_operator,
    seamless_game,
    seamless_settings,
    settle,
    slip,
)
from tests.integration.seamless.support import CARDS
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
from wallet_service.app import SERVICE
from wallet_service.config import WalletSettings
from wallet_service.operators import OperatorConfigs


# ------------------------------------------------------------------------------ the tests
@pytest.mark.parametrize("win_per", [WinPer.ROUND, WinPer.SLIP])
async def test_every_bet_type_is_paid_exactly_and_a_loss_sends_a_zero_win_closing_the_round(
    wallet_settings: WalletSettings, keys: Keys, operator_database: str, win_per: WinPer
) -> None:
    settings = seamless_settings(wallet_settings, keys)
    async with (
        reference_operator(operator_database, keys) as operator,
        wallet(settings) as client,
    ):
        await configure(settings, operator, keys, win_per=win_per)
        await open_round(settings, client, "T1-000001")
        winner, winner_token = await operator.player()
        loser, loser_token = await operator.player()

        taken = await slip(client, winner, winner_token, "T1-000001", ALL_BETS)
        assert taken.status_code == 201, taken.text
        stakes = sum(stake for _, stake in ALL_BETS)
        # the balance in the answer is the operator's, after its debit
        assert taken.json()["balance"] == FUNDS - stakes == await operator.balance(winner)
        lost = await slip(client, loser, loser_token, "T1-000001", [("player_b", 2_000)])
        assert lost.status_code == 201, lost.text
        # two slips of one player: one win for the round, referencing the last slip; or, one
        # per slip, two wins and round_closed on the last one sent only
        lost_too = await slip(client, loser, loser_token, "T1-000001", [("tie", 300)])
        assert lost_too.status_code == 201, lost_too.text
        # the winner's second slip: a round's returns are paid whole either way
        again = await slip(client, winner, winner_token, "T1-000001", [("player_a", 700)])
        assert again.status_code == 201, again.text

        # its players' money stays with it: no deposit into our wallet
        refused = await client.post(
            f"/players/{winner}/deposits",
            json={"transfer_id": "d1", "currency": "INR", "amount": 100},
            headers=OPERATOR_1,
        )
        assert (refused.status_code, refused.json()["code"]) == (409, "seamless_operator")

        # a transfer operator beside it, unchanged: its own balance, debited by the wallet
        await deposit(client, "tp1", 5_000, headers=OPERATOR_2)
        transfer = await place(
            client, "tp1", "T1-000001", [("player_a", 1_000)], headers=OPERATOR_2
        )
        assert (transfer.status_code, transfer.json()["balance"]) == (201, 4_000)

        await close_betting(settings, "T1-000001")
        await close_round(settings, client, "T1-000001", CARDS)
        slips = [taken.json(), lost.json(), lost_too.json(), again.json()]
        await settle(settings, "T1-000001", slips, cancelled=False)

        returns = sum(engine_settles(bet_type, stake, CARDS)[1] for bet_type, stake in ALL_BETS)
        again_returns = engine_settles("player_a", 700, CARDS)[1]
        assert returns > 0
        if win_per is WinPer.ROUND:
            await call_done(settings, again.json()["slip_id"], "win")
            await call_done(settings, lost_too.json()["slip_id"], "win")
        else:
            for paid in slips:
                await call_done(settings, paid["slip_id"], "win")
        both = returns + again_returns
        assert await operator.balance(winner) == FUNDS - stakes - 700 + both
        assert await operator.balance(loser) == FUNDS - 2_300

        applied = await operator.transactions(winner)
        assert [(t["kind"], t["amount"], t["transaction_uuid"]) for t in applied[:2]] == [
            ("bet", stakes * UNITS, taken.json()["slip_id"]),
            ("bet", 700 * UNITS, again.json()["slip_id"]),
        ]
        wins = [
            (t["amount"], t["reference_transaction_uuid"], t["round_closed"])
            for t in applied
            if t["kind"] == "win"
        ]
        loser_wins = [
            (t["amount"], t["reference_transaction_uuid"], t["round_closed"])
            for t in await operator.transactions(loser)
            if t["kind"] == "win"
        ]
        if win_per is WinPer.ROUND:
            # one win per player and round: its returns whole, naming the last slip, closing
            assert wins == [(both * UNITS, again.json()["slip_id"], True)]
            assert loser_wins == [(0, lost_too.json()["slip_id"], True)]
        else:
            taken_win = (returns * UNITS, taken.json()["slip_id"])
            again_win = (again_returns * UNITS, again.json()["slip_id"])
            assert sorted(w[:2] for w in wins) == sorted([taken_win, again_win])
            assert [w[2] for w in wins] == [False, True]
            assert sorted(w[:2] for w in loser_wins) == sorted(
                [(0, lost.json()["slip_id"]), (0, lost_too.json()["slip_id"])]
            )
            assert [w[2] for w in loser_wins] == [False, True]

        # the seamless players hold no balance in our wallet; the transfer player does
        async with database(settings) as connection:
            held = await connection.fetch(
                "SELECT player_id, balance FROM wallet_accounts WHERE operator_id = $1", SEAMLESS
            )
        assert [row for row in held if row["balance"] != 0] == []
        # its bet is not in this round's seamless settlement: still only debited
        response = await client.get("/players/tp1/balances", headers=OPERATOR_2)
        assert response.json() == {"INR": 4_000}


async def test_a_cancelled_round_rolls_every_bet_back(
    wallet_settings: WalletSettings, keys: Keys, operator_database: str
) -> None:
    async with seamless_game(wallet_settings, keys, operator_database, "T1-000002") as game:
        settings, operator, client, user, token = game
        first = await slip(client, user, token, "T1-000002", [("player_a", 1_000)])
        second = await slip(client, user, token, "T1-000002", [("tie", 500), ("player_b", 300)])
        assert first.status_code == second.status_code == 201
        assert await operator.balance(user) == FUNDS - 1_800
        await send(
            settings,
            TABLE_EVENTS,
            RoundCancelled(
                round_id="T1-000002", table_id="T1", actor="sup", reason="shoe", cards_dealt=0
            ),
            table_id="T1",
        )
        await wait_for_round(client, "T1-000002", "cancelled")
        await settle(settings, "T1-000002", [first.json(), second.json()], cancelled=True)
        for taken in (first, second):
            await call_done(settings, taken.json()["slip_id"], "rollback")
            assert "win" not in await calls_of(settings, taken.json()["slip_id"])
        assert await operator.balance(user) == FUNDS
        kinds = sorted(t["kind"] for t in await operator.transactions(user))
        assert kinds == ["bet", "bet", "rollback", "rollback"]


async def test_a_bet_that_times_out_is_rolled_back_the_slip_refused_and_the_late_bet_refused(
    wallet_settings: WalletSettings, keys: Keys, operator_database: str
) -> None:
    async with seamless_game(
        wallet_settings, keys, operator_database, "T1-000003", timeout=0.5
    ) as game:
        settings, operator, client, user, token = game
        # the bet is held past our timeout, then applied: after its rollback came
        await operator.faults({"kind": "timeout", "seconds": 2.0, "next": 1, "calls": ["bet"]})
        key = str(uuid4())
        refused = await slip(client, user, token, "T1-000003", [("player_a", 1_000)], key)
        assert refused.status_code == 503, refused.text
        assert refused.json()["code"] == "operator_unavailable"
        slip_id = await bet_slip_of(settings, user)
        await call_done(settings, slip_id, "rollback")
        await operator.held_calls_applied()
        # the late bet met the rollback's tombstone: nothing moved
        assert await operator.balance(user) == FUNDS
        calls = await calls_of(settings, slip_id)
        assert calls["bet"]["status"] == "failed"
        # the slip stays refused: its key answers the same refusal
        again = await slip(client, user, token, "T1-000003", [("player_a", 1_000)], key)
        assert (again.status_code, again.json()["code"]) == (503, "operator_unavailable")
        book = await client.get("/rounds/T1-000003/book", headers=OPERATOR_1)
        assert book.json()["bet_count"] == 0


async def test_the_win_closing_a_round_waits_for_a_bet_of_the_round_still_unanswered(
    wallet_settings: WalletSettings, keys: Keys, operator_database: str
) -> None:
    async with seamless_game(
        wallet_settings, keys, operator_database, "T1-000009", timeout=2.0
    ) as game:
        settings, operator, client, user, token = game
        taken = await slip(client, user, token, "T1-000009", [("player_a", 1_000)])
        assert taken.status_code == 201, taken.text
        # the player's second bet is held past our timeout: the round is settled meanwhile
        await operator.faults({"kind": "timeout", "seconds": 3.0, "next": 1, "calls": ["bet"]})
        late = asyncio.create_task(slip(client, user, token, "T1-000009", [("tie", 500)]))
        async with database(settings) as connection:

            async def pending() -> bool:
                return bool(
                    await connection.fetchval(
                        "SELECT count(*) = 2 FROM operator_calls WHERE player_id = $1", user
                    )
                )

            await eventually(pending, what="the second bet call recorded")
        await close_betting(settings, "T1-000009")
        await close_round(settings, client, "T1-000009", CARDS)
        await settle(settings, "T1-000009", [taken.json()], cancelled=False)
        refused = await late
        assert (refused.status_code, refused.json()["code"]) == (503, "operator_unavailable")
        await call_done(settings, taken.json()["slip_id"], "win")
        await operator.held_calls_applied()

        # the unanswered bet's rollback reached the operator before the round was closed
        applied = [(t["kind"], t["round_closed"]) for t in await operator.transactions(user)]
        assert applied == [("bet", False), ("rollback", False), ("win", True)]
        returns = engine_settles("player_a", 1_000, CARDS)[1]
        assert await operator.balance(user) == FUNDS - 1_000 + returns


async def test_a_win_answered_5xx_then_lost_is_retried_until_ok_and_paid_once(
    wallet_settings: WalletSettings, keys: Keys, operator_database: str
) -> None:
    async with seamless_game(wallet_settings, keys, operator_database, "T1-000004") as game:
        settings, operator, client, user, token = game
        taken = await slip(client, user, token, "T1-000004", [("player_a", 1_000)])
        assert taken.status_code == 201, taken.text
        await operator.faults(
            {"kind": "error", "http_status": 503, "next": 2, "calls": ["win"]},
            {"kind": "lost", "next": 1, "calls": ["win"]},
        )
        await close_betting(settings, "T1-000004")
        await close_round(settings, client, "T1-000004", CARDS)
        await settle(settings, "T1-000004", [taken.json()], cancelled=False)
        slip_id = taken.json()["slip_id"]
        await call_done(settings, slip_id, "win")
        win = (await calls_of(settings, slip_id))["win"]
        assert win["attempts"] >= 2
        returned = engine_settles("player_a", 1_000, CARDS)[1]
        assert await operator.balance(user) == FUNDS - 1_000 + returned
        kinds = [t["kind"] for t in await operator.transactions(user)]
        assert kinds == ["bet", "win"]


async def test_a_sender_step_that_hangs_on_the_database_is_given_up_and_the_win_sent_after(
    wallet_settings: WalletSettings, keys: Keys, operator_database: str
) -> None:
    # neither Postgres nor the client bounds a statement here: only the sender's own limit
    settings = seamless_settings(wallet_settings, keys).model_copy(
        update={
            "seamless_sender_step_seconds": 0.5,
            "pg_statement_timeout_ms": 0,
            "pg_command_timeout_seconds": 0.0,
        }
    )
    async with (
        reference_operator(operator_database, keys) as operator,
        wallet(settings) as client,
    ):
        await configure(settings, operator, keys)
        await open_round(settings, client, "T1-000010")
        user, token = await operator.player()
        taken = await slip(client, user, token, "T1-000010", [("player_a", 1_000)])
        assert taken.status_code == 201, taken.text
        slip_id = taken.json()["slip_id"]
        await close_betting(settings, "T1-000010")
        await close_round(settings, client, "T1-000010", CARDS)
        async with database(settings) as blocker:
            # a session left open holding the operators' table: reading an operator's
            # configuration waits for as long as it stays open
            transaction = blocker.transaction()
            await transaction.start()
            await blocker.execute("LOCK TABLE operators IN ACCESS EXCLUSIVE MODE")
            try:
                await settle(settings, "T1-000010", [taken.json()], cancelled=False)

                async def given_up() -> bool:
                    win = (await calls_of(settings, slip_id)).get("win")
                    return win is not None and "TimeoutError" in (win["error"] or "")

                await eventually(given_up, what="the win's attempt to be given up")
                win = (await calls_of(settings, slip_id))["win"]
                assert win["status"] == "pending"
            finally:
                await transaction.rollback()
        await call_done(settings, slip_id, "win")
        returned = engine_settles("player_a", 1_000, CARDS)[1]
        assert await operator.balance(user) == FUNDS - 1_000 + returned
        kinds = [t["kind"] for t in await operator.transactions(user)]
        assert kinds == ["bet", "win"]


async def test_a_bet_whose_answer_is_lost_after_it_was_applied_is_rolled_back_once(
    wallet_settings: WalletSettings, keys: Keys, operator_database: str
) -> None:
    async with seamless_game(wallet_settings, keys, operator_database, "T1-000008") as game:
        settings, operator, client, user, token = game
        await operator.faults({"kind": "lost", "next": 1, "calls": ["bet"]})
        refused = await slip(client, user, token, "T1-000008", [("player_a", 1_000)])
        assert (refused.status_code, refused.json()["code"]) == (503, "operator_unavailable")
        assert refused.json()["reason"] == "http_status"
        slip_id = await bet_slip_of(settings, user)
        await call_done(settings, slip_id, "rollback")
        # the debit the operator applied is undone once: its money adds up (checked on exit)
        assert await operator.balance(user) == FUNDS
        kinds = [t["kind"] for t in await operator.transactions(user)]
        assert kinds == ["bet", "rollback"]


async def test_a_win_refused_for_good_is_a_problem_for_a_person(
    wallet_settings: WalletSettings, keys: Keys, operator_database: str
) -> None:
    async with seamless_game(wallet_settings, keys, operator_database, "T1-000009") as game:
        settings, operator, client, user, token = game
        taken = await slip(client, user, token, "T1-000009", [("player_a", 1_000)])
        assert taken.status_code == 201, taken.text
        await operator.faults(
            {
                "kind": "refuse",
                "status": "RS_ERROR_TRANSACTION_DOES_NOT_EXIST",
                "next": 1,
                "calls": ["win"],
            }
        )
        await close_betting(settings, "T1-000009")
        await close_round(settings, client, "T1-000009", CARDS)
        await settle(settings, "T1-000009", [taken.json()], cancelled=False)
        slip_id = taken.json()["slip_id"]
        await call_done(settings, slip_id, "win", status="failed")
        problems = await client.get("/problems", headers={"X-Api-Key": "dev-supervisor-key"})
        assert problems.status_code == 200, problems.text
        (problem,) = [p for p in problems.json()["items"] if p["kind"] == "failed_operator_call"]
        assert problem["round_id"] == "T1-000009"
        assert problem["facts"]["slip_id"] == slip_id
        assert problem["facts"]["answer_status"] == "RS_ERROR_TRANSACTION_DOES_NOT_EXIST"
        assert problem["facts"]["amount"] == engine_settles("player_a", 1_000, CARDS)[1]
        # never retried: the operator saw one attempt, applied nothing
        assert [t["kind"] for t in await operator.transactions(user)] == ["bet"]
        assert (await calls_of(settings, slip_id))["win"]["attempts"] == 1
        # the operator's side still adds up: the win is owed, for a person to settle
        assert await operator.balance(user) == FUNDS - 1_000
    # and the audit reports it
    async with database(settings) as connection:
        tables = await read_balance_tables(connection)
    assert tables is not None
    assert [(str(c.call_id), c.kind, c.round_id, c.why) for c in tables.failed_calls] == [
        (
            str((await calls_of(settings, slip_id))["win"]["call_id"]),
            "win",
            "T1-000009",
            "RS_ERROR_TRANSACTION_DOES_NOT_EXIST",
        )
    ]


async def test_a_wrong_signature_either_way_is_refused(
    wallet_settings: WalletSettings, keys: Keys, operator_database: str
) -> None:
    async with seamless_game(wallet_settings, keys, operator_database, "T1-000005") as game:
        settings, operator, client, user, token = game
        # the operator's answer is not signed by its key: refused, the applied bet rolled back
        await operator.faults({"kind": "bad_signature", "next": 1, "calls": ["bet"]})
        refused = await slip(client, user, token, "T1-000005", [("player_a", 1_000)])
        assert (refused.status_code, refused.json()["code"]) == (502, "bad_operator_answer")
        assert refused.json()["reason"] == "wrong_signature"
        slip_id = await bet_slip_of(settings, user)
        await call_done(settings, slip_id, "rollback")
        assert await operator.balance(user) == FUNDS

    # our signature is not one the operator knows: it refuses, nothing moves, no rollback
    stranger = generate_private_key()
    async with (
        reference_operator(operator_database, keys, game_public=stranger) as operator,
        wallet(settings) as client,
    ):
        await configure(settings, operator, keys)
        await open_round(settings, client, "T1-000006")
        user, token = await operator.player()
        refused = await slip(client, user, token, "T1-000006", [("player_a", 1_000)])
        assert (refused.status_code, refused.json()["code"]) == (409, "operator_refused")
        assert refused.json()["operator_status"] == "RS_ERROR_INVALID_SIGNATURE"
        assert await operator.balance(user) == FUNDS
        assert await operator.transactions(user) == []


async def test_an_abandoned_pending_slip_is_refused_and_rolled_back_by_recovery(
    wallet_settings: WalletSettings, keys: Keys, operator_database: str
) -> None:
    async with seamless_game(
        wallet_settings, keys, operator_database, "T1-000007", timeout=0.5
    ) as game:
        settings, operator, _client, user, token = game
        # an instance crashed after recording the slip pending and sending its bet: the bet
        # reached the operator, the answer was never recorded
        slip_id, key = uuid4(), str(uuid4())
        async with database(settings) as connection:
            await connection.execute(
                "INSERT INTO wallet_idempotency (operator_id, key, request_hash)"
                " VALUES ($1, $2, 'h')",
                SEAMLESS,
                key,
            )
            await connection.execute(
                "INSERT INTO operator_calls (call_id, kind, operator_id, player_id, round_id,"
                " table_id, slip_id, transaction_uuid, token, amount, currency, status,"
                " attempts, idempotency_key, slip) VALUES ($1, 'bet', $2, $3, 'T1-000007',"
                " 'T1', $1, $7, $4, 1000, 'INR', 'pending', 1, $5, $6::jsonb)",
                slip_id,
                SEAMLESS,
                user,
                token,
                key,
                json.dumps({"placed_at": "2026-01-01T00:00:00+00:00", "bets": []}),
                str(slip_id),
            )
        await call_done(settings, str(slip_id), "bet", status="failed")
        await call_done(settings, str(slip_id), "rollback")
        async with database(settings) as connection:
            answer = await connection.fetchrow(
                "SELECT status_code, response::text FROM wallet_idempotency WHERE key = $1", key
            )
        assert answer["status_code"] == 503
        assert json.loads(answer["response"])["code"] == "operator_unavailable"
        assert await operator.balance(user) == FUNDS


async def test_operators_are_configured_by_the_cli_and_read_by_the_wallet_without_a_restart(
    monkeypatch: pytest.MonkeyPatch, wallet_settings: WalletSettings, keys: Keys, tmp_path: Path
) -> None:
    await migrate_service(SERVICE, wallet_settings)
    public = tmp_path / "operator.pub.pem"
    public.write_bytes(public_key_pem(keys.operator))
    name = wallet_settings.wallet_database
    pool = await asyncpg.create_pool(wallet_settings.postgres_dsn(name), min_size=1, max_size=2)
    try:
        configs = OperatorConfigs(pool, ttl_seconds=0)
        assert (await configs.get("casino-9")).mode is WalletMode.TRANSFER  # no row

        status, out, err = await operators_cli(
            monkeypatch, name, "set", "casino-9", "--mode", "seamless", "--base-url",
            "https://wallet.casino.example/hub88/", "--public-key", str(public),
            "--timeout", "2.5", "--by", "alice", "--json",
        )  # fmt: skip
        assert status == 0, err
        shown = json.loads(out)
        assert (shown["mode"], shown["base_url"], shown["timeout_seconds"]) == (
            "seamless",
            "https://wallet.casino.example/hub88",
            2.5,
        )
        assert (len(shown["public_keys"]), shown["updated_by"]) == (1, "alice")
        config = await configs.get("casino-9")
        assert (config.seamless, config.timeout_seconds) == (True, 2.5)
        # an instance keeps what it read for the cache's lifetime, then reads the change
        clock = [0.0]
        cached = OperatorConfigs(pool, ttl_seconds=5, monotonic=lambda: clock[0])
        assert (await cached.get("casino-9")).max_backoff_seconds == 60.0

        # options not given keep their value
        status, _, err = await operators_cli(
            monkeypatch, name, "set", "casino-9", "--max-backoff", "30", "--by", "bob"
        )
        assert status == 0, err
        status, out, _ = await operators_cli(monkeypatch, name, "show", "casino-9")
        shown = json.loads(out)
        assert (shown["max_backoff_seconds"], shown["timeout_seconds"]) == (30.0, 2.5)
        assert shown["updated_by"] == "bob"
        assert (await cached.get("casino-9")).max_backoff_seconds == 60.0
        clock[0] = 5.0
        assert (await cached.get("casino-9")).max_backoff_seconds == 30.0

        # a seamless operator without a wallet server is refused, nothing written
        status, _, err = await operators_cli(
            monkeypatch, name, "set", "casino-10", "--mode", "seamless", "--by", "bob"
        )
        assert status == 2
        assert "base_url" in err
        status, out, _ = await operators_cli(monkeypatch, name, "list", "--json")
        assert [row["operator_id"] for row in json.loads(out)] == ["casino-9"]
        status, out, _ = await operators_cli(monkeypatch, name, "show", "casino-10")
        assert json.loads(out) == {
            "operator_id": "casino-10",
            "mode": "transfer",
            "configured": False,
        }
    finally:
        await pool.close()
