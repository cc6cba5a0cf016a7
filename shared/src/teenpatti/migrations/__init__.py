"""Versioned schema migrations: numbered SQL files per database, applied in order, once.

Each database holds the event store's tables (`teenpatti.eventsourcing.migrations`) and one
service's projections (the `migrations/` folder beside that service's code). A folder of
files `NNNN_what_it_does.sql` is a `MigrationSet` named after its component (`store`,
`table`, ...). `apply` runs the files not yet applied, in order, in one transaction under a
`lock_timeout`, and records each in `schema_migrations` with its checksum: run twice, the
second run does nothing. `teenpatti migrate` is the deploy step; a service only checks, at
start, that its database is not behind (`check`), and refuses to start if it is.

Concurrent runners wait for each other on an advisory lock, so two deploys cannot apply the
same file twice; a service's start takes no lock at all.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

import asyncpg

_FILE_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
# one key for every runner of this project on a database (pg_advisory_xact_lock takes bigint)
_RUNNER_LOCK = 7_411_000


class MigrationError(RuntimeError):
    """A migration folder or a database's record of it is not as it must be."""


class SchemaBehindError(MigrationError):
    """The database lacks migrations this code needs: run `teenpatti migrate` first."""


@dataclass(frozen=True, slots=True)
class Migration:
    component: str
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()

    def __str__(self) -> str:
        return f"{self.component} {self.version:04d}_{self.name}"


@dataclass(frozen=True, slots=True)
class MigrationSet:
    """One component's migrations, numbered from 1 without gaps."""

    component: str
    migrations: tuple[Migration, ...]

    @classmethod
    def from_package(cls, component: str, package: str) -> MigrationSet:
        """The `NNNN_*.sql` files of an importable package's folder."""
        return cls.from_folder(component, resources.files(package))

    @classmethod
    def from_folder(cls, component: str, folder: Traversable) -> MigrationSet:
        found: list[Migration] = []
        for entry in folder.iterdir():
            match = _FILE_NAME.match(entry.name)
            if match is None:
                if entry.name.endswith(".sql"):
                    raise MigrationError(
                        f"{component}: {entry.name} is not named NNNN_what_it_does.sql"
                    )
                continue
            found.append(
                Migration(component, int(match[1]), match[2], entry.read_text(encoding="utf-8"))
            )
        found.sort(key=lambda migration: migration.version)
        for expected, migration in enumerate(found, start=1):
            if migration.version != expected:
                raise MigrationError(f"{component}: migration {expected:04d} is missing")
        return cls(component, tuple(found))

    @property
    def latest(self) -> int:
        return self.migrations[-1].version if self.migrations else 0


# the runner's own record of what it applied: the one table no migration file creates
_RECORD = resources.files(__name__).joinpath("schema_migrations.sql").read_text(encoding="utf-8")


async def applied_versions(connection: asyncpg.Connection) -> dict[tuple[str, int], str]:
    """(component, version) -> checksum of what the database records as applied."""
    exists = await connection.fetchval("SELECT to_regclass('schema_migrations') IS NOT NULL")
    if not exists:
        return {}
    rows = await connection.fetch("SELECT component, version, checksum FROM schema_migrations")
    return {(row[0], row[1]): row[2] for row in rows}


async def apply(
    connection: asyncpg.Connection,
    sets: Sequence[MigrationSet],
    *,
    lock_timeout: str = "10s",
) -> list[Migration]:
    """Apply what is not applied yet, in order, all in one transaction; what was applied.

    A migration already recorded with another checksum (its file changed after it ran) is
    an error: a change to a schema is a new file. `lock_timeout` bounds how long a statement
    waits for a table's lock (a long transaction holding it): the run fails instead of
    queueing every other query of the service behind it."""
    done: list[Migration] = []
    async with connection.transaction():
        await connection.execute(f"SET LOCAL lock_timeout = '{_interval(lock_timeout)}'")
        await connection.execute("SELECT pg_advisory_xact_lock($1)", _RUNNER_LOCK)
        await connection.execute(_RECORD)
        applied = await applied_versions(connection)
        for migration_set in sets:
            for migration in migration_set.migrations:
                recorded = applied.get((migration.component, migration.version))
                if recorded is not None:
                    if recorded != migration.checksum:
                        raise MigrationError(
                            f"{migration} was changed after it was applied: a change to the"
                            " schema goes in a new file"
                        )
                    continue
                await connection.execute(migration.sql)
                await connection.execute(
                    "INSERT INTO schema_migrations (component, version, name, checksum)"
                    " VALUES ($1, $2, $3, $4)",
                    migration.component,
                    migration.version,
                    migration.name,
                    migration.checksum,
                )
                done.append(migration)
    return done


async def check(
    connection: asyncpg.Connection, sets: Sequence[MigrationSet], *, command: str
) -> None:
    """Raise SchemaBehindError, naming `command`, when the database lacks a migration."""
    applied = await applied_versions(connection)
    for migration_set in sets:
        missing = [
            migration
            for migration in migration_set.migrations
            if (migration.component, migration.version) not in applied
        ]
        if missing:
            database = await connection.fetchval("SELECT current_database()")
            raise SchemaBehindError(
                f"database {database} is behind: {len(missing)} {migration_set.component}"
                f" migration(s) not applied, the first {missing[0]}; run `{command}`"
            )


def _interval(text: str) -> str:
    if not re.fullmatch(r"\d+(ms|s|min)", text):
        raise ValueError(f"lock_timeout must look like 500ms, 10s or 1min, not {text!r}")
    return text


SERVICES_ENTRY_POINT = "teenpatti.services"


def declared_services() -> dict[str, Callable[[], Any]]:
    """Every installed service by name, from the `teenpatti.services` entry points the service
    packages register: each loads the service's declaration (`teenpatti.kernel.Service`)."""
    from importlib.metadata import entry_points

    return {point.name: point.load for point in entry_points(group=SERVICES_ENTRY_POINT)}
