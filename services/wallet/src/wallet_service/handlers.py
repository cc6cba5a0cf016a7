"""The wallet's use cases. Each command is one Postgres transaction: projection rows, ledger
entries and events (appended with `connection=`) commit together or not at all."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import asyncpg

from teenpatti.events.catalog import FundsDeposited, FundsWithdrawn
from teenpatti.eventsourcing import AsyncpgEventStore

from .adapters import postgres as db
from .config import WalletSettings
from .domain.betting import (
    BalanceLimitError,
    InvalidCursorError,
    LedgerEntry,
    TransferIdReusedError,
    UnknownBetError,
    UnknownRoundError,
    check_funds,
)
from .domain.seamless import SeamlessOperatorError
from .games import GameRecall
from .operators import OperatorWallets
from .sender import OwedCallSender
from .sessions import PlayerSessions
from .slips import Slip, Slips

Clock = Callable[[], datetime]


class Wallet:
    """The wallet's commands and queries, every one scoped by the operator asking."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        store: AsyncpgEventStore,
        settings: WalletSettings,
        clock: Clock = lambda: datetime.now(UTC),
    ) -> None:
        self._pool = pool
        self._store = store
        # the player sessions (sessions.py): the player's routes resolve through them
        self.sessions = PlayerSessions(pool, settings, clock)
        # operators' configurations and the client of seamless operators' wallets
        self.operators = OperatorWallets(pool, settings)
        # slips of both wallet modes (slips.py)
        self.slips = Slips(pool, store, settings, self.operators, clock)
        # the wins and rollbacks owed to seamless operators, and abandoned slips (sender.py)
        self.sender = OwedCallSender(pool, settings, self.operators, clock)
        # a player's last games and a round's stakes (games.py)
        self.games = GameRecall(pool)

    # ---------------------------------------------------------------- deposits/withdrawals
    async def deposit(
        self, operator_id: str, player_id: str, transfer_id: str, currency: str, amount: int
    ) -> dict[str, Any]:
        if (await self.operators.configs.get(operator_id)).seamless:
            # withdrawals stay open: balances from its transfer days can still be paid out
            raise SeamlessOperatorError(
                f"operator {operator_id} is seamless: its players' money stays with it"
            )
        return await db.in_commit_order(
            lambda: self._transfer("deposit", operator_id, player_id, transfer_id, currency, amount)
        )

    async def withdraw(
        self, operator_id: str, player_id: str, transfer_id: str, currency: str, amount: int
    ) -> dict[str, Any]:
        return await db.in_commit_order(
            lambda: self._transfer(
                "withdrawal", operator_id, player_id, transfer_id, currency, amount
            )
        )

    async def _transfer(
        self,
        kind: str,
        operator_id: str,
        player_id: str,
        transfer_id: str,
        currency: str,
        amount: int,
    ) -> dict[str, Any]:
        asked = db.Transfer(kind, player_id, currency, amount, 0)
        async with self._pool.acquire() as connection, connection.transaction():
            first = await db.claim_transfer(connection, operator_id, transfer_id, asked)
            if first is not None:
                if (first.kind, first.player_id, first.currency, first.amount) != (
                    kind,
                    player_id,
                    currency,
                    amount,
                ):
                    raise TransferIdReusedError(
                        f"transfer {transfer_id} was a {first.kind} of {first.amount}"
                        f" {first.currency} for player {first.player_id}"
                    )
                return _transfer_answer(transfer_id, first.currency, first.balance_after)
            account = await db.lock_account(connection, operator_id, player_id, currency)
            if kind == "withdrawal":
                check_funds(account.balance, amount, currency)
            try:
                balance_after = await db.add_to_balance(
                    connection,
                    operator_id,
                    player_id,
                    currency,
                    amount if kind == "deposit" else -amount,
                )
            except asyncpg.NumericValueOutOfRangeError:
                raise BalanceLimitError(
                    "the balance would exceed what an account can hold"
                ) from None
            await db.set_transfer_balance(connection, operator_id, transfer_id, balance_after)
            await db.record_ledger(
                connection,
                [
                    LedgerEntry(
                        "player",
                        operator_id,
                        player_id,
                        currency,
                        amount if kind == "deposit" else -amount,
                        kind,
                        f"transfer:{transfer_id}",
                    )
                ],
            )
            event_class = FundsDeposited if kind == "deposit" else FundsWithdrawn
            stream = db.player_stream(operator_id, player_id)
            await self._store.append(
                stream,
                account.version,
                [
                    event_class(
                        transfer_id=transfer_id,
                        operator_id=operator_id,
                        player_id=player_id,
                        currency=currency,
                        amount=amount,
                        balance_after=balance_after,
                    )
                ],
                # not about a table: keyed by the player's stream, so its transfers stay in order
                table_id=stream,
                connection=connection,
            )
        return _transfer_answer(transfer_id, currency, balance_after)

    async def balances(self, operator_id: str, player_id: str) -> dict[str, int]:
        async with self._pool.acquire() as connection:
            return await db.balances(connection, operator_id, player_id)

    # ------------------------------------------------------------------------------ bets
    async def place_slip(
        self, operator_id: str, idempotency_key: str, slip: Slip
    ) -> dict[str, Any]:
        return await self.slips.place(operator_id, idempotency_key, slip)

    async def player_bets(
        self, operator_id: str, player_id: str, *, limit: int, cursor: str | None
    ) -> dict[str, Any]:
        """Newest first; `next_cursor` continues after the last item, null at the end."""
        before = _decode_cursor(cursor)
        async with self._pool.acquire() as connection:
            rows = await db.player_bets(
                connection, operator_id, player_id, before_seq=before, limit=limit + 1
            )
        more = len(rows) > limit
        rows = rows[:limit]
        return {
            "items": [_bet_view(row) for row in rows],
            "next_cursor": str(rows[-1]["seq"]) if more and rows else None,
        }

    async def bet(self, operator_id: str, bet_id: UUID) -> dict[str, Any]:
        async with self._pool.acquire() as connection:
            row = await db.operator_bet(connection, operator_id, bet_id)
        if row is None:  # another operator's bet is as unknown as one that does not exist
            raise UnknownBetError(f"bet {bet_id} is not known")
        return _bet_view(row)

    async def round_book(self, operator_id: str, round_id: str) -> dict[str, Any]:
        """The round as the wallet knows it and this operator's bets in it (only its own)."""
        async with self._pool.acquire() as connection:
            round_ = await db.round_row(connection, round_id)
            if round_ is None:
                raise UnknownRoundError(f"round {round_id} is not known")
            rows = await db.operator_round_bets(connection, operator_id, round_id)
        totals: dict[str, int] = {}
        for row in rows:
            totals[row["currency"]] = totals.get(row["currency"], 0) + int(row["stake"])
        return {
            "round_id": round_["round_id"],
            "table_id": round_["table_id"],
            "status": round_["status"],
            "paused": round_["paused"],
            "opened_at": _iso(round_["opened_at"]),
            "betting_closes_at": _iso(round_["betting_closes_at"]),
            "sealed_at": _iso(round_["sealed_at"]),
            **_round_result(round_),
            "bet_count": len(rows),
            "total_stake": dict(sorted(totals.items())),
            "bets": [_bet_view(row) for row in rows],
        }


def _transfer_answer(transfer_id: str, currency: str, balance: int) -> dict[str, Any]:
    return {"transfer_id": transfer_id, "currency": currency, "balance": balance}


def _decode_cursor(cursor: str | None) -> int | None:
    if cursor is None or cursor == "":
        return None
    if not (cursor.isascii() and cursor.isdigit()) or len(cursor) > 18:
        raise InvalidCursorError("the cursor is not one this service gave out")
    return int(cursor)


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(UTC).isoformat()


def _round_result(row: asyncpg.Record) -> dict[str, Any]:
    cards = row["cards"]
    return {
        "cards": None if cards is None else json.loads(cards),
        "winner": row["winner"],
        "player_a_hand": row["player_a_hand"],
        "player_b_hand": row["player_b_hand"],
        "six_card_bonus_hand": row["six_card_bonus_hand"],
    }


def _bet_view(row: asyncpg.Record) -> dict[str, Any]:
    return {
        "bet_id": str(row["bet_id"]),
        "slip_id": str(row["slip_id"]),
        "player_id": row["player_id"],
        "round_id": row["round_id"],
        "table_id": row["table_id"],
        "bet_type": row["bet_type"],
        "stake": int(row["stake"]),
        "currency": row["currency"],
        "placed_at": _iso(row["placed_at"]),
        "status": row["status"],
        "outcome": row["outcome"],
        "returned": None if row["returned"] is None else int(row["returned"]),
        "paid_at": _iso(row["paid_at"]),
        "round": {"status": row["round_status"], **_round_result(row)},
    }
