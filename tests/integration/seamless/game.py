"""A seamless game for the wallet's integration tests: the wallet service on the real stack
(Postgres, Kafka) and the reference operator (teenpatti_tools.operator, its own database, a
real HTTP server) it calls for every bet, win and rollback; its fixtures are in conftest.py."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple
from uuid import UUID, uuid4

import asyncpg
import httpx
import pytest
import uvicorn

from teenpatti import cli
from teenpatti.seamless import OperatorConfig, WalletMode, WinPer
from teenpatti.seamless.signing import (
    PrivateKey,
    public_key_pem,
)
from teenpatti_tools.devrun import free_port
from teenpatti_tools.operator.app import ADMIN_TOKEN_HEADER, OperatorServerConfig, create_app
from tests.integration.seamless.support import settle as settle_slips
from tests.integration.wallet.helpers import (
    OPERATOR_1,
    database,
    eventually,
    open_round,
    wallet,
)
from wallet_service.config import WalletSettings

SEAMLESS = "operator-1"  # OPERATOR_1's key
ADMIN_TOKEN = "test-admin-token"
FUNDS = 10_000_000  # 100,000.00 INR in minor units
UNITS = 1_000  # protocol units per INR minor unit
ALL_BETS = [
    ("player_a", 1_000),
    ("player_b", 900),
    ("tie", 800),
    ("pair_plus_a", 700),
    ("pair_plus_b", 600),
    ("six_card_bonus", 500),
]


@dataclass
class ReferenceOperator:
    """The reference operator's server, and its admin API."""

    base_url: str
    admin_client: httpx.AsyncClient
    state: Any

    async def admin(self, method: str, path: str, **kwargs: Any) -> Any:
        response = await self.admin_client.request(
            method, f"/admin{path}", headers={ADMIN_TOKEN_HEADER: ADMIN_TOKEN}, **kwargs
        )
        assert response.status_code < 300, response.text
        return response.json()

    async def player(self, funds: int = FUNDS) -> tuple[str, str]:
        """A new player with `funds` INR minor units; its id and session token."""
        user = f"sp-{uuid4().hex[:12]}"
        await self.admin("PUT", f"/users/{user}", json={})
        await self.admin(
            "POST", f"/users/{user}/deposits", json={"currency": "INR", "amount": funds * UNITS}
        )
        issued = await self.admin(
            "POST", "/tokens", json={"user": user, "currency": "INR", "ttl_seconds": 3600}
        )
        return user, str(issued["token"])

    async def balance(self, user: str) -> int:
        """In INR minor units."""
        view = await self.admin("GET", f"/users/{user}")
        units = int(view["balances"].get("INR", 0))
        assert units % UNITS == 0
        return units // UNITS

    async def transactions(self, user: str) -> list[dict[str, Any]]:
        page = await self.admin("GET", "/transactions", params={"user": user, "limit": 1000})
        return list(page["transactions"])

    async def faults(self, *switches: dict[str, Any]) -> None:
        await self.admin("PUT", "/faults", json={"seed": 1, "switches": list(switches)})

    async def held_calls_applied(self) -> None:
        for _ in range(1_000):
            if not self.state.detached:
                return
            await asyncio.sleep(0.01)
        raise AssertionError("a held call was never applied")


@dataclass
class Keys:
    game: PrivateKey
    operator: PrivateKey
    game_key_file: Path


@contextlib.asynccontextmanager
async def reference_operator(
    dsn: str, keys: Keys, game_public: PrivateKey | None = None
) -> AsyncIterator[ReferenceOperator]:
    """The reference operator on a real port (so timeouts are real), checking its money
    adds up when done."""
    app = create_app(
        OperatorServerConfig(
            dsn=dsn,
            private_key=keys.operator,
            game_public_keys=[(game_public or keys.game).public_key()],
            admin_token=ADMIN_TOKEN,
        )
    )
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    serving = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(30):
            while not server.started:
                assert not serving.done(), "the reference operator did not start"
                await asyncio.sleep(0.02)
        base_url = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=base_url, timeout=10) as admin:
            operator = ReferenceOperator(base_url, admin, app.state.operator)
            yield operator
            await operator.held_calls_applied()
            check = await operator.admin("GET", "/check")
            assert check["ok"], check
    finally:
        server.should_exit = True
        async with asyncio.timeout(30):
            await serving


def seamless_settings(
    wallet_settings: WalletSettings, keys: Keys, sender_interval: float = 0.05
) -> WalletSettings:
    return wallet_settings.model_copy(
        update={
            "seamless_signing_key_file": str(keys.game_key_file),
            "seamless_config_cache_seconds": 0.0,
            "seamless_sender_interval_seconds": sender_interval,
            "seamless_recovery_margin_seconds": 0.5,
        }
    )


async def configure(
    settings: WalletSettings,
    operator: ReferenceOperator,
    keys: Keys,
    timeout: float = 2.0,
    win_per: WinPer = WinPer.ROUND,
) -> None:
    """operator-1 becomes seamless through the reference operator (as `teenpatti operators
    set` writes it)."""
    await configure_wallet_server(
        settings,
        operator.base_url,
        public_key_pem(keys.operator).decode(),
        timeout=timeout,
        win_per=win_per,
    )


async def configure_wallet_server(
    settings: WalletSettings,
    base_url: str,
    operator_public_key_pem: str,
    *,
    timeout: float = 2.0,
    win_per: WinPer = WinPer.ROUND,
) -> None:
    """operator-1 becomes seamless through the wallet server at `base_url`."""
    config = OperatorConfig(
        operator_id=SEAMLESS,
        mode=WalletMode.SEAMLESS,
        base_url=base_url,
        public_keys=(operator_public_key_pem,),
        timeout_seconds=timeout,
        base_backoff_seconds=0.05,
        max_backoff_seconds=0.2,
        win_per=win_per,
    )
    async with database(settings) as connection:
        await connection.execute(
            "INSERT INTO operators (operator_id, config, updated_by) VALUES ($1, $2::jsonb, 'test')"
            " ON CONFLICT (operator_id) DO UPDATE SET config = EXCLUDED.config",
            SEAMLESS,
            json.dumps(config.model_dump(mode="json", exclude={"operator_id"})),
        )


class Game(NamedTuple):
    """A seamless game (`seamless_game`): the wallet's settings, the reference operator, a
    client of the wallet, and one of the operator's players with its session token."""

    settings: WalletSettings
    operator: ReferenceOperator
    client: httpx.AsyncClient
    user: str
    token: str


@contextlib.asynccontextmanager
async def seamless_game(
    wallet_settings: WalletSettings,
    keys: Keys,
    operator_database: str,
    round_id: str,
    timeout: float = 2.0,
    sender_interval: float = 0.05,
) -> AsyncIterator[Game]:
    """operator-1 seamless through the reference operator, the wallet running, `round_id`
    open for betting, and a new player of the operator's."""
    settings = seamless_settings(wallet_settings, keys, sender_interval)
    async with (
        reference_operator(operator_database, keys) as operator,
        wallet(settings) as client,
    ):
        await configure(settings, operator, keys, timeout)
        await open_round(settings, client, round_id)
        user, token = await operator.player()
        yield Game(settings, operator, client, user, token)


async def bet_slip_of(settings: WalletSettings, user: str) -> str:
    """The slip of the player's one bet call."""
    async with database(settings) as connection:
        slip_id = await connection.fetchval(
            "SELECT slip_id FROM operator_calls WHERE kind = 'bet' AND player_id = $1", user
        )
    return str(slip_id)


async def slip(
    client: httpx.AsyncClient,
    user: str,
    token: str,
    round_id: str,
    bets: list[tuple[str, int]],
    key: str | None = None,
) -> httpx.Response:
    return await client.post(
        "/bets",
        json={
            "player_id": user,
            "round_id": round_id,
            "currency": "INR",
            "bets": [{"bet_type": bet_type, "stake": stake} for bet_type, stake in bets],
            "token": token,
        },
        headers={**OPERATOR_1, "Idempotency-Key": key or str(uuid4())},
    )


async def calls_of(settings: WalletSettings, slip_id: str) -> dict[str, asyncpg.Record]:
    async with database(settings) as connection:
        rows = await connection.fetch(
            "SELECT * FROM operator_calls WHERE slip_id = $1", UUID(slip_id)
        )
    return {row["kind"]: row for row in rows}


async def call_done(settings: WalletSettings, slip_id: str, kind: str, status: str = "ok") -> None:
    async def done() -> bool:
        row = (await calls_of(settings, slip_id)).get(kind)
        return row is not None and row["status"] == status

    await eventually(done, what=f"the {kind} of slip {slip_id} to be {status}")


async def settle(
    settings: WalletSettings, round_id: str, slips: list[dict[str, Any]], *, cancelled: bool
) -> None:
    """BetsSettled for every bet of the seamless operator's `slips`."""
    await settle_slips(settings, round_id, [(SEAMLESS, s) for s in slips], cancelled=cancelled)


async def operators_cli(
    monkeypatch: pytest.MonkeyPatch, wallet_database: str, *argv: str, command: str = "operators"
) -> tuple[int, str, str]:
    """`teenpatti COMMAND ARGV...` (`operators` unless told) on the test's wallet database."""
    monkeypatch.setenv("TP_WALLET_DATABASE", wallet_database)
    monkeypatch.setenv("TP_ENV", os.environ.get("TP_ENV", "dev"))
    out, err = io.StringIO(), io.StringIO()
    status = await asyncio.to_thread(cli.main, [command, *argv], None, out, err)
    return status, out.getvalue(), err.getvalue()
