"""A round voided after its result (`RoundVoided`): its settlement reversed, bet by bet,
once, whenever the void comes: after the settlement, before it, or while the round is held."""

from __future__ import annotations

from collections import defaultdict
from uuid import UUID

import asyncpg
import pytest

from settlement_service.app import create_app
from settlement_service.config import SettlementSettings
from settlement_service.streams import settlement_stream
from teenpatti.events.catalog import (
    SETTLEMENT_EVENTS,
    TABLE_EVENTS,
    ReversalTotals,
    ReversedLine,
    RoundSettled,
    SettledLine,
)

from ..services import of_type, outbox_published, read_to_end, running
from .conftest import (
    OPERATOR_1,
    OPERATOR_2,
    SUPERVISOR,
    SUPERVISOR_2,
    a_wins,
    book,
    closed,
    connect,
    eventually,
    feed_table,
    feed_wallet,
    opened,
    placed,
    rebuild_settlement,
    republish,
    reversals,
    round_id,
    settlements,
    two_supervisors,
    voided,
)

REASON = (
    "A1 was the 9 of clubs, read as the 9 of spades (asked by supervisor-1, confirmed by"
    " supervisor-2)"
)


def as_settled(line: ReversedLine | SettledLine) -> tuple[object, ...]:
    """What a reversed line repeats of the line it reverses."""
    return (
        line.bet_id,
        line.round_id,
        line.operator_id,
        line.player_id,
        line.bet_type,
        line.stake,
        line.currency,
        line.outcome,
        line.returned,
    )


def added_up(lines: list[ReversedLine]) -> dict[str, ReversalTotals]:
    sums: defaultdict[str, list[int]] = defaultdict(lambda: [0, 0])
    for line in lines:
        sums[line.currency][0] += line.refunded
        sums[line.currency][1] += line.returned
    return {c: ReversalTotals(refunded=r, reversed=t) for c, (r, t) in sums.items()}


async def stream_of(connection: asyncpg.Connection, round_: str) -> list[tuple[str, int]]:
    """The settlement stream's event types, each with its transaction (numbered in order)."""
    rows = await connection.fetch(
        "SELECT event_type, transaction_id FROM events WHERE stream_id = $1"
        " ORDER BY stream_version",
        settlement_stream(round_),
    )
    numbers: dict[int, int] = {}
    return [(r[0], numbers.setdefault(r[1], len(numbers) + 1)) for r in rows]


async def processed(connection: asyncpg.Connection, event_id: UUID) -> bool:
    return bool(
        await connection.fetchval(
            "SELECT count(*) > 0 FROM processed_events WHERE event_id = $1", event_id
        )
    )


async def test_a_settled_round_voided_is_reversed_line_by_line_once(
    monkeypatch: pytest.MonkeyPatch, settlement_settings: SettlementSettings
) -> None:
    settings = settlement_settings
    bets = [
        placed("V1", "player_a", 1000),  # 1950 back
        placed("V1", "player_a", 101, player="p-2"),  # 196 back
        placed("V1", "tie", 300),  # lost
        placed("V1", "six_card_bonus", 50, currency="USD"),  # straight 10:1: 550 back
        placed("V1", "pair_plus_a", 200, operator="operator-2"),  # pair 1:1: 400 back
    ]
    async with running(create_app(settings)) as client:
        await feed_table(settings, opened("V1"))
        for bet in bets:
            await feed_wallet(settings, bet)
        await feed_wallet(settings, book("V1", bets))
        await feed_table(settings, a_wins("V1"))
        settled, _ = await settlements(settings, 1)

        void = await feed_table(settings, voided(a_wins("V1")))
        lines, (summary,) = await reversals(settings, 1)

        # every line as settled, in the settlement's order, its stake refunded
        assert [as_settled(line) for line in lines] == [as_settled(line) for line in settled]
        assert all(line.refunded == line.stake for line in lines)
        assert summary.bet_count == len(bets)
        assert summary.totals == added_up(lines)
        assert summary.totals == {
            "INR": ReversalTotals(refunded=1601, reversed=1950 + 196 + 400),
            "USD": ReversalTotals(refunded=50, reversed=550),
        }
        assert (summary.round_id, summary.reason) == (round_id("V1"), REASON)

        connection = await connect(settings)
        try:
            assert await stream_of(connection, round_id("V1")) == [
                ("BetsSettled", 1),
                ("RoundSettled", 1),
                ("BetsReversed", 2),  # in the void's transaction
                ("RoundReversed", 2),
            ]
            # redelivered, the same envelope and under a new event id: nothing more
            await republish(settings, TABLE_EVENTS, void)
            again = await feed_table(settings, voided(a_wins("V1"), reason="another reason"))
            after = await feed_table(settings, opened("V1", 2))  # same partition, after them
            await eventually(lambda: processed(connection, after.event_id), what="the next round")
            assert await processed(connection, again.event_id)
            await eventually(lambda: outbox_published(connection), what="a quiet outbox")
            assert await connection.fetchval(
                "SELECT count(*) FROM bets WHERE reversed_at IS NOT NULL"
            ) == len(bets)
            assert (
                await connection.fetchval(
                    "SELECT void_reason FROM rounds WHERE round_id = $1", round_id("V1")
                )
                == REASON
            )
        finally:
            await connection.close()
        published = await read_to_end(settings, SETTLEMENT_EVENTS)
        assert [e.event_type for e in published if e.event_type.endswith("Reversed")] == [
            "BetsReversed",
            "RoundReversed",
        ]

        # the operators' reads: the bet reversed, the round voided, its reason
        one = (await client.get(f"/bets/{bets[0].bet_id}/settlement", headers=OPERATOR_1)).json()
        assert (one["status"], one["outcome"], one["returned"], one["reversed"]) == (
            "settled",
            "won",
            1950,
            True,
        )
        assert one["reversed_at"] is not None
        assert (one["round"]["voided"], one["round"]["void_reason"]) == (True, REASON)
        assert one["round"]["reversed_at"] == one["reversed_at"]
        round_1 = (
            await client.get(f"/rounds/{round_id('V1')}/settlement", headers=OPERATOR_1)
        ).json()
        assert round_1["reversal_totals"] == {
            "INR": {"refunded": 1401, "reversed": 1950 + 196},
            "USD": {"refunded": 50, "reversed": 550},
        }
        round_2 = (
            await client.get(f"/rounds/{round_id('V1')}/settlement", headers=OPERATOR_2)
        ).json()
        assert round_2["reversal_totals"] == {"INR": {"refunded": 200, "reversed": 400}}

    # what the settlement stated, its reversal included, rebuilt from its stream, equals
    # its projection
    status, report = await rebuild_settlement(monkeypatch, settings)
    assert (status, report["disagreements"]) == (0, []), report
    connection = await connect(settings)
    try:
        await connection.execute(
            "UPDATE bets SET reversed_at = NULL WHERE bet_id = $1", bets[2].bet_id
        )
    finally:
        await connection.close()
    status, report = await rebuild_settlement(monkeypatch, settings)
    assert status == 1
    differing = [p for p in report["projections"] if p["only_live"] or p["only_rebuilt"]]
    assert [(p["name"], p["only_live"], p["only_rebuilt"]) for p in differing] == [
        ("settled_bets", 1, 1)
    ]


async def test_a_round_voided_before_it_settles_is_reversed_as_it_settles(
    settlement_settings: SettlementSettings,
) -> None:
    settings = settlement_settings
    # V2: voided before its book is sealed. V3: its RoundClosed never came (lost, or parked):
    # the void carries the result it is settled on.
    v2 = [placed("V2", "player_a", 100), placed("V2", "tie", 10)]
    v3 = [placed("V3", "player_b", 40)]
    async with running(create_app(settings)) as client:
        for table_id, bets in (("V2", v2), ("V3", v3)):
            await feed_table(settings, opened(table_id))
            for bet in bets:
                await feed_wallet(settings, bet)
        await feed_table(settings, a_wins("V2"))
        await feed_table(settings, voided(a_wins("V2")))
        await feed_table(settings, voided(a_wins("V3")))
        connection = await connect(settings)
        try:

            async def both_voided() -> bool:
                voids = "SELECT count(*) FROM rounds WHERE void_reason IS NOT NULL"
                return bool(await connection.fetchval(voids) == 2)

            await eventually(both_voided, what="the voids to be recorded")
            assert not await connection.fetchval("SELECT count(*) FROM events")  # unsettled
            for table_id, bets in (("V2", v2), ("V3", v3)):
                await feed_wallet(settings, book(table_id, bets))
            settled, _ = await settlements(settings, 2)
            lines, summaries = await reversals(settings, 2)
            for table_id in ("V2", "V3"):
                # the reversal right after the settlement, in the transaction that settles it
                assert await stream_of(connection, round_id(table_id)) == [
                    ("BetsSettled", 1),
                    ("RoundSettled", 1),
                    ("BetsReversed", 1),
                    ("RoundReversed", 1),
                ]
            assert await connection.fetch("SELECT kind FROM settlement_problems") == []
        finally:
            await connection.close()
        assert sorted(as_settled(line) for line in lines) == sorted(
            as_settled(line) for line in settled
        )
        by_round = {summary.round_id: summary for summary in summaries}
        assert by_round[round_id("V2")].totals == {
            "INR": ReversalTotals(refunded=110, reversed=195)
        }
        # settled on the void's result: Player B lost
        assert by_round[round_id("V3")].totals == {"INR": ReversalTotals(refunded=40, reversed=0)}
        body = (await client.get(f"/rounds/{round_id('V3')}/settlement", headers=OPERATOR_1)).json()
        assert body["result"]["winner"] == "player_a"
        assert (body["voided"], body["void_reason"]) == (True, REASON)


async def test_a_held_round_voided_waits_on_the_problems_until_two_supervisors_resolve_it(
    settlement_settings: SettlementSettings,
) -> None:
    settings = two_supervisors(settlement_settings)
    # two results: each round is held until two supervisors release it (on the first
    # result) or void it (every stake refunded: nothing left to reverse)
    other = closed(
        "X",
        ["2C", "QS", "5D", "QH", "9H", "QD"],
        winner="player_b",
        a="high_card",
        b="trail",
        bonus="three_of_a_kind",
    )
    bets = {table_id: [placed(table_id, "player_a", 100)] for table_id in ("V4", "V5")}
    async with running(create_app(settings)) as client:
        # the results first: with the bets and the book there, the first would settle it
        for table_id in bets:
            await feed_table(settings, opened(table_id))
            await feed_table(settings, a_wins(table_id))
            second = other.model_copy(update={"round_id": round_id(table_id), "table_id": table_id})
            await feed_table(settings, second)
            await feed_table(settings, voided(a_wins(table_id)))

        async def waiting() -> list[tuple[str, str]]:
            items = (await client.get("/problems", headers=SUPERVISOR)).json()["items"]
            return sorted((p["round_id"], p["kind"]) for p in items)

        async def both_waiting() -> bool:
            return len(await waiting()) == 4

        await eventually(both_waiting, what="both voided rounds to wait on the problems")
        for table_id, placed_bets in bets.items():
            await feed_wallet(settings, placed_bets[0])
            await feed_wallet(settings, book(table_id, placed_bets))
        connection = await connect(settings)
        try:

            async def booked() -> bool:
                return bool(
                    await connection.fetchval("SELECT count(*) = 2 FROM rounds WHERE book_closed")
                )

            await eventually(booked, what="both books")
        finally:
            await connection.close()
        assert await waiting() == [
            (round_id(t), kind)
            for t in ("V4", "V5")
            for kind in ("conflicting_result", "voided_waits_for_settlement")
        ]
        items = (await client.get("/problems", headers=SUPERVISOR)).json()["items"]
        (waits,) = [
            p
            for p in items
            if p["round_id"] == round_id("V4") and p["kind"] == "voided_waits_for_settlement"
        ]
        assert "held by conflicting_result" in waits["detail"]
        assert REASON in waits["detail"]
        assert waits["actions"] == [f"POST /rounds/{round_id('V4')}/settlement/resolutions"]

        for table_id, action in (("V4", "release"), ("V5", "void")):
            asked = await client.post(
                f"/rounds/{round_id(table_id)}/settlement/resolutions",
                json={"action": action, "reason": "the first result is right"},
                headers=SUPERVISOR,
            )
            assert asked.status_code == 201, asked.text
            confirmed = await client.post(
                f"/rounds/{round_id(table_id)}/settlement/resolutions/"
                f"{asked.json()['resolution_id']}/confirm",
                headers=SUPERVISOR_2,
            )
            assert confirmed.json()["outcome"] == "settled", confirmed.text

        lines, summaries = await reversals(settings, 2)
        connection = await connect(settings)
        try:
            # V5 was settled as cancelled: its bets refunded already, nothing to reverse
            for table_id, expected in (
                ("V4", ["BetsSettled", "RoundSettled", "BetsReversed", "RoundReversed"]),
                ("V5", ["BetsSettled", "RoundSettled", "RoundReversed"]),
            ):
                stream = await stream_of(connection, round_id(table_id))
                assert [event_type for event_type, _ in stream] == expected
        finally:
            await connection.close()
        assert await waiting() == []
    by_round = {summary.round_id: summary for summary in summaries}
    # released: settled on the first result (Player A won 195), then reversed
    assert [(line.round_id, line.outcome, line.returned, line.refunded) for line in lines] == [
        (round_id("V4"), "won", 195, 100)
    ]
    assert by_round[round_id("V4")].totals == {"INR": ReversalTotals(refunded=100, reversed=195)}
    # voided by the resolution: settled as cancelled, every stake refunded already
    assert (by_round[round_id("V5")].bet_count, by_round[round_id("V5")].totals) == (0, {})
    published = await read_to_end(settings, SETTLEMENT_EVENTS)
    summaries_v5 = [
        e
        for e in of_type(published, "RoundSettled")
        if isinstance(e, RoundSettled) and e.round_id == round_id("V5")
    ]
    assert [summary.cancelled for summary in summaries_v5] == [True]
