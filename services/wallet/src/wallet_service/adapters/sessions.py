"""The SQL of the player sessions (`wallet_sessions`, migrations/0006). Each function is one
statement on the caller's connection; the ticket's exchange and the ending are single
conditional updates, so two requests cannot both use one ticket or end one session twice."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import asyncpg

from ..domain.sessions import NewSession, PlayerSession

_COLUMNS = (
    "session_id, operator_id, player_id, currency, language, table_id, operator_token,"
    " created_at, expires_at, launched_at, ended_at, ended_by, secret_sha256"
)


async def insert_session(connection: asyncpg.Connection, new: NewSession, created_by: str) -> None:
    row = new.row
    await connection.execute(
        "INSERT INTO wallet_sessions (session_id, operator_id, player_id, currency, language,"
        " table_id, operator_token, ticket_sha256, ticket_expires_at, created_at, created_by,"
        " expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
        row.session_id,
        row.operator_id,
        row.player_id,
        row.currency,
        row.language,
        row.table_id,
        row.operator_token,
        new.ticket_sha256,
        new.ticket_expires_at,
        row.created_at,
        created_by,
        row.expires_at,
    )


async def find_session(connection: asyncpg.Connection, session_id: UUID) -> PlayerSession | None:
    row = await connection.fetchrow(
        f"SELECT {_COLUMNS} FROM wallet_sessions WHERE session_id = $1", session_id
    )
    return None if row is None else _session(row)


async def session_of_ticket(connection: asyncpg.Connection, ticket_sha256: bytes) -> UUID | None:
    """The session of an unspent ticket, locked until the caller's transaction ends: a second
    request with the same ticket waits, then finds it spent."""
    found: UUID | None = await connection.fetchval(
        "SELECT session_id FROM wallet_sessions WHERE ticket_sha256 = $1 FOR UPDATE",
        ticket_sha256,
    )
    return found


async def launch(
    connection: asyncpg.Connection,
    session_id: UUID,
    ticket_sha256: bytes,
    secret_sha256: bytes,
    now: datetime,
) -> PlayerSession | None:
    """Spend the ticket and set the session's secret, if the ticket is unspent and in time and
    its session neither ended nor expired; else None (nothing changed)."""
    row = await connection.fetchrow(
        "UPDATE wallet_sessions SET ticket_sha256 = NULL, secret_sha256 = $3, launched_at = $4"
        " WHERE session_id = $1 AND ticket_sha256 = $2 AND ticket_expires_at > $4"
        f" AND expires_at > $4 AND ended_at IS NULL RETURNING {_COLUMNS}",
        session_id,
        ticket_sha256,
        secret_sha256,
        now,
    )
    return None if row is None else _session(row)


async def end_session(
    connection: asyncpg.Connection, operator_id: str, session_id: UUID, ended_by: str, now: datetime
) -> PlayerSession | None:
    """End the operator's session and answer it; an ended one is
    answered as it is, with its first ending; None for another operator's or an unknown one."""
    row = await connection.fetchrow(
        "UPDATE wallet_sessions SET ended_at = COALESCE(ended_at, $3),"
        " ended_by = COALESCE(ended_by, $4)"
        f" WHERE session_id = $1 AND operator_id = $2 RETURNING {_COLUMNS}",
        session_id,
        operator_id,
        now,
        ended_by,
    )
    return None if row is None else _session(row)


def _session(row: asyncpg.Record) -> PlayerSession:
    return PlayerSession(
        session_id=row["session_id"],
        operator_id=row["operator_id"],
        player_id=row["player_id"],
        currency=row["currency"],
        language=row["language"],
        table_id=row["table_id"],
        operator_token=row["operator_token"],
        created_at=row["created_at"],
        expires_at=row["expires_at"],
        launched_at=row["launched_at"],
        ended_at=row["ended_at"],
        ended_by=row["ended_by"],
        secret_sha256=None if row["secret_sha256"] is None else bytes(row["secret_sha256"]),
    )
