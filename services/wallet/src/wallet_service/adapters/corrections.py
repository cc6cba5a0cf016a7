"""The SQL of corrections after a result (`domain.correction`): a round's void, the bets a
reversal part names, the balances it moves, the corrections it records, and the ones still
listed for an operator (`GET /problems`, `teenpatti operators corrections`)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import asyncpg

from teenpatti.kernel.problems import HeldProblem

from ..domain.correction import HeldPaidBet


async def record_void(
    connection: asyncpg.Connection, round_id: str, reason: str, at: datetime
) -> bool:
    """The table's void of a round after its result; False when the wallet does not hold
    the round (it took no bet in it) or holds the void already."""
    voided = await connection.fetchval(
        "UPDATE wallet_rounds SET voided_at = $3, void_reason = $2, updated_at = now()"
        " WHERE round_id = $1 AND voided_at IS NULL RETURNING true",
        round_id,
        reason,
        at,
    )
    return bool(voided)


async def voided_rounds(
    connection: asyncpg.Connection, round_ids: Collection[str]
) -> dict[str, bool]:
    rows = await connection.fetch(
        "SELECT round_id, voided_at IS NOT NULL FROM wallet_rounds"
        " WHERE round_id = ANY($1::text[])",
        list(round_ids),
    )
    return {row[0]: bool(row[1]) for row in rows}


async def bets_for_correction(
    connection: asyncpg.Connection, bet_ids: Sequence[UUID]
) -> dict[UUID, HeldPaidBet]:
    """The bets a reversal names, locked in one order, each with whether its slip went
    through a seamless operator's wallet."""
    rows = await connection.fetch(
        "SELECT b.bet_id, b.operator_id, b.player_id, b.round_id, b.bet_type, b.stake,"
        " b.currency, b.status, b.outcome, b.returned, b.corrected,"
        " EXISTS (SELECT 1 FROM operator_calls c WHERE c.call_id = b.slip_id"
        "         AND c.kind = 'bet') AS seamless"
        " FROM wallet_bets b WHERE b.bet_id = ANY($1::uuid[]) ORDER BY b.bet_id FOR UPDATE OF b",
        list(bet_ids),
    )
    return {row[0]: HeldPaidBet._make(row) for row in rows}


async def balance_for_update(
    connection: asyncpg.Connection, operator_id: str, player_id: str, currency: str
) -> int:
    balance = await connection.fetchval(
        "SELECT balance FROM wallet_accounts"
        " WHERE operator_id = $1 AND player_id = $2 AND currency = $3 FOR UPDATE",
        operator_id,
        player_id,
        currency,
    )
    return 0 if balance is None else int(balance)


async def set_balance(
    connection: asyncpg.Connection, operator_id: str, player_id: str, currency: str, balance: int
) -> None:
    await connection.execute(
        "INSERT INTO wallet_accounts (operator_id, player_id, currency, balance)"
        " VALUES ($1, $2, $3, $4) ON CONFLICT (operator_id, player_id, currency)"
        " DO UPDATE SET balance = EXCLUDED.balance, updated_at = now()",
        operator_id,
        player_id,
        currency,
        balance,
    )


async def mark_corrected(connection: asyncpg.Connection, bet_ids: Sequence[UUID]) -> None:
    await connection.execute(
        "UPDATE wallet_bets SET corrected = true WHERE bet_id = ANY($1::uuid[])", list(bet_ids)
    )


@dataclass(frozen=True, slots=True)
class CorrectionRow:
    reference: UUID
    operator_id: str
    player_id: str
    currency: str
    round_id: str
    table_id: str
    wallet: str
    bet_count: int
    refunded: int
    reversed: int
    net: int
    applied: int
    shortfall: int
    balance_after: int


async def record_corrections(connection: asyncpg.Connection, rows: Sequence[CorrectionRow]) -> None:
    await connection.executemany(
        "INSERT INTO wallet_corrections (reference, operator_id, player_id, currency, round_id,"
        " table_id, wallet, bet_count, refunded, reversed, net, applied, shortfall,"
        " balance_after) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
        [
            (
                r.reference,
                r.operator_id,
                r.player_id,
                r.currency,
                r.round_id,
                r.table_id,
                r.wallet,
                r.bet_count,
                r.refunded,
                r.reversed,
                r.net,
                r.applied,
                r.shortfall,
                r.balance_after,
            )
            for r in rows
        ],
    )


_OPEN = "settled_at IS NULL AND (shortfall > 0 OR (wallet = 'seamless' AND net <> 0))"


async def open_corrections(
    executor: asyncpg.Pool | asyncpg.Connection, operator_id: str | None = None, limit: int = 500
) -> list[asyncpg.Record]:
    """Corrections that left something for the operator to settle, oldest first."""
    rows: list[asyncpg.Record] = await executor.fetch(
        "SELECT reference, operator_id, player_id, currency, round_id, table_id, wallet,"
        " bet_count, refunded, reversed, net, applied, shortfall, balance_after, created_at"
        f" FROM wallet_corrections WHERE {_OPEN}"
        " AND ($1::text IS NULL OR operator_id = $1) ORDER BY created_at LIMIT $2",
        operator_id,
        limit,
    )
    return rows


async def correction_problems(pool: asyncpg.Pool, limit: int) -> list[HeldProblem]:
    """`GET /problems`: each correction that left the operator something to settle, oldest
    first: `correction_shortfall` (a transfer balance could not cover the winnings taken
    back) and `seamless_correction` (the net the seamless protocol cannot carry)."""
    return [_problem(row) for row in await open_corrections(pool, limit=limit)]


def _problem(row: asyncpg.Record) -> HeldProblem:
    round_id, player = row["round_id"], row["player_id"]
    if row["wallet"] == "seamless":
        kind = "seamless_correction"
        owed = "is owed" if row["net"] > 0 else "owes"
        detail = (
            f"round {round_id} was voided after its result: {player} {owed}"
            f" {abs(row['net'])} {row['currency']} (minor units), which the seamless protocol"
            " cannot carry; the operator settles it"
        )
    else:
        kind = "correction_shortfall"
        detail = (
            f"round {round_id} was voided after its result: {player}'s balance could not"
            f" cover {row['shortfall']} {row['currency']} (minor units) of the winnings taken"
            " back; the balance was left at 0 and the rest is owed"
        )
    detail += (
        f"; once settled: teenpatti operators correction-settled {round_id} {player}"
        f" --operator {row['operator_id']} --reason ... --by ..."
    )
    return HeldProblem(
        kind=kind,
        detail=detail,
        since=row["created_at"],
        table_id=row["table_id"],
        round_id=round_id,
        facts={
            "operator_id": row["operator_id"],
            "player_id": player,
            "currency": row["currency"],
            "wallet": row["wallet"],
            "refunded": int(row["refunded"]),
            "reversed": int(row["reversed"]),
            "net": int(row["net"]),
            "applied": int(row["applied"]),
            "shortfall": int(row["shortfall"]),
            "reference": str(row["reference"]),
        },
    )
