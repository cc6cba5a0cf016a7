"""The deploy step of one service (`teenpatti migrate`): its database's migrations, the event
store's and then its own. Here, above both, because the store's migrations are a part of the
event store (`teenpatti.eventsourcing.store`), which itself builds on `teenpatti.migrations`."""

from __future__ import annotations

from typing import Any

import asyncpg

from teenpatti.eventsourcing.store import MIGRATIONS as STORE_MIGRATIONS
from teenpatti.kernel.service import Service
from teenpatti.migrations import Migration, apply
from teenpatti.settings import InfrastructureSettings


async def migrate_service(
    service: Service[Any], settings: InfrastructureSettings, *, dsn: str | None = None
) -> list[Migration]:
    """Apply a service's database migrations (the store's, then its own), as the service's
    own principal where the settings name a credentials folder, so that its role owns its
    tables; `dsn`: another database than the settings' (its credentials replaced so too)."""
    settings = settings.as_principal(service.name)
    target = settings.postgres_dsn(dsn.rsplit("/", 1)[1].split("?")[0]) if dsn else None
    target = target or settings.postgres_dsn(service.database(settings))
    connection = await asyncpg.connect(target)
    try:
        return await apply(
            connection,
            [STORE_MIGRATIONS, service.migrations],
            lock_timeout=settings.migrate_lock_timeout,
        )
    finally:
        await connection.close()
