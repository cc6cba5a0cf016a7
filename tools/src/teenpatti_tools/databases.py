"""Throwaway databases for tests and benchmarks."""

from __future__ import annotations

from collections.abc import Iterable

import asyncpg

from teenpatti.migrations import MigrationSet, apply
from teenpatti.settings import InfrastructureSettings

# the principals of the services, as a credentials folder names them
SERVICE_PRINCIPALS = ("table", "scanner-gateway", "settlement", "wallet")


def service_roles(settings: InfrastructureSettings) -> list[str]:
    """The Postgres role of each service where a credentials folder gives each its own;
    none otherwise (every process is the same role)."""
    if not settings.credentials_dir:
        return []
    return [settings.as_principal(principal).pg_user for principal in SERVICE_PRINCIPALS]


async def create_database(
    settings: InfrastructureSettings,
    name: str,
    *,
    owner: str | None = None,
    users: Iterable[str] = (),
) -> None:
    """Create `name` as the settings' (admin) role: owned by `owner` (a service's role, so
    that its migrations and the service itself may use it), or open to each of `users` (a
    test's database, whichever service runs on it, beside the test's own reads and writes as
    the admin: what the admin makes there, they may use too). No one else may connect."""
    users = [user for user in users if user != settings.pg_user]
    admin = await asyncpg.connect(settings.postgres_dsn("postgres"))
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        await admin.execute(f'REVOKE CONNECT, TEMPORARY ON DATABASE "{name}" FROM PUBLIC')
        if owner is not None and owner != settings.pg_user:
            await admin.execute(f'ALTER DATABASE "{name}" OWNER TO "{owner}"')
        for user in users:
            await admin.execute(
                f'GRANT CONNECT, CREATE, TEMPORARY ON DATABASE "{name}" TO "{user}"'
            )
    finally:
        await admin.close()
    if users:
        connection = await asyncpg.connect(settings.postgres_dsn(name))
        try:
            roles = ", ".join(f'"{user}"' for user in users)
            await connection.execute(f"GRANT CREATE, USAGE ON SCHEMA public TO {roles}")
            for objects in ("ALL ON TABLES", "ALL ON SEQUENCES", "EXECUTE ON FUNCTIONS"):
                await connection.execute(
                    f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT {objects} TO {roles}"
                )
        finally:
            await connection.close()


async def drop_database(admin: asyncpg.Connection, name: str) -> None:
    """Drop `name` after closing the connections to it of this role and of the roles it is a
    member of (the services' on the local stack).

    Not `DROP DATABASE ... WITH (FORCE)`: that refuses while an autovacuum worker is on the
    database, while a plain DROP DATABASE stops autovacuum by itself.
    """
    await admin.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
        " WHERE datname = $1 AND pid <> pg_backend_pid()"
        " AND (usename = current_user OR pg_has_role(usename, 'MEMBER'))",
        name,
    )
    await admin.execute(f'DROP DATABASE IF EXISTS "{name}"')


async def migrated(pool: asyncpg.Pool, *sets: MigrationSet) -> None:
    """Apply these migrations to the pool's database, as `teenpatti migrate` does."""
    async with pool.acquire() as connection:
        await apply(connection, sets)
