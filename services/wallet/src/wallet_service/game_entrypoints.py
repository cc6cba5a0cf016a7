"""HTTP routes of the last games and a round's stakes (games.py): the player's own games with
its session, a player's games with its operator's key (that operator's players only), a
round's stakes with a supervisor's key scoped to the round's table."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, ConfigDict

from teenpatti.events.catalog import BetTypeName, Outcome
from teenpatti.kernel.dependencies import Operator, Supervisor

from .entrypoints import PlayerId, Timestamp
from .games import DEFAULT_GAMES, MAX_GAMES
from .session_auth import Player, WalletDep

router = APIRouter(tags=["games"])

GamesLimit = Annotated[int, Query(ge=1, le=MAX_GAMES)]


class HandPublic(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    cards: list[str]
    """The player's three cards, in dealing order."""
    hand: str  # its category: high_card, pair, flush, straight, straight_flush, trail


class WagerPublic(BaseModel):
    """One bet of the player on the round; `returned` and `outcome` once paid."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    bet_id: str
    """The bet's id (a UUID)."""
    bet_type: BetTypeName
    stake: int
    returned: int | None
    outcome: Outcome | None


class CorrectionPublic(BaseModel):
    """A round voided after its result, put right: every stake refunded, every return
    taken back."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    refunded: int
    """Every stake refunded, in integer minor units."""
    reversed: int
    """Every return taken back, in integer minor units."""
    net: int
    """`refunded` - `reversed`: positive when the player got money back."""


class GamePublic(BaseModel):
    """One round as the player played it, in one currency (docs/services.md, wallet)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    round_id: str
    table_id: str
    # voided: closed with the result shown here, then voided by two supervisors
    status: Literal["open", "closed", "cancelled", "voided"]
    """`open`, `closed`, `cancelled` (every wager refunded) or `voided` (closed with the result
    shown, then voided by two supervisors)."""
    ended_at: Timestamp | None
    cards: list[str]  # dealing order A1 B1 A2 B2 A3 B3; fewer when cancelled or still open
    player_a: HandPublic | None
    """Player A's cards and hand; null until the result."""
    player_b: HandPublic | None
    """Player B's cards and hand; null until the result."""
    winner: Literal["player_a", "player_b", "tie"] | None
    six_card_bonus_hand: str | None
    currency: str
    wagers: list[WagerPublic]
    """The player's bets on the round."""
    staked: int
    returned: int | None
    """What the wagers returned, in integer minor units; null until every wager is paid."""
    balance_before: int | None
    """The player's balance before its first stake on the round, in integer minor units: the
    wallet's own for a transfer player, the operator's answer for a seamless one; null when not
    known."""
    balance_after: int | None
    """The player's balance once the round was paid, in integer minor units, known as
    `balance_before` is; null until then or when not known."""
    voided_at: Timestamp | None = None
    correction: CorrectionPublic | None = None
    """Once a voided round's wagers are put right; null otherwise."""


class GamesPublic(BaseModel):
    """The player's last games, newest first."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    games: list[GamePublic]
    """The player's last games, newest first."""


class BetTypeStakesPublic(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    bets: int
    """How many bets."""
    staked: int


class RoundStakesPublic(BaseModel):
    """Every operator's bets on the round: count and stakes per currency and bet type."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    round_id: str
    table_id: str
    status: Literal["open", "sealed", "closed", "cancelled"]
    """`open`, `sealed`, `closed` or `cancelled`."""
    by_currency: dict[str, dict[str, BetTypeStakesPublic]]
    """Per currency and bet type, every operator's bets: count and stakes in integer minor units."""


@router.get("/me/games")
async def my_games(
    player: Player, wallet: WalletDep, limit: GamesLimit = DEFAULT_GAMES
) -> GamesPublic:
    """The player's own last games, newest first: each round with its cards, result, the player's
    wagers and what they returned, and its balance around it. The player's session only."""
    return GamesPublic.model_validate(
        await wallet.games.last_games(player.operator_id, player.player_id, limit)
    )


@router.get("/players/{player_id}/games")
async def player_games(
    player_id: PlayerId, operator: Operator, wallet: WalletDep, limit: GamesLimit = DEFAULT_GAMES
) -> GamesPublic:
    """A player's last games, newest first, as `GET /me/games` shows them. An operator's key: its
    own players only."""
    return GamesPublic.model_validate(
        await wallet.games.last_games(operator.name, player_id, limit)
    )


@router.get("/rounds/{round_id}/stakes")
async def round_stakes(
    round_id: Annotated[str, Path(min_length=1, max_length=100)],
    supervisor: Supervisor,
    wallet: WalletDep,
) -> RoundStakesPublic:
    """Every operator's bets on a round: how many and their stakes, per currency and bet type. A
    supervisor's key, scoped to the round's table."""
    return RoundStakesPublic.model_validate(await wallet.games.round_stakes(round_id))
