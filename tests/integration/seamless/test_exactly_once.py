"""Every bet an operator applied is ended exactly once there, in the races a busy table has
(issue 32, item 1; docs/operators.md, "The state machines"). The operator here is
`tests/counterparts/hub88_operator.py`: written from the protocol text alone, sharing no code
with our client (its own signing, header, parsing), strict, and keeping a list of every
protocol violation it sees; `check()` adds every bet left open and its money check."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, NamedTuple
from uuid import uuid4

import httpx

from teenpatti.events.catalog import TABLE_EVENTS, RoundCancelled
from teenpatti.seamless import WinPer
from teenpatti.seamless.signing import public_key_pem
from tests.counterparts.hub88_operator import Hub88Operator, hub88_operator
from tests.integration.seamless.game import (
    UNITS,
    Keys,
    call_done,
    calls_of,
    configure_wallet_server,
    seamless_settings,
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
    open_round,
    send,
    wait_for_round,
    wallet,
)
from wallet_service.config import WalletSettings

FUNDS = 10_000_000  # INR minor units
BET, WIN, ROLLBACK = "/transaction/bet", "/transaction/win", "/transaction/rollback"


class Table(NamedTuple):
    settings: WalletSettings
    operator: Hub88Operator
    client: httpx.AsyncClient


@asynccontextmanager
async def table(
    wallet_settings: WalletSettings,
    keys: Keys,
    round_id: str,
    *,
    timeout: float = 3.0,
    win_per: WinPer = WinPer.ROUND,
) -> AsyncIterator[Table]:
    """The wallet, operator-1 seamless through the independent operator, `round_id` open;
    on leaving, the operator finds nothing wrong."""
    settings = seamless_settings(wallet_settings, keys)
    async with (
        hub88_operator([public_key_pem(keys.game).decode()]) as operator,
        wallet(settings) as client,
    ):
        await configure_wallet_server(
            settings, operator.base_url, operator.public_key_pem, timeout=timeout, win_per=win_per
        )
        await open_round(settings, client, round_id)
        yield Table(settings, operator, client)


def player(operator: Hub88Operator) -> tuple[str, str]:
    user = f"cp-{uuid4().hex[:12]}"
    return user, operator.add_player(user, "INR", FUNDS * UNITS)


def balance(operator: Hub88Operator, user: str) -> int:
    """In INR minor units."""
    units = operator.balance(user, "INR")
    assert units % UNITS == 0
    return units // UNITS


async def answered_late(
    t: Table, user: str, token: str, round_id: str, bets: list[tuple[str, int]]
) -> httpx.Response:
    """A slip whose bet the operator applies at once but answers only after betting closed."""
    t.operator.hold_next(BET, 1.5)
    placing = asyncio.create_task(slip(t.client, user, token, round_id, bets))

    async def received() -> bool:
        return any(
            r["path"] == BET and (r["body"] or {}).get("user") == user for r in t.operator.requests
        )

    await eventually(received, what="the bet to reach the operator")
    await close_betting(t.settings, round_id)
    await wait_for_round(t.client, round_id, "sealed")
    return await placing


def wins_of(operator: Hub88Operator, user: str) -> list[tuple[int, str | None, bool | None]]:
    return [
        (t.amount // UNITS, t.reference_transaction_uuid, t.round_closed)
        for t in operator.transactions(user)
        if t.kind == "win"
    ]


async def test_a_bet_accepted_as_betting_closes_is_rolled_back_and_the_round_win_names_a_taken_slip(
    wallet_settings: WalletSettings, keys: Keys
) -> None:
    async with table(wallet_settings, keys, "T1-000201") as t:
        user, token = player(t.operator)
        taken = await slip(t.client, user, token, "T1-000201", [("player_a", 1_000)])
        assert taken.status_code == 201, taken.text
        late = await answered_late(t, user, token, "T1-000201", [("tie", 500)])
        assert (late.status_code, late.json()["code"]) == (409, "betting_closed")
        late_slip = next(
            b.transaction_uuid for b in t.operator.bets(user) if b.amount == 500 * UNITS
        )
        await call_done(t.settings, late_slip, "rollback")

        await close_round(t.settings, t.client, "T1-000201", CARDS)
        await settle(t.settings, "T1-000201", [taken.json()], cancelled=False)
        await call_done(t.settings, taken.json()["slip_id"], "win")

        returned = engine_settles("player_a", 1_000, CARDS)[1]
        # the round's one win names the slip we took, never the one we rolled back
        assert wins_of(t.operator, user) == [(returned, taken.json()["slip_id"], True)]
        assert {b.transaction_uuid: b.state for b in t.operator.bets(user)} == {
            taken.json()["slip_id"]: "won",
            late_slip: "rolled_back",
        }
        assert balance(t.operator, user) == FUNDS - 1_000 + returned
        assert t.operator.check() == []


async def test_a_player_whose_only_bet_came_too_late_gets_its_rollback_and_no_win(
    wallet_settings: WalletSettings, keys: Keys
) -> None:
    async with table(wallet_settings, keys, "T1-000202") as t:
        other, other_token = player(t.operator)
        user, token = player(t.operator)
        taken = await slip(t.client, other, other_token, "T1-000202", [("player_b", 700)])
        assert taken.status_code == 201, taken.text
        late = await answered_late(t, user, token, "T1-000202", [("player_a", 300)])
        assert (late.status_code, late.json()["code"]) == (409, "betting_closed")
        await close_round(t.settings, t.client, "T1-000202", CARDS)
        await settle(t.settings, "T1-000202", [taken.json()], cancelled=False)
        await call_done(t.settings, taken.json()["slip_id"], "win")

        async def rolled_back() -> bool:
            return [b.state for b in t.operator.bets(user)] == ["rolled_back"]

        await eventually(rolled_back, what="the late bet's rollback")
        assert wins_of(t.operator, user) == []
        assert balance(t.operator, user) == FUNDS
        assert t.operator.check() == []


async def test_a_win_applied_but_its_answer_lost_is_sent_again_and_applied_once(
    wallet_settings: WalletSettings, keys: Keys
) -> None:
    async with table(wallet_settings, keys, "T1-000203") as t:
        user, token = player(t.operator)
        first = await slip(t.client, user, token, "T1-000203", [("player_a", 1_000)])
        second = await slip(t.client, user, token, "T1-000203", [("tie", 200)])
        assert (first.status_code, second.status_code) == (201, 201)
        t.operator.lose_answer_next(WIN)
        t.operator.fail_next(WIN)
        await close_betting(t.settings, "T1-000203")
        await close_round(t.settings, t.client, "T1-000203", CARDS)
        await settle(t.settings, "T1-000203", [first.json(), second.json()], cancelled=False)
        await call_done(t.settings, second.json()["slip_id"], "win")
        win = (await calls_of(t.settings, second.json()["slip_id"]))["win"]
        assert win["attempts"] == 3
        returns = sum(
            engine_settles(bet_type, stake, CARDS)[1]
            for bet_type, stake in (("player_a", 1_000), ("tie", 200))
        )
        assert wins_of(t.operator, user) == [(returns, second.json()["slip_id"], True)]
        assert [b.state for b in t.operator.bets(user)] == ["closed_by_round", "won"]
        assert balance(t.operator, user) == FUNDS - 1_200 + returns
        assert t.operator.check() == []


async def test_a_cancelled_round_rolls_back_each_slip_once_and_a_lost_rollback_is_sent_again(
    wallet_settings: WalletSettings, keys: Keys
) -> None:
    async with table(wallet_settings, keys, "T1-000204") as t:
        user, token = player(t.operator)
        slips: list[dict[str, Any]] = []
        for bets in ([("player_a", 1_000)], [("tie", 200), ("pair_plus_b", 300)]):
            placed = await slip(t.client, user, token, "T1-000204", bets)
            assert placed.status_code == 201, placed.text
            slips.append(placed.json())
        t.operator.lose_answer_next(ROLLBACK)
        await send(
            t.settings,
            TABLE_EVENTS,
            RoundCancelled(
                round_id="T1-000204", table_id="T1", actor="sup", reason="shoe", cards_dealt=0
            ),
            table_id="T1",
        )
        await wait_for_round(t.client, "T1-000204", "cancelled")
        await settle(t.settings, "T1-000204", slips, cancelled=True)
        for placed in slips:
            await call_done(t.settings, placed["slip_id"], "rollback")
        assert sorted(b.state for b in t.operator.bets(user)) == ["rolled_back", "rolled_back"]
        assert wins_of(t.operator, user) == []
        assert balance(t.operator, user) == FUNDS
        assert t.operator.check() == []


async def test_one_win_per_slip_names_each_slip_and_closes_the_round_with_the_last(
    wallet_settings: WalletSettings, keys: Keys
) -> None:
    async with table(wallet_settings, keys, "T1-000205", win_per=WinPer.SLIP) as t:
        user, token = player(t.operator)
        taken = await slip(t.client, user, token, "T1-000205", [("player_a", 1_000)])
        assert taken.status_code == 201, taken.text
        late = await answered_late(t, user, token, "T1-000205", [("tie", 500)])
        assert (late.status_code, late.json()["code"]) == (409, "betting_closed")
        await close_round(t.settings, t.client, "T1-000205", CARDS)
        await settle(t.settings, "T1-000205", [taken.json()], cancelled=False)
        await call_done(t.settings, taken.json()["slip_id"], "win")
        returned = engine_settles("player_a", 1_000, CARDS)[1]
        assert wins_of(t.operator, user) == [(returned, taken.json()["slip_id"], True)]
        assert balance(t.operator, user) == FUNDS - 1_000 + returned
        assert t.operator.check() == []


async def test_a_declined_bet_is_not_rolled_back_and_an_unknown_outcome_is(
    wallet_settings: WalletSettings, keys: Keys
) -> None:
    async with table(wallet_settings, keys, "T1-000206") as t:
        poor = f"cp-{uuid4().hex[:12]}"
        poor_token = t.operator.add_player(poor, "INR", 100 * UNITS)
        declined = await slip(t.client, poor, poor_token, "T1-000206", [("player_a", 1_000)])
        assert (declined.status_code, declined.json()["code"]) == (409, "insufficient_funds")
        user, token = player(t.operator)
        t.operator.refuse_next(BET, "RS_ERROR_UNKNOWN")
        unknown = await slip(t.client, user, token, "T1-000206", [("player_a", 1_000)])
        assert (unknown.status_code, unknown.json()["code"]) == (409, "operator_refused")
        assert unknown.json()["operator_status"] == "RS_ERROR_UNKNOWN"
        async with database(t.settings) as connection:
            calls = await connection.fetch(
                "SELECT player_id, kind, status FROM operator_calls ORDER BY created_at"
            )
        # the declined bet needs no rollback; the one whose outcome is unknown is undone
        assert [(c["player_id"], c["kind"], c["status"]) for c in calls][:2] == [
            (poor, "bet", "refused"),
            (user, "bet", "refused"),
        ]
        unknown_slip = next(
            str(r["body"]["transaction_uuid"])
            for r in t.operator.requests
            if r["path"] == BET and r["body"]["user"] == user
        )
        await call_done(t.settings, unknown_slip, "rollback")
        # the operator never had it: the rollback left a tombstone, nothing moved
        (rollback,) = [tx for tx in t.operator.transactions(user) if tx.kind == "rollback"]
        assert (rollback.tombstone, rollback.amount) == (True, 0)
        assert (balance(t.operator, poor), balance(t.operator, user)) == (100, FUNDS)
        # a limit the operator sets on its player: declined as well, nothing to roll back
        t.operator.refuse_next(BET, "RS_ERROR_LIMIT_REACHED")
        limited = await slip(t.client, user, token, "T1-000206", [("tie", 500)])
        assert (limited.status_code, limited.json()["code"]) == (409, "limit_reached")
        assert [tx.kind for tx in t.operator.transactions(user)] == ["rollback"]
        assert t.operator.check() == []


async def test_a_slip_sent_again_while_its_bet_is_unanswered_is_pending_then_the_first_answer(
    wallet_settings: WalletSettings, keys: Keys
) -> None:
    async with table(wallet_settings, keys, "T1-000207") as t:
        user, token = player(t.operator)
        t.operator.hold_next(BET, 1.5)
        key = str(uuid4())
        first = asyncio.create_task(slip(t.client, user, token, "T1-000207", [("tie", 300)], key))

        async def received() -> bool:
            return any(r["path"] == BET for r in t.operator.requests)

        await eventually(received, what="the bet to reach the operator")
        again = await slip(t.client, user, token, "T1-000207", [("tie", 300)], key)
        assert (again.status_code, again.json()["code"]) == (409, "slip_pending")
        taken = await first
        assert taken.status_code == 201, taken.text
        # once answered, the same key gives the first answer: one bet at the operator
        replay = await slip(t.client, user, token, "T1-000207", [("tie", 300)], key)
        assert (replay.status_code, replay.json()) == (201, taken.json())
        assert len(t.operator.bets(user)) == 1
        await close_betting(t.settings, "T1-000207")
        await close_round(t.settings, t.client, "T1-000207", CARDS)
        await settle(t.settings, "T1-000207", [taken.json()], cancelled=False)
        await call_done(t.settings, taken.json()["slip_id"], "win")
        assert t.operator.check() == []
