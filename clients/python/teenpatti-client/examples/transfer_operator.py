"""A transfer operator's integration through teenpatti-client: fund a player, open the
player's session at a table, place a slip, read the balance and the bets back."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import TypeVar

from teenpatti_client.wallet import AuthenticatedClient
from teenpatti_client.wallet.api.default import (
    balances,
    deposit,
    open_session,
    place_bets,
    player_bets,
)
from teenpatti_client.wallet.models import (
    BetLine,
    BetPublic,
    Problem,
    SessionCreate,
    SlipCreate,
    TransferCreate,
)


class RefusedError(Exception):
    """The wallet's refusal: its problem document's `code` says which (docs/services.md)."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(f"{problem.status} {problem.code}: {problem.detail}")
        self.problem = problem


T = TypeVar("T")


def answered(result: T | Problem | None) -> T:
    """The answer the operation documents, or its refusal raised."""
    if isinstance(result, Problem):
        raise RefusedError(result)
    if result is None:  # an undocumented status: raise_on_unexpected_status raised already
        raise RuntimeError("no answer")
    return result


def wallet_client(base_url: str, api_key: str) -> AuthenticatedClient:
    """The wallet at `base_url`, called with the operator's key (`X-Api-Key`, no prefix)."""
    return AuthenticatedClient(
        base_url=base_url,
        token=api_key,
        auth_header_name="X-Api-Key",
        prefix="",
        raise_on_unexpected_status=True,  # a status the API does not document raises
    )


@dataclass(frozen=True)
class Played:
    launch_url: str
    balance: int
    bets: list[BetPublic]


async def fund_and_play(
    wallet: AuthenticatedClient, player_id: str, table_id: str, round_id: str
) -> Played:
    # our own id for the transfer: sent again after a lost answer, it moves the money once
    answered(
        await deposit.asyncio(
            player_id,
            client=wallet,
            body=TransferCreate(transfer_id=str(uuid.uuid4()), currency="INR", amount=50_000),
        )
    )

    session = answered(
        await open_session.asyncio(
            client=wallet,
            body=SessionCreate(
                token=f"our-token-for-{player_id}",
                player_id=player_id,
                currency="INR",
                table_id=table_id,
            ),
        )
    )

    answered(
        await place_bets.asyncio(
            client=wallet,
            idempotency_key=str(uuid.uuid4()),  # the same key again answers the same slip
            body=SlipCreate(
                player_id=player_id,
                round_id=round_id,
                currency="INR",
                bets=[
                    BetLine(bet_type="player_a", stake=1_000),
                    BetLine(bet_type="tie", stake=500),
                ],
            ),
        )
    )

    balance = answered(await balances.asyncio(player_id, client=wallet))
    page = answered(await player_bets.asyncio(player_id, client=wallet, limit=50))
    return Played(launch_url=session.launch_url, balance=balance["INR"], bets=page.items)
