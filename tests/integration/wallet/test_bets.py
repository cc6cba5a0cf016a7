"""Slips: the whole slip or nothing, every refusal, idempotency, operators kept apart."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from uuid import UUID

from teenpatti.events.catalog import (
    TABLE_EVENTS,
    BetBookClosed,
    RoundCancelled,
    RoundPaused,
    RoundResumed,
    book_digest,
)
from tests.integration.services import count_of, of_type, placed_bets
from wallet_service.config import WalletSettings

from .helpers import (
    OPERATOR_1,
    OPERATOR_2,
    balances,
    close_betting,
    database,
    deposit,
    eventually,
    open_round,
    place,
    published,
    send,
    wait_for_round,
    wallet,
)


async def test_a_slip_is_taken_whole_and_replayed_by_its_key(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, "T1-000001")
        await deposit(client, "p1", 5_000)

        accepted = await place(
            client, "p1", "T1-000001", [("player_a", 1_000), ("pair_plus_a", 200)], key="k1"
        )
        assert accepted.status_code == 201, accepted.text
        slip = accepted.json()
        assert slip["balance"] == 3_800
        assert [(b["bet_type"], b["stake"]) for b in slip["bets"]] == [
            ("player_a", 1_000),
            ("pair_plus_a", 200),
        ]
        assert await balances(client, "p1") == {"INR": 3_800}

        # a retry with the same key and body: the first answer, and nothing moves
        retried = await place(
            client, "p1", "T1-000001", [("player_a", 1_000), ("pair_plus_a", 200)], key="k1"
        )
        assert retried.status_code == 201
        assert retried.json() == slip
        assert await balances(client, "p1") == {"INR": 3_800}
        # the same key with another body
        reused = await place(client, "p1", "T1-000001", [("player_a", 999)], key="k1")
        assert reused.status_code == 422
        assert reused.json()["code"] == "idempotency_key_reused"
        # keys belong to an operator: operator-2 may use "k1" for its own slip
        await deposit(client, "p1", 1_000, headers=OPERATOR_2)
        other = await place(client, "p1", "T1-000001", [("tie", 100)], key="k1", headers=OPERATOR_2)
        assert other.status_code == 201, other.text

        bet_id = slip["bets"][0]["bet_id"]
        mine = await client.get(f"/bets/{bet_id}", headers=OPERATOR_1)
        assert mine.status_code == 200
        assert mine.json()["stake"] == 1_000
        assert mine.json()["status"] == "placed"
        theirs = await client.get(f"/bets/{bet_id}", headers=OPERATOR_2)
        assert theirs.status_code == 404
        assert theirs.json()["code"] == "unknown_bet"
        # the same player id under operator-2 is operator-2's player: only its own bet
        history = await client.get("/players/p1/bets", headers=OPERATOR_2)
        assert [b["bet_type"] for b in history.json()["items"]] == ["tie"]
        book = (await client.get("/rounds/T1-000001/book", headers=OPERATOR_2)).json()
        assert book["bet_count"] == 1
        assert book["total_stake"] == {"INR": 100}

        # one BetsPlaced per slip taken (the retry and the refusal wrote none)
        events = await published(wallet_settings, count_of("BetsPlaced", 2))
        assert len(of_type(events, "BetsPlaced")) == 2
        placed = placed_bets(events)
        assert sorted((e.operator_id, e.bet_type, e.stake) for e in placed) == [
            ("operator-1", "pair_plus_a", 200),
            ("operator-1", "player_a", 1_000),
            ("operator-2", "tie", 100),
        ]
        assert {e.round_id for e in placed} == {"T1-000001"}
        assert {e.slip_id for e in placed if e.operator_id == "operator-1"} == {
            UUID(slip["slip_id"])
        }
        # the slip's stakes are one ledger entry a side, naming the slip
        async with database(wallet_settings) as connection:
            stakes = await connection.fetch(
                "SELECT account, amount FROM wallet_ledger WHERE reference = $1 ORDER BY account",
                f"slip:{slip['slip_id']}",
            )
        assert [tuple(row) for row in stakes] == [("house", 1_200), ("player", -1_200)]


async def test_refusals_refuse_the_whole_slip(wallet_settings: WalletSettings) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, "T1-000001")
        await open_round(wallet_settings, client, "T1-000002", closes_in=-1)
        await deposit(client, "p1", 2_000)

        async def refused(bets: list[tuple[str, int]], code: str, status: int, **kw: str) -> None:
            response = await place(client, "p1", kw.pop("round_id", "T1-000001"), bets, **kw)
            assert response.status_code == status, response.text
            assert response.json()["code"] == code
            assert response.headers["content-type"] == "application/problem+json"

        # one bet over its maximum refuses the slip: nothing debited, nothing booked
        await refused([("player_a", 1_000), ("tie", 10_001)], "above_maximum", 422)
        await refused([("player_a", 1_000), ("tie", 99)], "below_minimum", 422)
        await refused([("player_a", 1_000)], "currency_not_accepted", 422, currency="USD")
        await refused([("player_a", 1_000)], "unknown_round", 404, round_id="T1-999999")
        await refused([("player_a", 1_000)], "betting_closed", 409, round_id="T1-000002")
        await refused([], "invalid_bet", 422)
        await refused([("banker", 1_000)], "invalid_bet", 422)
        await refused([("player_a", 1_000), ("player_a", 500)], "invalid_bet", 422)
        await refused([("player_a", 0)], "invalid_bet", 422)
        await refused([("player_a", 1_500), ("player_b", 600)], "insufficient_funds", 409)
        assert await balances(client, "p1") == {"INR": 2_000}
        book = (await client.get("/rounds/T1-000001/book", headers=OPERATOR_1)).json()
        assert book["bet_count"] == 0

        # a refusal is the answer stored under its key too
        first = await place(client, "p1", "T1-000001", [("tie", 10_001)], key="r1")
        second = await place(client, "p1", "T1-000001", [("tie", 10_001)], key="r1")
        assert (second.status_code, second.json()["code"]) == (422, "above_maximum")
        assert second.json()["detail"] == first.json()["detail"]
        # a slip without a key is refused before anything else
        no_key = await client.post(
            "/bets",
            json={"player_id": "p1", "round_id": "T1-000001", "currency": "INR", "bets": []},
            headers=OPERATOR_1,
        )
        assert (no_key.status_code, no_key.json()["code"]) == (400, "idempotency_key_required")
        fractional = await client.post(
            "/bets",
            json={
                "player_id": "p1",
                "round_id": "T1-000001",
                "currency": "INR",
                "bets": [{"bet_type": "tie", "stake": 100.5}],
            },
            headers={**OPERATOR_1, "Idempotency-Key": "f1"},
        )
        assert (fractional.status_code, fractional.json()["code"]) == (422, "invalid_request")

        async with database(wallet_settings) as connection:
            assert await connection.fetchval("SELECT count(*) FROM wallet_bets") == 0
            assert await connection.fetchval("SELECT count(*) FROM wallet_ledger") == 1

        # the exact maximum and minimum are fine, in one slip
        ok = await place(client, "p1", "T1-000001", [("player_a", 1_000), ("tie", 100)])
        assert ok.status_code == 201, ok.text
        assert ok.json()["balance"] == 900


async def test_the_seal_closes_betting_and_books_every_bet(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, "T1-000001")
        await deposit(client, "p1", 5_000)
        await deposit(client, "p2", 5_000, currency="EUR")
        slips = [
            await place(client, "p1", "T1-000001", [("player_a", 1_000), ("tie", 100)]),
            await place(client, "p2", "T1-000001", [("player_b", 700)], currency="EUR"),
        ]
        bet_ids = [UUID(b["bet_id"]) for s in slips for b in s.json()["bets"]]

        await close_betting(wallet_settings, "T1-000001")
        await wait_for_round(client, "T1-000001", "sealed")
        late = await place(client, "p1", "T1-000001", [("player_b", 1_000)])
        assert (late.status_code, late.json()["code"]) == (409, "betting_closed")

        # a BettingClosed delivered again (another event id) does not seal twice; the next
        # round of the table comes after it on the same partition
        await close_betting(wallet_settings, "T1-000001")
        await open_round(wallet_settings, client, "T1-000002")
        events = await published(wallet_settings, count_of("BetBookClosed", 1))
        (book,) = of_type(events, "BetBookClosed")
        assert isinstance(book, BetBookClosed)
        assert book.bet_count == 3
        assert book.total_stake == {"EUR": 700, "INR": 1_100}
        assert book.digest == book_digest(bet_ids)
        async with database(wallet_settings) as connection:
            streams = await connection.fetchval(
                "SELECT count(*) FROM events WHERE event_type = 'BetBookClosed'"
            )
        assert streams == 1


async def test_a_cancelled_round_is_sealed_before_it_is_void(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, "T2-000001", table_id="T2")
        await deposit(client, "p1", 5_000)
        placed = await place(client, "p1", "T2-000001", [("player_a", 1_000)])
        assert placed.status_code == 201
        await send(
            wallet_settings,
            TABLE_EVENTS,
            RoundCancelled(
                round_id="T2-000001", table_id="T2", actor="sup", reason="shoe", cards_dealt=0
            ),
            table_id="T2",
        )
        await wait_for_round(client, "T2-000001", "cancelled")
        late = await place(client, "p1", "T2-000001", [("player_a", 1_000)])
        assert late.json()["code"] == "betting_closed"
        events = await published(wallet_settings, count_of("BetBookClosed", 1))
        (book,) = of_type(events, "BetBookClosed")
        assert isinstance(book, BetBookClosed)
        assert (book.round_id, book.bet_count) == ("T2-000001", 1)


async def test_history_is_newest_first_in_pages(wallet_settings: WalletSettings) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, "T1-000001")
        await deposit(client, "p1", 5_000)
        for stake in (100, 200, 300):
            assert (await place(client, "p1", "T1-000001", [("tie", stake)])).status_code == 201
        await place(client, "p2", "T1-000001", [("tie", 400)])  # refused: p2 has no money

        seen: list[int] = []
        cursor: str | None = None
        for _ in range(5):
            params: dict[str, str | int] = {"limit": 2}
            if cursor is not None:
                params["cursor"] = cursor
            page = await client.get("/players/p1/bets", params=params, headers=OPERATOR_1)
            assert page.status_code == 200, page.text
            seen.extend(b["stake"] for b in page.json()["items"])
            cursor = page.json()["next_cursor"]
            if cursor is None:
                break
        assert seen == [300, 200, 100]

        for cursor in ("abc", "²", "-1", "9" * 19):
            bad = await client.get(
                "/players/p1/bets", params={"cursor": cursor}, headers=OPERATOR_1
            )
            assert (bad.status_code, bad.json()["code"]) == (422, "invalid_cursor"), cursor
        too_many = await client.get("/players/p1/bets?limit=1000", headers=OPERATOR_1)
        assert (too_many.status_code, too_many.json()["code"]) == (422, "invalid_request")
        nobody = await client.get("/players/nobody/bets", headers=OPERATOR_1)
        assert nobody.json() == {"items": [], "next_cursor": None}
        not_a_bet = await client.get("/bets/not-a-uuid", headers=OPERATOR_1)
        assert not_a_bet.status_code == 422


async def test_concurrent_retries_of_one_slip_place_it_once(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, "T1-000001")
        await deposit(client, "p1", 5_000)
        async with asyncio.timeout(60):
            answers = await asyncio.gather(
                *(place(client, "p1", "T1-000001", [("tie", 1_000)], key="same") for _ in range(8))
            )
        assert {a.status_code for a in answers} == {201}
        assert len({a.text for a in answers}) == 1
        assert await balances(client, "p1") == {"INR": 4_000}


async def test_a_paused_round_takes_no_slips_until_resumed(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, "T1-000001", closes_in=-1)
        await deposit(client, "p1", 5_000)
        await send(
            wallet_settings,
            TABLE_EVENTS,
            RoundPaused(round_id="T1-000001", table_id="T1", actor="sup", reason="dealer"),
            table_id="T1",
        )

        async def paused(expected: bool) -> bool:
            book = await client.get("/rounds/T1-000001/book", headers=OPERATOR_1)
            return bool(book.json()["paused"] is expected)

        await eventually(lambda: paused(True), what="the round to be paused")
        refused = await place(client, "p1", "T1-000001", [("tie", 100)])
        assert refused.json()["code"] == "betting_closed"
        # resumed with a new deadline (the old one has passed): betting is open again
        await send(
            wallet_settings,
            TABLE_EVENTS,
            RoundResumed(
                round_id="T1-000001",
                table_id="T1",
                actor="sup",
                betting_closes_at=datetime.now(UTC) + timedelta(seconds=120),
            ),
            table_id="T1",
        )
        await eventually(lambda: paused(False), what="the round to be resumed")
        accepted = await place(client, "p1", "T1-000001", [("tie", 100)])
        assert accepted.status_code == 201, accepted.text


async def test_closing_a_round_never_seen_open_seals_an_empty_book(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        await close_betting(wallet_settings, "T3-000007", table_id="T3")
        await wait_for_round(client, "T3-000007", "sealed")
        events = await published(wallet_settings, count_of("BetBookClosed", 1))
        (book,) = of_type(events, "BetBookClosed")
        assert isinstance(book, BetBookClosed)
        assert (book.round_id, book.bet_count, book.total_stake) == ("T3-000007", 0, {})
        assert book.digest == book_digest([])
        late = await place(client, "p1", "T3-000007", [("tie", 100)])
        assert late.json()["code"] == "betting_closed"


async def test_one_players_concurrent_slips_are_taken_one_after_another(
    wallet_settings: WalletSettings,
) -> None:
    """Each slip reads the balance and the stream version only once it holds the player's
    lock: racing slips never overdraw, never see a stale version, and leave a clean ledger."""
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, "T1-000001")
        # a new player's first deposits race to create its row
        async with asyncio.timeout(60):
            await asyncio.gather(*(deposit(client, "p1", 1_000) for _ in range(5)))
        assert await balances(client, "p1") == {"INR": 5_000}

        async with asyncio.timeout(60):
            answers = await asyncio.gather(
                *(place(client, "p1", "T1-000001", [("tie", 1_000)]) for _ in range(12))
            )
        accepted = [a.json() for a in answers if a.status_code == 201]
        refused = [a.json()["code"] for a in answers if a.status_code != 201]
        assert len(accepted) == 5
        assert refused == ["insufficient_funds"] * 7
        assert sorted(slip["balance"] for slip in accepted) == [0, 1_000, 2_000, 3_000, 4_000]
        assert await balances(client, "p1") == {"INR": 0}

        async with database(wallet_settings) as connection:
            versions = await connection.fetch(
                "SELECT stream_version, event_type FROM events WHERE stream_id = $1"
                " ORDER BY stream_version",
                "player-operator-1:p1",
            )
            ledger = await connection.fetch(
                "SELECT account, sum(amount) AS total FROM wallet_ledger"
                " WHERE operator_id = 'operator-1' GROUP BY account ORDER BY account"
            )
        assert [row["stream_version"] for row in versions] == list(range(1, 11))
        assert [row["event_type"] for row in versions] == ["FundsDeposited"] * 5 + [
            "BetsPlaced"
        ] * 5
        assert [(row["account"], row["total"]) for row in ledger] == [
            ("house", 5_000),
            ("player", 0),
        ]
