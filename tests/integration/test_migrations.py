"""Versioned migrations: the runner, the schema check a service makes at start, and the
`teenpatti migrate` command, against the real Postgres."""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
from pathlib import Path

import asyncpg
import pytest

from teenpatti.cli import main
from teenpatti.eventsourcing import MIGRATIONS as STORE_MIGRATIONS
from teenpatti.migrations import (
    MigrationError,
    MigrationSet,
    SchemaBehindError,
    apply,
    check,
)
from teenpatti.settings import InfrastructureSettings


def folder(tmp_path: Path, files: dict[str, str]) -> MigrationSet:
    for name, sql in files.items():
        (tmp_path / name).write_text(sql)
    return MigrationSet.from_folder("things", tmp_path)


async def test_applied_in_order_once_and_a_second_run_is_a_no_op(
    pool: asyncpg.Pool, tmp_path: Path
) -> None:
    things = folder(
        tmp_path,
        {
            "0002_add_colour.sql": "ALTER TABLE things ADD COLUMN colour text;",
            "0001_things.sql": "CREATE TABLE things (id int PRIMARY KEY);",
        },
    )
    async with pool.acquire() as connection:
        first = await apply(connection, [STORE_MIGRATIONS, things])
        second = await apply(connection, [STORE_MIGRATIONS, things])
        await check(connection, [STORE_MIGRATIONS, things], command="teenpatti migrate")
        recorded = await connection.fetch(
            "SELECT component, version, name FROM schema_migrations ORDER BY applied_at, version"
        )
    assert [str(m) for m in first] == [
        "store 0001_event_store",
        "store 0002_trace_context",
        "store 0003_parked_outbox_events",
        "store 0004_event_append",
        "things 0001_things",
        "things 0002_add_colour",
    ]
    assert second == []
    # one transaction, one applied_at: in version order
    assert [tuple(row) for row in recorded] == [
        ("store", 1, "event_store"),
        ("things", 1, "things"),
        ("store", 2, "trace_context"),
        ("things", 2, "add_colour"),
        ("store", 3, "parked_outbox_events"),
        ("store", 4, "event_append"),
    ]


async def test_runners_at_once_apply_each_migration_once(database: str, tmp_path: Path) -> None:
    things = folder(tmp_path, {"0001_things.sql": "CREATE TABLE things (id int PRIMARY KEY);"})
    connections = [await asyncpg.connect(database) for _ in range(3)]
    try:
        done = await asyncio.gather(
            *(apply(connection, [STORE_MIGRATIONS, things]) for connection in connections)
        )
    finally:
        for connection in connections:
            await connection.close()
    assert sorted(len(applied) for applied in done) == [0, 0, 5]  # the store's four, things'


async def test_a_runner_waits_for_another_no_longer_than_its_lock_timeout(
    pool: asyncpg.Pool, tmp_path: Path
) -> None:
    things = folder(tmp_path, {"0001_things.sql": "CREATE TABLE things (id int PRIMARY KEY);"})
    async with pool.acquire() as other, pool.acquire() as connection:
        await other.execute("SELECT pg_advisory_lock(7411000)")  # the runners' key
        with pytest.raises(MigrationError, match=r"another migration runner .* over 200ms"):
            await apply(connection, [things], lock_timeout="200ms")
        await other.execute("SELECT pg_advisory_unlock(7411000)")
        assert [m.version for m in await apply(connection, [things])] == [1]


async def test_a_database_one_migration_behind_is_refused_naming_the_command(
    pool: asyncpg.Pool, tmp_path: Path
) -> None:
    (tmp_path / "0001_things.sql").write_text("CREATE TABLE things (id int PRIMARY KEY);")
    async with pool.acquire() as connection:
        await apply(connection, [STORE_MIGRATIONS, MigrationSet.from_folder("things", tmp_path)])
        (tmp_path / "0002_more.sql").write_text("ALTER TABLE things ADD COLUMN more text;")
        behind = MigrationSet.from_folder("things", tmp_path)
        with pytest.raises(SchemaBehindError, match=r"things 0002_more; run `teenpatti migrate"):
            await check(connection, [STORE_MIGRATIONS, behind], command="teenpatti migrate")


async def test_a_changed_applied_migration_and_a_gap_are_errors(
    pool: asyncpg.Pool, tmp_path: Path
) -> None:
    (tmp_path / "0001_things.sql").write_text("CREATE TABLE things (id int PRIMARY KEY);")
    async with pool.acquire() as connection:
        await apply(connection, [MigrationSet.from_folder("things", tmp_path)])
        (tmp_path / "0001_things.sql").write_text("CREATE TABLE things (id bigint PRIMARY KEY);")
        with pytest.raises(MigrationError, match="changed after it was applied"):
            await apply(connection, [MigrationSet.from_folder("things", tmp_path)])
    (tmp_path / "0003_later.sql").write_text("SELECT 1;")
    with pytest.raises(MigrationError, match="migration 0002 is missing"):
        MigrationSet.from_folder("things", tmp_path)
    (tmp_path / "3_badly_named.sql").write_text("SELECT 1;")
    with pytest.raises(MigrationError, match=r"is not named NNNN_what_it_does\.sql"):
        MigrationSet.from_folder("things", tmp_path)


async def test_a_failing_migration_applies_nothing(pool: asyncpg.Pool, tmp_path: Path) -> None:
    things = folder(
        tmp_path,
        {
            "0001_things.sql": "CREATE TABLE things (id int PRIMARY KEY);",
            "0002_broken.sql": "ALTER TABLE nothing ADD COLUMN x int;",
        },
    )
    async with pool.acquire() as connection:
        with pytest.raises(asyncpg.UndefinedTableError):
            await apply(connection, [STORE_MIGRATIONS, things])
        assert await connection.fetchval("SELECT to_regclass('things')") is None
        assert await connection.fetchval("SELECT count(*) FROM schema_migrations") == 0


_NO_TRANSACTION = "-- teenpatti: no-transaction\n"


async def _index_valid(connection: asyncpg.Connection, name: str) -> bool | None:
    valid: bool | None = await connection.fetchval(
        "SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1)", name
    )
    return valid


async def test_a_no_transaction_migration_runs_alone_and_is_recorded(
    pool: asyncpg.Pool, tmp_path: Path
) -> None:
    things = folder(
        tmp_path,
        {
            "0001_things.sql": "CREATE TABLE things (id int PRIMARY KEY, n int);",
            "0002_things_by_n.sql": _NO_TRANSACTION
            + "-- built online\nCREATE INDEX CONCURRENTLY things_by_n ON things (n);\n",
            "0003_colour.sql": "ALTER TABLE things ADD COLUMN colour text;",
        },
    )
    assert [m.transactional for m in things.migrations] == [True, False, True]
    async with pool.acquire() as connection:
        first = await apply(connection, [things])
        second = await apply(connection, [things])
        recorded = await connection.fetch(
            "SELECT version, checksum FROM schema_migrations ORDER BY version"
        )
        assert await _index_valid(connection, "things_by_n") is True
    assert [m.version for m in first] == [1, 2, 3]
    assert second == []
    assert [(row[0], row[1]) for row in recorded] == [
        (m.version, m.checksum) for m in things.migrations
    ]


async def test_a_failed_concurrent_build_is_not_recorded_and_the_next_run_builds_it(
    pool: asyncpg.Pool, tmp_path: Path
) -> None:
    """A failed CREATE INDEX CONCURRENTLY leaves an INVALID index of its name, which makes
    a rerun's IF NOT EXISTS skip the build: the runner drops it first."""
    things = folder(
        tmp_path,
        {
            "0001_things.sql": "CREATE TABLE things (id int PRIMARY KEY, n int);",
            "0002_unique_n.sql": _NO_TRANSACTION
            + "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS things_n ON things (n);",
        },
    )
    async with pool.acquire() as connection:
        await apply(connection, [MigrationSet("things", things.migrations[:1])])
        await connection.execute("INSERT INTO things VALUES (1, 7), (2, 7)")
        with pytest.raises(asyncpg.UniqueViolationError):
            await apply(connection, [things])
        assert await _index_valid(connection, "things_n") is False
        assert (
            await connection.fetchval("SELECT count(*) FROM schema_migrations WHERE version = 2")
            == 0
        )
        await connection.execute("DELETE FROM things WHERE id = 2")
        rerun = await apply(connection, [things])
        assert [m.version for m in rerun] == [2]
        assert await _index_valid(connection, "things_n") is True
        with pytest.raises(asyncpg.UniqueViolationError):
            await connection.execute("INSERT INTO things VALUES (3, 7)")


async def test_a_concurrent_build_takes_no_lock_that_blocks_writers(
    pool: asyncpg.Pool, tmp_path: Path
) -> None:
    """While a writer's transaction is open the build waits for it, holding only SHARE
    UPDATE EXCLUSIVE on the table: another writer inserts meanwhile, nothing waits on the
    table (pg_locks)."""
    things = folder(
        tmp_path,
        {
            "0001_things.sql": "CREATE TABLE things (id int PRIMARY KEY, n int);",
            "0002_things_by_n.sql": _NO_TRANSACTION
            + "CREATE INDEX CONCURRENTLY things_by_n ON things (n);",
        },
    )
    async with pool.acquire() as connection:
        await apply(connection, [MigrationSet("things", things.migrations[:1])])
    held, runner, other, observer = [await pool.acquire() for _ in range(4)]
    try:
        writing = held.transaction()
        await writing.start()
        await held.execute("INSERT INTO things VALUES (1, 1)")
        build = asyncio.create_task(apply(runner, [things], lock_timeout="1min"))
        runner_pid = runner.get_server_pid()
        async with asyncio.timeout(30):
            while not await observer.fetchval(
                "SELECT count(*) FROM pg_locks WHERE pid = $1 AND NOT granted", runner_pid
            ):
                await asyncio.sleep(0.05)
            await other.execute("INSERT INTO things VALUES (2, 2)")  # not blocked
        on_table = await observer.fetch(
            "SELECT mode, granted FROM pg_locks WHERE relation = 'things'::regclass AND pid = $1",
            runner_pid,
        )
        assert [tuple(row) for row in on_table] == [("ShareUpdateExclusiveLock", True)]
        assert (
            await observer.fetchval(
                "SELECT count(*) FROM pg_locks WHERE relation = 'things'::regclass AND NOT granted"
            )
            == 0
        )
        assert not build.done()
        await writing.commit()
        async with asyncio.timeout(30):
            assert [m.version for m in await build] == [2]
        assert await _index_valid(observer, "things_by_n") is True
        assert await observer.fetchval("SELECT count(*) FROM things") == 2
    finally:
        for connection in (held, runner, other, observer):
            await pool.release(connection)


def _service_env(settings: InfrastructureSettings, database_name: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "TP_PG_PORT": str(settings.pg_port),
            "TP_TABLE_DATABASE": database_name,
            "TP_SCANNER_DATABASE": database_name,
            "TP_WALLET_DATABASE": database_name,
            "TP_SETTLEMENT_DATABASE": database_name,
        }
    )
    return env


async def test_teenpatti_migrate_twice_in_a_row_is_a_no_op_the_second_time(
    infrastructure: InfrastructureSettings, database_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TP_SCANNER_DATABASE", database_name)
    outputs = []
    for _ in range(2):
        out, err = io.StringIO(), io.StringIO()
        code = await asyncio.to_thread(main, ["migrate", "scanner-gateway"], None, out, err)
        assert code == 0, err.getvalue()
        outputs.append(out.getvalue())
    assert "applied store 0001_event_store" in outputs[0]
    assert outputs[1] == f"scanner-gateway: {database_name}: up to date\n"


def test_teenpatti_migrate_names_an_unknown_service() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["migrate", "croupier"], None, out, err) == 2
    assert "no service croupier (known: scanner-gateway, settlement, table, wallet, access)" in (
        err.getvalue()
    )


async def test_a_service_started_on_a_database_one_migration_behind_exits_with_a_message(
    infrastructure: InfrastructureSettings, database_name: str, pool: asyncpg.Pool
) -> None:
    from scanner_gateway.app import SERVICE

    async with pool.acquire() as connection:
        await apply(connection, [STORE_MIGRATIONS, SERVICE.migrations])
        await connection.execute(
            "DELETE FROM schema_migrations WHERE component = 'scanner-gateway' AND version = 1"
        )
    process = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "uvicorn", "scanner_gateway.app:app", "--port", "0"],
        env=_service_env(infrastructure, database_name),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode != 0
    assert (
        f"database {database_name} is behind: 1 scanner-gateway migration(s) not applied,"
        " the first scanner-gateway 0001_devices_and_scans; run"
        " `teenpatti migrate scanner-gateway`"
    ) in process.stderr


async def test_two_instances_starting_at_once_take_no_exclusive_lock_on_the_store(
    settings: InfrastructureSettings, database_name: str, pool: asyncpg.Pool
) -> None:
    """A reader holds the weakest lock on `events` for the whole start: any DDL at start
    (which needs an exclusive lock) would wait behind it and the start would time out."""
    from scanner_gateway.app import SERVICE
    from scanner_gateway.config import ScannerSettings
    from tests.integration.services import running

    scanner = ScannerSettings(**settings.model_dump(), scanner_database=database_name)
    async with pool.acquire() as connection:
        await apply(connection, [STORE_MIGRATIONS, SERVICE.migrations])
    reader = await pool.acquire()
    try:
        async with reader.transaction():
            await reader.execute("LOCK TABLE events IN ACCESS SHARE MODE")

            async def start_and_answer() -> int:
                async with running(SERVICE.create_app(scanner)) as client:
                    return (await client.get("/health")).status_code

            async with asyncio.timeout(60):
                assert await asyncio.gather(start_and_answer(), start_and_answer()) == [200, 200]
            waiting = await reader.fetchval(
                "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'events'::regclass"
            )
            assert waiting == 0
    finally:
        await pool.release(reader)
