"""Player sessions, the use cases: the operator opens, shows and ends a session; the player
view exchanges the launch ticket for the session token; every player request resolves its
token to the session (read each time, so an ending or an expiry takes effect at once). A
seamless player's balance is its operator's, asked for the session at most once every
`TP_SESSION_BALANCE_CACHE_SECONDS` (`SessionBalances`)."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import asyncpg

from teenpatti.seamless import CallOutcome

from .adapters import sessions as db
from .config import WalletSettings
from .domain.betting import WalletError
from .domain.sessions import (
    ACTIVE,
    PlayerSession,
    UnknownSessionError,
    launch_url,
    new_session,
    parse_session_token,
    session_token,
    ticket_digest,
)

Clock = Callable[[], datetime]
# the sessions whose balance answer is kept at once; past it the least recently asked goes
MAX_KEPT_BALANCES = 100_000


class InvalidSessionError(WalletError):
    """One refusal for a token that is malformed, unknown, not this session's, expired or
    ended: the reason is for the log (`reason`), never for the caller."""

    code = "invalid_session"

    def __init__(self, reason: str, session_id: UUID | None = None) -> None:
        super().__init__("the session is not known, has expired or was ended")
        self.reason = reason
        self.session_id = session_id


class InvalidTicketError(WalletError):
    """One refusal for a launch ticket that is malformed, unknown, used, late, or whose
    session has ended or expired."""

    code = "invalid_ticket"

    def __init__(self, reason: str) -> None:
        super().__init__("the launch ticket is not known, was used or has expired")
        self.reason = reason


class PlayerSessions:
    def __init__(
        self,
        pool: asyncpg.Pool,
        settings: WalletSettings,
        clock: Clock = lambda: datetime.now(UTC),
    ) -> None:
        self._pool = pool
        self._lifetime = timedelta(seconds=settings.session_lifetime_seconds)
        self._ticket_lifetime = timedelta(seconds=settings.session_ticket_seconds)
        self._player_view_url = settings.player_view_url
        self._clock = clock
        self.balances = SessionBalances(settings.session_balance_cache_seconds)

    async def open(
        self,
        operator_id: str,
        *,
        opened_by: str,
        player_id: str,
        currency: str,
        language: str,
        table_id: str,
        operator_token: str,
    ) -> dict[str, Any]:
        """A new session and its launch URL (the only time its ticket is seen)."""
        new = new_session(
            session_id=uuid4(),
            operator_id=operator_id,
            player_id=player_id,
            currency=currency,
            language=language,
            table_id=table_id,
            operator_token=operator_token,
            now=self._clock(),
            lifetime=self._lifetime,
            ticket_lifetime=self._ticket_lifetime,
        )
        async with self._pool.acquire() as connection:
            await db.insert_session(connection, new, opened_by)
        return {
            "session_id": str(new.row.session_id),
            "expires_at": new.row.expires_at.isoformat(),
            "launch_url": launch_url(self._player_view_url, table_id, new.ticket, language),
            "launch_expires_at": new.ticket_expires_at.isoformat(),
        }

    async def launch(self, ticket: str) -> dict[str, Any]:
        """Spend the ticket; answer the session token (the only time it is seen)."""
        sha256 = ticket_digest(ticket)
        if sha256 is None:
            raise InvalidTicketError("malformed")
        now = self._clock()
        async with self._pool.acquire() as connection, connection.transaction():
            session_id = await db.session_of_ticket(connection, sha256)
            if session_id is None:
                raise InvalidTicketError("unknown or used")
            token = session_token(session_id)  # it names the session it opens
            session = await db.launch(connection, session_id, sha256, token.secret_sha256, now)
        if session is None:
            raise InvalidTicketError("late, or its session ended or expired")
        return {
            "session_id": str(session.session_id),
            "session_token": token.token,
            "token_type": "Session",
            "expires_at": session.expires_at.isoformat(),
            **_player_view(session),
        }

    async def resolve(self, token: str) -> PlayerSession:
        """The active session of `token`, else InvalidSessionError."""
        parsed = parse_session_token(token)
        if parsed is None:
            raise InvalidSessionError("malformed")
        session_id, secret = parsed
        async with self._pool.acquire() as connection:
            session = await db.find_session(connection, session_id)
        if session is None or not session.opens_with(secret):
            raise InvalidSessionError("unknown", session_id)
        status = session.status(self._clock())
        if status != ACTIVE:
            raise InvalidSessionError(status, session_id)
        return session

    async def show(self, operator_id: str, session_id: UUID) -> dict[str, Any]:
        async with self._pool.acquire() as connection:
            session = await db.find_session(connection, session_id)
        if session is None or session.operator_id != operator_id:
            raise UnknownSessionError(f"session {session_id} is not known")
        return self._operator_view(session)

    async def end(self, operator_id: str, session_id: UUID, ended_by: str) -> dict[str, Any]:
        """End the session at once (the next request of its token is refused); ending an
        ended session changes nothing."""
        async with self._pool.acquire() as connection:
            session = await db.end_session(
                connection, operator_id, session_id, ended_by, self._clock()
            )
        if session is None:
            raise UnknownSessionError(f"session {session_id} is not known")
        return self._operator_view(session)

    def _operator_view(self, session: PlayerSession) -> dict[str, Any]:
        return {
            "session_id": str(session.session_id),
            "status": session.status(self._clock()),
            "created_at": session.created_at.isoformat(),
            "expires_at": session.expires_at.isoformat(),
            "launched_at": _iso(session.launched_at),
            "ended_at": _iso(session.ended_at),
            **_player_view(session),
        }


@dataclass
class _Asked:
    at: float
    answer: asyncio.Task[CallOutcome]


class SessionBalances:
    """A seamless operator's answer to a session's balance call, kept `seconds` from the
    call: however often a session asks (a page reloaded in a loop, a script), its operator
    gets at most one signed `/user/balance` call per `seconds` from this instance, and never
    two at once; the answers in between are the last one. A call that fails is kept as
    long: a failing operator is not asked faster."""

    def __init__(
        self,
        seconds: float,
        *,
        monotonic: Callable[[], float] = time.monotonic,
        max_sessions: int = MAX_KEPT_BALANCES,
    ) -> None:
        self._seconds = seconds
        self._monotonic = monotonic
        self._max_sessions = max_sessions
        self._asked: OrderedDict[UUID, _Asked] = OrderedDict()

    async def of(self, session_id: UUID, ask: Callable[[], Awaitable[CallOutcome]]) -> CallOutcome:
        """The session's balance answer: the kept one, else `ask()`'s, once for all askers."""
        now = self._monotonic()
        asked = self._asked.get(session_id)
        if asked is None or (asked.answer.done() and now - asked.at >= self._seconds):
            asked = self._asked[session_id] = _Asked(now, asyncio.ensure_future(ask()))
            if len(self._asked) > self._max_sessions:
                self._asked.popitem(last=False)
        self._asked.move_to_end(session_id)
        # one asker leaving (its client gone) does not cancel the call the others wait for
        return await asyncio.shield(asked.answer)


def _player_view(session: PlayerSession) -> dict[str, Any]:
    return {
        "player_id": session.player_id,
        "currency": session.currency,
        "language": session.language,
        "table_id": session.table_id,
    }


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(UTC).isoformat()
