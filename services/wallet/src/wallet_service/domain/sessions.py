"""Player sessions, pure: what an operator opens for a player, the launch ticket that the
player's launch URL carries, and the session token the player then acts with. Time and
randomness are passed in.

A session is opened by the operator (`POST /sessions`) and answered with a launch URL that
carries only a **launch ticket**: random, single use, valid for seconds, kept as its SHA-256.
The player view exchanges the ticket (`POST /sessions/launch`) for the **session token**
`tps_<session id>_<secret>`: the session id (32 hex digits) is public, named in logs and
finds the session's row without a scan; the secret (64 hex digits, 256 random bits) is
answered once and only its SHA-256 is kept, as for API keys (teenpatti.access.keys). Nothing
long-lived ever travels in a URL (docs/decisions/0068-player-sessions-and-launch.md).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import UUID

from teenpatti.access.keys import TABLE_ID_PATTERN, digest
from teenpatti.seamless.calls import Answered, BadAnswer, CallOutcome, NoAnswer, Status

from .betting import WalletError
from .seamless import (
    BadOperatorAnswerError,
    OperatorRefusedError,
    OperatorUnavailableError,
    TokenExpiredError,
    UserDisabledError,
)

SESSION_TOKEN_PREFIX = "tps_"
LANGUAGES = ("en", "th", "fa", "ja", "ru")
DEFAULT_LANGUAGE = "en"
_SESSION_TOKEN = re.compile(r"^tps_([0-9a-f]{32})_([0-9a-f]{64})\Z")
_TICKET = re.compile(r"^tpl_[0-9a-f]{64}\Z")

# Session statuses
ACTIVE = "active"  # launched, neither expired nor ended
NOT_LAUNCHED = "not_launched"  # opened, its ticket not exchanged yet
EXPIRED = "expired"
ENDED = "ended"  # ended by the operator


class UnknownSessionError(WalletError):
    """Another operator's session is answered exactly like one that does not exist."""

    code = "unknown_session"


class SessionMismatchError(WalletError):
    """A player's request that names another player, currency or table than its session."""

    code = "session_mismatch"


@dataclass(frozen=True, slots=True)
class PlayerSession:
    """A session's row: whose it is, for what, until when. `operator_token` is the token the
    operator issued at launch: a seamless operator's `bet` calls carry it."""

    session_id: UUID
    operator_id: str
    player_id: str
    currency: str
    language: str
    table_id: str
    operator_token: str
    created_at: datetime
    expires_at: datetime
    launched_at: datetime | None = None
    ended_at: datetime | None = None
    ended_by: str | None = None
    secret_sha256: bytes | None = None  # set at launch

    def status(self, now: datetime) -> str:
        if self.ended_at is not None:  # whatever the clocks of the ender and the reader
            return ENDED
        if self.expires_at <= now:
            return EXPIRED
        if self.launched_at is None:
            return NOT_LAUNCHED
        return ACTIVE

    def opens_with(self, secret: str) -> bool:
        """Whether `secret` is this session's, compared in constant time."""
        return self.secret_sha256 is not None and secrets.compare_digest(
            self.secret_sha256, digest(secret)
        )

    def check_slip(self, player_id: str | None, currency: str | None, round_id: str) -> None:
        """A slip placed through this session may name only its player, currency and table
        (a round's id is `<table id>-<number>`)."""
        if player_id is not None and player_id != self.player_id:
            raise SessionMismatchError(
                f"the slip names player {player_id}; this session is player {self.player_id}'s"
            )
        if currency is not None and currency != self.currency:
            raise SessionMismatchError(
                f"the slip is in {currency}; this session plays in {self.currency}"
            )
        table_id = round_id.rpartition("-")[0]
        if table_id != self.table_id:
            raise SessionMismatchError(
                f"round {round_id} is not of table {self.table_id}, this session's table"
            )


@dataclass(frozen=True, slots=True)
class NewSession:
    """A session just opened: its row, and its launch ticket, to be put in the launch URL
    and never kept (its SHA-256 is)."""

    row: PlayerSession
    ticket: str
    ticket_sha256: bytes
    ticket_expires_at: datetime


@dataclass(frozen=True, slots=True)
class SessionToken:
    """A session token just issued at launch: shown once, only its SHA-256 kept."""

    token: str
    secret_sha256: bytes


def new_session(
    *,
    session_id: UUID,
    operator_id: str,
    player_id: str,
    currency: str,
    language: str,
    table_id: str,
    operator_token: str,
    now: datetime,
    lifetime: timedelta,
    ticket_lifetime: timedelta,
    token_hex: Callable[[int], str] = secrets.token_hex,
) -> NewSession:
    """A session for the player, checked (ValueError says what is wrong); the request's
    shape is checked at the HTTP edge, these are the rules beyond it."""
    if language not in LANGUAGES:
        raise ValueError(f"language {language!r}: one of {', '.join(LANGUAGES)}")
    if not TABLE_ID_PATTERN.match(table_id):
        raise ValueError(f"table id {table_id!r}: 1 to 32 letters, digits, '_' or '-'")
    ticket = f"tpl_{token_hex(32)}"
    row = PlayerSession(
        session_id=session_id,
        operator_id=operator_id,
        player_id=player_id,
        currency=currency,
        language=language,
        table_id=table_id,
        operator_token=operator_token,
        created_at=now,
        expires_at=now + lifetime,
    )
    return NewSession(
        row=row,
        ticket=ticket,
        ticket_sha256=digest(ticket),
        # a ticket never outlives its session
        ticket_expires_at=min(now + ticket_lifetime, row.expires_at),
    )


def session_token(
    session_id: UUID, token_hex: Callable[[int], str] = secrets.token_hex
) -> SessionToken:
    secret = token_hex(32)
    return SessionToken(
        token=f"{SESSION_TOKEN_PREFIX}{session_id.hex}_{secret}", secret_sha256=digest(secret)
    )


def parse_session_token(token: str) -> tuple[UUID, str] | None:
    """The session id and secret of a session token, else None."""
    match = _SESSION_TOKEN.match(token)
    return (UUID(hex=match[1]), match[2]) if match else None


def ticket_digest(ticket: str) -> bytes | None:
    """The SHA-256 a launch ticket is kept as, or None for a string that is no ticket."""
    return digest(ticket) if _TICKET.match(ticket) else None


def launch_url(base_url: str, table_id: str, ticket: str, language: str) -> str:
    """Where the operator sends the player: the player view of the table, with the ticket
    (single use, seconds long) and the language; never the session token."""
    return f"{base_url.rstrip('/')}/play/{table_id}?ticket={ticket}&lang={language}"


def operator_balance(outcome: CallOutcome) -> int:
    """A seamless player's balance (minor units) from its operator's answer to
    `/user/balance` with the session's token, else the refusal that says why not."""
    match outcome:
        case Answered(status=Status.RS_OK, balance=balance):
            return balance
        case Answered(status=Status.RS_ERROR_TOKEN_EXPIRED | Status.RS_ERROR_INVALID_TOKEN):
            raise TokenExpiredError(
                f"the operator refused the session's token: {outcome.status.value}",
                operator_status=outcome.status.value,
            )
        case Answered(status=Status.RS_ERROR_USER_DISABLED):
            raise UserDisabledError(
                "the operator has disabled the player", operator_status=outcome.status.value
            )
        case Answered(status=status):
            raise OperatorRefusedError(
                f"the operator refused the balance: {status.value}", operator_status=status.value
            )
        case NoAnswer(reason=reason, detail=detail):
            raise OperatorUnavailableError(
                f"no answer from the operator's wallet ({reason}: {detail})", reason=reason
            )
        case BadAnswer(reason=reason, detail=detail):
            raise BadOperatorAnswerError(
                f"the operator's answer is not usable ({reason}: {detail})", reason=reason
            )
    raise AssertionError(f"not an outcome: {outcome!r}")
