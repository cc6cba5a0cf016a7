"""Shared pieces of the wallet's integration tests: the app on a fresh database and topic
prefix, operators' keys, and rounds opened the way the table service would."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import uuid4

import asyncpg
import httpx

from teenpatti import engine
from teenpatti.engine import PUBLISHED_PAY_TABLE, pay_table_to_mapping
from teenpatti.events import Event, EventEnvelope
from teenpatti.events.catalog import (
    TABLE_EVENTS,
    WALLET_EVENTS,
    BettingClosed,
    RoundClosed,
    RoundOpened,
)
from teenpatti.kernel.migrate import migrate_service
from tests.integration.services import collect, outbox_published, publish, read_to_end
from wallet_service.app import create_app
from wallet_service.config import WalletSettings

OPERATOR_1 = {"X-Api-Key": "dev-operator-1-key"}
OPERATOR_2 = {"X-Api-Key": "dev-operator-2-key"}
BET_TYPES = ("player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus")
LIMITS: dict[str, dict[str, dict[str, int]]] = {
    "INR": {bet_type: {"min": 100, "max": 10_000} for bet_type in BET_TYPES},
    "EUR": {bet_type: {"min": 50, "max": 5_000} for bet_type in BET_TYPES},
}


STARTUP_TIMEOUT = 60.0
REQUEST_TIMEOUT = 20.0


class _TimedTransport(httpx.ASGITransport):
    """In-process requests do not go through a socket, so httpx's own timeouts do not
    apply: every request gets one here."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        async with asyncio.timeout(REQUEST_TIMEOUT):
            return await super().handle_async_request(request)


@asynccontextmanager
async def wallet(settings: WalletSettings) -> AsyncIterator[httpx.AsyncClient]:
    """One wallet instance (its database migrated, its lifespan started: store, relay,
    consumers) and a client."""
    app = create_app(settings)
    await migrate_service(app.state.service, app.state.settings)
    async with contextlib.AsyncExitStack() as stack:
        async with asyncio.timeout(STARTUP_TIMEOUT):
            await stack.enter_async_context(app.router.lifespan_context(app))
        client = await stack.enter_async_context(
            httpx.AsyncClient(transport=_TimedTransport(app=app), base_url="http://wallet")
        )
        yield client


async def send(settings: WalletSettings, topic: str, event: Event, *, table_id: str) -> None:
    """Publish an input event as another service's relay would."""
    async with asyncio.timeout(30):
        await publish(settings, topic, event, table_id=table_id)


async def eventually(
    condition: Callable[[], Awaitable[bool]], *, timeout: float = 30, what: str = "condition"
) -> None:
    try:
        async with asyncio.timeout(timeout):
            while not await condition():
                await asyncio.sleep(0.1)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None


async def round_status(client: httpx.AsyncClient, round_id: str) -> str | None:
    response = await client.get(f"/rounds/{round_id}/book", headers=OPERATOR_1)
    if response.status_code == 404:
        return None
    assert response.status_code == 200, response.text
    status: str = response.json()["status"]
    return status


async def wait_for_round(
    client: httpx.AsyncClient, round_id: str, status: str, *, timeout: float = 30
) -> None:
    async def reached() -> bool:
        return await round_status(client, round_id) == status

    await eventually(reached, timeout=timeout, what=f"round {round_id} to be {status}")


async def open_round(
    settings: WalletSettings,
    client: httpx.AsyncClient,
    round_id: str,
    *,
    table_id: str = "T1",
    closes_in: float = 120,
    limits: dict[str, Any] | None = None,
) -> None:
    """RoundOpened as the table publishes it; returns once the wallet has taken it in."""
    now = datetime.now(UTC)
    await send(
        settings,
        TABLE_EVENTS,
        RoundOpened(
            round_id=round_id,
            table_id=table_id,
            number=1,
            opened_at=now,
            betting_closes_at=now + timedelta(seconds=closes_in),
            limits=limits or LIMITS,
            paytable=pay_table_to_mapping(PUBLISHED_PAY_TABLE),
        ),
        table_id=table_id,
    )
    await wait_for_round(client, round_id, "open")


async def close_betting(settings: WalletSettings, round_id: str, table_id: str = "T1") -> None:
    await send(
        settings,
        TABLE_EVENTS,
        BettingClosed(round_id=round_id, table_id=table_id, closed_at=datetime.now(UTC)),
        table_id=table_id,
    )


async def close_round(
    settings: WalletSettings,
    client: httpx.AsyncClient,
    round_id: str,
    cards: list[str],
    table_id: str = "T1",
) -> None:
    """RoundClosed with the engine's result of `cards`, as the table publishes it; returns
    once the wallet has taken it in."""
    await send(
        settings,
        TABLE_EVENTS,
        RoundClosed.of(round_id, table_id, cards),
        table_id=table_id,
    )
    await wait_for_round(client, round_id, "closed")


def engine_settles(bet_type: str, stake: int, cards: list[str]) -> tuple[str, int]:
    """The outcome and return the rules engine gives a bet of the round dealt `cards`, with
    the published pay table (`open_round`'s): what the wallet pays."""
    settled = engine.settle_bet(
        engine.Bet(engine.BetType(bet_type), stake, "INR"),
        engine.resolve_round(engine.parse_cards(cards)),
        PUBLISHED_PAY_TABLE,
    )
    return settled.outcome.value, settled.returned


async def deposit(
    client: httpx.AsyncClient,
    player_id: str,
    amount: int,
    currency: str = "INR",
    headers: dict[str, str] = OPERATOR_1,
) -> int:
    response = await client.post(
        f"/players/{player_id}/deposits",
        json={"transfer_id": f"dep-{uuid4()}", "currency": currency, "amount": amount},
        headers=headers,
    )
    assert response.status_code == 200, response.text
    balance: int = response.json()["balance"]
    return balance


async def place(
    client: httpx.AsyncClient,
    player_id: str,
    round_id: str,
    bets: list[tuple[str, int]],
    *,
    currency: str = "INR",
    key: str | None = None,
    headers: dict[str, str] = OPERATOR_1,
) -> httpx.Response:
    return await client.post(
        "/bets",
        json={
            "player_id": player_id,
            "round_id": round_id,
            "currency": currency,
            "bets": [{"bet_type": bet_type, "stake": stake} for bet_type, stake in bets],
        },
        headers={**headers, "Idempotency-Key": key or str(uuid4())},
    )


async def balances(
    client: httpx.AsyncClient, player_id: str, headers: dict[str, str] = OPERATOR_1
) -> dict[str, int]:
    response = await client.get(f"/players/{player_id}/balances", headers=headers)
    assert response.status_code == 200, response.text
    found: dict[str, int] = response.json()
    return found


@asynccontextmanager
async def database(settings: WalletSettings) -> AsyncIterator[asyncpg.Connection]:
    connection = await asyncpg.connect(
        settings.postgres_dsn(settings.wallet_database), timeout=15, command_timeout=15
    )
    try:
        yield connection
    finally:
        await connection.close()


async def published(
    settings: WalletSettings,
    until: Callable[[list[EventEnvelope]], bool],
    *,
    timeout: float = 30,
) -> list[EventEnvelope]:
    """Every event on `wallet.events` once `until(seen)` holds and the wallet is quiet (its
    outbox all published): the topic read to its end, so that a count proves each event was
    published once, not that the N-th came."""
    await collect(settings, WALLET_EVENTS, until, timeout=timeout)
    async with database(settings) as connection:
        await eventually(lambda: outbox_published(connection), what="a quiet wallet outbox")
    return await read_to_end(settings, WALLET_EVENTS)
