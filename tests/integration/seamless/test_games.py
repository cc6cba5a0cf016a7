"""A seamless operator's player's last games, on the real stack (the wallet in-process, the
reference operator on a port of its own): the balances around the round are the operator's,
as it answered the round's first bet and its wins."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from teenpatti.seamless.signing import generate_private_key, private_key_pem, public_key_pem
from teenpatti.settings import InfrastructureSettings
from tests.integration.wallet.helpers import (
    close_betting,
    close_round,
    engine_settles,
    eventually,
    open_round,
    wait_for_round,
    wallet,
)
from wallet_service.config import WalletSettings

from .support import CARDS, settle
from .test_sessions import (
    launch,
    open_session,
    operator_player,
    player_slip,
    reference_operator,
    wallet_database,
)

# minor units of INR per protocol unit: the protocol counts 100,000 a rupee, INR has 100 paise
PROTOCOL_UNITS_PER_PAISA = 1_000


@pytest.fixture
def wallet_settings(settings: InfrastructureSettings, database_name: str) -> WalletSettings:
    return WalletSettings(
        **settings.model_dump(),
        wallet_database=database_name,
        player_view_url="https://play.example",
    )


async def test_a_seamless_players_last_games_show_its_operators_balances(
    infrastructure: InfrastructureSettings, wallet_settings: WalletSettings, tmp_path: Path
) -> None:
    game_key, operator_key = generate_private_key(), generate_private_key()
    (tmp_path / "game.pem").write_bytes(private_key_pem(game_key))
    settings = wallet_settings.model_copy(
        update={"seamless_signing_key_file": str(tmp_path / "game.pem")}
    )
    async with (
        reference_operator(infrastructure, game_key, operator_key) as (base_url, admin),
        wallet(settings) as client,
    ):
        async with wallet_database(settings) as connection:
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
        await open_round(settings, client, "T1-000001")
        # 50.00 INR at the operator
        token = await operator_player(admin, "p1", 5_000 * PROTOCOL_UNITS_PER_PAISA)
        session = await launch(client, await open_session(client, "p1", token=token))
        slips: list[dict[str, Any]] = []
        for bets in ([("player_a", 300), ("tie", 100)], [("pair_plus_a", 200)]):
            response = await player_slip(client, session, "T1-000001", bets)
            assert response.status_code == 201, response.text
            slips.append(response.json())

        games = (await client.get("/me/games", headers=session)).json()["games"]
        assert [
            (g["status"], g["staked"], g["balance_before"], g["balance_after"]) for g in games
        ] == [("open", 600, 5_000, None)]

        await close_betting(settings, "T1-000001")
        await wait_for_round(client, "T1-000001", "sealed")
        await close_round(settings, client, "T1-000001", CARDS)
        await settle(
            settings, "T1-000001", [("operator-1", slip) for slip in slips], cancelled=False
        )

        async def wins_answered() -> bool:
            found = (await client.get("/me/games", headers=session)).json()["games"]
            return found[0]["balance_after"] is not None

        await eventually(wins_answered, what="the operator's answers to the round's wins")
        (game,) = (
            await client.get("/players/p1/games", headers={"X-Api-Key": "dev-operator-1-key"})
        ).json()["games"]
        returns = sum(
            engine_settles(bet["bet_type"], bet["stake"], CARDS)[1]
            for slip in slips
            for bet in slip["bets"]
        )
        assert returns == 585 + 0 + 400
        at_operator = (await admin.get("/admin/users/p1")).json()["balances"]["INR"]
        assert (game["status"], game["staked"], game["returned"]) == ("closed", 600, returns)
        assert (game["balance_before"], game["balance_after"]) == (
            5_000,
            5_000 - 600 + returns,
        )
        assert game["balance_after"] * PROTOCOL_UNITS_PER_PAISA == at_operator
        assert [w["outcome"] for w in game["wagers"]] == ["won", "lost", "won"]
