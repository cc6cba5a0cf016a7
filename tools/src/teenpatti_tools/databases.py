"""Throwaway databases for tests and benchmarks."""

from __future__ import annotations

import asyncpg

from teenpatti.migrations import MigrationSet, apply


async def drop_database(admin: asyncpg.Connection, name: str) -> None:
    """Drop `name` after closing this role's connections to it.

    Not `DROP DATABASE ... WITH (FORCE)`: that refuses while an autovacuum worker is on the
    database, while a plain DROP DATABASE stops autovacuum by itself.
    """
    await admin.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
        " WHERE datname = $1 AND usename = current_user AND pid <> pg_backend_pid()",
        name,
    )
    await admin.execute(f'DROP DATABASE IF EXISTS "{name}"')


async def migrated(pool: asyncpg.Pool, *sets: MigrationSet) -> None:
    """Apply these migrations to the pool's database, as `teenpatti migrate` does."""
    async with pool.acquire() as connection:
        await apply(connection, sets)
