"""A round voided after its result at a seamless operator (the independent counterpart,
`tests/counterparts/hub88_operator.py`): the protocol has no call that reverses an ended bet,
so nothing more is sent; each player's net is listed for the operator (`GET /problems`, the
transactions API, the daily report) until a person records it settled."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from teenpatti import engine
from teenpatti.engine import PUBLISHED_PAY_TABLE
from teenpatti.events.catalog import (
    TABLE_EVENTS,
)
from tests.integration.seamless.game import Keys, call_done, operators_cli, settle, slip
from tests.integration.seamless.support import CARDS, reverse, voided_after_result
from tests.integration.seamless.test_exactly_once import balance, player, table
from tests.integration.wallet.helpers import close_betting, close_round, database, eventually, send
from wallet_service.config import WalletSettings
from wallet_service.rebuild import rebuild

ROUND = "T1-000301"
SUPERVISOR = {"X-Api-Key": "dev-supervisor-key"}
OPERATOR_1 = {"X-Api-Key": "dev-operator-1-key"}
FUNDS = 10_000_000


async def test_a_void_after_the_result_sends_nothing_more_and_lists_each_players_net(
    wallet_settings: WalletSettings, keys: Keys, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with table(wallet_settings, keys, ROUND) as t:
        winner, winner_token = player(t.operator)
        loser, loser_token = player(t.operator)
        won = await slip(t.client, winner, winner_token, ROUND, [("player_a", 1_000)])
        lost = await slip(t.client, loser, loser_token, ROUND, [("player_b", 400)])
        assert (won.status_code, lost.status_code) == (201, 201)
        await close_betting(t.settings, ROUND)
        await close_round(t.settings, t.client, ROUND, CARDS)
        await settle(t.settings, ROUND, [won.json(), lost.json()], cancelled=False)
        for taken in (won, lost):
            await call_done(t.settings, taken.json()["slip_id"], "win")
        calls_before = len(t.operator.requests)
        paid = balance(t.operator, winner)

        await send(t.settings, TABLE_EVENTS, voided_after_result(ROUND), table_id="T1")
        await reverse(t.settings, ROUND, [("operator-1", won.json()), ("operator-1", lost.json())])

        async def listed() -> list[dict[str, Any]]:
            problems = (await t.client.get("/problems", headers=SUPERVISOR)).json()["items"]
            return [p for p in problems if p["kind"] == "seamless_correction"]

        async def both_listed() -> bool:
            return len(await listed()) == 2

        await eventually(both_listed, what="both players' corrections listed")
        returned = engine.settle_bet(
            engine.Bet(engine.BetType.PLAYER_A, 1_000, "INR"),
            engine.resolve_round(engine.parse_cards(CARDS)),
            PUBLISHED_PAY_TABLE,
        ).returned
        nets = {p["facts"]["player_id"]: p["facts"]["net"] for p in await listed()}
        assert nets == {winner: 1_000 - returned, loser: 400}

        moves = (
            await t.client.get("/transactions", params={"round_id": ROUND}, headers=OPERATOR_1)
        ).json()["items"]
        corrections = {m["player_id"]: m for m in moves if m["kind"] == "correction"}
        assert {p: (m["amount"], m["status"], m["applied"]) for p, m in corrections.items()} == {
            winner: (1_000 - returned, "listed", 0),
            loser: (400, "listed", 0),
        }

        # nothing more goes to the operator: its bets stay ended once, its balances as paid
        await asyncio.sleep(1.0)
        assert len(t.operator.requests) == calls_before
        assert balance(t.operator, winner) == paid
        assert t.operator.check() == []

        status, _, err = await operators_cli(
            monkeypatch,
            t.settings.wallet_database,
            "correction-settled",
            ROUND,
            loser,
            "--operator",
            "operator-1",
            "--reason",
            "credited 4.00 INR by the operator's back office",
            "--by",
            "payments-desk",
        )
        assert status == 0, err
        assert [p["facts"]["player_id"] for p in await listed()] == [winner]

        async with database(t.settings) as connection:
            rebuilt = await rebuild(connection)
        assert rebuilt.equal, rebuilt
        assert balance(t.operator, loser) == FUNDS - 400
