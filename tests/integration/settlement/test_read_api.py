"""The operator read API, and a round held because the book and the bets disagree."""

from __future__ import annotations

from uuid import uuid4

from settlement_service.app import create_app
from settlement_service.config import SettlementSettings

from ..services import running
from .conftest import (
    OPERATOR_1,
    OPERATOR_2,
    SUPERVISOR,
    book,
    closed,
    connect,
    eventually,
    feed_table,
    feed_wallet,
    opened,
    placed,
    round_id,
    settlements,
)


async def test_an_operator_sees_only_its_own_bets_and_totals(
    settlement_settings: SettlementSettings,
) -> None:
    mine = [
        placed("T1", "player_a", 101, player="p-1"),  # 196 back, 19/20 kept
        placed("T1", "tie", 50, player="p-2"),  # lost
    ]
    theirs = [placed("T1", "player_b", 300, operator="operator-2", player="q-1")]  # lost
    async with running(create_app(settlement_settings)) as client:
        assert (await client.get("/health")).json() == {"service": "settlement", "status": "ok"}
        await feed_table(settlement_settings, opened("T1"))
        for bet in mine + theirs:
            await feed_wallet(settlement_settings, bet)
        await feed_wallet(settlement_settings, book("T1", mine + theirs))
        await feed_table(
            settlement_settings,
            closed(
                "T1",
                ["9S", "10C", "9H", "7D", "8C", "6S"],
                winner="player_a",
                a="pair",
                b="high_card",
                bonus="straight",
            ),
        )
        await settlements(settlement_settings, 1)

        response = await client.get(f"/rounds/{round_id('T1')}/settlement", headers=OPERATOR_1)
        assert response.status_code == 200
        body = response.json()
        assert body["round_id"] == round_id("T1")
        assert body["table_id"] == "T1"
        assert body["status"] == "settled"
        assert body["cancelled"] is False
        assert body["result"] == {
            "cards": ["9S", "10C", "9H", "7D", "8C", "6S"],
            "winner": "player_a",
            "player_a_hand": "pair",
            "player_b_hand": "high_card",
            "six_card_bonus_hand": "straight",
        }
        assert body["totals"] == {"INR": {"stake": 151, "returned": 196, "house_result": -45}}
        assert [
            (b["bet_id"], b["player_id"], b["outcome"], b["returned"], b["fraction_kept"])
            for b in body["bets"]
        ] == [
            (str(mine[0].bet_id), "p-1", "won", 196, "19/20"),
            (str(mine[1].bet_id), "p-2", "lost", 0, "0"),
        ]

        other = (
            await client.get(f"/rounds/{round_id('T1')}/settlement", headers=OPERATOR_2)
        ).json()
        assert [b["bet_id"] for b in other["bets"]] == [str(theirs[0].bet_id)]
        assert other["totals"] == {"INR": {"stake": 300, "returned": 0, "house_result": 300}}

        own = await client.get(f"/bets/{mine[0].bet_id}/settlement", headers=OPERATOR_1)
        assert own.status_code == 200
        assert own.json()["status"] == "settled"
        assert own.json()["returned"] == 196
        assert own.json()["odds"] == "19/20"
        assert own.json()["round"]["status"] == "settled"

        foreign = await client.get(f"/bets/{theirs[0].bet_id}/settlement", headers=OPERATOR_1)
        assert foreign.status_code == 404
        assert foreign.headers["content-type"] == "application/problem+json"
        assert foreign.json()["code"] == "unknown_bet"
        unknown = await client.get(f"/bets/{uuid4()}/settlement", headers=OPERATOR_1)
        assert unknown.status_code == 404
        assert unknown.json()["code"] == "unknown_bet"
        assert (
            await client.get(f"/bets/{theirs[0].bet_id}/settlement", headers=OPERATOR_2)
        ).status_code == 200

        cases = [
            ("/bets/not-a-uuid/settlement", OPERATOR_1, 422, "invalid_request"),
            ("/rounds/T1-999999/settlement", OPERATOR_1, 404, "unknown_round"),
            (f"/rounds/{round_id('T1')}/settlement", {}, 401, "missing_api_key"),
            (f"/rounds/{round_id('T1')}/settlement", {"X-Api-Key": "nope"}, 401, "invalid_api_key"),
            (f"/rounds/{round_id('T1')}/settlement", SUPERVISOR, 403, "forbidden"),
            (f"/bets/{mine[0].bet_id}/settlement", SUPERVISOR, 403, "forbidden"),
        ]
        for path, headers, status, code in cases:
            response = await client.get(path, headers=headers)
            assert (response.status_code, response.json()["code"]) == (status, code), path


async def test_a_book_that_disagrees_with_the_bets_holds_the_round(
    settlement_settings: SettlementSettings,
) -> None:
    bets = [placed("T2", "player_a", 100), placed("T2", "tie", 10)]
    sealed = book("T2", [bets[0], placed("T2", "tie", 10)])  # same count, another bet id
    async with running(create_app(settlement_settings)) as client:
        await feed_table(settlement_settings, opened("T2"))
        await feed_wallet(settlement_settings, sealed)
        await feed_table(
            settlement_settings,
            closed(
                "T2",
                ["KS", "KH", "9D", "9C", "7C", "7S"],
                winner="tie",
                a="high_card",
                b="high_card",
                bonus=None,
            ),
        )
        for bet in bets:
            await feed_wallet(settlement_settings, bet)

        connection = await connect(settlement_settings)
        try:

            async def recorded() -> bool:
                kinds = await connection.fetch("SELECT kind FROM settlement_problems")
                return [row[0] for row in kinds] == ["digest_mismatch"]

            await eventually(recorded, what="the digest mismatch to be recorded")
            settled = await connection.fetchval(
                "SELECT settled FROM rounds WHERE round_id = $1", round_id("T2")
            )
            in_store = await connection.fetchval("SELECT count(*) FROM events")
        finally:
            await connection.close()
        assert settled is False
        assert in_store == 0
        body = (await client.get(f"/rounds/{round_id('T2')}/settlement", headers=OPERATOR_1)).json()
        assert body["status"] == "pending"
        assert len(body["bets"]) == 2

        listed = await client.get("/problems", headers=SUPERVISOR)
        assert listed.status_code == 200
        found = listed.json()["items"]
        assert [(p["round_id"], p["kind"], p["facts"]["round_settled"]) for p in found] == [
            (round_id("T2"), "digest_mismatch", False)
        ]
        assert (await client.get("/problems", headers=OPERATOR_1)).status_code == 403
