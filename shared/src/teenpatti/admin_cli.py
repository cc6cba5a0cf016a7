"""What the admin's commands (`teenpatti keys`, `operators`, `reconcile`) share: the admin's
settings, and one connection to a database for one piece of work, every failure a clear
`AdminDatabaseError` (exit status 2), never a traceback."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import asyncpg

T = TypeVar("T")


class AdminDatabaseError(Exception):
    """Bad settings, or a database that cannot be used: the message says which and why."""


def admin_settings(settings_class: type[Any]) -> Any:
    """`settings_class` from the environment, as the admin where a credentials folder holds
    its credentials (decision 0050); public development secrets refused outside development."""
    from pydantic import ValidationError

    from teenpatti.settings import ADMIN, CredentialsError, DefaultSecretError

    try:
        settings = settings_class().as_principal(ADMIN)
        settings.refuse_default_secrets(redis=False, kafka=False)  # Postgres only
    except (ValidationError, DefaultSecretError, CredentialsError) as error:
        raise AdminDatabaseError(str(error)) from None
    return settings


def with_connection(
    dsn: str,
    database: str,
    work: Callable[[asyncpg.Connection], Awaitable[T]],
    *,
    missing_table: str,
) -> T:
    """`work` on one connection; `database` names it in messages ("the wallet database
    tp_wallet"), `missing_table` says what lacks and what to run when its schema is not there
    ("has no operators table: run `teenpatti migrate wallet`")."""
    import asyncpg

    async def run() -> T:
        connection: asyncpg.Connection = await asyncpg.connect(dsn, timeout=10)
        try:
            return await work(connection)
        finally:
            await connection.close()

    try:
        return asyncio.run(run())
    except asyncpg.UndefinedTableError:
        raise AdminDatabaseError(f"{database} {missing_table}") from None
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        raise AdminDatabaseError(
            f"{database} cannot be used: {type(error).__name__}: {error}"
        ) from None
