"""The table service against the real Postgres, Kafka and Redis: rounds run by themselves,
scans become cards, supervisors pause, resume and void, and a restart loses nothing."""

from __future__ import annotations

import asyncio
from datetime import datetime

import asyncpg
import httpx

from table_service.app import create_app
from table_service.config import TableSettings
from table_service.domain.decisions import OpenTable
from table_service.handlers import TableService
from teenpatti import engine
from teenpatti.events.catalog import TABLE_EVENTS
from teenpatti.eventsourcing import AsyncpgEventStore
from tests.integration.services import collect, running

from .helpers import (
    DEALER,
    SUPERVISOR,
    SUPERVISOR_2,
    count,
    events_of,
    new_table_id,
    of_type,
    open_table,
    scan,
    table_body,
    types,
    wait_for,
    with_second_supervisor,
)

CARDS = ["QS", "7H", "QH", "7D", "2C", "9S"]
POSITIONS = ["A1", "B1", "A2", "B2", "A3", "B3"]  # the dealing order of the rules


async def test_an_open_table_runs_rounds_by_itself_and_deals_six_scans_in_order(
    table_settings: TableSettings,
) -> None:
    table_id = new_table_id()
    async with running(create_app(table_settings)) as client:
        await open_table(client, table_id)
        events = await wait_for(client, table_id, count("BettingClosed"))

        assert types(events)[:4] == [
            "ConfigChangeProposed",  # a new table's terms: two supervisors (decision 0086)
            "TableOpened",
            "RoundOpened",
            "BettingClosed",
        ]
        opened, closed = events[2]["payload"], events[3]["payload"]
        round_id = f"{table_id}-000001"
        assert opened["round_id"] == closed["round_id"] == round_id
        assert opened["table_id"] == table_id
        assert datetime.fromisoformat(closed["closed_at"]) >= datetime.fromisoformat(
            opened["betting_closes_at"]
        )
        assert events[0]["payload"]["actor"] == "supervisor-1"
        assert events[1]["payload"]["approved_by"] == "supervisor-2"

        scan_ids = [await scan(table_settings, table_id, card) for card in CARDS]
        events = await wait_for(client, table_id, count("RoundClosed"))

        dealt = of_type(events, "CardDealt")
        assert [d["payload"]["position"] for d in dealt] == POSITIONS
        assert [d["payload"]["card"] for d in dealt] == CARDS
        assert [d["payload"]["scan_id"] for d in dealt] == [str(s) for s in scan_ids]
        [result] = of_type(events, "RoundClosed")
        expected = engine.resolve_round(engine.parse_cards(CARDS))
        assert result["payload"] == {
            "round_id": round_id,
            "table_id": table_id,
            "cards": CARDS,
            "player_a_hand": expected.player_a.category.value,
            "player_b_hand": expected.player_b.category.value,
            "winner": expected.winner.value,
            "six_card_bonus_hand": None
            if expected.six_card_bonus is None
            else expected.six_card_bonus.category.value,
        }
        assert result["payload"]["winner"] == "player_a"  # Q-Q-2 against 7-7-9
        assert [e["position"] for e in events] == list(range(1, len(events) + 1))

        # the next round opens by itself after the result pause
        events = await wait_for(client, table_id, count("RoundOpened", 2))
        [second] = of_type(events, "RoundOpened", number=2)
        assert second["payload"]["round_id"] == f"{table_id}-000002"

        # the live state and the listing show the table
        state = (await client.get(f"/tables/{table_id}", headers=DEALER)).json()
        assert state["table_id"] == table_id and state["status"] == "open"
        listing = (await client.get("/tables", headers=DEALER)).json()["tables"]
        assert [t["table_id"] for t in listing] == [table_id]
        assert listing[0]["name"] == "Test table"

        # every event also leaves through the outbox to table.events
        published = await collect(
            table_settings,
            TABLE_EVENTS,
            lambda seen: any(e.event_type == "RoundClosed" for e in seen),
        )
        assert [e.event_type for e in published if e.event_type == "CardDealt"] == ["CardDealt"] * 6


async def test_scans_out_of_turn_are_refused_and_supervisors_pause_resume_and_cancel(
    table_settings: TableSettings,
) -> None:
    table_id = new_table_id()
    async with running(create_app(table_settings)) as client:
        await open_table(client, table_id, betting_seconds=60)
        await wait_for(client, table_id, count("RoundOpened"))

        # a card while betting is open: refused without its value, the round paused as
        # exposed until the deck is replaced (decision 0058)
        await scan(table_settings, table_id, "AS")
        events = await wait_for(client, table_id, count("RoundPaused"))
        [refused] = of_type(events, "CardRefused")
        assert refused["payload"]["reason"] == "betting_open"
        assert refused["payload"]["card"] is None
        assert refused["payload"]["round_id"] == f"{table_id}-000001"
        blocked = await client.post(f"/tables/{table_id}/resume", json={}, headers=SUPERVISOR)
        assert (blocked.status_code, blocked.json()["code"]) == (409, "card_exposed")
        replaced = await client.post(
            f"/tables/{table_id}/replace-deck", json={"reason": "new deck"}, headers=SUPERVISOR
        )
        assert replaced.status_code == 200, replaced.text
        assert replaced.json()["round"]["exposed"] is False
        resumed = await client.post(f"/tables/{table_id}/resume", json={}, headers=SUPERVISOR)
        assert resumed.status_code == 200, resumed.text

        # pause stops the betting clock; resume gives a new deadline with the time left
        paused = await client.post(
            f"/tables/{table_id}/pause", json={"reason": "camera down"}, headers=SUPERVISOR
        )
        assert paused.status_code == 200, paused.text
        assert paused.json()["round"]["paused"] is True
        remaining = paused.json()["round"]["betting_remaining_seconds"]
        assert 0 < remaining <= 60

        again = await client.post(
            f"/tables/{table_id}/pause", json={"reason": "again"}, headers=SUPERVISOR
        )
        assert again.status_code == 409
        assert again.json()["code"] == "round_already_paused"

        resumed = await client.post(f"/tables/{table_id}/resume", json={}, headers=SUPERVISOR)
        assert resumed.status_code == 200, resumed.text
        events = await events_of(client, table_id)
        pause = of_type(events, "RoundPaused")[-1]
        resume = of_type(events, "RoundResumed")[-1]
        assert pause["payload"]["actor"] == resume["payload"]["actor"] == "supervisor-1"
        new_deadline = datetime.fromisoformat(resume["payload"]["betting_closes_at"])
        resumed_at = datetime.fromisoformat(resume["occurred_at"])
        assert abs((new_deadline - resumed_at).total_seconds() - remaining) < 1e-3

        # cancel before the first card
        cancelled = await client.post(
            f"/tables/{table_id}/cancel", json={"reason": "dealer ill"}, headers=SUPERVISOR
        )
        assert cancelled.status_code == 200, cancelled.text
        events = await events_of(client, table_id)
        [cancel] = of_type(events, "RoundCancelled")
        assert cancel["payload"] == {
            "round_id": f"{table_id}-000001",
            "table_id": table_id,
            "actor": "supervisor-1",
            "reason": "dealer ill",
            "cards_dealt": 0,
        }

        nothing = await client.post(
            f"/tables/{table_id}/cancel", json={"reason": "twice"}, headers=SUPERVISOR
        )
        assert nothing.status_code == 409
        assert nothing.json()["code"] == "nothing_to_cancel"
        assert nothing.json()["phase"] == "cancelled"

        # only a supervisor resumes (the dealer may pause: decision 0086)
        forbidden = await client.post(
            f"/tables/{table_id}/resume", json={"reason": "x"}, headers=DEALER
        )
        assert (forbidden.status_code, forbidden.json()["code"]) == (403, "forbidden")
        anonymous = await client.post(f"/tables/{table_id}/pause", json={"reason": "x"})
        assert (anonymous.status_code, anonymous.json()["code"]) == (401, "missing_api_key")


async def test_a_duplicate_card_pauses_the_round_and_two_supervisors_void_it(
    table_settings: TableSettings,
) -> None:
    table_settings = with_second_supervisor(table_settings)
    table_id = new_table_id()
    async with running(create_app(table_settings)) as client:
        await open_table(client, table_id)
        await wait_for(client, table_id, count("BettingClosed"))
        for card in ("AS", "KD", "AS"):
            await scan(table_settings, table_id, card)
        events = await wait_for(client, table_id, count("RoundPaused"))

        [refused] = of_type(events, "CardRefused")
        assert refused["payload"]["reason"] == "duplicate_card"
        [paused] = of_type(events, "RoundPaused")
        assert paused["payload"]["actor"] == "system"
        assert types(events)[-2:] == ["CardRefused", "RoundPaused"]

        resumed = await client.post(f"/tables/{table_id}/resume", headers=SUPERVISOR)
        assert resumed.status_code == 200, resumed.text
        await scan(table_settings, table_id, "2H")
        events = await wait_for(client, table_id, count("CardDealt", 3))
        assert of_type(events, "CardDealt")[-1]["payload"]["position"] == "A2"

        # a card found wrong before the result: the round is paused at once, and the one who
        # marked it cannot resume it alone
        marked = await client.post(
            f"/tables/{table_id}/cards/B1/wrong", json={"reason": "misread"}, headers=SUPERVISOR
        )
        assert marked.status_code == 200, marked.text
        assert marked.json()["round"]["card_marked_wrong"] == "B1"
        assert marked.json()["round"]["paused"] is True
        alone = await client.post(f"/tables/{table_id}/resume", headers=SUPERVISOR)
        assert (alone.status_code, alone.json()["code"]) == (403, "same_supervisor")
        for position, code in (("B3", 409), ("C1", 422)):
            refused_mark = await client.post(
                f"/tables/{table_id}/cards/{position}/wrong",
                json={"reason": "x"},
                headers=SUPERVISOR_2,
            )
            assert refused_mark.status_code == code, refused_mark.text
        await scan(table_settings, table_id, "3C")  # refused: the round is paused
        events = await wait_for(client, table_id, count("CardRefused", 2))
        assert of_type(events, "CardRefused")[-1]["payload"]["reason"] == "round_paused"
        assert types(events)[-3:] == ["CardMarkedWrong", "RoundPaused", "CardRefused"]

        # the one who marked it cannot take it back alone; another supervisor can: the cards
        # from B1 on are taken back and the round resumes, B1 dealt again
        alone = await client.post(
            f"/tables/{table_id}/rescan", json={"reason": "x"}, headers=SUPERVISOR
        )
        assert (alone.status_code, alone.json()["code"]) == (403, "same_supervisor")
        rescan = await client.post(
            f"/tables/{table_id}/rescan", json={"reason": "B1 misread"}, headers=SUPERVISOR_2
        )
        assert rescan.status_code == 200, rescan.text
        assert [c["position"] for c in rescan.json()["round"]["cards"]] == ["A1"]
        assert rescan.json()["round"]["paused"] is False
        nothing = await client.post(
            f"/tables/{table_id}/rescan", json={"reason": "again"}, headers=SUPERVISOR_2
        )
        assert (nothing.status_code, nothing.json()["code"]) == (409, "nothing_marked_wrong")
        await scan(table_settings, table_id, "3C")
        events = await wait_for(client, table_id, count("CardDealt", 4))
        assert of_type(events, "CardDealt")[-1]["payload"]["position"] == "B1"
        [withdrawn] = of_type(events, "CardsWithdrawn")
        assert withdrawn["payload"]["positions"] == ["B1", "A2"]
        assert withdrawn["payload"]["marked_by"] == "supervisor-1"

        # a started round: a void takes two supervisors (decision 0057)
        request = await client.post(
            f"/tables/{table_id}/cancel", json={"reason": "misdeal"}, headers=SUPERVISOR
        )
        assert request.status_code == 202, request.text
        assert request.json()["round"]["void_requested_by"] == "supervisor-1"
        void = await client.post(
            f"/tables/{table_id}/cancel", json={"reason": "agreed"}, headers=SUPERVISOR_2
        )
        assert void.status_code == 200, void.text
        events = await wait_for(client, table_id, count("RoundOpened", 2))
        [cancel] = of_type(events, "RoundCancelled")
        assert cancel["payload"]["cards_dealt"] == 2  # A1, and B1 dealt again
        assert cancel["payload"]["actor"] == "supervisor-2"
        assert not of_type(events, "RoundClosed")


async def test_a_round_paused_before_its_first_card_is_cancelled_by_the_system(
    table_settings: TableSettings,
) -> None:
    table_settings = table_settings.model_copy(update={"pause_timeout_seconds": 1})
    table_id = new_table_id()
    async with running(create_app(table_settings)) as client:
        await open_table(client, table_id, betting_seconds=60)
        await wait_for(client, table_id, count("RoundOpened"))
        paused = await client.post(
            f"/tables/{table_id}/pause", json={"reason": "shuffler jam"}, headers=SUPERVISOR
        )
        assert paused.status_code == 200, paused.text
        events = await wait_for(client, table_id, count("RoundCancelled"))

        [cancel] = of_type(events, "RoundCancelled")
        assert cancel["payload"]["actor"] == "system"
        assert cancel["payload"]["cards_dealt"] == 0
        assert "shuffler jam" in cancel["payload"]["reason"]


async def test_problems_name_the_exact_reason(table_settings: TableSettings) -> None:
    table_id = new_table_id()
    async with running(create_app(table_settings)) as client:
        unknown = await client.get("/tables/NOPE", headers=DEALER)
        assert (unknown.status_code, unknown.json()["code"]) == (404, "unknown_table")
        unknown = await client.get("/tables/NOPE/events", headers=DEALER)
        assert (unknown.status_code, unknown.json()["code"]) == (404, "unknown_table")
        unknown = await client.post("/tables/NOPE/pause", json={"reason": "x"}, headers=SUPERVISOR)
        assert (unknown.status_code, unknown.json()["code"]) == (404, "unknown_table")

        body = table_body(table_id)
        body["limits"]["EUR"]["tie"] = {"min": 500, "max": 100}
        invalid = await client.post("/tables", json=body, headers=SUPERVISOR)
        assert (invalid.status_code, invalid.json()["code"]) == (422, "min_above_max")
        del body["limits"]["EUR"]["tie"]
        invalid = await client.post("/tables", json=body, headers=SUPERVISOR)
        assert (invalid.status_code, invalid.json()["code"]) == (422, "bet_type_not_priced")
        invalid = await client.post(
            "/tables", json=table_body(table_id, paytable={"tie": "50"}), headers=SUPERVISOR
        )
        assert (invalid.status_code, invalid.json()["code"]) == (422, "invalid_paytable")
        invalid = await client.post(
            "/tables", json=table_body(table_id, betting_seconds="soon"), headers=SUPERVISOR
        )
        assert (invalid.status_code, invalid.json()["code"]) == (422, "invalid_request")
        assert (await client.get(f"/tables/{table_id}", headers=DEALER)).status_code == 404

        await open_table(client, table_id, betting_seconds=60)
        same = await client.post(
            "/tables", json=table_body(table_id, betting_seconds=60), headers=SUPERVISOR
        )
        assert same.status_code == 200  # already open with this config: nothing appended
        await wait_for(client, table_id, count("RoundOpened"))
        nothing = await client.post(f"/tables/{table_id}/resume", headers=SUPERVISOR)
        assert nothing.status_code == 409
        assert (nothing.json()["code"], nothing.json()["phase"]) == ("nothing_to_resume", "betting")
        events = await events_of(client, table_id)
        assert types(events).count("TableOpened") == 1

        # closing: the round in play still ends, then no new round opens
        closed = await client.post(
            f"/tables/{table_id}/close", json={"reason": "end of day"}, headers=SUPERVISOR
        )
        assert closed.status_code == 200, closed.text
        assert closed.json()["status"] == "closed"
        await client.post(f"/tables/{table_id}/cancel", json={"reason": "x"}, headers=SUPERVISOR)
        await scan(table_settings, table_id, "AS")
        events = await wait_for(client, table_id, count("CardRefused"))
        assert of_type(events, "CardRefused")[0]["payload"]["reason"] == "table_closed"
        assert types(events).count("RoundOpened") == 1

        # a scan for a table that was never opened still gets a verdict on table.events
        ghost = new_table_id()
        scan_id = await scan(table_settings, ghost, "AS")
        verdicts = await collect(
            table_settings,
            TABLE_EVENTS,
            lambda seen: any(e.table_id == ghost for e in seen),
        )
        [verdict] = [e for e in verdicts if e.table_id == ghost]
        assert verdict.event_type == "CardRefused"
        assert verdict.payload["reason"] == "unknown_table"
        assert verdict.payload["scan_id"] == str(scan_id)
        assert (await client.get(f"/tables/{ghost}", headers=DEALER)).status_code == 404


async def test_after_a_restart_the_round_continues_where_the_events_say(
    table_settings: TableSettings,
) -> None:
    table_id = new_table_id()
    async with running(create_app(table_settings)) as client:
        await open_table(client, table_id)
        await wait_for(client, table_id, count("BettingClosed"))
        for card in CARDS[:3]:
            await scan(table_settings, table_id, card)
        await wait_for(client, table_id, count("CardDealt", 3))

    async with running(create_app(table_settings)) as client:
        for card in CARDS[3:]:
            await scan(table_settings, table_id, card)
        events = await wait_for(client, table_id, count("RoundClosed"))
        # give a second close (if any) the chance to show itself
        await asyncio.sleep(0.5)
        events = await events_of(client, table_id)

    dealt = of_type(events, "CardDealt", round_id=f"{table_id}-000001")
    assert [d["payload"]["position"] for d in dealt] == POSITIONS
    assert [d["payload"]["card"] for d in dealt] == CARDS
    assert len(of_type(events, "RoundClosed")) == 1
    assert len(of_type(events, "RoundOpened", number=1)) == 1


async def test_two_instances_share_the_tables_and_one_takes_over_when_the_other_stops(
    table_settings: TableSettings,
) -> None:
    tables = [new_table_id() for _ in range(3)]
    second_cards = ["AC", "KC", "QC", "JC", "10C", "9C"]
    async with running(create_app(table_settings)) as survivor:
        async with running(create_app(table_settings)) as leaver:
            for table_id in tables:
                await open_table(leaver, table_id)
            for table_id in tables:
                await wait_for(survivor, table_id, count("BettingClosed"))
                for card in CARDS:
                    await scan(table_settings, table_id, card)
            for table_id in tables:
                await wait_for(survivor, table_id, count("RoundClosed"))
        # the leaver is gone: the survivor now runs every clock and handles every scan
        for table_id in tables:
            round_2 = f"{table_id}-000002"
            await wait_for(survivor, table_id, count("BettingClosed", round_id=round_2))
            for card in second_cards:
                await scan(table_settings, table_id, card)
        for table_id in tables:
            events = await wait_for(survivor, table_id, count("RoundClosed", 2))
            numbers = [e["payload"]["number"] for e in of_type(events, "RoundOpened")]
            assert numbers == list(range(1, len(numbers) + 1))  # no round opened twice
            for number, cards in ((1, CARDS), (2, second_cards)):
                round_id = f"{table_id}-{number:06d}"
                dealt = of_type(events, "CardDealt", round_id=round_id)
                assert [d["payload"]["card"] for d in dealt] == cards
                assert len(of_type(events, "BettingClosed", round_id=round_id)) == 1
                assert len(of_type(events, "RoundClosed", round_id=round_id)) == 1


async def test_a_clock_sleeps_until_its_deadline_and_hears_of_changes_made_anywhere(
    table_settings: TableSettings,
) -> None:
    """The owner's clocks neither poll nor nap short here (60 s): everything they learn
    comes from the `table_changed` notifications. Commands go through a second service on
    the same database (another instance's HTTP edge, which runs no clocks), and the cards
    through the owner's consumer, which does not tell its clocks directly."""
    sleepy = table_settings.model_copy(
        update={"clock_poll_seconds": 60.0, "clock_max_nap_seconds": 60.0}
    )
    table_id = new_table_id()
    async with running(create_app(sleepy)) as client:
        await wait_for_partitions(client)
        pool = await asyncpg.create_pool(table_settings.postgres_dsn(table_settings.table_database))
        try:
            elsewhere = TableService(AsyncpgEventStore(pool, "table"), table_settings)
            command = OpenTable(table_id, "Elsewhere", 2.0, 0.2, table_body(table_id)["limits"])
            proposed = await elsewhere.open_table(command, "supervisor-2")
            assert proposed.proposed is not None
            await elsewhere.approve_change(table_id, proposed.proposed, "supervisor-1")
            # a clock starts for the new table, opens a round and closes its betting
            await wait_for(client, table_id, count("BettingClosed"), timeout=20)
            for card in CARDS:
                await scan(table_settings, table_id, card)
            # the last card's RoundClosed gives the sleeping clock its next deadline
            await wait_for(client, table_id, count("RoundOpened", 2), timeout=20)
            round_2 = f"{table_id}-000002"
            await elsewhere.pause(table_id, "supervisor-2", "camera down")
            await asyncio.sleep(2.5)  # past the original deadline: the pause holds it
            events = await events_of(client, table_id)
            assert of_type(events, "BettingClosed", round_id=round_2) == []
            await elsewhere.resume(table_id, "supervisor-2")
            # the deadline the resume set (the time left, under 2 s) is kept
            events = await wait_for(
                client, table_id, count("BettingClosed", round_id=round_2), timeout=20
            )
        finally:
            await pool.close()
    [resumed] = of_type(events, "RoundResumed", round_id=round_2)
    [closed] = of_type(events, "BettingClosed", round_id=round_2)
    assert closed["position"] == resumed["position"] + 1
    assert datetime.fromisoformat(closed["payload"]["closed_at"]) >= datetime.fromisoformat(
        resumed["payload"]["betting_closes_at"]
    )


async def wait_for_partitions(client: httpx.AsyncClient) -> None:
    """Until the instance owns its partitions of `scanner.events` (in the `table-scanner`
    group), and so runs clocks."""
    async with asyncio.timeout(30):
        while not (await client.get("/clocks", headers=DEALER)).json()["partitions"]:
            await asyncio.sleep(0.1)


async def test_scans_that_arrive_together_are_dealt_together_in_order(
    table_settings: TableSettings,
) -> None:
    tables = [new_table_id(), new_table_id()]
    async with running(create_app(table_settings)) as client:
        for table_id in tables:
            await open_table(client, table_id, betting_seconds=0.5, result_pause_seconds=60)
        for table_id in tables:
            await wait_for(client, table_id, count("BettingClosed"))
    # the service is down: the scans wait in Kafka and come back in one poll per partition
    for card in CARDS:
        for table_id in tables:
            await scan(table_settings, table_id, card)
    never = new_table_id()
    await scan(table_settings, never, "AS")
    await scan(table_settings, never, "KS")
    await scan(table_settings, tables[0], "KD")  # a seventh card

    async with running(create_app(table_settings)) as client:
        dealt = {}
        for table_id in tables:
            events = await wait_for(client, table_id, count("RoundClosed"))
            dealt[table_id] = of_type(events, "CardDealt")
            assert [d["payload"]["card"] for d in dealt[table_id]] == CARDS
            assert [d["payload"]["position"] for d in dealt[table_id]] == POSITIONS
        events = await wait_for(client, tables[0], count("CardRefused"))
        [seventh] = of_type(events, "CardRefused")
        # it may be the next round's first card: its value is sealed in the store (0058)
        assert seventh["payload"]["card"] is None
        assert seventh["payload"]["reason"] == "no_round_dealing"

    connection = await asyncpg.connect(table_settings.postgres_dsn(table_settings.table_database))
    try:
        for table_id in tables:
            transactions = await connection.fetchval(
                "SELECT count(DISTINCT transaction_id) FROM events"
                " WHERE table_id = $1 AND event_type IN ('CardDealt', 'RoundClosed')",
                table_id,
            )
            assert transactions <= 2, "a poll's cards are dealt in one transaction"
        refused = await connection.fetch(
            "SELECT stream_version, payload->>'card' AS card, payload->>'reason' AS reason"
            " FROM events WHERE stream_id = $1 ORDER BY stream_version",
            f"unknown-table-{never}",
        )
        sealed = await connection.fetch(
            "SELECT card FROM sealed_cards WHERE table_id = $1 ORDER BY recorded_at, card",
            never,
        )
    finally:
        await connection.close()
    # the values stay in the store, never in the published refusal (decision 0058)
    assert [(r["stream_version"], r["card"], r["reason"]) for r in refused] == [
        (1, None, "unknown_table"),
        (2, None, "unknown_table"),
    ]
    assert sorted(r["card"] for r in sealed) == ["AS", "KS"]
