"""Migration files as the runner reads them: which run outside a transaction, which it
refuses, and no index built on a money table under a lock that blocks its writes
(docs/decisions/0094-online-migrations.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from teenpatti.eventsourcing import MIGRATIONS as STORE_MIGRATIONS
from teenpatti.migrations import (
    NO_TRANSACTION,
    MigrationError,
    MigrationSet,
    declared_services,
    sql_statements,
)

# The tables that hold money or the bets on it, by the component whose database holds them:
# a plain CREATE INDEX on one blocks every bet, payment or transfer for the length of the build.
MONEY_TABLES = {
    "wallet": {
        "wallet_accounts",
        "wallet_ledger",
        "wallet_transfers",
        "wallet_rounds",
        "wallet_bets",
        "wallet_round_balances",
        "wallet_corrections",
        "operator_calls",
        "operator_call_resends",
    },
    "settlement": {"rounds", "bets", "settlement_resolutions"},
}
# applied before the rule, on tables that were small then; never to grow
BUILT_BEFORE_THE_RULE = {("wallet", 4), ("wallet", 5), ("wallet", 7), ("wallet", 10)}

_INDEX_BUILD = re.compile(
    r"^CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?!CONCURRENTLY\b)(?:IF\s+NOT\s+EXISTS\s+)?"
    r"(?:\w+\s+)?ON\s+(?:ONLY\s+)?(\w+)",
    re.IGNORECASE,
)
_CREATED_TABLE = re.compile(r"^CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)", re.IGNORECASE)


def all_sets() -> list[MigrationSet]:
    services = [load() for load in declared_services().values()]
    return [STORE_MIGRATIONS, *(service.migrations for service in services)]


def blocking_index_builds(migration_set: MigrationSet) -> list[str]:
    """Each transactional CREATE INDEX on a money table the same file did not create."""
    money = MONEY_TABLES.get(migration_set.component, set())
    found = []
    for migration in migration_set.migrations:
        if not migration.transactional:
            continue
        created = {m[1] for s in migration.statements if (m := _CREATED_TABLE.match(s))}
        for statement in migration.statements:
            build = _INDEX_BUILD.match(statement)
            if build and build[1] in money and build[1] not in created:
                found.append(f"{migration}: {statement.splitlines()[0]}")
    return found


def test_no_migration_builds_an_index_on_a_money_table_in_a_transaction() -> None:
    found = [
        build
        for migration_set in all_sets()
        for build in blocking_index_builds(migration_set)
        if (migration_set.component, int(build.split()[1][:4])) not in BUILT_BEFORE_THE_RULE
    ]
    assert found == [], "build it CONCURRENTLY in a `-- teenpatti: no-transaction` file"


def test_the_check_finds_a_blocking_build_and_passes_a_concurrent_one(tmp_path: Path) -> None:
    (tmp_path / "0001_bets.sql").write_text(
        "CREATE TABLE wallet_bets (id int);\nCREATE INDEX wallet_bets_id ON wallet_bets (id);"
    )
    (tmp_path / "0002_by_id.sql").write_text(
        "-- why\nCREATE UNIQUE INDEX IF NOT EXISTS bets_u ON ONLY wallet_bets (id);"
    )
    (tmp_path / "0003_online.sql").write_text(
        f"{NO_TRANSACTION}\nCREATE INDEX CONCURRENTLY bets_o ON wallet_bets (id);"
    )
    found = blocking_index_builds(MigrationSet.from_folder("wallet", tmp_path))
    assert found == [
        "wallet 0002_by_id: CREATE UNIQUE INDEX IF NOT EXISTS bets_u ON ONLY wallet_bets (id)"
    ]


def test_the_wallet_rebuilds_its_indexes_of_bets_online() -> None:
    """By time (0013-0015), by round and player (0017-0019): each built beside the old one,
    the old one dropped, both without blocking the bets' writes."""
    wallet = next(s for s in all_sets() if s.component == "wallet")
    online = [m for m in wallet.migrations if not m.transactional]
    assert [(m.version, m.statements[0].split()[:4]) for m in online] == [
        (13, ["CREATE", "INDEX", "CONCURRENTLY", "IF"]),
        (14, ["DROP", "INDEX", "CONCURRENTLY", "IF"]),
        (17, ["CREATE", "INDEX", "CONCURRENTLY", "IF"]),
        (18, ["DROP", "INDEX", "CONCURRENTLY", "IF"]),
    ]


def test_a_no_transaction_file_of_two_statements_is_refused(tmp_path: Path) -> None:
    (tmp_path / "0001_two.sql").write_text(
        f"{NO_TRANSACTION}\nCREATE INDEX CONCURRENTLY a ON t (x);\nDROP INDEX CONCURRENTLY b;\n"
    )
    with pytest.raises(MigrationError, match=r"things 0001_two: .* exactly one statement, not 2"):
        MigrationSet.from_folder("things", tmp_path)


def test_a_concurrent_statement_in_a_transactional_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "0001_online.sql").write_text("-- no marker\ncreate index concurrently a on t (x);")
    with pytest.raises(MigrationError, match=r"first line is `-- teenpatti: no-transaction`"):
        MigrationSet.from_folder("things", tmp_path)


def test_the_marker_counts_on_the_first_line_only(tmp_path: Path) -> None:
    (tmp_path / "0001_later.sql").write_text(f"SELECT 1;\n{NO_TRANSACTION}\nSELECT 2;")
    assert MigrationSet.from_folder("things", tmp_path).migrations[0].transactional


def test_statements_are_split_on_semicolons_outside_quotes_comments_and_bodies() -> None:
    sql = """-- a comment; not a statement
    CREATE FUNCTION f() RETURNS text AS $body$ SELECT 'x;y'; $body$ LANGUAGE sql;
    /* a block; */ SELECT ';', 'it''s;', "odd;name" FROM t;
    ;  -- nothing
    COMMENT ON TABLE t IS $$one; two$$"""
    assert sql_statements(sql) == [
        "CREATE FUNCTION f() RETURNS text AS $body$ SELECT 'x;y'; $body$ LANGUAGE sql",
        "SELECT ';', 'it''s;', \"odd;name\" FROM t",
        "COMMENT ON TABLE t IS $$one; two$$",
    ]
