"""A player who asks its balance in a loop (issue 33), on the real stack: the wallet
in-process, the reference operator on a real port, counting the signed calls it gets. The
operator hears at most one `/user/balance` per session per
`TP_SESSION_BALANCE_CACHE_SECONDS`, however many the player sends, and the session's own
limit refuses the rest."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from uuid import uuid4

import asyncpg
import httpx
import pytest
import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from teenpatti.seamless.signing import (
    PrivateKey,
    generate_private_key,
    private_key_pem,
    public_key_pem,
)
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.databases import create_database, drop_database
from teenpatti_tools.devrun import free_port
from teenpatti_tools.operator.app import ADMIN_TOKEN_HEADER, OperatorServerConfig
from teenpatti_tools.operator.app import create_app as create_operator_app
from wallet_service.config import WalletSettings

from ..integration.seamless.test_sessions import (
    launch,
    open_session,
    operator_player,
    wallet_database,
)
from ..integration.services import topics_ready
from ..integration.wallet.helpers import wallet

pytestmark = pytest.mark.integration

ADMIN_TOKEN = "hostile-operator-admin-token"
ASKED = 100  # at once, within the session's burst
SESSION_BURST = 120


class CountedCalls:
    """ASGI: the operator's app, counting the requests of each path."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.paths: Counter[str] = Counter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            self.paths[scope["path"]] += 1
        await self.app(scope, receive, send)


@asynccontextmanager
async def counted_operator(
    infrastructure: InfrastructureSettings, game_key: PrivateKey, operator_key: PrivateKey
) -> AsyncIterator[tuple[str, httpx.AsyncClient, CountedCalls]]:
    """The reference operator on a free port and a database of its own, its calls counted:
    its base URL, an admin client, the count."""
    name = f"hostile_operator_{uuid4().hex[:12]}"
    await create_database(infrastructure, name)
    counted = CountedCalls(
        create_operator_app(
            OperatorServerConfig(
                dsn=infrastructure.postgres_dsn(name),
                private_key=operator_key,
                game_public_keys=[game_key.public_key()],
                admin_token=ADMIN_TOKEN,
            )
        )
    )
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(counted, host="127.0.0.1", port=port, log_level="warning")
    )
    serving = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(30):
            while not server.started:
                assert not serving.done(), "the reference operator stopped"
                await asyncio.sleep(0.05)
        base_url = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(
            base_url=base_url, headers={ADMIN_TOKEN_HEADER: ADMIN_TOKEN}, timeout=10
        ) as admin:
            yield base_url, admin, counted
    finally:
        server.should_exit = True
        await asyncio.wait_for(serving, timeout=30)
        connection = await asyncpg.connect(infrastructure.postgres_dsn("postgres"))
        try:
            await drop_database(connection, name)
        finally:
            await connection.close()


async def test_a_balance_asked_in_a_loop_reaches_the_operator_once(
    infrastructure: InfrastructureSettings,
    settings: InfrastructureSettings,
    database_name: str,
    tmp_path: Path,
) -> None:
    await topics_ready(settings)
    game_key, operator_key = generate_private_key(), generate_private_key()
    (tmp_path / "game.pem").write_bytes(private_key_pem(game_key))
    configured = WalletSettings(
        **{
            **settings.model_dump(),
            "wallet_database": database_name,
            "seamless_signing_key_file": str(tmp_path / "game.pem"),
            "session_balance_cache_seconds": 60.0,  # longer than the test: one call in all
            # the limits on, a session's bucket a little above what it asks at once
            "rate_limit_key_per_second": 0.001,
            "rate_limit_key_burst": SESSION_BURST,
        }
    )
    async with (
        counted_operator(infrastructure, game_key, operator_key) as (base_url, admin, counted),
        wallet(configured) as client,
    ):
        async with wallet_database(configured) as connection:
            await connection.execute(
                "INSERT INTO operators (operator_id, config, updated_by) VALUES ($1, $2, 'test')",
                "operator-1",
                json.dumps(
                    {
                        "operator_id": "operator-1",
                        "mode": "seamless",
                        "base_url": base_url,
                        "public_keys": [public_key_pem(operator_key).decode()],
                        "timeout_seconds": 5,
                    }
                ),
            )
        token = await operator_player(admin, "p1", 5_000_000)
        session = await launch(client, await open_session(client, "p1", token=token))

        answers = await asyncio.gather(
            *(client.get("/me/balance", headers=session) for _ in range(ASKED))
        )
        assert {a.status_code for a in answers} == {200}, {a.text for a in answers}
        assert {a.json()["balance"] for a in answers} == {5_000}  # 50.00 INR, the operator's
        assert counted.paths["/user/balance"] == 1

        # past its burst, the session is refused before anything is asked
        more = [await client.get("/me/balance", headers=session) for _ in range(2 * ASKED)]
        refused = [a for a in more if a.status_code == 429]
        assert refused, Counter(a.status_code for a in more)
        assert refused[0].json()["limit"] == "api_key"
        assert counted.paths["/user/balance"] == 1
