"""Who holds a request's API key: one of the configured keys (`TP_API_KEYS`), else a key of
the access database, read through a short cache so that a revocation takes effect within
`TP_ACCESS_CACHE_SECONDS` without a restart (an expiry takes effect at once: the cached row
carries it). Every refusal is logged and counted (`teenpatti.http.refusal`)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Protocol

from teenpatti.access.keys import AccessKey, parse_key
from teenpatti.http import ApiKeys, KeyHolder, ProblemError, record_refusal, refusal

log = logging.getLogger(__name__)

# rows (and absences) remembered at once: a flood of made-up key ids cannot grow it further
MAX_CACHED_KEYS = 10_000


class KeyLookup(Protocol):
    async def find(self, key_id: str) -> AccessKey | None: ...

    async def close(self) -> None: ...


class AccessUnavailableError(ConnectionError):
    """The access database cannot be read for the moment: the request answers 503 with
    Retry-After (a ConnectionError, so the kernel's handler of unreachable servers takes it)."""


def _now() -> datetime:
    return datetime.now(UTC)


class Authenticator:
    def __init__(
        self,
        configured: ApiKeys,
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
        if roles and found.role not in roles:
            raise refusal(
                "wrong_role",
                ProblemError(403, "forbidden", f"this action needs the role {' or '.join(roles)}"),
                holder=found,
                path=path,
            )
        return found

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


def _invalid(reason: str, path: str, key_id: str | None = None) -> ProblemError:
    return refusal(
        reason,
        ProblemError(
            401, "invalid_api_key", "the API key is not known, has expired or was revoked"
        ),
        key_id=key_id,
        path=path,
    )
