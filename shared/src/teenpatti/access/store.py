"""The access database (`TP_ACCESS_DATABASE`, default `tp_access`): the only code that names
its table. `teenpatti keys` writes it; every service reads it (`PostgresKeyLookup`), with a
role that may only read it."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import TYPE_CHECKING, Any

import asyncpg

from teenpatti.access.keys import AccessKey
from teenpatti.migrations import Migration, MigrationSet, apply

if TYPE_CHECKING:
    from teenpatti.settings import InfrastructureSettings

MIGRATIONS = MigrationSet.from_package("access", "teenpatti.access.migrations")

# a request waits at most this long for the access database, then answers 503
LOOKUP_TIMEOUT_SECONDS = 5.0
_COLUMNS = (
    "key_id, holder, role, tables, secret_sha256, created_at, created_by, expires_at,"
    " revoked_at, revoked_by"
)


class KeyIdTakenError(Exception):
    """A new key's id is already in use (one chance in 2^48 a pair): draw another."""


class AccessKeyStore:
    """Issue, list and revoke keys, on a connection or a pool to the access database."""

    def __init__(self, db: asyncpg.Connection | asyncpg.Pool) -> None:
        self._db = db

    async def add(self, row: AccessKey) -> None:
        try:
            await self._db.execute(
                f"INSERT INTO access_keys ({_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8,"
                " $9, $10)",
                row.key_id,
                row.holder,
                row.role,
                None if row.tables is None else sorted(row.tables),
                row.secret_sha256,
                row.created_at,
                row.created_by,
                row.expires_at,
                row.revoked_at,
                row.revoked_by,
            )
        except asyncpg.UniqueViolationError:
            raise KeyIdTakenError(row.key_id) from None

    async def find(self, key_id: str) -> AccessKey | None:
        row = await self._db.fetchrow(
            f"SELECT {_COLUMNS} FROM access_keys WHERE key_id = $1", key_id
        )
        return None if row is None else _access_key(row)

    async def all(self, holder: str | None = None) -> list[AccessKey]:
        """Every key (of `holder`), oldest first."""
        rows = await self._db.fetch(
            f"SELECT {_COLUMNS} FROM access_keys WHERE $1::text IS NULL OR holder = $1"
            " ORDER BY created_at, key_id",
            holder,
        )
        return [_access_key(row) for row in rows]

    async def revoke(self, key_id: str, by: str, now: datetime) -> tuple[AccessKey, bool] | None:
        """The key after revoking it, and whether this call revoked it (False: it already
        was); None if there is no such key."""
        row = await self._db.fetchrow(
            f"UPDATE access_keys SET revoked_at = $3, revoked_by = $2"
            f" WHERE key_id = $1 AND revoked_at IS NULL RETURNING {_COLUMNS}",
            key_id,
            by,
            now,
        )
        if row is not None:
            return _access_key(row), True
        found = await self.find(key_id)
        return None if found is None else (found, False)


class PostgresKeyLookup:
    """A service's read of the access database: a small pool opened at the first lookup (a
    service whose callers use only the configured keys never connects), each lookup under
    a timeout."""

    def __init__(self, dsn: str, *, max_connections: int = 2) -> None:
        self._dsn = dsn
        self._max = max_connections
        self._pool: asyncpg.Pool | None = None
        self._opening = asyncio.Lock()

    async def find(self, key_id: str) -> AccessKey | None:
        pool = await self._open()
        async with asyncio.timeout(LOOKUP_TIMEOUT_SECONDS):
            return await AccessKeyStore(pool).find(key_id)

    async def _open(self) -> asyncpg.Pool:
        async with self._opening:
            if self._pool is None:
                self._pool = await asyncpg.create_pool(
                    self._dsn,
                    min_size=0,
                    max_size=self._max,
                    timeout=LOOKUP_TIMEOUT_SECONDS,
                    command_timeout=LOOKUP_TIMEOUT_SECONDS,
                )
            return self._pool

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()


async def migrate_access(
    settings: InfrastructureSettings, *, dsn: str | None = None
) -> list[Migration]:
    """Apply the access database's migrations (`teenpatti migrate access`)."""
    connection = await asyncpg.connect(dsn or settings.postgres_dsn(settings.access_database))
    try:
        return await apply(connection, [MIGRATIONS], lock_timeout=settings.migrate_lock_timeout)
    finally:
        await connection.close()


def _access_key(row: Any) -> AccessKey:
    tables = row["tables"]
    return AccessKey(
        key_id=row["key_id"],
        holder=row["holder"],
        role=row["role"],
        tables=None if tables is None else frozenset(tables),
        secret_sha256=bytes(row["secret_sha256"]),
        created_at=row["created_at"],
        created_by=row["created_by"],
        expires_at=row["expires_at"],
        revoked_at=row["revoked_at"],
        revoked_by=row["revoked_by"],
    )
