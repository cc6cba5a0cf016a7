"""Slips racing the seal: every accepted bet is in the book, nothing commits after it."""

from __future__ import annotations

import asyncio
import contextlib
from uuid import UUID

from teenpatti.events.catalog import WALLET_EVENTS, BetBookClosed, book_digest
from tests.integration.services import (
    collect,
    count_of,
    of_type,
    outbox_published,
    placed_bets,
    read_to_end,
)
from wallet_service.config import WalletSettings

from .helpers import (
    LIMITS,
    balances,
    close_betting,
    database,
    deposit,
    eventually,
    open_round,
    place,
    wallet,
)

PLAYERS = 12  # betting through two wallet instances on the same database
ACCEPTED_BEFORE_CLOSING = 15


async def test_no_bet_commits_after_the_seal(wallet_settings: WalletSettings) -> None:
    async with contextlib.AsyncExitStack() as stack:
        client = await stack.enter_async_context(wallet(wallet_settings))
        # a bet type's maximum well above what a bettor stakes before the seal (the
        # exposure limit bounds a player's slips together)
        limits = {"INR": {t: {"min": 100, "max": 1_000_000} for t in LIMITS["INR"]}}
        await open_round(wallet_settings, client, "T1-000001", limits=limits)
        for n in range(PLAYERS):
            await deposit(client, f"p{n}", 1_000_000)
        # a second instance on the same database and consumer groups
        other = await stack.enter_async_context(wallet(wallet_settings))
        instances = (client, other)
        accepted: list[UUID] = []
        refused: list[str] = []
        enough = asyncio.Event()

        async def bettor(player_id: str) -> None:
            # bet until the wallet says betting is closed
            while True:
                instance = instances[int(player_id[1:]) % 2]
                response = await place(instance, player_id, "T1-000001", [("player_a", 100)])
                if response.status_code == 201:
                    accepted.extend(UUID(b["bet_id"]) for b in response.json()["bets"])
                    if len(accepted) >= ACCEPTED_BEFORE_CLOSING:
                        enough.set()
                    continue
                assert response.status_code == 409, response.text
                refused.append(response.json()["code"])
                return

        async def closer() -> None:
            await enough.wait()
            await close_betting(wallet_settings, "T1-000001")

        async with asyncio.timeout(120):
            await asyncio.gather(closer(), *(bettor(f"p{n}") for n in range(PLAYERS)))

        assert refused == ["betting_closed"] * PLAYERS
        await collect(wallet_settings, WALLET_EVENTS, count_of("BetBookClosed", 1))
        async with database(wallet_settings) as connection:
            await eventually(lambda: outbox_published(connection), what="a quiet outbox")
        # read to its end once quiet: one book, and every accepted slip on the topic once
        events = await read_to_end(wallet_settings, WALLET_EVENTS)
        assert sorted(line.bet_id for line in placed_bets(events)) == sorted(accepted)
        (book,) = of_type(events, "BetBookClosed")
        assert isinstance(book, BetBookClosed)
        assert book.bet_count == len(accepted) >= ACCEPTED_BEFORE_CLOSING
        assert book.total_stake == {"INR": 100 * len(accepted)}
        assert book.digest == book_digest(accepted)
        async with database(wallet_settings) as connection:
            late = await connection.fetchval(
                "SELECT count(*) FROM wallet_bets b JOIN wallet_rounds r USING (round_id)"
                # sealed_at is the wallet's clock once it held the round's lock
                " WHERE b.placed_at >= r.sealed_at OR b.bet_id <> ALL($1::uuid[])",
                accepted,
            )
            booked = await connection.fetchval("SELECT count(*) FROM wallet_bets")
        assert late == 0
        assert booked == len(accepted)
        # money: what the bettors lost is exactly what the book holds
        total = 0
        for n in range(PLAYERS):
            total += (await balances(client, f"p{n}"))["INR"]
        assert total == PLAYERS * 1_000_000 - 100 * len(accepted)
