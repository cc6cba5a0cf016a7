"""The `round_results` projection (the roadmap): written in the transaction of the append
that ends or voids a round (`handlers.TableService._append_many`), read a page at a time,
newest first, or one round at a time. Its rows are `domain.results.RoundRecord`s (decision
0076)."""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg

from ..domain.results import RoundRecord

_COLUMNS = (
    "table_id, round_id, number, status, ended_at, cards, player_a_hand, player_b_hand,"
    " winner, six_card_bonus_hand, stream_version, voided_at, void_reason"
)


async def save_round_results(
    connection: asyncpg.Connection, records: Sequence[RoundRecord]
) -> None:
    """Record the rounds an append ended or voided (a round ends once and is voided at most
    once after it: a row is otherwise only rewritten with the same values, when an append
    is retried)."""
    if not records:
        return
    await connection.executemany(
        f"INSERT INTO round_results ({_COLUMNS})"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
        " ON CONFLICT (round_id) DO UPDATE SET status = EXCLUDED.status,"
        " ended_at = EXCLUDED.ended_at, cards = EXCLUDED.cards,"
        " player_a_hand = EXCLUDED.player_a_hand, player_b_hand = EXCLUDED.player_b_hand,"
        " winner = EXCLUDED.winner, six_card_bonus_hand = EXCLUDED.six_card_bonus_hand,"
        " stream_version = EXCLUDED.stream_version, voided_at = EXCLUDED.voided_at,"
        " void_reason = EXCLUDED.void_reason",
        [
            (
                r.table_id,
                r.round_id,
                r.number,
                r.status,
                r.ended_at,
                list(r.cards),
                r.player_a_hand,
                r.player_b_hand,
                r.winner,
                r.six_card_bonus_hand,
                r.stream_version,
                r.voided_at,
                r.void_reason,
            )
            for r in records
        ],
    )


async def round_results(
    executor: asyncpg.Pool | asyncpg.Connection,
    table_id: str,
    limit: int,
    before_number: int | None = None,
) -> list[RoundRecord]:
    """The table's ended rounds, newest first: at most `limit`, numbered below
    `before_number` when given."""
    rows = await executor.fetch(
        f"SELECT {_COLUMNS} FROM round_results"
        " WHERE table_id = $1 AND ($2::integer IS NULL OR number < $2)"
        " ORDER BY number DESC LIMIT $3",
        table_id,
        before_number,
        limit,
    )
    return [_record(row) for row in rows]


async def round_result(
    executor: asyncpg.Pool | asyncpg.Connection, table_id: str, round_id: str
) -> RoundRecord | None:
    """The table's round `round_id` as it ended (None: it has not ended, or is not one of
    the table's)."""
    row = await executor.fetchrow(
        f"SELECT {_COLUMNS} FROM round_results WHERE round_id = $1 AND table_id = $2",
        round_id,
        table_id,
    )
    return None if row is None else _record(row)


def _record(row: asyncpg.Record) -> RoundRecord:
    return RoundRecord(
        table_id=row["table_id"],
        round_id=row["round_id"],
        number=row["number"],
        status=row["status"],
        ended_at=row["ended_at"],
        cards=tuple(row["cards"]),
        player_a_hand=row["player_a_hand"],
        player_b_hand=row["player_b_hand"],
        winner=row["winner"],
        six_card_bonus_hand=row["six_card_bonus_hand"],
        stream_version=row["stream_version"],
        voided_at=row["voided_at"],
        void_reason=row["void_reason"],
    )
