"""Settling rounds through Kafka: every pay line, ties, rounding down, cancellations.

Expected amounts are worked out by hand from the published pay table (the engine is not
asked), and the input events come from the test on the test's own topics.
"""

from __future__ import annotations

import pytest

from settlement_service.app import create_app
from settlement_service.config import SettlementSettings
from teenpatti.events.catalog import CurrencyTotals, SettledLine

from ..services import running
from .conftest import (
    OPERATOR_1,
    book,
    cancelled,
    closed,
    connect,
    feed_table,
    feed_wallet,
    opened,
    placed,
    rebuild_settlement,
    round_id,
    settlements,
    slip,
)


def by_bet(settled: list[SettledLine]) -> dict[str, SettledLine]:
    return {str(line.bet_id): line for line in settled}


async def test_every_bet_type_pays_per_the_published_table(
    monkeypatch: pytest.MonkeyPatch, settlement_settings: SettlementSettings
) -> None:
    # T1: A 9S 9H 8C (pair of nines) beats B 10C 7D 6S (ten high); the six cards hold the
    # straight 6-7-8-9-10. T2: B QS QH QD (trail) beats A 2C 5D 9H; six cards: three queens.
    t1 = [
        placed("T1", "player_a", 1000),  # 0.95:1 -> 1000 + 950
        placed("T1", "player_a", 101),  # 95.95 won, 95 paid -> 196, 19/20 kept
        placed("T1", "player_a", 10),  # 9.5 won -> 19, 1/2 kept
        placed("T1", "player_a", 1),  # 0.95 won -> 1, 19/20 kept
        placed("T1", "player_b", 500),  # lost
        placed("T1", "tie", 300),  # lost
        placed("T1", "pair_plus_a", 200),  # pair 1:1 -> 400
        placed("T1", "pair_plus_b", 100),  # high card: lost
        placed("T1", "six_card_bonus", 100),  # straight 10:1 -> 1100
        placed("T1", "six_card_bonus", 50, currency="USD"),  # straight 10:1 -> 550
    ]
    t2 = [
        placed("T2", "player_b", 100),  # 0.95:1 -> 195
        placed("T2", "player_a", 100),  # lost
        placed("T2", "tie", 100),  # lost
        placed("T2", "pair_plus_a", 100),  # high card: lost
        placed("T2", "pair_plus_b", 100),  # trail 40:1 -> 4100
        placed("T2", "six_card_bonus", 100),  # three of a kind 7:1 -> 800
    ]
    async with running(create_app(settlement_settings)) as client:
        for table_id in ("T1", "T2"):
            await feed_table(settlement_settings, opened(table_id))
        for bet in t1:  # a slip of its own each
            await feed_wallet(settlement_settings, bet)
        await feed_wallet(settlement_settings, slip(t2))  # one slip, as the wallet sends it
        await feed_wallet(settlement_settings, book("T1", t1))
        await feed_wallet(settlement_settings, book("T2", t2))
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
        await feed_table(
            settlement_settings,
            closed(
                "T2",
                ["2C", "QS", "5D", "QH", "9H", "QD"],
                winner="player_b",
                a="high_card",
                b="trail",
                bonus="three_of_a_kind",
            ),
        )
        bets, rounds = await settlements(settlement_settings, 2)

        got = by_bet(bets)
        assert len(bets) == len(got) == len(t1) + len(t2)
        expected_t1 = [
            ("won", 1950, "0", "19/20"),
            ("won", 196, "19/20", "19/20"),
            ("won", 19, "1/2", "19/20"),
            ("won", 1, "19/20", "19/20"),
            ("lost", 0, "0", None),
            ("lost", 0, "0", None),
            ("won", 400, "0", "1/1"),
            ("lost", 0, "0", None),
            ("won", 1100, "0", "10/1"),
            ("won", 550, "0", "10/1"),
        ]
        expected_t2 = [
            ("won", 195, "0", "19/20"),
            ("lost", 0, "0", None),
            ("lost", 0, "0", None),
            ("lost", 0, "0", None),
            ("won", 4100, "0", "40/1"),
            ("won", 800, "0", "7/1"),
        ]
        for bet, expected in zip(t1 + t2, expected_t1 + expected_t2, strict=True):
            settled = got[str(bet.bet_id)]
            assert (settled.outcome, settled.returned, settled.fraction_kept, settled.odds) == (
                expected
            ), bet.bet_type
            assert (settled.stake, settled.currency, settled.bet_type, settled.player_id) == (
                bet.stake,
                bet.currency,
                bet.bet_type,
                bet.player_id,
            )

        summary = {r.round_id: r for r in rounds}
        # T1 INR: staked 1000+101+10+1+500+300+200+100+100 = 2312,
        #         returned 1950+196+19+1+400+1100 = 3666
        assert summary[round_id("T1")].totals == {
            "INR": CurrencyTotals(stake=2312, returned=3666, house_result=-1354),
            "USD": CurrencyTotals(stake=50, returned=550, house_result=-500),
        }
        assert summary[round_id("T1")].bet_count == 10
        assert summary[round_id("T2")].totals == {
            "INR": CurrencyTotals(stake=600, returned=5095, house_result=-4495),
        }
        assert not summary[round_id("T2")].cancelled

        response = await client.get(f"/rounds/{round_id('T1')}/settlement", headers=OPERATOR_1)
        assert response.status_code == 200
        body = response.json()
        assert body["status"] == "settled"
        assert body["result"]["six_card_bonus_hand"] == "straight"
        assert body["totals"]["INR"] == {"stake": 2312, "returned": 3666, "house_result": -1354}

    # what the settlement stated, rebuilt from its stream, equals its projection; a result
    # changed behind the events' back is found
    status, report = await rebuild_settlement(monkeypatch, settlement_settings)
    assert (status, report["equal"], report["disagreements"]) == (0, True, []), report
    counted = {p["name"]: p for p in report["projections"]}
    assert counted["settled_bets"]["rebuilt_rows"] == counted["settled_bets"]["live_rows"] == 16
    assert counted["settled_rounds"]["rebuilt_rows"] == 2
    connection = await connect(settlement_settings)
    try:
        await connection.execute(
            "UPDATE bets SET returned = returned + 1 WHERE bet_id = $1", t1[0].bet_id
        )
    finally:
        await connection.close()
    status, report = await rebuild_settlement(monkeypatch, settlement_settings)
    assert status == 1
    differing = [p for p in report["projections"] if p["only_live"] or p["only_rebuilt"]]
    assert [(p["name"], p["only_live"], p["only_rebuilt"]) for p in differing] == [
        ("settled_bets", 1, 1)
    ]


async def test_a_tie_pushes_the_player_bets_and_pays_the_tie_50_to_1(
    settlement_settings: SettlementSettings,
) -> None:
    # No RoundOpened on purpose: the published pay table is used, and that is noted.
    bets = [
        placed("T3", "player_a", 200),  # push -> 200
        placed("T3", "player_b", 300),  # push -> 300
        placed("T3", "tie", 100),  # 50:1 -> 5100
        placed("T3", "pair_plus_b", 100),  # high card: lost
        placed("T3", "six_card_bonus", 100),  # two pair at best: lost
    ]
    async with running(create_app(settlement_settings)):
        for bet in bets:
            await feed_wallet(settlement_settings, bet)
        await feed_wallet(settlement_settings, book("T3", bets))
        await feed_table(
            settlement_settings,
            closed(
                "T3",
                ["KS", "KH", "9D", "9C", "7C", "7S"],
                winner="tie",
                a="high_card",
                b="high_card",
                bonus=None,
            ),
        )
        settled, rounds = await settlements(settlement_settings, 1)
        got = by_bet(settled)
        assert [
            (got[str(b.bet_id)].outcome, got[str(b.bet_id)].returned, got[str(b.bet_id)].odds)
            for b in bets
        ] == [
            ("push", 200, None),
            ("push", 300, None),
            ("won", 5100, "50/1"),
            ("lost", 0, None),
            ("lost", 0, None),
        ]
        assert rounds[0].totals == {
            "INR": CurrencyTotals(stake=800, returned=5600, house_result=-4800)
        }
        connection = await connect(settlement_settings)
        try:
            source = await connection.fetchval(
                "SELECT paytable_source FROM rounds WHERE round_id = $1", round_id("T3")
            )
        finally:
            await connection.close()
        assert source == "published_fallback"


async def test_a_cancelled_round_refunds_every_bet_and_an_empty_round_settles(
    settlement_settings: SettlementSettings,
) -> None:
    bets = [
        placed("T4", "player_a", 101),
        placed("T4", "tie", 50),
        placed("T4", "six_card_bonus", 70, currency="USD"),
    ]
    async with running(create_app(settlement_settings)) as client:
        await feed_table(settlement_settings, opened("T4"))
        await feed_table(settlement_settings, opened("T5"))
        for bet in bets:
            await feed_wallet(settlement_settings, bet)
        await feed_table(settlement_settings, cancelled("T4"))
        await feed_wallet(settlement_settings, book("T4", bets))
        # T5: nobody bet; the round still settles, with nothing in it
        await feed_wallet(settlement_settings, book("T5", []))
        await feed_table(
            settlement_settings,
            closed(
                "T5",
                ["9S", "10C", "9H", "7D", "8C", "6S"],
                winner="player_a",
                a="pair",
                b="high_card",
                bonus="straight",
            ),
        )
        settled, rounds = await settlements(settlement_settings, 2)
        assert sorted(
            (e.stake, e.outcome, e.returned, e.fraction_kept, e.odds) for e in settled
        ) == [
            (50, "refunded", 50, "0", None),
            (70, "refunded", 70, "0", None),
            (101, "refunded", 101, "0", None),
        ]
        summary = {r.round_id: r for r in rounds}
        assert summary[round_id("T4")].cancelled
        assert summary[round_id("T4")].totals == {
            "INR": CurrencyTotals(stake=151, returned=151, house_result=0),
            "USD": CurrencyTotals(stake=70, returned=70, house_result=0),
        }
        assert summary[round_id("T5")].bet_count == 0
        assert summary[round_id("T5")].totals == {}
        assert not summary[round_id("T5")].cancelled

        body = (await client.get(f"/rounds/{round_id('T4')}/settlement", headers=OPERATOR_1)).json()
        assert body["status"] == "settled"
        assert body["cancelled"] is True
        assert body["cancel_reason"] == "scanner broken before the first card"
        assert {b["outcome"] for b in body["bets"]} == {"refunded"}
