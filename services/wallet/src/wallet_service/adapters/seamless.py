"""The SQL of the seamless wallet: operators' configurations (`operators`) and the record of
every call to an operator's wallet server (`operator_calls`), created by migration 0005.
Every function takes the caller's connection: the caller owns the transaction."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID, uuid4

import asyncpg

from teenpatti.seamless import Answered, BadAnswer, CallOutcome, NoAnswer

from ..domain.seamless import FAILED, OK, PENDING, REFUSED


# ---------------------------------------------------------------------------- operators
async def operator_config(
    connection: asyncpg.Connection, operator_id: str
) -> dict[str, Any] | None:
    raw = await connection.fetchval(
        "SELECT config::text FROM operators WHERE operator_id = $1", operator_id
    )
    return None if raw is None else dict(json.loads(raw))


# ---------------------------------------------------------------------------------- bets
async def pending_round_stakes(
    connection: asyncpg.Connection, operator_id: str, player_id: str, round_id: str, currency: str
) -> dict[str, int]:
    """The player's stakes on the round in slips still waiting for the operator's answer,
    by bet type: they count towards the exposure limit as if taken."""
    rows = await connection.fetch(
        "SELECT line->>'bet_type', sum((line->>'stake')::bigint) FROM operator_calls c,"
        " jsonb_array_elements(c.slip->'bets') AS line WHERE c.round_id = $1"
        " AND c.operator_id = $2 AND c.player_id = $3 AND c.currency = $4 AND c.kind = 'bet'"
        " AND c.status = 'pending' GROUP BY 1",
        round_id,
        operator_id,
        player_id,
        currency,
    )
    return {row[0]: int(row[1]) for row in rows}


@dataclass(frozen=True, slots=True)
class PendingBet:
    """A slip's bet call as recorded before it is sent."""

    slip_id: UUID
    operator_id: str
    player_id: str
    round_id: str
    table_id: str
    currency: str
    amount: int
    token: str
    idempotency_key: str
    slip: dict[str, Any]  # placed_at and the bets with their ids
    win_per: str  # how its returns are owed: 'round' or 'slip' (its operator's, now)


async def record_pending_bet(connection: asyncpg.Connection, bet: PendingBet) -> None:
    await connection.execute(
        "INSERT INTO operator_calls (call_id, kind, operator_id, player_id, round_id, table_id,"
        " slip_id, transaction_uuid, token, amount, currency, status, attempts,"
        " idempotency_key, slip, win_per) VALUES ($1, 'bet', $2, $3, $4, $5, $1, $11, $6, $7,"
        " $8, 'pending', 1, $9, $10::jsonb, $12)",
        bet.slip_id,
        bet.operator_id,
        bet.player_id,
        bet.round_id,
        bet.table_id,
        bet.token,
        bet.amount,
        bet.currency,
        bet.idempotency_key,
        json.dumps(bet.slip),
        str(bet.slip_id),  # the bet's transaction_uuid
        bet.win_per,
    )


async def lock_pending_bet(connection: asyncpg.Connection, slip_id: UUID) -> bool:
    """Lock the slip's bet call if it is still pending (the recovery loop has not ended it)."""
    locked = await connection.fetchval(
        "SELECT true FROM operator_calls WHERE call_id = $1 AND status = 'pending' FOR UPDATE",
        slip_id,
    )
    return bool(locked)


async def finish_call(
    connection: asyncpg.Connection,
    call_id: UUID,
    status: str,
    *,
    answer_status: str | None,
    answer_raw: str | None,
    error: str | None,
    answered_at: datetime | None,
) -> None:
    await connection.execute(
        "UPDATE operator_calls SET status = $2, answer_status = coalesce($3, answer_status),"
        " answer_raw = coalesce($4, answer_raw), error = $5,"
        " answered_at = coalesce($6, answered_at), finished_at = now(), next_attempt_at = NULL"
        " WHERE call_id = $1",
        call_id,
        status,
        answer_status,
        answer_raw,
        error,
        answered_at,
    )


async def owe_rollback_of_bet(connection: asyncpg.Connection, slip_id: UUID) -> bool:
    """Owe the rollback of the slip's bet, due now (once: a second is not added)."""
    rollback_id = uuid4()
    inserted = await connection.fetchval(
        "INSERT INTO operator_calls (call_id, kind, operator_id, player_id, round_id, table_id,"
        " slip_id, transaction_uuid, reference_transaction_uuid, token, currency, status,"
        " next_attempt_at) SELECT $2, 'rollback', operator_id, player_id, round_id, table_id,"
        " slip_id, $3, transaction_uuid, token, currency, 'pending', now()"
        " FROM operator_calls WHERE call_id = $1 AND kind = 'bet'"
        " ON CONFLICT (slip_id, kind) DO NOTHING RETURNING true",
        slip_id,
        rollback_id,
        str(rollback_id),
    )
    return bool(inserted)


async def record_seamless_slip(
    connection: asyncpg.Connection,
    *,
    slip_id: UUID,
    operator_id: str,
    player_id: str,
    round_id: str,
    table_id: str,
    currency: str,
    placed_at: datetime,
    bets: Sequence[tuple[UUID, str, int]],
    idempotency_key: str,
    answer: dict[str, Any],
) -> None:
    """An accepted seamless slip: its bets (no account is debited: the operator holds the
    money) and its answer under its key."""
    await connection.execute(
        "WITH bets AS (INSERT INTO wallet_bets (bet_id, slip_id, operator_id, player_id,"
        " round_id, table_id, bet_type, stake, currency, placed_at)"
        " SELECT b.bet_id, $1, $2, $3, $4, $5, b.bet_type, b.stake, $6, $7"
        " FROM unnest($8::uuid[], $9::text[], $10::bigint[]) WITH ORDINALITY"
        " AS b(bet_id, bet_type, stake, n) ORDER BY b.n)"
        " UPDATE wallet_idempotency SET status_code = 201, response = $12::json"
        " WHERE operator_id = $2 AND key = $11",
        slip_id,
        operator_id,
        player_id,
        round_id,
        table_id,
        currency,
        placed_at,
        [bet[0] for bet in bets],
        [bet[1] for bet in bets],
        [bet[2] for bet in bets],
        idempotency_key,
        json.dumps(answer, default=str),
    )


# ---------------------------------------------------------------------------- settlement
async def seamless_slips(
    connection: asyncpg.Connection, slip_ids: Collection[UUID]
) -> dict[UUID, str]:
    """Which of these slips were taken from a seamless operator (their bet call was
    recorded), each with how its returns are owed: 'round' or 'slip'."""
    rows = await connection.fetch(
        "SELECT call_id, win_per FROM operator_calls"
        " WHERE call_id = ANY($1::uuid[]) AND kind = 'bet'",
        list(slip_ids),
    )
    return {row[0]: row[1] for row in rows}


# one win per slip whose every bet is paid (its returns), or in a cancelled round one rollback
_OWE_BY_SLIP = """
WITH done AS (
    SELECT c.call_id AS slip_id, c.operator_id, c.player_id, c.round_id, c.table_id, c.token,
           c.currency, r.status AS round_status, sum(b.returned) AS returned
      FROM operator_calls c
      JOIN wallet_bets b ON b.slip_id = c.call_id
      JOIN wallet_rounds r ON r.round_id = c.round_id
     WHERE c.call_id = ANY($1::uuid[]) AND c.kind = 'bet' AND c.status = 'ok'
       AND (c.win_per = 'slip' OR r.status = 'cancelled')
     GROUP BY c.call_id, r.status
    HAVING bool_and(b.status = 'paid')
)
INSERT INTO operator_calls (call_id, kind, operator_id, player_id, round_id, table_id, slip_id,
                            transaction_uuid, reference_transaction_uuid, token, amount,
                            currency, status, next_attempt_at)
SELECT u.id, u.kind, u.operator_id, u.player_id, u.round_id, u.table_id, u.slip_id,
       u.id::text, u.slip_id::text, u.token, u.amount, u.currency, 'pending', now()
  FROM (
    -- a new id per slip: gen_random_uuid() in the select list runs once per row (in a
    -- LATERAL subquery without outer references the planner may run it once in all)
    SELECT gen_random_uuid() AS id,
           CASE WHEN d.round_status = 'cancelled' THEN 'rollback' ELSE 'win' END AS kind,
           CASE WHEN d.round_status = 'cancelled' THEN NULL ELSE d.returned END AS amount,
           d.*
      FROM done d
  ) u
-- a slip's win (or rollback) is owed once: a repeated payment adds nothing; any other
-- conflict (an id drawn twice) is an error, never a call silently dropped
ON CONFLICT (slip_id, kind) DO NOTHING
RETURNING call_id, kind, operator_id, player_id, round_id
"""

# one win per player and round (and currency) for slips taken as 'round': owed once no bet of
# the player in the round is left unpaid; the returns of all of them, referencing the last
# slip, and closing the round (no bet of the player in it is left to pay).
# "No bet left unpaid" is asked from the player's newest bet in the round back (wallet
# migration 0017): settlement pays bets in the order they were placed, so while any is unpaid
# the newest is, and the answer is one row rather than every bet paid so far (decision 0106).
# A scalar subquery: NOT EXISTS would be planned as an anti-join, which drops the order.
_OWE_BY_ROUND = """
WITH touched AS (
    SELECT DISTINCT * FROM unnest($1::text[], $2::text[], $3::text[])
        AS t(operator_id, player_id, round_id)
), complete AS (
    SELECT t.operator_id, t.player_id, t.round_id
      FROM touched t
      JOIN wallet_rounds r ON r.round_id = t.round_id AND r.status <> 'cancelled'
     WHERE (SELECT 1 FROM wallet_bets b WHERE b.round_id = t.round_id
               AND b.operator_id = t.operator_id AND b.player_id = t.player_id
               AND b.status <> 'paid'
             ORDER BY b.seq DESC LIMIT 1) IS NULL
), slips AS (
    SELECT c.call_id, c.operator_id, c.player_id, c.round_id, c.table_id, c.token, c.currency,
           c.created_at,
           (SELECT sum(b.returned) FROM wallet_bets b WHERE b.slip_id = c.call_id) AS returned
      FROM complete t
      JOIN operator_calls c ON c.round_id = t.round_id AND c.operator_id = t.operator_id
                           AND c.player_id = t.player_id
     WHERE c.kind = 'bet' AND c.status = 'ok' AND c.win_per = 'round'
       -- only a slip we took: a bet the operator accepted after betting closed is ours to
       -- roll back, and a win naming it would be refused (operator-wallet.md, semantics 5)
       AND EXISTS (SELECT 1 FROM wallet_bets b WHERE b.slip_id = c.call_id)
       AND NOT EXISTS (SELECT 1 FROM operator_calls r WHERE r.slip_id = c.call_id
                                                       AND r.kind = 'rollback')
), rounds AS (
    SELECT DISTINCT ON (operator_id, player_id, round_id, currency)
           operator_id, player_id, round_id, currency, table_id, token, call_id AS slip_id,
           sum(returned) OVER w AS returned
      FROM slips
    WINDOW w AS (PARTITION BY operator_id, player_id, round_id, currency)
     ORDER BY operator_id, player_id, round_id, currency, created_at DESC, call_id DESC
)
INSERT INTO operator_calls (call_id, kind, operator_id, player_id, round_id, table_id, slip_id,
                            transaction_uuid, reference_transaction_uuid, token, amount,
                            currency, status, next_attempt_at, win_per, round_closed)
SELECT u.id, 'win', u.operator_id, u.player_id, u.round_id, u.table_id, u.slip_id,
       u.id::text, u.slip_id::text, u.token, u.returned, u.currency, 'pending', now(), 'round',
       true
  FROM (SELECT gen_random_uuid() AS id, r.* FROM rounds r) u
-- owed once: the last slip's win; a repeated payment adds nothing
ON CONFLICT (slip_id, kind) DO NOTHING
RETURNING call_id, kind, operator_id, player_id, round_id
"""

# the player's last win of the round: no bet of the player in the round is left unpaid
_CLOSE_ROUNDS = """
WITH owed AS (
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[])
        AS o(call_id, operator_id, player_id, round_id)
), closing AS (
    SELECT DISTINCT ON (o.operator_id, o.player_id, o.round_id) o.call_id
      FROM owed o
     WHERE (SELECT 1 FROM wallet_bets b WHERE b.round_id = o.round_id
               AND b.operator_id = o.operator_id AND b.player_id = o.player_id
               AND b.status <> 'paid'
             ORDER BY b.seq DESC LIMIT 1) IS NULL
     ORDER BY o.operator_id, o.player_id, o.round_id, o.call_id
)
UPDATE operator_calls c SET round_closed = true FROM closing WHERE c.call_id = closing.call_id
"""

PlayerRound = tuple[str, str, str]  # operator_id, player_id, round_id


async def owe_settlement(
    connection: asyncpg.Connection, by_slip: Collection[UUID], by_round: Collection[PlayerRound]
) -> int:
    """In the payment's transaction, once its bets are marked paid, for the seamless slips
    whose bets it paid. `by_round`: the players and rounds of slips taken as 'round' (in a
    round not cancelled): one win per player and round once every bet of the player in the
    round is paid (the returns of them all, 0 for a loss), closing the round. `by_slip`: the
    other slips: one win per slip whose every bet is now paid (its returns), or in a
    cancelled round one rollback per slip; `round_closed` on the player's last win of the
    round. The number of calls owed."""
    by_round = list(by_round)
    closed = (
        await connection.fetch(
            _OWE_BY_ROUND,
            [p[0] for p in by_round],
            [p[1] for p in by_round],
            [p[2] for p in by_round],
        )
        if by_round
        else []
    )
    owed = await connection.fetch(_OWE_BY_SLIP, list(by_slip)) if by_slip else []
    # a slip's win closes the player's round unless a round's win of the same payment does
    done = {(row["operator_id"], row["player_id"], row["round_id"]) for row in closed}
    wins = [
        row
        for row in owed
        if row["kind"] == "win"
        and (row["operator_id"], row["player_id"], row["round_id"]) not in done
    ]
    if wins:
        await connection.execute(
            _CLOSE_ROUNDS,
            [row["call_id"] for row in wins],
            [row["operator_id"] for row in wins],
            [row["player_id"] for row in wins],
            [row["round_id"] for row in wins],
        )
    return len(closed) + len(owed)


def answer_columns(outcome: CallOutcome, now: datetime) -> dict[str, Any]:
    """What `operator_calls` keeps of an answer: its status and its body as received."""
    match outcome:
        case Answered(status=status, raw=raw):
            return {
                "answer_status": status.value,
                "answer_raw": json.dumps(raw),
                "answered_at": now,
            }
        case BadAnswer(reason=reason, raw=raw):
            return {
                "answer_status": f"bad_answer:{reason}",
                "answer_raw": raw.decode("utf-8", errors="replace"),
                "answered_at": now,
            }
        case NoAnswer(reason=reason):
            return {"answer_status": f"no_answer:{reason}", "answer_raw": None, "answered_at": None}
    raise AssertionError(f"not an outcome: {outcome!r}")


# ------------------------------------------------------------------------------ sending
_CLAIM_DUE = """
WITH due AS (
    SELECT c.call_id, c.operator_id FROM operator_calls c
     WHERE c.status = 'pending' AND c.kind <> 'bet' AND c.next_attempt_at <= now()
       -- the player's last transaction of the round goes once the others are through: its
       -- other wins, its bets still waiting for an answer (whose rollback, if one is owed,
       -- must not come after the round is closed), and every rollback of its round until
       -- RS_OK: one that failed waits for a person's resend (operator-wallet.md, semantics 5)
       AND NOT (c.round_closed AND EXISTS (
            SELECT 1 FROM operator_calls o WHERE o.round_id = c.round_id
               AND o.operator_id = c.operator_id AND o.player_id = c.player_id
               AND o.call_id <> c.call_id
               AND (o.status = 'pending' OR (o.kind = 'rollback' AND o.status <> 'ok'))))
     ORDER BY c.next_attempt_at
     LIMIT $1
       FOR UPDATE SKIP LOCKED
)
UPDATE operator_calls c SET attempts = c.attempts + 1,
       -- the lease: the operator's call timeout as the sender knows it (else $2) and room
       -- to record the answer
       next_attempt_at = now() + make_interval(secs => coalesce(t.timeout, $2) + $3)
  FROM due LEFT JOIN unnest($4::text[], $5::float8[]) AS t(operator_id, timeout)
       ON t.operator_id = due.operator_id
 WHERE c.call_id = due.call_id
RETURNING c.call_id, c.kind, c.operator_id, c.player_id, c.round_id, c.slip_id,
          c.transaction_uuid, c.reference_transaction_uuid, c.token, c.amount, c.currency,
          c.round_closed, c.attempts, c.bad_answers
"""


async def claim_due(
    connection: asyncpg.Connection,
    limit: int,
    *,
    timeouts: dict[str, float],
    default_timeout: float,
    lease_margin_seconds: float,
) -> list[asyncpg.Record]:
    """Claim owed calls that are due: each is leased for its operator's call timeout
    (`timeouts`, else `default_timeout`) plus the margin, its next attempt pushed past the
    lease, so no other instance sends it while this one does, and it is due again soon
    after if this one dies. The timeouts come from the caller: the claim reads no other
    table, so nothing but `operator_calls` can hold it up."""
    rows: list[asyncpg.Record] = await connection.fetch(
        _CLAIM_DUE,
        limit,
        default_timeout,
        lease_margin_seconds,
        list(timeouts),
        list(timeouts.values()),
    )
    return rows


@dataclass(frozen=True, slots=True)
class Attempt:
    """What one attempt of an owed call ended in, to record: its status (ok, failed, or
    pending again from `next_attempt_at`), the answer as received, and why when not ok."""

    call_id: UUID
    status: str
    next_attempt_at: datetime | None
    bad_answer: bool
    answer_status: str | None
    answer_raw: str | None
    error: str | None


_RECORD_ATTEMPTS = """
UPDATE operator_calls c
   SET status = a.status,
       next_attempt_at = a.next_attempt_at,
       bad_answers = c.bad_answers + a.bad_answer,
       answer_status = coalesce(a.answer_status, c.answer_status),
       answer_raw = coalesce(a.answer_raw, c.answer_raw),
       answered_at = CASE WHEN a.answer_raw IS NULL THEN c.answered_at ELSE now() END,
       error = a.error,
       finished_at = CASE WHEN a.status = 'pending' THEN NULL ELSE now() END
  FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::int[], $5::text[], $6::text[],
              $7::text[])
       AS a(call_id, status, next_attempt_at, bad_answer, answer_status, answer_raw, error)
 WHERE c.call_id = a.call_id AND c.status = 'pending'
"""


async def record_attempts(connection: asyncpg.Connection, attempts: Sequence[Attempt]) -> None:
    """The attempts of a batch of owed calls, with one statement: a call no longer pending
    (recorded by another attempt meanwhile) is left as it is."""
    if not attempts:
        return
    await connection.execute(
        _RECORD_ATTEMPTS,
        [a.call_id for a in attempts],
        [a.status for a in attempts],
        [a.next_attempt_at for a in attempts],
        [1 if a.bad_answer else 0 for a in attempts],
        [a.answer_status for a in attempts],
        [a.answer_raw for a in attempts],
        [a.error for a in attempts],
    )


# ----------------------------------------------------------------------------- recovery
async def abandoned_bets(
    connection: asyncpg.Connection, margin_seconds: float, limit: int
) -> list[asyncpg.Record]:
    """Pending bets older than their operator's call timeout plus the margin, locked (those
    another transaction holds are skipped: their answer is being recorded)."""
    rows: list[asyncpg.Record] = await connection.fetch(
        "SELECT c.call_id, c.operator_id, c.idempotency_key FROM operator_calls c"
        " LEFT JOIN operators o ON o.operator_id = c.operator_id"
        " WHERE c.kind = 'bet' AND c.status = 'pending' AND c.created_at < now()"
        " - make_interval(secs => coalesce((o.config->>'timeout_seconds')::float8, 60) + $1)"
        " ORDER BY c.created_at LIMIT $2 FOR UPDATE OF c SKIP LOCKED",
        margin_seconds,
        limit,
    )
    return rows


# ------------------------------------------------------------------------------ problems
# An owed call is overdue once it is older than its operator's timeout plus the first
# backoff and an attempt has ended without RS_OK, or older than the timeout plus the longest
# backoff whatever happened (a closing win held back by its round's other calls, say).
_OVERDUE = """
c.status = 'pending' AND c.kind <> 'bet'
AND c.created_at < now() - make_interval(secs => coalesce((o.config->>'timeout_seconds')::float8,
    3.0) + coalesce((o.config->>'base_backoff_seconds')::float8, 0.5))
AND (c.error IS NOT NULL OR c.created_at < now() - make_interval(
    secs => coalesce((o.config->>'timeout_seconds')::float8, 3.0)
            + coalesce((o.config->>'max_backoff_seconds')::float8, 60.0)))
"""

_UNSETTLED_COLUMNS = """
c.call_id, c.kind, c.status, c.operator_id, c.player_id, c.round_id, c.table_id, c.slip_id,
c.transaction_uuid, c.amount, c.currency, c.attempts, c.answer_status, c.error, c.created_at,
c.finished_at, c.next_attempt_at, c.round_closed,
extract(epoch FROM now() - c.created_at)::float8 AS age_seconds
"""


async def unsettled_calls(connection: asyncpg.Connection, limit: int) -> list[asyncpg.Record]:
    """The owed wins and rollbacks a person should see: every failed one, and every pending
    one overdue; oldest first."""
    rows: list[asyncpg.Record] = await connection.fetch(
        f"(SELECT {_UNSETTLED_COLUMNS} FROM operator_calls c"
        " LEFT JOIN operators o ON o.operator_id = c.operator_id"
        " WHERE c.status = 'failed' AND c.kind <> 'bet')"
        f" UNION ALL (SELECT {_UNSETTLED_COLUMNS} FROM operator_calls c"
        f" LEFT JOIN operators o ON o.operator_id = c.operator_id WHERE {_OVERDUE})"
        " ORDER BY created_at LIMIT $1",
        limit,
    )
    return rows


async def owed_call_counts(connection: asyncpg.Connection) -> list[asyncpg.Record]:
    """Per operator, the owed wins and rollbacks not yet RS_OK: pending (overdue among
    them), failed, and the age in seconds of the oldest pending and of the oldest failed
    (None: none)."""
    rows: list[asyncpg.Record] = await connection.fetch(
        "SELECT c.operator_id,"
        " count(*) FILTER (WHERE c.status = 'pending') AS pending,"
        f" count(*) FILTER (WHERE {_OVERDUE}) AS overdue,"
        " count(*) FILTER (WHERE c.status = 'failed') AS failed,"
        " extract(epoch FROM now() - min(c.created_at) FILTER (WHERE c.status = 'pending'))"
        "::float8 AS oldest_pending_seconds,"
        " extract(epoch FROM now() - min(c.created_at) FILTER (WHERE c.status = 'failed'))"
        "::float8 AS oldest_failed_seconds"
        " FROM operator_calls c LEFT JOIN operators o ON o.operator_id = c.operator_id"
        " WHERE c.status IN ('pending', 'failed') AND c.kind <> 'bet'"
        " GROUP BY c.operator_id"
    )
    return rows


__all__ = ["FAILED", "OK", "PENDING", "REFUSED"]
