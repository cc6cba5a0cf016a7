"""API keys issued to people and operators: their format, their hash and their scope. Pure:
time and randomness are passed in.

A key reads `tp_<key id>_<secret>`: the key id (12 hex digits) is public, named in lists and
logs, and finds the key's row without a scan; the secret (64 hex digits, 256 random bits) is
shown once, at issue, and only its SHA-256 is kept. A fast hash is enough for a secret that
no one chose: guessing 2^256 values is out of reach however fast each guess is, and a slow
KDF would cost every request CPU time that a flood of bad keys could spend
(docs/decisions/0053-api-keys-in-an-access-database.md).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

KEY_PREFIX = "tp_"
# a viewer reads tables, results and feeds and acts on nothing (the web front's own key)
ROLES = ("operator", "supervisor", "dealer", "viewer")
# roles whose keys may be limited to some tables; an operator's key acts for the operator
SCOPED_ROLES = ("supervisor", "dealer")
KEY_ID_PATTERN = re.compile(r"^[0-9a-f]{12}\Z")
HOLDER_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}\Z")
# the table service's own rule for a table id (table_service.domain.state.TABLE_ID_PATTERN)
TABLE_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}\Z")
MAX_TABLES = 1000
DEFAULT_LIFETIME = timedelta(days=90)
# every key expires: a forgotten key stops working within a year
MAX_LIFETIME = timedelta(days=366)
_KEY = re.compile(r"^tp_([0-9a-f]{12})_([0-9a-f]{64})\Z")
_DURATION = re.compile(r"^(\d{1,6})([mhdw])\Z")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def hash_key(key: str) -> str:
    """The SHA-256 of a key, as kept: a configured key's, a device credential's."""
    return hashlib.sha256(key.encode()).hexdigest()


class InvalidKeySpecError(ValueError):
    """A key's holder, role, tables or expiry that cannot be issued; the message says why."""


@dataclass(frozen=True, slots=True)
class AccessKey:
    """A key's row: who holds it, what it may do, until when."""

    key_id: str
    holder: str
    role: str
    tables: frozenset[str] | None  # None: every table
    secret_sha256: bytes
    created_at: datetime
    created_by: str
    expires_at: datetime
    revoked_at: datetime | None = None
    revoked_by: str | None = None

    def status(self, now: datetime) -> str:
        """`active`, `expired` or `revoked` at `now`."""
        if self.revoked_at is not None:  # whatever the clocks of the revoker and the reader
            return "revoked"
        if self.expires_at <= now:
            return "expired"
        return "active"

    def opens_with(self, secret: str) -> bool:
        """Whether `secret` is this key's, compared in constant time."""
        return hmac.compare_digest(self.secret_sha256, digest(secret))


@dataclass(frozen=True, slots=True)
class NewKey:
    """A key just issued: its row, and the key itself, to be shown once and never kept."""

    row: AccessKey
    key: str


def digest(secret: str) -> bytes:
    return hashlib.sha256(secret.encode()).digest()


def parse_key(key: str) -> tuple[str, str] | None:
    """The key id and secret of a key in the access database's format, else None."""
    match = _KEY.match(key)
    return (match[1], match[2]) if match else None


def new_key(
    *,
    holder: str,
    role: str,
    tables: frozenset[str] | None,
    expires_at: datetime,
    created_by: str,
    now: datetime,
    token_hex: Callable[[int], str] = secrets.token_hex,
) -> NewKey:
    """A new key for `holder`, checked (InvalidKeySpecError says what is wrong)."""
    check_spec(holder=holder, role=role, tables=tables, expires_at=expires_at, now=now)
    if not created_by.strip() or len(created_by) > 100:
        raise InvalidKeySpecError("the issuer's name must be 1 to 100 characters")
    key_id, secret = token_hex(6), token_hex(32)
    row = AccessKey(
        key_id=key_id,
        holder=holder,
        role=role,
        tables=tables,
        secret_sha256=digest(secret),
        created_at=now,
        created_by=created_by,
        expires_at=expires_at,
    )
    return NewKey(row=row, key=f"{KEY_PREFIX}{key_id}_{secret}")


def check_spec(
    *,
    holder: str,
    role: str,
    tables: frozenset[str] | None,
    expires_at: datetime,
    now: datetime,
) -> None:
    if not HOLDER_PATTERN.match(holder):
        raise InvalidKeySpecError(
            f"holder {holder!r}: 1 to 64 letters, digits, '.', '_', '@' or '-', starting with a"
            " letter or a digit"
        )
    if role not in ROLES:
        raise InvalidKeySpecError(f"role {role!r}: one of {', '.join(ROLES)}")
    if tables is not None and role not in SCOPED_ROLES:
        raise InvalidKeySpecError(
            f"an {role}'s key acts for the {role} on every table: --tables is for the keys of"
            f" {' and '.join(f'{r}s' for r in SCOPED_ROLES)}"
        )
    if expires_at <= now:
        raise InvalidKeySpecError("the expiry must be in the future")
    if expires_at - now > MAX_LIFETIME:
        raise InvalidKeySpecError(f"a key lives at most {MAX_LIFETIME.days} days")


def parse_tables(text: str) -> frozenset[str] | None:
    """`all` (every table, None) or a comma-separated list of table ids."""
    if text.strip().lower() == "all":
        return None
    tables = [part.strip() for part in text.split(",") if part.strip()]
    if not tables:
        raise InvalidKeySpecError("no table given: a list such as T01,T02, or all")
    for table_id in tables:
        if not TABLE_ID_PATTERN.match(table_id):
            raise InvalidKeySpecError(
                f"table id {table_id!r}: 1 to 32 letters, digits, '_' or '-', starting with a"
                " letter or a digit"
            )
    if len(set(tables)) > MAX_TABLES:
        raise InvalidKeySpecError(f"at most {MAX_TABLES} tables; a wider key is `all`")
    return frozenset(tables)


def parse_expiry(text: str, now: datetime) -> datetime:
    """When a key given `--expires TEXT` at `now` expires: a duration (`30m`, `12h`, `90d`,
    `2w`) or an ISO 8601 time (UTC when it has no zone)."""
    text = text.strip()
    duration = _DURATION.match(text)
    if duration:
        try:
            return now + timedelta(**{_UNITS[duration[2]]: int(duration[1])})
        except OverflowError:
            raise InvalidKeySpecError(f"a key lives at most {MAX_LIFETIME.days} days") from None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidKeySpecError(
            f"expiry {text!r}: a duration such as 90d, 12h, 2w, or an ISO 8601 time such as"
            " 2027-03-01T00:00:00Z"
        ) from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


@dataclass(frozen=True, slots=True)
class ConfiguredKey:
    """An entry of `TP_API_KEYS` or of `TP_API_KEYS_FILE`: a key given in the configuration,
    scoped and expiring as the access database's keys may be."""

    holder: str
    role: str
    key: str
    tables: frozenset[str] | None  # None: every table
    expires_at: datetime | None  # None: never


_CONFIGURED = re.compile(
    r"^(?P<holder>[^:]+):(?P<role>[^:]+):(?P<key>[^:]+)"
    r"(?::tables=(?P<tables>[^:]+))?(?::expires=(?P<expires>.+))?\Z"
)


def parse_configured_key(entry: str) -> ConfiguredKey:
    """`holder:role:key[:tables=T01|T02][:expires=<ISO 8601 time>]`, checked as a key to issue
    is (a role, tables for supervisors and dealers only); InvalidKeySpecError names the
    holder and what is wrong, never the key."""
    name = entry.split(":", 1)[0].strip()
    match = _CONFIGURED.match(entry.strip())
    if match is None:
        raise InvalidKeySpecError(
            f"API key entry {name!r}: need holder:role:key, then optionally :tables=T01|T02"
            " and :expires=<ISO 8601 time> (a key holds no ':')"
        )
    role = match["role"]
    if role not in ROLES:
        raise InvalidKeySpecError(
            f"API key entry {name!r}: role {role!r}: one of {', '.join(ROLES)}"
        )
    tables = None
    if match["tables"] is not None:
        if role not in SCOPED_ROLES:
            raise InvalidKeySpecError(
                f"API key entry {name!r}: an {role}'s key acts for the {role} on every table:"
                f" tables= is for the keys of {' and '.join(f'{r}s' for r in SCOPED_ROLES)}"
            )
        try:
            tables = parse_tables(match["tables"].replace("|", ","))
        except InvalidKeySpecError as error:
            raise InvalidKeySpecError(f"API key entry {name!r}: {error}") from None
        if tables is None:
            raise InvalidKeySpecError(f"API key entry {name!r}: tables=all is the default")
    expires_at = None
    if match["expires"] is not None:
        try:
            moment = datetime.fromisoformat(match["expires"])
        except ValueError:
            raise InvalidKeySpecError(
                f"API key entry {name!r}: expires= takes an ISO 8601 time such as"
                " 2027-03-01T00:00:00Z"
            ) from None
        expires_at = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
    return ConfiguredKey(name, role, match["key"], tables, expires_at)
