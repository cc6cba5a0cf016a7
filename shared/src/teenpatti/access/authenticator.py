"""Who holds a request's API key: one of the configured keys (`TP_API_KEYS`,
`TP_API_KEYS_FILE`), else a key of the access database, read through a short cache so that a
revocation takes effect within `TP_ACCESS_CACHE_SECONDS` without a restart (an expiry takes
effect at once: the cached row, or the configured entry, carries it). A connection that
stays open (a feed) asks again (`recheck`). Every refusal is logged and counted
(`teenpatti.access.holders.refusal`)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Protocol

from teenpatti.access.holders import KeyHolder, record_refusal, refusal
from teenpatti.access.keys import AccessKey, parse_key
from teenpatti.http import ProblemError

log = logging.getLogger(__name__)

# rows (and absences) remembered at once: a flood of made-up key ids cannot grow it further
MAX_CACHED_KEYS = 10_000


class KeyLookup(Protocol):
    async def find(self, key_id: str) -> AccessKey | None: ...

    async def close(self) -> None: ...


class ConfiguredLookup(Protocol):
    """The configured keys (`ApiKeys`, or `ConfiguredKeys` with its file)."""

    def find(self, key: str) -> KeyHolder | None: ...

    def holds(self, holder: KeyHolder) -> bool: ...


class AccessUnavailableError(ConnectionError):
    """The access database cannot be read for the moment: the request answers 503 with
    Retry-After (a ConnectionError, so the kernel's handler of unreachable servers takes it)."""


def _now() -> datetime:
    return datetime.now(UTC)


class Authenticator:
    def __init__(
        self,
        configured: ConfiguredLookup,
        stored: KeyLookup | None,
        *,
        cache_seconds: float,
        clock: Callable[[], datetime] = _now,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._configured = configured
        self._stored = stored
        self._cache_seconds = cache_seconds
        self._clock = clock
        self._monotonic = monotonic
        self._cache: dict[str, tuple[float, AccessKey | None]] = {}

    async def holder(self, key: str | None, roles: Sequence[str] = (), path: str = "") -> KeyHolder:
        """The key's holder if it has one of `roles` (any role when none is named), else a
        401 or 403 ProblemError."""
        if not key:
            raise refusal(
                "missing",
                ProblemError(401, "missing_api_key", "send the API key in the X-Api-Key header"),
                path=path,
            )
        found = self._configured.find(key)
        if found is None:
            found = await self._stored_holder(key, path)
        elif found.expires_at is not None and found.expires_at <= self._clock():
            raise _invalid("expired", path, holder=found)
        if roles and found.role not in roles:
            raise refusal(
                "wrong_role",
                ProblemError(403, "forbidden", f"this action needs the role {' or '.join(roles)}"),
                holder=found,
                path=path,
            )
        return found

    @property
    def cache_seconds(self) -> float:
        """How long a revocation may take to be seen: what an open connection waits between
        two `recheck`s."""
        return self._cache_seconds

    async def recheck(self, holder: KeyHolder, path: str = "") -> None:
        """A 401 ProblemError unless `holder`'s key still holds: its row active (a database
        key), or its configured entry still there and not expired. For a connection opened
        without the key at hand (a feed's ticket); with the key, `holder(key)` again."""
        if holder.key_id is not None:
            row = await self._row(holder.key_id, path)
            status = "unknown" if row is None else row.status(self._clock())
            if status != "active":
                raise _invalid(status, path, holder.key_id)
            return
        if not self._configured.holds(holder):
            raise _invalid("revoked", path, holder=holder)
        if holder.expires_at is not None and holder.expires_at <= self._clock():
            raise _invalid("expired", path, holder=holder)

    async def _stored_holder(self, key: str, path: str) -> KeyHolder:
        parsed = parse_key(key) if self._stored is not None else None
        if parsed is None:
            raise _invalid("unknown", path)
        key_id, secret = parsed
        row = await self._row(key_id, path)
        # one answer for every invalid key: the reason is for the log, not for the caller
        if row is None or not row.opens_with(secret):
            raise _invalid("unknown", path, key_id)
        status = row.status(self._clock())
        if status != "active":
            raise _invalid(status, path, key_id)
        return KeyHolder(row.holder, row.role, key_id=row.key_id, tables=row.tables)

    async def _row(self, key_id: str, path: str) -> AccessKey | None:
        assert self._stored is not None
        now = self._monotonic()
        cached = self._cache.get(key_id)
        if cached is not None and now - cached[0] < self._cache_seconds:
            return cached[1]
        try:
            row = await self._stored.find(key_id)
        except Exception as error:
            # unreadable (down, not migrated, no grant): the key is refused, never let through
            record_refusal("access_unavailable", key_id=key_id, path=path)
            log.warning("the access database cannot be read: %s: %s", type(error).__name__, error)
            raise AccessUnavailableError("the access database cannot be read") from error
        if self._cache_seconds > 0:
            if len(self._cache) >= MAX_CACHED_KEYS:
                self._cache.pop(next(iter(self._cache)))
            self._cache[key_id] = (now, row)
        return row

    async def close(self) -> None:
        self._cache.clear()
        if self._stored is not None:
            await self._stored.close()


def _invalid(
    reason: str, path: str, key_id: str | None = None, holder: KeyHolder | None = None
) -> ProblemError:
    return refusal(
        reason,
        ProblemError(
            401, "invalid_api_key", "the API key is not known, has expired or was revoked"
        ),
        holder=holder,
        key_id=key_id,
        path=path,
    )
