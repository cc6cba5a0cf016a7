"""Versioned schema migrations: numbered SQL files per database, applied in order, once.

Each database holds the event store's tables (`teenpatti.eventsourcing.migrations`) and one
service's projections (the `migrations/` folder beside that service's code). A folder of
files `NNNN_what_it_does.sql` is a `MigrationSet` named after its component (`store`,
`table`, ...). `apply` runs the files not yet applied, in order, in one transaction under a
`lock_timeout`, and records each in `schema_migrations` with its checksum: run twice, the
second run does nothing. `teenpatti migrate` is the deploy step; a service only checks, at
start, that its database is not behind (`check`), and refuses to start if it is.

A file whose first line is `-- teenpatti: no-transaction` holds exactly one statement, run
outside any transaction (`CREATE INDEX CONCURRENTLY`, which takes no lock that blocks writes)
and recorded once it succeeded; the files before it are committed first. A concurrent build
that failed leaves an INVALID index of its name: the next run drops it (concurrently) before
building again (docs/decisions/0094-online-migrations.md).

Concurrent runners wait for each other on a session-level advisory lock, taken by polling so
that a waiting runner holds no snapshot a concurrent index build would wait for: two deploys
cannot apply the same file twice; a service's start takes no lock at all.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

import asyncpg

_FILE_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
# one key for every runner of this project on a database (pg_advisory_lock takes bigint)
_RUNNER_LOCK = 7_411_000
# the first line of a file that runs outside a transaction (one statement, decision 0094)
NO_TRANSACTION = "-- teenpatti: no-transaction"
# what cannot run in a transaction block: such a statement needs NO_TRANSACTION
_CONCURRENTLY = re.compile(
    r"^\s*(CREATE\s+(UNIQUE\s+)?INDEX|DROP\s+INDEX|REINDEX\b.*?)\s+CONCURRENTLY\b",
    re.IGNORECASE | re.DOTALL,
)
# the index a concurrent build makes: the name a failed build leaves INVALID
_CONCURRENT_BUILD = re.compile(
    r"^\s*CREATE\s+(?:UNIQUE\s+)?INDEX\s+CONCURRENTLY\s+(?:IF\s+NOT\s+EXISTS\s+)?"
    r"((?:\w+|\"[^\"]+\")(?:\.(?:\w+|\"[^\"]+\"))?)\s+ON\b",
    re.IGNORECASE,
)


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

    @property
    def transactional(self) -> bool:
        """False when the file's first line is NO_TRANSACTION."""
        return self.sql.lstrip("\ufeff").split("\n", 1)[0].strip() != NO_TRANSACTION

    @property
    def statements(self) -> list[str]:
        return sql_statements(self.sql)

    def validate(self) -> None:
        """Raise MigrationError when the file cannot run as it declares: a no-transaction
        file of other than one statement (it could half-apply), or a statement that cannot
        run in a transaction in a file that does not say NO_TRANSACTION."""
        statements = self.statements
        if not self.transactional:
            if len(statements) != 1:
                raise MigrationError(
                    f"{self}: a `{NO_TRANSACTION}` migration holds exactly one statement,"
                    f" not {len(statements)}: split it into one file per statement"
                )
            return
        for statement in statements:
            if _CONCURRENTLY.match(statement):
                raise MigrationError(
                    f"{self}: {statement.split(None, 3)[:3]} ... CONCURRENTLY cannot run in a"
                    f" transaction: put it alone in a file whose first line is"
                    f" `{NO_TRANSACTION}`"
                )

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
            migration.validate()
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
    """Apply what is not applied yet, in order; what was applied. The transactional files
    between two no-transaction ones go in one transaction; a no-transaction file runs alone.

    A migration already recorded with another checksum (its file changed after it ran) is
    an error, raised before anything runs: a change to a schema is a new file. `lock_timeout`
    bounds how long a statement waits for a table's lock (a long transaction holding it), and
    how long this runner waits for another: the run fails instead of queueing every other
    query of the service behind it."""
    timeout = _interval(lock_timeout)
    await _take_runner_lock(connection, timeout)
    try:
        async with connection.transaction():
            await connection.execute(_RECORD)
        applied = await applied_versions(connection)
        pending = [
            migration
            for migration_set in sets
            for migration in migration_set.migrations
            if _pending(migration, applied)
        ]
        done: list[Migration] = []
        for batch in _batches(pending):
            if batch[0].transactional:
                async with connection.transaction():
                    await connection.execute(f"SET LOCAL lock_timeout = '{timeout}'")
                    for migration in batch:
                        await connection.execute(migration.sql)
                        await _record(connection, migration)
            else:
                await _apply_outside_transaction(connection, batch[0], timeout)
            done.extend(batch)
        return done
    finally:
        await connection.execute("SELECT pg_advisory_unlock($1)", _RUNNER_LOCK)


def _pending(migration: Migration, applied: dict[tuple[str, int], str]) -> bool:
    recorded = applied.get((migration.component, migration.version))
    if recorded is None:
        return True
    if recorded != migration.checksum:
        raise MigrationError(
            f"{migration} was changed after it was applied: a change to the schema goes in a"
            " new file"
        )
    return False


def _batches(pending: list[Migration]) -> list[list[Migration]]:
    """Runs of transactional migrations, each no-transaction migration alone, in order."""
    batches: list[list[Migration]] = []
    for migration in pending:
        if migration.transactional and batches and batches[-1][0].transactional:
            batches[-1].append(migration)
        else:
            batches.append([migration])
    return batches


async def _take_runner_lock(connection: asyncpg.Connection, lock_timeout: str) -> None:
    """The session-level runner lock, tried in a loop: a runner blocked in pg_advisory_lock
    would hold a snapshot, which another runner's CREATE INDEX CONCURRENTLY waits for (a
    deadlock); between tries this one holds none."""
    deadline = time.monotonic() + _seconds(lock_timeout)
    while not await connection.fetchval("SELECT pg_try_advisory_lock($1)", _RUNNER_LOCK):
        if time.monotonic() > deadline:
            raise MigrationError(
                f"another migration runner has held the database for over {lock_timeout}"
                " (lock_timeout): try again when it is done"
            )
        await asyncio.sleep(0.05)


async def _apply_outside_transaction(
    connection: asyncpg.Connection, migration: Migration, lock_timeout: str
) -> None:
    """One statement in autocommit, then its record: a failed build is not recorded and an
    INVALID index it left is dropped (concurrently) before the next try builds it again."""
    statement = migration.statements[0]
    await connection.execute(f"SET lock_timeout = '{lock_timeout}'")
    try:
        build = _CONCURRENT_BUILD.match(statement)
        if build is not None:
            invalid = await connection.fetchval(
                "SELECT NOT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1)",
                build[1],
            )
            if invalid:
                await connection.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {build[1]}")
        await connection.execute(statement)
    finally:
        await connection.execute("RESET lock_timeout")
    async with connection.transaction():
        await _record(connection, migration)


async def _record(connection: asyncpg.Connection, migration: Migration) -> None:
    await connection.execute(
        "INSERT INTO schema_migrations (component, version, name, checksum)"
        " VALUES ($1, $2, $3, $4)",
        migration.component,
        migration.version,
        migration.name,
        migration.checksum,
    )


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


def _seconds(interval: str) -> float:
    number = int(re.sub(r"\D", "", interval))
    return number / 1000 if interval.endswith("ms") else number * (60 if "min" in interval else 1)


# a token of SQL that may hold a `;` which ends no statement (quotes, comments, dollar quotes)
_TOKEN = re.compile(
    r"""--[^\n]*|/\*.*?\*/|'(?:[^']|'')*'|"(?:[^"]|"")*"|(\$(?:[A-Za-z_]\w*)?\$).*?\1|;""",
    re.DOTALL,
)


def sql_statements(sql: str) -> list[str]:
    """The statements of a migration file, comments dropped: a `;` inside a string, a quoted
    name, a comment or a dollar-quoted body ends none (nested block comments aside)."""
    statements: list[str] = []
    current: list[str] = []
    position = 0
    for token in _TOKEN.finditer(sql):
        current.append(sql[position : token.start()])
        text = token.group()
        if text == ";":
            statements.append("".join(current))
            current = []
        elif not text.startswith(("--", "/*")):
            current.append(text)
        position = token.end()
    current.append(sql[position:])
    statements.append("".join(current))
    return [statement.strip() for statement in statements if statement.strip()]


SERVICES_ENTRY_POINT = "teenpatti.services"


def declared_services() -> dict[str, Callable[[], Any]]:
    """Every installed service by name, from the `teenpatti.services` entry points the service
    packages register: each loads the service's declaration (`teenpatti.kernel.Service`)."""
    from importlib.metadata import entry_points

    return {point.name: point.load for point in entry_points(group=SERVICES_ENTRY_POINT)}
