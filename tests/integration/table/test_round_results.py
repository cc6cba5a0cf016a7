"""The roadmap and the PAR sheet of a table, against the real Postgres, Kafka and Redis: the
`round_results` projection is written with each round's end and equals what a replay of
the stream gives; `GET /tables/{id}/results` pages it newest first (a tie, a round voided
mid-deal); `GET /tables/{id}/par-sheet` gives the engine's exact figures."""

from __future__ import annotations

import asyncio
from fractions import Fraction
from typing import Any

import httpx
import pytest

from table_service.app import create_app
from table_service.config import TableSettings
from table_service.domain.decisions import RoundConflictError
from table_service.domain.results import CANCELLED, CLOSED
from table_service.domain.results import VOIDED as RESULT_VOIDED
from teenpatti import engine
from teenpatti.engine.par import par_sheet
from teenpatti.engine.paytable import format_odds
from teenpatti.eventsourcing import AsyncpgEventStore
from teenpatti.settings import InfrastructureSettings
from tests.integration.services import running

from .helpers import (
    DEALER,
    SUPERVISOR,
    SUPERVISOR_2,
    card_scanned,
    clocked_service,
    count,
    new_table_id,
    open_table,
    open_table_directly,
    scan,
    table_body,
    wait_for,
    with_second_supervisor,
)
from .test_snapshots import play_rounds

PLAYER_A_WINS = ["QS", "7H", "QH", "7D", "2C", "9S"]  # Q-Q-2 against 7-7-9
TIE = ["KS", "KH", "9H", "9D", "7D", "7C"]  # K-9-7 against K-9-7 in other suits
VOIDED = ["AS", "AH"]  # dealt before the void


def round_id(table_id: str, number: int) -> str:
    return f"{table_id}-{number:06d}"


async def deal(
    client: httpx.AsyncClient, settings: TableSettings, table_id: str, number: int, cards: list[str]
) -> None:
    """Once the round's betting has closed, its cards from the table's scanner."""
    await wait_for(client, table_id, count("BettingClosed", round_id=round_id(table_id, number)))
    for card in cards:
        await scan(settings, table_id, card, round_id=round_id(table_id, number))


async def results(
    client: httpx.AsyncClient, table_id: str, **params: Any
) -> tuple[int, dict[str, Any]]:
    response = await client.get(f"/tables/{table_id}/results", params=params, headers=DEALER)
    body: dict[str, Any] = response.json()
    return response.status_code, body


async def test_the_roadmap_pages_closed_tied_and_voided_rounds_newest_first(
    table_settings: TableSettings,
) -> None:
    table_settings = with_second_supervisor(table_settings)
    table_id = new_table_id()
    async with running(create_app(table_settings)) as client:
        await open_table(client, table_id)
        assert await results(client, table_id) == (
            200,
            {"table_id": table_id, "results": [], "next": None},
        )
        await deal(client, table_settings, table_id, 1, PLAYER_A_WINS)
        await deal(client, table_settings, table_id, 2, TIE)
        await deal(client, table_settings, table_id, 3, VOIDED)
        await wait_for(client, table_id, count("CardDealt", 2, round_id=round_id(table_id, 3)))
        asked = await client.post(
            f"/tables/{table_id}/cancel", json={"reason": "misdeal"}, headers=SUPERVISOR
        )
        assert asked.status_code == 202, asked.text
        void = await client.post(
            f"/tables/{table_id}/cancel", json={"reason": "agreed"}, headers=SUPERVISOR_2
        )
        assert void.status_code == 200, void.text
        events = await wait_for(client, table_id, count("RoundCancelled"))
        ended_at = {
            e["payload"]["round_id"]: e["occurred_at"]
            for e in events
            if e["event_type"] in ("RoundClosed", "RoundCancelled")
        }

        status, page = await results(client, table_id)
        assert status == 200
        assert page == {
            "table_id": table_id,
            "results": [
                {
                    "round_id": round_id(table_id, 3),
                    "number": 3,
                    "status": "cancelled",
                    "ended_at": ended_at[round_id(table_id, 3)],
                    "cards": VOIDED,
                    "player_a": None,
                    "player_b": None,
                    "winner": None,
                    "six_card_bonus_hand": None,
                    "voided_at": None,
                    "void_reason": None,
                },
                {
                    "round_id": round_id(table_id, 2),
                    "number": 2,
                    "status": "closed",
                    "ended_at": ended_at[round_id(table_id, 2)],
                    "cards": TIE,
                    "player_a": {"cards": ["KS", "9H", "7D"], "hand": "high_card"},
                    "player_b": {"cards": ["KH", "9D", "7C"], "hand": "high_card"},
                    "winner": "tie",
                    "six_card_bonus_hand": None,  # two pair does not pay
                    "voided_at": None,
                    "void_reason": None,
                },
                {
                    "round_id": round_id(table_id, 1),
                    "number": 1,
                    "status": "closed",
                    "ended_at": ended_at[round_id(table_id, 1)],
                    "cards": PLAYER_A_WINS,
                    "player_a": {"cards": ["QS", "QH", "2C"], "hand": "pair"},
                    "player_b": {"cards": ["7H", "7D", "9S"], "hand": "pair"},
                    "winner": "player_a",
                    "six_card_bonus_hand": None,
                    "voided_at": None,
                    "void_reason": None,
                },
            ],
            "next": None,
        }

        # one at a time with the cursor, back to the first round
        seen, cursor = [], None
        while True:
            status, one = await results(
                client, table_id, limit=1, **({} if cursor is None else {"before": cursor})
            )
            assert status == 200 and len(one["results"]) == 1
            seen.append(one["results"][0])
            cursor = one["next"]
            if cursor is None:
                break
            assert cursor == one["results"][0]["round_id"]
        assert seen == page["results"]
        status, two = await results(client, table_id, limit=2)
        assert [r["number"] for r in two["results"]] == [3, 2] and two["next"] is not None
        status, rest = await results(client, table_id, limit=2, before=two["next"])
        assert [r["number"] for r in rest["results"]] == [1] and rest["next"] is None

        # limits, cursors and tables that are not
        for limit in (0, 101, -1):
            status, problem = await results(client, table_id, limit=limit)
            assert status == 422, (limit, problem)
        status, page_100 = await results(client, table_id, limit=100)
        assert status == 200 and len(page_100["results"]) == 3
        for cursor in ("garbage", round_id("OTHER", 2), f"{table_id}-2", f"{table_id}-"):
            status, problem = await results(client, table_id, before=cursor)
            assert (status, problem["code"]) == (422, "invalid_cursor"), cursor
            assert "next" in problem["detail"]
        status, problem = await results(client, "NEVER1")
        assert (status, problem["code"]) == (404, "unknown_table")
        status, problem = await results(client, "bad id!")
        assert (status, problem["code"]) == (404, "unknown_table")
        # any key reads it; no key does not
        anonymous = await client.get(f"/tables/{table_id}/results")
        assert anonymous.status_code == 401


async def test_the_projection_is_what_a_replay_of_the_stream_gives(
    infrastructure: InfrastructureSettings, store: AsyncpgEventStore
) -> None:
    """Rounds closed, tied, cancelled before their first card, voided mid-deal and voided
    after their result, on a clock moved by the test: the rows written with the appends
    equal a replay's."""
    service, clock = await clocked_service(store, infrastructure, snapshot_every=4)
    table_id = "R1"
    await open_table_directly(service, table_id, "Roadmap", 1.5, 0.5)
    await play_rounds(service, clock, table_id, [PLAYER_A_WINS, TIE])  # round 3 betting
    await service.cancel(table_id, "supervisor-1", "shoe")  # before its first card
    clock.advance(1.0)
    await service.tick(table_id)  # round 4 opens
    clock.advance(2.0)
    await service.tick(table_id)  # and its betting closes
    for card in VOIDED:
        clock.advance(0.3)
        scan_read = await card_scanned(service, clock, table_id, card)
        async with service.store.pool.acquire() as connection, connection.transaction():
            await service.handle_scans(connection, [scan_read])
    await service.cancel(table_id, "supervisor-1", "misdeal")
    await service.cancel(table_id, "supervisor-2", "agreed")
    await service.void_result(table_id, round_id(table_id, 1), "supervisor-1", "misread")
    clock.advance(60)
    voided = await service.void_result(table_id, round_id(table_id, 1), "supervisor-2", "seen")
    assert voided.round is not None and voided.round.voided_at == clock.now
    assert voided.round.stream_version == voided.state.version
    clock.advance(24 * 3600)  # past the correction window of round 2
    with pytest.raises(RoundConflictError, match="could be voided until"):
        await service.void_result(table_id, round_id(table_id, 2), "supervisor-1", "late")

    projected = await service.results(table_id, 100)
    assert [(r.number, r.status, r.winner) for r in projected] == [
        (4, CANCELLED, None),
        (3, CANCELLED, None),
        (2, CLOSED, "tie"),
        (1, RESULT_VOIDED, "player_a"),
    ]
    assert [r.cards for r in projected] == [
        tuple(VOIDED),
        (),
        tuple(TIE),
        tuple(PLAYER_A_WINS),
    ]
    assert list(reversed(projected)) == await service.replayed_results(table_id)
    assert await service.results(table_id, 2, before_number=3) == projected[2:]


async def test_the_par_sheet_is_the_engines_for_the_tables_current_pay_table(
    table_settings: TableSettings,
) -> None:
    table_settings = with_second_supervisor(table_settings)
    table_id = new_table_id()
    async with running(create_app(table_settings)) as client:
        await open_table(client, table_id, betting_seconds=60)
        engine_sheet = await asyncio.to_thread(par_sheet, engine.PUBLISHED_PAY_TABLE)

        response = await client.get(f"/tables/{table_id}/par-sheet", headers=DEALER)
        assert response.status_code == 200, response.text
        sheet = response.json()
        assert sheet["table_id"] == table_id
        assert sheet["paytable"] == engine.pay_table_to_mapping(engine.PUBLISHED_PAY_TABLE)
        assert_same_figures(sheet, engine_sheet)
        player_a = next(b for b in sheet["bets"] if b["bet_type"] == "player_a")
        assert player_a["rtp"] == "9543327/9787750" and player_a["rtp_percent"] == "97.5028"

        # a pay table a second supervisor approved is the one priced from then on
        variant = {**engine.pay_table_to_mapping(engine.PUBLISHED_PAY_TABLE), "tie": "40"}
        variant["name"] = "tie 40"
        proposed = await client.post(
            "/tables",
            json=table_body(table_id, betting_seconds=60, paytable=variant),
            headers=SUPERVISOR,
        )
        assert proposed.status_code == 202, proposed.text
        change_id = proposed.json()["pending_change"]["change_id"]
        approved = await client.post(
            f"/tables/{table_id}/changes/{change_id}/approve", headers=SUPERVISOR_2
        )
        assert approved.status_code == 200, approved.text
        changed = (await client.get(f"/tables/{table_id}/par-sheet", headers=DEALER)).json()
        assert changed["paytable"] == variant
        variant_sheet = par_sheet(engine.pay_table_from_mapping(variant), engine_sheet.counts)
        assert_same_figures(changed, variant_sheet)
        tie = next(b for b in changed["bets"] if b["bet_type"] == "tie")
        assert Fraction(tie["rtp"]) == Fraction(41 * 450_528, 407_170_400)

        unknown = await client.get("/tables/NEVER1/par-sheet", headers=DEALER)
        assert (unknown.status_code, unknown.json()["code"]) == (404, "unknown_table")


def assert_same_figures(sheet: dict[str, Any], expected: Any) -> None:
    """Every bet type's RTP and paying outcomes as the engine's sheet has them, exactly;
    the percentages are the fractions rounded to 4 decimals."""
    assert [b["bet_type"] for b in sheet["bets"]] == [b.bet_type.value for b in expected.bets]
    for bet, truth in zip(sheet["bets"], expected.bets, strict=True):
        assert Fraction(bet["rtp"]) == truth.rtp
        assert bet["rtp_percent"] == f"{float(truth.rtp * 100):.4f}"
        assert [(o["outcome"], o["pays"], Fraction(o["probability"])) for o in bet["outcomes"]] == [
            (line.event, "0" if line.odds is None else format_odds(line.odds), line.probability)
            for line in truth.lines
        ]
        for outcome, line in zip(bet["outcomes"], truth.lines, strict=True):
            assert outcome["probability_percent"] == f"{float(line.probability * 100):.4f}"
