"""The transactions API of the wallet: every money movement of an operator, of either wallet
mode, by time range and by round, a page at a time; and the daily summary of its settled
bets per currency (stakes, returns, GGR) with the corrections of that day apart.

A movement is one of: a `deposit` or `withdrawal` (transfer), a `slip` taken (either mode),
a transfer slip's `win` (its returns, 0 for a loss) or `refund` (a void round), and each call
to a seamless operator's wallet (`bet`, `win`, `rollback`) with the operator's last answer,
and a `correction` of a round voided after its result (per player and currency: its net,
what moved here, and a shortfall, or at a seamless operator the net listed for it).
Pages follow the key (`at`, `id`): a page never repeats nor skips a movement of a range
whose end is past (docs/decisions/0069-transactions-and-reconciliation.md)."""

from __future__ import annotations

import base64
import binascii
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import asyncpg

from teenpatti.http import ProblemError

from .adapters import transactions as db

MAX_PAGE = 1_000


def parse_time(name: str, value: str | None) -> datetime | None:
    """An ISO 8601 time with its offset (`Z` or `+hh:mm`); a time without one is refused:
    an operator's midnight is not ours."""
    if value is None or value == "":
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise ProblemError(
            400,
            "invalid_time",
            f"{name}: {value!r} is not an ISO 8601 time (e.g. 2026-12-02T00:00:00Z)",
            parameter=name,
        ) from None
    if parsed.tzinfo is None:
        raise ProblemError(
            400,
            "invalid_time",
            f"{name}: {value!r} has no UTC offset; add Z or +hh:mm",
            parameter=name,
        )
    return parsed.astimezone(UTC)


def time_range(since: str | None, until: str | None) -> tuple[datetime, datetime]:
    """`from` inclusive, `to` exclusive; either left out is open (the first and the last
    movement)."""
    start = parse_time("from", since) or datetime.min.replace(tzinfo=UTC)
    end = parse_time("to", until) or datetime.max.replace(tzinfo=UTC)
    if start > end:
        raise ProblemError(
            400, "invalid_range", f"from ({since}) is after to ({until})", parameter="from"
        )
    return start, end


def encode_cursor(at: datetime, movement_id: str) -> str:
    raw = f"{at.astimezone(UTC).isoformat()}|{movement_id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> tuple[datetime, str] | None:
    if cursor is None or cursor == "":
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        at, movement_id = raw.split("|", 1)
        parsed = datetime.fromisoformat(at)
        if parsed.tzinfo is None or not movement_id:
            raise ValueError(raw)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise ProblemError(
            400,
            "invalid_cursor",
            "the cursor is not one this service gave out: send next_cursor as received",
            parameter="cursor",
        ) from None
    return parsed, movement_id


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(UTC).isoformat()


def movement_view(row: asyncpg.Record) -> dict[str, Any]:
    answer = (
        None
        if row["answer_status"] is None and row["answer_raw"] is None
        else {
            "status": row["answer_status"],
            "body": row["answer_raw"],
            "at": _iso(row["answered_at"]),
        }
    )
    return {
        "id": row["id"],
        "kind": row["kind"],
        "wallet": row["wallet"],
        "player_id": row["player_id"],
        "round_id": row["round_id"],
        "table_id": row["table_id"],
        "slip_id": None if row["slip_id"] is None else str(row["slip_id"]),
        "transaction_uuid": row["transaction_uuid"],
        "reference_transaction_uuid": row["reference_transaction_uuid"],
        "amount": row["amount"],
        "currency": row["currency"],
        "status": row["status"],
        "attempts": row["attempts"],
        "round_closed": row["round_closed"],
        "at": _iso(row["at"]),
        "finished_at": _iso(row["finished_at"]),
        "operator_answer": answer,
        "error": row["error"],
        "applied": row["applied"],
        "shortfall": row["shortfall"],
    }


async def transactions_page(
    pool: asyncpg.Pool,
    operator_id: str,
    *,
    since: str | None,
    until: str | None,
    round_id: str | None,
    cursor: str | None,
    limit: int,
) -> dict[str, Any]:
    """A page of the operator's movements, oldest first; `next_cursor` null on the last."""
    start, end = time_range(since, until)
    after = decode_cursor(cursor)
    rows = await db.movements(
        pool,
        operator_id,
        since=start,
        until=end,
        round_id=round_id,
        after=after,
        limit=limit + 1,
    )
    page = rows[:limit]
    more = len(rows) > limit
    return {
        "items": [movement_view(row) for row in page],
        "next_cursor": encode_cursor(page[-1]["at"], page[-1]["id"]) if more else None,
    }


def parse_day(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ProblemError(
            400,
            "invalid_date",
            f"date: {value!r} is not an ISO 8601 date (e.g. 2026-12-02)",
            parameter="date",
        ) from None


async def daily_report(pool: asyncpg.Pool, operator_id: str, day: str) -> dict[str, Any]:
    """The operator's bets settled on that UTC day, per currency: `stakes`, `returns` and
    `ggr` (stakes - returns) of the rounds played to a result, and the stakes refunded by
    void rounds apart (no revenue)."""
    start = datetime.combine(parse_day(day), time(), tzinfo=UTC)
    rows = await db.daily_totals(pool, operator_id, start, start + timedelta(days=1))
    corrected = {
        row["currency"]: row
        for row in await db.daily_corrections(pool, operator_id, start, start + timedelta(days=1))
    }
    settled = {row["currency"]: row for row in rows}
    return {
        "operator_id": operator_id,
        "date": start.date().isoformat(),
        "from": start.isoformat(),
        "to": (start + timedelta(days=1)).isoformat(),
        "currencies": [
            _day_of(currency, settled.get(currency), corrected.get(currency))
            for currency in sorted(settled.keys() | corrected.keys())
        ],
    }


def _day_of(
    currency: str, settled: asyncpg.Record | None, corrected: asyncpg.Record | None
) -> dict[str, Any]:
    """One currency of the daily report: the bets settled that day, and apart the
    corrections made that day of rounds voided after their result (a round played on one
    day may be voided on the next)."""
    stakes = 0 if settled is None else int(settled["stakes"])
    returns = 0 if settled is None else int(settled["returns"])
    return {
        "currency": currency,
        "bets": 0 if settled is None else settled["bets"],
        "stakes": stakes,
        "returns": returns,
        "ggr": stakes - returns,
        "refunded_bets": 0 if settled is None else settled["refunded_bets"],
        "refunded": 0 if settled is None else settled["refunded"],
        "corrections": None
        if corrected is None
        else {
            "bets": int(corrected["bets"]),
            "net": int(corrected["net"]),
            "applied": int(corrected["applied"]),
            "shortfall": int(corrected["shortfall"]),
            "listed": int(corrected["listed"]),
        },
    }
