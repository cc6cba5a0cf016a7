"""The SQL of the transactions API: an operator's money movements read from the wallet's
own tables (transfers, bets, operator_calls), one row per movement, in the order of
(`at`, `id`), and the daily summary of its settled bets. Read only."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg

# Every branch answers the same columns; `id` is unique across branches (its prefix names
# the source) so that (`at`, `id`) orders every movement of an operator once.
_COLUMNS = (
    "at, id, kind, wallet, player_id, round_id, table_id, slip_id, transaction_uuid,"
    " reference_transaction_uuid, amount, currency, status, attempts, round_closed,"
    " finished_at, answer_status, answer_raw, answered_at, error, applied, shortfall"
)

_TRANSFERS = """
SELECT t.created_at AS at, 'transfer:' || t.transfer_id AS id, t.kind, 'transfer' AS wallet,
       t.player_id, NULL::text AS round_id, NULL::text AS table_id, NULL::uuid AS slip_id,
       t.transfer_id AS transaction_uuid, NULL::text AS reference_transaction_uuid,
       t.amount, t.currency, 'ok' AS status, NULL::integer AS attempts,
       NULL::boolean AS round_closed, t.created_at AS finished_at, NULL::text AS answer_status,
       NULL::text AS answer_raw, NULL::timestamptz AS answered_at, NULL::text AS error,
       NULL::bigint AS applied, NULL::bigint AS shortfall
  FROM wallet_transfers t
 WHERE t.operator_id = $1 AND t.created_at >= $2 AND t.created_at < $3
"""

# a slip taken, of either wallet: its bets share the slip's time
_SLIPS = """
SELECT min(b.placed_at) AS at, 'slip:' || b.slip_id AS id, 'slip' AS kind,
       CASE WHEN EXISTS (SELECT 1 FROM operator_calls c
                          WHERE c.call_id = b.slip_id AND c.kind = 'bet')
            THEN 'seamless' ELSE 'transfer' END AS wallet,
       b.player_id, b.round_id, b.table_id, b.slip_id, b.slip_id::text AS transaction_uuid,
       NULL::text AS reference_transaction_uuid, sum(b.stake)::bigint AS amount, b.currency,
       'accepted' AS status, NULL::integer AS attempts, NULL::boolean AS round_closed,
       min(b.placed_at) AS finished_at, NULL::text AS answer_status, NULL::text AS answer_raw,
       NULL::timestamptz AS answered_at, NULL::text AS error,
       NULL::bigint AS applied, NULL::bigint AS shortfall
  FROM wallet_bets b
 WHERE b.operator_id = $1 AND b.placed_at >= $2 AND b.placed_at < $3 {round}
 GROUP BY b.slip_id, b.player_id, b.round_id, b.table_id, b.currency
"""

# a transfer slip paid whole: its returns (a win, 0 for a loss) or its refund (a void round);
# a seamless slip's are its win or rollback call. A slip paid before `to` was placed before it.
_TRANSFER_PAYMENTS = """
SELECT max(b.paid_at) AS at, 'payment:' || b.slip_id AS id,
       CASE WHEN bool_and(b.outcome = 'refunded') THEN 'refund' ELSE 'win' END AS kind,
       'transfer' AS wallet, b.player_id, b.round_id, b.table_id, b.slip_id,
       b.slip_id::text AS transaction_uuid, b.slip_id::text AS reference_transaction_uuid,
       sum(b.returned)::bigint AS amount, b.currency, 'ok' AS status,
       NULL::integer AS attempts, NULL::boolean AS round_closed, max(b.paid_at) AS finished_at,
       NULL::text AS answer_status, NULL::text AS answer_raw,
       NULL::timestamptz AS answered_at, NULL::text AS error,
       NULL::bigint AS applied, NULL::bigint AS shortfall
  FROM wallet_bets b
 WHERE b.operator_id = $1 AND b.placed_at < $3 {round}
   AND NOT EXISTS (SELECT 1 FROM operator_calls c WHERE c.call_id = b.slip_id)
 GROUP BY b.slip_id, b.player_id, b.round_id, b.table_id, b.currency
HAVING bool_and(b.status = 'paid') AND max(b.paid_at) >= $2 AND max(b.paid_at) < $3
"""

# every call to a seamless operator; a rollback's amount is its bet's
_CALLS = """
SELECT c.created_at AS at, 'call:' || c.call_id AS id, c.kind, 'seamless' AS wallet,
       c.player_id, c.round_id, c.table_id, c.slip_id, c.transaction_uuid,
       c.reference_transaction_uuid, coalesce(c.amount, bet.amount) AS amount, c.currency,
       c.status, c.attempts, c.round_closed, c.finished_at, c.answer_status, c.answer_raw,
       c.answered_at, c.error, NULL::bigint AS applied, NULL::bigint AS shortfall
  FROM operator_calls c
  LEFT JOIN operator_calls bet ON c.kind = 'rollback' AND bet.call_id = c.slip_id
 WHERE c.operator_id = $1 AND c.created_at >= $2 AND c.created_at < $3 {round}
"""

# a round voided after its result, put right for one player in one currency: its net (the
# stakes refunded less the returns taken back), what moved here (`applied`: a transfer
# balance) and what did not (`shortfall`; at a seamless operator the whole net is `listed`)
_CORRECTIONS = """
SELECT k.created_at AS at,
       'correction:' || k.reference || ':' || k.player_id || ':' || k.currency AS id,
       'correction' AS kind, k.wallet, k.player_id, k.round_id, k.table_id,
       NULL::uuid AS slip_id, k.reference::text AS transaction_uuid,
       NULL::text AS reference_transaction_uuid, k.net AS amount, k.currency,
       CASE WHEN k.settled_at IS NOT NULL OR (k.shortfall = 0 AND NOT (k.wallet = 'seamless'
                 AND k.net <> 0)) THEN 'ok'
            WHEN k.wallet = 'seamless' THEN 'listed' ELSE 'shortfall' END AS status,
       NULL::integer AS attempts, NULL::boolean AS round_closed, k.settled_at AS finished_at,
       NULL::text AS answer_status, NULL::text AS answer_raw,
       NULL::timestamptz AS answered_at, k.settle_reason AS error, k.applied, k.shortfall
  FROM wallet_corrections k
 WHERE k.operator_id = $1 AND k.created_at >= $2 AND k.created_at < $3 {round}
"""


async def movements(
    connection: asyncpg.Connection | asyncpg.Pool,
    operator_id: str,
    *,
    since: datetime,
    until: datetime,
    round_id: str | None,
    after: tuple[datetime, str] | None,
    limit: int,
) -> list[asyncpg.Record]:
    """Up to `limit` movements of the operator with `since <= at < until` (of one round if
    given), after the key `after`, in the order of (`at`, `id`)."""
    # a later page starts each branch's range at the cursor's time: the pages after the first
    # read only what is left of the range, not the whole range again
    if after is not None:
        since = max(since, after[0])
    # the round is a condition of the statement, not a nullable parameter: each shape keeps
    # a plan that uses its index
    arguments: list[Any] = [operator_id, since, until]
    if round_id is None:
        branches = [
            _TRANSFERS,
            _SLIPS.format(round=""),
            _TRANSFER_PAYMENTS.format(round=""),
            _CALLS.format(round=""),
            _CORRECTIONS.format(round=""),
        ]
    else:
        arguments.append(round_id)
        branches = [
            _SLIPS.format(round="AND b.round_id = $4"),
            _TRANSFER_PAYMENTS.format(round="AND b.round_id = $4"),
            _CALLS.format(round="AND c.round_id = $4"),
            _CORRECTIONS.format(round="AND k.round_id = $4"),
        ]
    after_at, after_id = after if after is not None else (None, "")
    first = len(arguments) + 1
    arguments += [after_at, after_id, limit]
    statement = (
        f"SELECT {_COLUMNS} FROM ({' UNION ALL '.join(branches)}) m"
        f" WHERE ${first}::timestamptz IS NULL OR (m.at, m.id) > (${first}, ${first + 1})"
        f" ORDER BY m.at, m.id LIMIT ${first + 2}"
    )
    rows: list[asyncpg.Record] = await connection.fetch(statement, *arguments)
    return rows


_DAILY = """
SELECT b.currency, count(*) FILTER (WHERE b.outcome <> 'refunded') AS bets,
       coalesce(sum(b.stake) FILTER (WHERE b.outcome <> 'refunded'), 0)::bigint AS stakes,
       coalesce(sum(b.returned) FILTER (WHERE b.outcome <> 'refunded'), 0)::bigint AS returns,
       count(*) FILTER (WHERE b.outcome = 'refunded') AS refunded_bets,
       coalesce(sum(b.returned) FILTER (WHERE b.outcome = 'refunded'), 0)::bigint AS refunded
  FROM wallet_bets b
 WHERE b.operator_id = $1 AND b.placed_at < $3 AND b.status = 'paid'
   AND b.paid_at >= $2 AND b.paid_at < $3
 GROUP BY b.currency ORDER BY b.currency
"""

# the corrections made that day (rounds voided after their result), apart from the bets
_DAILY_CORRECTIONS = """
SELECT k.currency, sum(k.bet_count)::bigint AS bets, sum(k.net)::bigint AS net,
       sum(k.applied)::bigint AS applied, sum(k.shortfall)::bigint AS shortfall,
       coalesce(sum(k.net) FILTER (WHERE k.wallet = 'seamless'), 0)::bigint AS listed
  FROM wallet_corrections k
 WHERE k.operator_id = $1 AND k.created_at >= $2 AND k.created_at < $3
 GROUP BY k.currency ORDER BY k.currency
"""


async def daily_corrections(
    connection: asyncpg.Connection | asyncpg.Pool,
    operator_id: str,
    since: datetime,
    until: datetime,
) -> list[asyncpg.Record]:
    rows: list[asyncpg.Record] = await connection.fetch(
        _DAILY_CORRECTIONS, operator_id, since, until
    )
    return rows


async def daily_totals(
    connection: asyncpg.Connection | asyncpg.Pool,
    operator_id: str,
    since: datetime,
    until: datetime,
) -> list[asyncpg.Record]:
    """Per currency, the operator's bets settled in [since, until): counts, stakes, returns,
    and the refunds of void rounds apart."""
    rows: list[asyncpg.Record] = await connection.fetch(_DAILY, operator_id, since, until)
    return rows
