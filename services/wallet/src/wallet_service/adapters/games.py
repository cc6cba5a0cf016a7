"""The SQL of a player's last games and of a round's stakes: read from the wallet's own tables
(its bets, its rounds, `wallet_round_balances`, and the answers of a seamless operator in
`operator_calls`), plus the one write of the balance after a round's payment. The caller owns
the connection."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import asyncpg

# The player's last `limit` (round, currency) played, newest first by their newest bet: a
# loose index scan down `wallet_bets_player` that steps over the bets of the rounds already
# found, so it reads the bets of those rounds only, not the player's whole history.
_RECENT_ROUNDS = """
WITH RECURSIVE recent (n, round_id, currency, seq, seen) AS (
    (SELECT 1, b.round_id, b.currency, b.seq, ARRAY[b.round_id || ' ' || b.currency]
       FROM wallet_bets b
      WHERE b.operator_id = $1 AND b.player_id = $2
      ORDER BY b.seq DESC LIMIT 1)
  UNION ALL
    SELECT r.n + 1, later.round_id, later.currency, later.seq,
           r.seen || (later.round_id || ' ' || later.currency)
      FROM recent r
      CROSS JOIN LATERAL (
            SELECT b.round_id, b.currency, b.seq
              FROM wallet_bets b
             WHERE b.operator_id = $1 AND b.player_id = $2 AND b.seq < r.seq
               AND NOT (b.round_id || ' ' || b.currency = ANY (r.seen))
             ORDER BY b.seq DESC LIMIT 1) later
     WHERE r.n < $3
)
SELECT round_id, currency FROM recent ORDER BY n
"""


async def recent_rounds(
    connection: asyncpg.Connection, operator_id: str, player_id: str, limit: int
) -> list[tuple[str, str]]:
    """The (round, currency) of the player's last `limit` games, newest first."""
    rows = await connection.fetch(_RECENT_ROUNDS, operator_id, player_id, limit)
    return [(row["round_id"], row["currency"]) for row in rows]


async def player_bets_of_rounds(
    connection: asyncpg.Connection, operator_id: str, player_id: str, round_ids: Sequence[str]
) -> list[asyncpg.Record]:
    """The player's bets on these rounds, in the order placed."""
    rows: list[asyncpg.Record] = await connection.fetch(
        "SELECT bet_id, round_id, currency, bet_type, stake, outcome, returned, corrected"
        " FROM wallet_bets WHERE round_id = ANY($3::text[]) AND operator_id = $1"
        " AND player_id = $2 ORDER BY seq",
        operator_id,
        player_id,
        list(round_ids),
    )
    return rows


async def rounds(connection: asyncpg.Connection, round_ids: Sequence[str]) -> list[asyncpg.Record]:
    rows: list[asyncpg.Record] = await connection.fetch(
        "SELECT round_id, table_id, status, cards::text AS cards, dealt::text AS dealt, winner,"
        " player_a_hand, player_b_hand, six_card_bonus_hand, ended_at, voided_at"
        " FROM wallet_rounds WHERE round_id = ANY($1::text[])",
        list(round_ids),
    )
    return rows


async def transfer_balances(
    connection: asyncpg.Connection, operator_id: str, player_id: str, round_ids: Sequence[str]
) -> list[asyncpg.Record]:
    """A transfer player's balances around these rounds (`wallet_round_balances`)."""
    rows: list[asyncpg.Record] = await connection.fetch(
        "SELECT round_id, currency, balance_before, balance_after FROM wallet_round_balances"
        " WHERE operator_id = $1 AND player_id = $2 AND round_id = ANY($3::text[])",
        operator_id,
        player_id,
        list(round_ids),
    )
    return rows


# A seamless player's calls on each round: the first bet the operator accepted (its answer
# and amount), the last win or rollback answered, and whether every one of those is.
_SEAMLESS_BALANCES = """
SELECT c.round_id, c.currency,
       (array_agg(c.answer_raw ORDER BY c.created_at, c.call_id)
            FILTER (WHERE c.kind = 'bet' AND c.status = 'ok'))[1] AS first_bet_answer,
       (array_agg(c.amount ORDER BY c.created_at, c.call_id)
            FILTER (WHERE c.kind = 'bet' AND c.status = 'ok'))[1] AS first_bet_amount,
       (array_agg(c.answer_raw ORDER BY c.answered_at DESC, c.call_id)
            FILTER (WHERE c.kind <> 'bet' AND c.status = 'ok'))[1] AS last_settle_answer,
       coalesce(bool_and(c.status = 'ok') FILTER (WHERE c.kind <> 'bet'), false)
            AS every_settle_answered
  FROM operator_calls c
 WHERE c.round_id = ANY($3::text[]) AND c.operator_id = $1 AND c.player_id = $2
 GROUP BY c.round_id, c.currency
"""


async def seamless_balances(
    connection: asyncpg.Connection, operator_id: str, player_id: str, round_ids: Sequence[str]
) -> list[asyncpg.Record]:
    rows: list[asyncpg.Record] = await connection.fetch(
        _SEAMLESS_BALANCES, operator_id, player_id, list(round_ids)
    )
    return rows


async def record_balances_after(
    connection: asyncpg.Connection, after: Mapping[tuple[str, str, str, str], int]
) -> None:
    """Each (operator, player, round, currency)'s balance after its payment, in one
    statement; a later payment of the round replaces it."""
    if not after:
        return
    keys = sorted(after)
    await connection.execute(
        "INSERT INTO wallet_round_balances (operator_id, player_id, round_id, currency,"
        " balance_after) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[],"
        " $5::bigint[]) ON CONFLICT (operator_id, player_id, round_id, currency)"
        " DO UPDATE SET balance_after = EXCLUDED.balance_after",
        [key[0] for key in keys],
        [key[1] for key in keys],
        [key[2] for key in keys],
        [key[3] for key in keys],
        [after[key] for key in keys],
    )


async def round_stakes(connection: asyncpg.Connection, round_id: str) -> list[asyncpg.Record]:
    """Every operator's bets on the round: their count and stakes per currency and bet type."""
    rows: list[asyncpg.Record] = await connection.fetch(
        "SELECT currency, bet_type, count(*) AS bets, sum(stake)::bigint AS staked"
        " FROM wallet_bets WHERE round_id = $1 GROUP BY currency, bet_type"
        " ORDER BY currency, bet_type",
        round_id,
    )
    return rows


async def round_table(connection: asyncpg.Connection, round_id: str) -> asyncpg.Record | None:
    row: asyncpg.Record | None = await connection.fetchrow(
        "SELECT round_id, table_id, status FROM wallet_rounds WHERE round_id = $1", round_id
    )
    return row
