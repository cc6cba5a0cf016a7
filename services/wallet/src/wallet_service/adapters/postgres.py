"""The SQL of the wallet's projection tables, in its own database beside the event store
(created by `migrations/`). Every function takes the caller's connection: the caller owns the
transaction, so rows and events commit together.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar
from uuid import UUID

import asyncpg

from teenpatti.eventsourcing import AsyncpgEventStore, CommitOrderError, append_error

from ..domain.betting import BookSeal, LedgerEntry, RoundBetting, limits_from_mapping
from ..domain.payment import HeldBet, HeldRound, PaidBet

_T = TypeVar("_T")


# ------------------------------------------------------------------------------- players
def player_stream(operator_id: str, player_id: str) -> str:
    # operator names cannot hold ":" (the API key spec splits on it), player ids may not
    return f"player-{operator_id}:{player_id}"


def book_stream(round_id: str) -> str:
    return f"book-{round_id}"


@dataclass(frozen=True, slots=True)
class LockedAccount:
    version: int  # the player's event stream
    balance: int  # in the account's currency; 0 for an account not opened yet


async def lock_account(
    connection: asyncpg.Connection, operator_id: str, player_id: str, currency: str
) -> LockedAccount:
    """Serialize every write of one player (all currencies): lock its row, creating it if
    new; its event stream's version, which cannot move while the lock is held, and the
    balance in `currency` read under the lock, in one round trip. Every write of a balance
    holds its player's lock, so the balance cannot move either."""
    row = await connection.fetchrow(
        "SELECT locked_version, locked_balance FROM wallet_lock_player($1, $2, $3, $4)",
        operator_id,
        player_id,
        player_stream(operator_id, player_id),
        currency,
    )
    assert row is not None
    return LockedAccount(int(row["locked_version"]), int(row["locked_balance"]))


# ------------------------------------------------------------------------------ accounts
async def add_to_balance(
    connection: asyncpg.Connection, operator_id: str, player_id: str, currency: str, amount: int
) -> int:
    """Move a player's balance by `amount` (negative to debit); the new balance. The CHECK
    refuses a negative balance, so a caller that skipped the funds check still cannot."""
    if amount < 0:
        # an upsert would check the negative VALUES row against the CHECK before the conflict
        debited = await connection.fetchval(
            "UPDATE wallet_accounts SET balance = balance + $4, updated_at = now()"
            " WHERE operator_id = $1 AND player_id = $2 AND currency = $3 RETURNING balance",
            operator_id,
            player_id,
            currency,
            amount,
        )
        if debited is None:
            raise asyncpg.CheckViolationError("debit of an account that does not exist")
        return int(debited)
    balance = await connection.fetchval(
        "INSERT INTO wallet_accounts (operator_id, player_id, currency, balance)"
        " VALUES ($1, $2, $3, $4)"
        " ON CONFLICT (operator_id, player_id, currency) DO UPDATE"
        " SET balance = wallet_accounts.balance + EXCLUDED.balance, updated_at = now()"
        " RETURNING balance",
        operator_id,
        player_id,
        currency,
        amount,
    )
    return int(balance)


async def balances(
    connection: asyncpg.Connection, operator_id: str, player_id: str
) -> dict[str, int]:
    rows = await connection.fetch(
        "SELECT currency, balance FROM wallet_accounts WHERE operator_id = $1 AND player_id = $2"
        " ORDER BY currency",
        operator_id,
        player_id,
    )
    return {row["currency"]: int(row["balance"]) for row in rows}


async def record_ledger(connection: asyncpg.Connection, entries: Sequence[LedgerEntry]) -> None:
    entries = [entry for entry in entries if entry.amount != 0]
    if not entries:
        return
    await connection.execute(
        "INSERT INTO wallet_ledger (account, operator_id, player_id, currency, amount, kind,"
        " reference) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[],"
        " $5::bigint[], $6::text[], $7::text[])",
        [e.account for e in entries],
        [e.operator_id for e in entries],
        [e.player_id for e in entries],
        [e.currency for e in entries],
        [e.amount for e in entries],
        [e.kind for e in entries],
        [e.reference for e in entries],
    )


# ----------------------------------------------------------------------------- transfers
@dataclass(frozen=True, slots=True)
class Transfer:
    kind: str
    player_id: str
    currency: str
    amount: int
    balance_after: int


async def claim_transfer(
    connection: asyncpg.Connection, operator_id: str, transfer_id: str, transfer: Transfer
) -> Transfer | None:
    """Record the transfer, or return the one already recorded under this id. A concurrent
    claim of the same id waits here until the first commits or rolls back."""
    inserted = await connection.fetchval(
        "INSERT INTO wallet_transfers (operator_id, transfer_id, kind, player_id, currency,"
        " amount, balance_after) VALUES ($1, $2, $3, $4, $5, $6, $7)"
        " ON CONFLICT DO NOTHING RETURNING true",
        operator_id,
        transfer_id,
        transfer.kind,
        transfer.player_id,
        transfer.currency,
        transfer.amount,
        transfer.balance_after,
    )
    if inserted:
        return None
    row = await connection.fetchrow(
        "SELECT kind, player_id, currency, amount, balance_after FROM wallet_transfers"
        " WHERE operator_id = $1 AND transfer_id = $2",
        operator_id,
        transfer_id,
    )
    return Transfer(
        row["kind"],
        row["player_id"],
        row["currency"],
        int(row["amount"]),
        int(row["balance_after"]),
    )


async def set_transfer_balance(
    connection: asyncpg.Connection, operator_id: str, transfer_id: str, balance_after: int
) -> None:
    await connection.execute(
        "UPDATE wallet_transfers SET balance_after = $3"
        " WHERE operator_id = $1 AND transfer_id = $2",
        operator_id,
        transfer_id,
        balance_after,
    )


# ------------------------------------------------------------------------------- rounds
def _round_betting(row: asyncpg.Record) -> RoundBetting:
    return RoundBetting(
        round_id=row["round_id"],
        table_id=row["table_id"],
        status=row["status"],
        paused=row["paused"],
        betting_closes_at=row["betting_closes_at"],
        limits=limits_from_mapping(json.loads(row["limits"])),
    )


async def round_for_betting(connection: asyncpg.Connection, round_id: str) -> RoundBetting | None:
    """The round, share-locked: sealing takes the same row FOR UPDATE, so it waits for every
    slip holding this lock to commit, and a slip arriving after the seal sees it sealed."""
    row = await connection.fetchrow(
        "SELECT round_id, table_id, status, paused, betting_closes_at, limits::text AS limits"
        " FROM wallet_rounds WHERE round_id = $1 FOR SHARE",
        round_id,
    )
    return None if row is None else _round_betting(row)


async def round_status_for_update(connection: asyncpg.Connection, round_id: str) -> str | None:
    status = await connection.fetchval(
        "SELECT status FROM wallet_rounds WHERE round_id = $1 FOR UPDATE", round_id
    )
    return None if status is None else str(status)


async def insert_round(
    connection: asyncpg.Connection,
    *,
    round_id: str,
    table_id: str,
    status: str,
    opened_at: datetime | None,
    betting_closes_at: datetime,
    limits: dict[str, Any],
    paytable: dict[str, Any] | None = None,
) -> bool:
    inserted = await connection.fetchval(
        "INSERT INTO wallet_rounds (round_id, table_id, status, opened_at, betting_closes_at,"
        " limits, paytable) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb)"
        " ON CONFLICT DO NOTHING RETURNING true",
        round_id,
        table_id,
        status,
        opened_at,
        betting_closes_at,
        json.dumps(limits),
        None if paytable is None else json.dumps(paytable),
    )
    return bool(inserted)


async def round_book(connection: asyncpg.Connection, round_id: str) -> list[tuple[UUID, str, int]]:
    rows = await connection.fetch(
        "SELECT bet_id, currency, stake FROM wallet_bets WHERE round_id = $1", round_id
    )
    return [(row["bet_id"], row["currency"], int(row["stake"])) for row in rows]


async def mark_sealed(
    connection: asyncpg.Connection, round_id: str, seal: BookSeal, sealed_at: datetime
) -> None:
    await connection.execute(
        "UPDATE wallet_rounds SET status = 'sealed', sealed_at = $2, bet_count = $3,"
        " total_stake = $4::jsonb, digest = $5, updated_at = now() WHERE round_id = $1",
        round_id,
        sealed_at,
        seal.bet_count,
        json.dumps(seal.total_stake),
        seal.digest,
    )


async def update_round(connection: asyncpg.Connection, round_id: str, **columns: Any) -> None:
    """Set the named columns (fixed names from this module's callers, never user input)."""
    names = list(columns)
    assignments = ", ".join(
        f"{name} = ${i}::jsonb" if name == "cards" else f"{name} = ${i}"
        for i, name in enumerate(names, start=2)
    )
    values = [json.dumps(columns[n]) if n == "cards" else columns[n] for n in names]
    await connection.execute(
        f"UPDATE wallet_rounds SET {assignments}, updated_at = now() WHERE round_id = $1",
        round_id,
        *values,
    )


async def void_round(
    connection: asyncpg.Connection, round_id: str, reason: str, at: datetime
) -> bool:
    """The round's bets are refunded (a void at settlement, at `at`: its end unless it
    closed before); False if it has no sealed book."""
    voided = await connection.fetchval(
        "UPDATE wallet_rounds SET status = 'cancelled', cancel_reason = $2,"
        " ended_at = coalesce(ended_at, $3), updated_at = now()"
        " WHERE round_id = $1 AND status <> 'open' RETURNING true",
        round_id,
        reason,
        at,
    )
    return bool(voided)


async def record_dealt(
    connection: asyncpg.Connection, cards: Sequence[tuple[str, str, str]]
) -> None:
    """Each `(round_id, position, card)` dealt (CardDealt) into its round's `dealt`, in one
    statement; a round the wallet never saw open is passed over."""
    if not cards:
        return
    await connection.execute(
        "UPDATE wallet_rounds r SET dealt = r.dealt || d.cards, updated_at = now()"
        " FROM (SELECT round_id, jsonb_object_agg(position, card) AS cards"
        "       FROM unnest($1::text[], $2::text[], $3::text[]) AS u(round_id, position, card)"
        "       GROUP BY round_id) d"
        " WHERE r.round_id = d.round_id",
        [round_id for round_id, _, _ in cards],
        [position for _, position, _ in cards],
        [card for _, _, card in cards],
    )


async def withdraw_dealt(
    connection: asyncpg.Connection, round_id: str, positions: list[str]
) -> None:
    """Cards taken back (CardsWithdrawn): out of their round's `dealt`."""
    await connection.execute(
        "UPDATE wallet_rounds SET dealt = dealt - $2::text[], updated_at = now()"
        " WHERE round_id = $1",
        round_id,
        positions,
    )


async def round_row(connection: asyncpg.Connection, round_id: str) -> asyncpg.Record | None:
    row: asyncpg.Record | None = await connection.fetchrow(
        "SELECT round_id, table_id, status, paused, opened_at, betting_closes_at, sealed_at,"
        " cards::text AS cards, winner, player_a_hand, player_b_hand, six_card_bonus_hand,"
        " cancel_reason FROM wallet_rounds WHERE round_id = $1",
        round_id,
    )
    return row


# --------------------------------------------------------------------------------- bets
@dataclass(frozen=True, slots=True)
class NewBet:
    bet_id: UUID
    bet_type: str
    stake: int


_RECORD_SLIP = """
WITH debit AS (
    UPDATE wallet_accounts SET balance = balance - $8, updated_at = now()
     WHERE operator_id = $2 AND player_id = $3 AND currency = $6
    RETURNING balance
), bets AS (
    INSERT INTO wallet_bets (bet_id, slip_id, operator_id, player_id, round_id, table_id,
                             bet_type, stake, currency, placed_at)
    SELECT b.bet_id, $1, $2, $3, $4, $5, b.bet_type, b.stake, $6, $7
      FROM unnest($9::uuid[], $10::text[], $11::bigint[]) WITH ORDINALITY
           AS b(bet_id, bet_type, stake, n)
     ORDER BY b.n
), ledger AS (
    INSERT INTO wallet_ledger (account, operator_id, player_id, currency, amount, kind,
                               reference)
    SELECT e.account, $2, e.player_id, $6, e.amount, e.kind, e.reference
      FROM unnest($12::text[], $13::text[], $14::bigint[], $15::text[], $16::text[])
           AS e(account, player_id, amount, kind, reference)
), answer AS (
    UPDATE wallet_idempotency SET status_code = 201, response = $18::json
     WHERE operator_id = $2 AND key = $17
), first_slip AS (
    -- the player's balance before its first slip on the round (the last games' recall)
    INSERT INTO wallet_round_balances (operator_id, player_id, round_id, currency,
                                       balance_before)
    SELECT $2, $3, $4, $6, balance + $8 FROM debit
    ON CONFLICT DO NOTHING
)
SELECT balance FROM debit
"""


@dataclass(frozen=True, slots=True)
class SlipRecord:
    """An accepted slip as the wallet writes it: its bets, their ledger entries and the
    answer stored under its Idempotency-Key."""

    slip_id: UUID
    operator_id: str
    player_id: str
    round_id: str
    table_id: str
    currency: str
    placed_at: datetime
    bets: Sequence[NewBet]
    ledger: Sequence[LedgerEntry]
    idempotency_key: str
    answer: dict[str, Any]


async def record_slip(connection: asyncpg.Connection, slip: SlipRecord) -> int:
    """Debit the slip's total, insert its bets and ledger entries, store its answer and, on
    the player's first slip of the round, its balance before it, in one statement (one round
    trip); the new balance. The caller holds the player's lock."""
    balance = await connection.fetchval(
        _RECORD_SLIP,
        slip.slip_id,
        slip.operator_id,
        slip.player_id,
        slip.round_id,
        slip.table_id,
        slip.currency,
        slip.placed_at,
        sum(bet.stake for bet in slip.bets),
        [bet.bet_id for bet in slip.bets],
        [bet.bet_type for bet in slip.bets],
        [bet.stake for bet in slip.bets],
        [e.account for e in slip.ledger],
        [e.player_id for e in slip.ledger],
        [e.amount for e in slip.ledger],
        [e.kind for e in slip.ledger],
        [e.reference for e in slip.ledger],
        slip.idempotency_key,
        json.dumps(slip.answer, default=str),
    )
    if balance is None:  # the funds check saw an account: only a bug gets here
        raise asyncpg.CheckViolationError("debit of an account that does not exist")
    return int(balance)


@dataclass(frozen=True, slots=True)
class SlipToPlace:
    """A transfer slip for `place_slips`: its rows, its Idempotency-Key's request hash, each
    bet type's maximum (in its bets' order) and its `BetsPlaced` as the store's
    `event_append_arguments`. `record.answer` lacks its `balance`, which the statement adds
    to the stored answer as `json.dumps` would."""

    record: SlipRecord
    request_hash: str
    maxima: Sequence[int]
    event: tuple[datetime, UUID, str, str, int, str, str | None]


_PLACE_SLIPS = (
    "SELECT outcome, balance FROM wallet_place_slips("
    + ", ".join(f"${n}" for n in range(1, 31))
    + ")"
)


async def place_slips(
    executor: asyncpg.Pool | asyncpg.Connection, slips: Sequence[SlipToPlace], grace: timedelta
) -> list[int | None]:
    """The slips in one statement, on the pool its own transaction (`wallet_place_slips`):
    for each, the guards that need the database (the round open, each bet type's maximum
    over the player's slips, the funds) under the round's and the player's locks, then its
    rows and its event. Each slip's new balance, in their order; None where a guard failed or
    the key was claimed before: nothing of that slip written. An error leaves none of them
    written."""
    records = [slip.record for slip in slips]
    bets = [bet for record in records for bet in record.bets]
    ledger = [entry for record in records for entry in record.ledger]
    events = list(zip(*(slip.event for slip in slips), strict=True))
    try:
        rows = await executor.fetch(
            _PLACE_SLIPS,
            [r.operator_id for r in records],
            [r.player_id for r in records],
            [player_stream(r.operator_id, r.player_id) for r in records],
            [r.currency for r in records],
            [r.round_id for r in records],
            [r.table_id for r in records],
            [r.placed_at for r in records],
            grace,
            [r.idempotency_key for r in records],
            [slip.request_hash for slip in slips],
            [json.dumps(r.answer, default=str)[:-1] + ', "balance": ' for r in records],
            [r.slip_id for r in records],
            [len(r.bets) for r in records],
            [bet.bet_id for bet in bets],
            [bet.bet_type for bet in bets],
            [bet.stake for bet in bets],
            [maximum for slip in slips for maximum in slip.maxima],
            [len(r.ledger) for r in records],
            [e.account for e in ledger],
            [e.player_id for e in ledger],
            [e.amount for e in ledger],
            [e.kind for e in ledger],
            [e.reference for e in ledger],
            *(list(column) for column in events),
        )
    except asyncpg.PostgresError as error:
        refused = append_error(error)
        if refused is None:
            raise
        raise refused from error
    return [None if row[0] != "taken" else int(row[1]) for row in rows]


async def player_round_stakes(
    connection: asyncpg.Connection, operator_id: str, player_id: str, round_id: str, currency: str
) -> dict[str, int]:
    """The player's stakes on the round in `currency`, by bet type (every slip together)."""
    rows = await connection.fetch(
        "SELECT bet_type, sum(stake) FROM wallet_bets WHERE round_id = $1 AND operator_id = $2"
        " AND player_id = $3 AND currency = $4 GROUP BY bet_type",
        round_id,
        operator_id,
        player_id,
        currency,
    )
    return {row[0]: int(row[1]) for row in rows}


async def bets_for_payment(
    connection: asyncpg.Connection, bet_ids: Sequence[UUID]
) -> dict[UUID, HeldBet]:
    """The bets to pay, with what a settlement must agree with, locked in one order (no
    deadlock between batches)."""
    rows = await connection.fetch(
        # the columns in HeldBet's order
        "SELECT bet_id, operator_id, player_id, round_id, table_id, bet_type, stake, currency,"
        " status, slip_id FROM wallet_bets WHERE bet_id = ANY($1::uuid[]) ORDER BY bet_id"
        " FOR UPDATE",
        list(bet_ids),
    )
    return {row[0]: HeldBet._make(row) for row in rows}


async def rounds_for_payment(
    connection: asyncpg.Connection, round_ids: Collection[str]
) -> dict[str, HeldRound]:
    """What the wallet holds of these rounds to settle their bets itself: status, cards and
    pay table."""
    rows = await connection.fetch(
        "SELECT round_id, status, cards::text AS cards, paytable::text AS paytable"
        " FROM wallet_rounds WHERE round_id = ANY($1::text[])",
        list(round_ids),
    )
    return {
        row["round_id"]: HeldRound(
            row["round_id"],
            row["status"],
            None if row["cards"] is None else tuple(json.loads(row["cards"])),
            None if row["paytable"] is None else json.loads(row["paytable"]),
        )
        for row in rows
    }


async def rounds_closed_at(
    connection: asyncpg.Connection, round_ids: Collection[str]
) -> dict[str, datetime]:
    """When each of these rounds closed (its RoundClosed's occurred_at), of those closed."""
    rows = await connection.fetch(
        "SELECT round_id, closed_at FROM wallet_rounds"
        " WHERE round_id = ANY($1::text[]) AND closed_at IS NOT NULL",
        list(round_ids),
    )
    return {row[0]: row[1] for row in rows}


async def lock_players(
    connection: asyncpg.Connection, store: AsyncpgEventStore, players: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], int]:
    """`lock_account` of many (operator, player), no balance: their stream versions, locked
    in order."""
    ordered = sorted(set(players))
    operators, ids = [o for o, _ in ordered], [p for _, p in ordered]
    await connection.execute(
        "INSERT INTO wallet_players (operator_id, player_id)"
        " SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING",
        operators,
        ids,
    )
    await connection.execute(
        "SELECT 1 FROM wallet_players w JOIN unnest($1::text[], $2::text[]) AS u(o, p)"
        " ON w.operator_id = u.o AND w.player_id = u.p"
        " ORDER BY w.operator_id, w.player_id FOR UPDATE OF w",
        operators,
        ids,
    )
    # read once the locks are held: a statement of its own, a snapshot of its own
    versions = await store.stream_versions(
        [player_stream(o, p) for o, p in ordered], connection=connection
    )
    return {(o, p): versions[player_stream(o, p)] for o, p in ordered}


async def credit_balances(
    connection: asyncpg.Connection, credits: Mapping[tuple[str, str, str], int]
) -> dict[tuple[str, str, str], int]:
    """Add each non-negative amount to its (operator, player, currency) account, creating
    it if new; the new balances."""
    if any(amount < 0 for amount in credits.values()):
        raise ValueError("credit_balances only credits")
    keys = sorted(credits)
    rows = await connection.fetch(
        "INSERT INTO wallet_accounts (operator_id, player_id, currency, balance)"
        " SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[])"
        " ON CONFLICT (operator_id, player_id, currency) DO UPDATE"
        " SET balance = wallet_accounts.balance + EXCLUDED.balance, updated_at = now()"
        " RETURNING operator_id, player_id, currency, balance",
        [k[0] for k in keys],
        [k[1] for k in keys],
        [k[2] for k in keys],
        [credits[k] for k in keys],
    )
    return {(r["operator_id"], r["player_id"], r["currency"]): int(r["balance"]) for r in rows}


async def mark_paid_many(
    connection: asyncpg.Connection, payments: Sequence[PaidBet], paid_at: datetime
) -> None:
    await connection.execute(
        "UPDATE wallet_bets b SET status = 'paid', outcome = u.outcome, returned = u.returned,"
        " paid_at = $4 FROM unnest($1::uuid[], $2::text[], $3::bigint[])"
        " AS u(bet_id, outcome, returned) WHERE b.bet_id = u.bet_id",
        [paid.bet_id for paid in payments],
        [paid.outcome for paid in payments],
        [paid.returned for paid in payments],
        paid_at,
    )


_BET_VIEW = """
SELECT b.seq, b.bet_id, b.slip_id, b.player_id, b.round_id, b.table_id, b.bet_type, b.stake,
       b.currency, b.placed_at, b.status, b.outcome, b.returned, b.paid_at,
       r.status AS round_status, r.cards::text AS cards, r.winner, r.player_a_hand,
       r.player_b_hand, r.six_card_bonus_hand
FROM wallet_bets b JOIN wallet_rounds r ON r.round_id = b.round_id
"""


async def player_bets(
    connection: asyncpg.Connection,
    operator_id: str,
    player_id: str,
    *,
    before_seq: int | None,
    limit: int,
) -> list[asyncpg.Record]:
    rows: list[asyncpg.Record] = await connection.fetch(
        _BET_VIEW + " WHERE b.operator_id = $1 AND b.player_id = $2"
        " AND ($3::bigint IS NULL OR b.seq < $3) ORDER BY b.seq DESC LIMIT $4",
        operator_id,
        player_id,
        before_seq,
        limit,
    )
    return rows


async def operator_bet(
    connection: asyncpg.Connection, operator_id: str, bet_id: UUID
) -> asyncpg.Record | None:
    row: asyncpg.Record | None = await connection.fetchrow(
        _BET_VIEW + " WHERE b.operator_id = $1 AND b.bet_id = $2", operator_id, bet_id
    )
    return row


async def operator_round_bets(
    connection: asyncpg.Connection, operator_id: str, round_id: str
) -> list[asyncpg.Record]:
    rows: list[asyncpg.Record] = await connection.fetch(
        _BET_VIEW + " WHERE b.operator_id = $1 AND b.round_id = $2 ORDER BY b.seq",
        operator_id,
        round_id,
    )
    return rows


# -------------------------------------------------------------------------- idempotency
@dataclass(frozen=True, slots=True)
class ClaimedKey:
    """The key as found: `first` when this request claimed it; else the stored answer
    (`status_code` None while a seamless slip waits for its operator's answer). A concurrent
    request with the same key waits for the first one to commit or roll back."""

    first: bool
    request_hash: str = ""
    status_code: int | None = None
    response: dict[str, Any] | None = None


async def claim_key(
    connection: asyncpg.Connection, operator_id: str, key: str, request_hash: str
) -> ClaimedKey:
    claimed = await connection.fetchval(
        "INSERT INTO wallet_idempotency (operator_id, key, request_hash) VALUES ($1, $2, $3)"
        " ON CONFLICT DO NOTHING RETURNING true",
        operator_id,
        key,
        request_hash,
    )
    if claimed:
        return ClaimedKey(first=True)
    row = await connection.fetchrow(
        "SELECT request_hash, status_code, response::text AS response FROM wallet_idempotency"
        " WHERE operator_id = $1 AND key = $2",
        operator_id,
        key,
    )
    assert row is not None
    return ClaimedKey(
        first=False,
        request_hash=row["request_hash"],
        status_code=row["status_code"],
        response=None if row["response"] is None else json.loads(row["response"]),
    )


async def stored_answer(
    connection: asyncpg.Connection, operator_id: str, key: str
) -> tuple[int, dict[str, Any]] | None:
    row = await connection.fetchrow(
        "SELECT status_code, response::text AS response FROM wallet_idempotency"
        " WHERE operator_id = $1 AND key = $2 AND status_code IS NOT NULL",
        operator_id,
        key,
    )
    return None if row is None else (int(row["status_code"]), json.loads(row["response"]))


async def store_answer(
    connection: asyncpg.Connection,
    operator_id: str,
    key: str,
    status_code: int,
    response: dict[str, Any],
) -> None:
    await connection.execute(
        "UPDATE wallet_idempotency SET status_code = $3, response = $4::json"
        " WHERE operator_id = $1 AND key = $2",
        operator_id,
        key,
        status_code,
        json.dumps(response, default=str),
    )


COMMIT_ORDER_ATTEMPTS = 5


async def in_commit_order(once: Callable[[], Awaitable[_T]]) -> _T:
    """Run a transaction that appends to a player's stream, again if the store refused the
    append for commit order (`CommitOrderError`: another writer of the stream went first
    with a newer transaction). It is rolled back whole, so running it again is safe; the
    next transaction is newer than that writer's."""
    for _ in range(COMMIT_ORDER_ATTEMPTS - 1):
        try:
            return await once()
        except CommitOrderError:
            continue
    return await once()
