"""What a player and the studio see of rounds played, from the wallet's own tables: a player's
last games (issue 25: the last game recall, for the player in the player view and for its
operator), and a round's stakes per bet type across every operator (the studio console)
(docs/decisions/0077-last-games-kept-by-the-wallet.md)."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import asyncpg

from .adapters import games as db
from .domain.betting import UnknownRoundError
from .domain.games import (
    NO_BALANCES,
    GameRound,
    RoundBalances,
    RoundKey,
    Wager,
    game,
    seamless_balances,
)

DEFAULT_GAMES = 10
MAX_GAMES = 50


class GameRecall:
    """A player's last games and a round's stakes (read only)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def last_games(
        self, operator_id: str, player_id: str, limit: int = DEFAULT_GAMES
    ) -> dict[str, Any]:
        """The player's last `limit` games (a round and currency it bet in), newest first;
        an unknown player has none."""
        # one snapshot for every statement: a payment committed between two of them would
        # show a game's balance after it beside its bets before it
        async with (
            self._pool.acquire() as connection,
            connection.transaction(isolation="repeatable_read", readonly=True),
        ):
            played = await db.recent_rounds(connection, operator_id, player_id, limit)
            if not played:
                return {"games": []}
            round_ids = sorted({round_id for round_id, _ in played})
            bets = await db.player_bets_of_rounds(connection, operator_id, player_id, round_ids)
            rounds = {
                row["round_id"]: _round(row) for row in await db.rounds(connection, round_ids)
            }
            balances = await self._balances(connection, operator_id, player_id, round_ids)
        wagers: dict[RoundKey, list[Wager]] = defaultdict(list)
        for bet in bets:
            wagers[(bet["round_id"], bet["currency"])].append(
                Wager(
                    bet_id=str(bet["bet_id"]),
                    bet_type=bet["bet_type"],
                    stake=int(bet["stake"]),
                    outcome=bet["outcome"],
                    returned=None if bet["returned"] is None else int(bet["returned"]),
                    corrected=bet["corrected"],
                )
            )
        return {
            "games": [
                game(rounds[key[0]], key[1], wagers[key], balances.get(key, NO_BALANCES))
                for key in played
                if key[0] in rounds  # every bet's round has a row (a foreign key)
            ]
        }

    async def _balances(
        self,
        connection: asyncpg.Connection,
        operator_id: str,
        player_id: str,
        round_ids: list[str],
    ) -> dict[RoundKey, RoundBalances]:
        """The player's balances around each round: the wallet's own for a transfer player,
        else its operator's answers for a seamless one (domain/games.py)."""
        found: dict[RoundKey, RoundBalances] = {}
        for row in await db.seamless_balances(connection, operator_id, player_id, round_ids):
            found[(row["round_id"], row["currency"])] = seamless_balances(
                row["first_bet_answer"],
                row["first_bet_amount"],
                row["last_settle_answer"],
                row["every_settle_answered"],
                row["currency"],
            )
        for row in await db.transfer_balances(connection, operator_id, player_id, round_ids):
            found[(row["round_id"], row["currency"])] = RoundBalances(
                row["balance_before"], row["balance_after"]
            )
        return found

    async def round_stakes(self, round_id: str) -> dict[str, Any]:
        """The bets on the round and their stakes per currency and bet type, every operator's
        together."""
        async with self._pool.acquire() as connection:
            round_ = await db.round_table(connection, round_id)
            if round_ is None:
                raise UnknownRoundError(f"round {round_id} is not known")
            rows = await db.round_stakes(connection, round_id)
        by_currency: dict[str, dict[str, dict[str, int]]] = defaultdict(dict)
        for row in rows:
            by_currency[row["currency"]][row["bet_type"]] = {
                "bets": int(row["bets"]),
                "staked": int(row["staked"]),
            }
        return {
            "round_id": round_["round_id"],
            "table_id": round_["table_id"],
            "status": round_["status"],
            "by_currency": dict(by_currency),
        }


def _round(row: asyncpg.Record) -> GameRound:
    return GameRound(
        round_id=row["round_id"],
        table_id=row["table_id"],
        status=row["status"],
        cards=None if row["cards"] is None else json.loads(row["cards"]),
        dealt=json.loads(row["dealt"]),
        winner=row["winner"],
        player_a_hand=row["player_a_hand"],
        player_b_hand=row["player_b_hand"],
        six_card_bonus_hand=row["six_card_bonus_hand"],
        ended_at=row["ended_at"],
        voided_at=row["voided_at"],
    )
