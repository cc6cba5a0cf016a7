"""The operator client (teenpatti-client) against a wallet served over HTTP on the real
Postgres and Kafka: docs/operators.md's integration example runs as written, and refusals
reach the operator as the client exposes them (a `Problem` with its code)."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from types import ModuleType

import httpx
import pytest
import uvicorn

from teenpatti.kernel.migrate import migrate_service
from teenpatti_client.wallet.api.default import balances, place_bets, player_bets, show_session
from teenpatti_client.wallet.models import BalancesPublic, BetLine, Problem, SlipCreate
from teenpatti_tools.devrun import free_port
from tests.integration.wallet.helpers import OPERATOR_1, open_round
from wallet_service.app import create_app
from wallet_service.config import WalletSettings

pytestmark = pytest.mark.integration

EXAMPLE = (
    Path(__file__).resolve().parents[3]
    / "clients/python/teenpatti-client/examples/transfer_operator.py"
)


def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("transfer_operator", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


@asynccontextmanager
async def served(settings: WalletSettings) -> AsyncIterator[str]:
    """The wallet on a port of this machine, its database migrated: its base URL."""
    app = create_app(settings)
    await migrate_service(app.state.service, app.state.settings)
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=free_port(), log_level="warning")
    )
    serving = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(60):
            while not server.started:
                assert not serving.done(), "the wallet stopped"
                await asyncio.sleep(0.05)
        yield f"http://127.0.0.1:{server.config.port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(serving, timeout=30)


async def test_an_operator_funds_a_player_opens_a_session_bets_and_reads_it_back(
    wallet_settings: WalletSettings,
) -> None:
    integration = example()
    round_id = f"R-{uuid.uuid4().hex[:8]}"
    player = f"p-{uuid.uuid4().hex[:8]}"
    async with served(wallet_settings) as base_url:
        async with httpx.AsyncClient(base_url=base_url, timeout=10) as raw:
            await open_round(wallet_settings, raw, round_id, table_id="T7")

        async with integration.wallet_client(base_url, OPERATOR_1["X-Api-Key"]) as wallet:
            played = await integration.fund_and_play(wallet, player, "T7", round_id)

            assert played.balance == 50_000 - 1_500
            assert sorted((bet.bet_type.value, bet.stake, bet.round_id) for bet in played.bets) == [
                ("player_a", 1_000, round_id),
                ("tie", 500, round_id),
            ]
            assert {bet.status.value for bet in played.bets} == {"placed"}
            assert "ticket=" in played.launch_url

            # a slip over the player's limit on player_a (1,000 staked, 10,000 at most): the
            # wallet's problem with its code and its own fields, nothing taken
            over = await place_bets.asyncio_detailed(
                client=wallet,
                idempotency_key=str(uuid.uuid4()),
                body=SlipCreate(
                    player_id=player,
                    round_id=round_id,
                    currency="INR",
                    bets=[
                        BetLine(bet_type="player_b", stake=500),
                        BetLine(bet_type="player_a", stake=10_000),
                    ],
                ),
            )
            assert over.status_code == 422, over.content
            assert isinstance(over.parsed, Problem)
            assert over.parsed.code == "exposure_limit"
            assert over.parsed.additional_properties["left"] == 9_000
            with pytest.raises(integration.RefusedError, match="422 exposure_limit"):
                integration.answered(over.parsed)
            remaining = await balances.asyncio(player, client=wallet)
            assert isinstance(remaining, BalancesPublic) and remaining["INR"] == 48_500

            # a session of another id: 404 and its code
            missing = await show_session.asyncio(uuid.uuid4(), client=wallet)
            assert isinstance(missing, Problem) and missing.status == 404

        # another operator sees none of this player's bets; a wrong key is refused
        async with integration.wallet_client(base_url, "dev-operator-2-key") as other:
            page = await player_bets.asyncio(player, client=other)
            assert page is not None and not isinstance(page, Problem) and page.items == []
        async with integration.wallet_client(base_url, "not-a-key") as stranger:
            refused = await balances.asyncio_detailed(player, client=stranger)
            assert refused.status_code == 401
            assert isinstance(refused.parsed, Problem) and refused.parsed.code
