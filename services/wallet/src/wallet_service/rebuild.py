"""`teenpatti rebuild wallet`: the wallet's money projections rebuilt from its own event
stream into fresh tables (a schema of their own), then compared row for row with the live
ones (docs/audit.md, "Rebuilding a service's projections").

Each projection is compared on what the events carry: the live table's surrogate ids
(`seq`, `entry_id`) and the times its rows were written (`created_at`, `updated_at`,
`paid_at`) are not facts of the stream. Rows of accounts that hold nothing are left out on
both sides (a slip refused for its limits still locks, so creates, its player's row)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import asyncpg

from teenpatti.events.catalog import registry
from teenpatti.eventsourcing.store import AsyncpgEventStore, GlobalPosition
from teenpatti.rebuild import ProjectionCheck, RebuildReport

from .domain.rebuild import WalletProjections, fold

PAGE = 5_000


@dataclass(frozen=True)
class Projection:
    """A projection as rebuilt (`columns` of the fresh table) and as it lives (`live`, the
    same columns read from the service's table)."""

    name: str
    columns: str
    live: str


PROJECTIONS = (
    Projection(
        "wallet_accounts",
        "operator_id text, player_id text, currency text, balance bigint",
        "SELECT operator_id, player_id, currency, balance FROM public.wallet_accounts"
        " WHERE balance <> 0",
    ),
    Projection(
        "wallet_transfers",
        "operator_id text, transfer_id text, kind text, player_id text, currency text,"
        " amount bigint, balance_after bigint",
        "SELECT operator_id, transfer_id, kind, player_id, currency, amount, balance_after"
        " FROM public.wallet_transfers",
    ),
    Projection(
        "wallet_bets",
        "bet_id uuid, slip_id uuid, operator_id text, player_id text, round_id text,"
        " table_id text, bet_type text, stake bigint, currency text, placed_at timestamptz,"
        " status text, outcome text, returned bigint",
        "SELECT bet_id, slip_id, operator_id, player_id, round_id, table_id, bet_type, stake,"
        " currency, placed_at, status, outcome, returned FROM public.wallet_bets",
    ),
    Projection(
        "wallet_ledger",
        "account text, operator_id text, player_id text, currency text, amount bigint,"
        " kind text, reference text",
        "SELECT account, operator_id, player_id, currency, amount, kind, reference"
        " FROM public.wallet_ledger",
    ),
    Projection(
        "wallet_round_seals",
        "round_id text, table_id text, bet_count integer, total_stake jsonb, digest text",
        "SELECT round_id, table_id, bet_count, total_stake, digest FROM public.wallet_rounds"
        " WHERE sealed_at IS NOT NULL",
    ),
)
SHOWN = 20  # differing rows shown per projection and side


async def rebuild(connection: asyncpg.Connection, *, keep: bool = False) -> RebuildReport:
    """Fold the wallet's stream, write the projections into a new schema, compare each with
    the live table; the schema is dropped unless `keep`."""
    projections = fold([item async for item in _events(connection)])
    schema = f"rebuild_wallet_{datetime.now(UTC):%Y%m%d%H%M%S%f}"
    await connection.execute(f"CREATE SCHEMA {schema}")
    try:
        checks = []
        for projection, rows in zip(PROJECTIONS, _rows(projections), strict=True):
            table = f"{schema}.{projection.name}"
            await connection.execute(f"CREATE TABLE {table} ({projection.columns})")
            await connection.copy_records_to_table(
                projection.name, schema_name=schema, records=rows
            )
            checks.append(await _compare(connection, projection, table, len(rows)))
    finally:
        if not keep:
            await connection.execute(f"DROP SCHEMA {schema} CASCADE")
    return RebuildReport(
        service="wallet",
        events=projections.events,
        schema=schema if keep else None,
        projections=checks,
        disagreements=projections.disagreements,
    )


async def _events(connection: asyncpg.Connection) -> AsyncIterator[tuple[Any, Any]]:
    """Every event of the store in commit order, decoded, with its cause."""
    store = AsyncpgEventStore(pool=None, producer="rebuild")  # reads on `connection` only
    after = GlobalPosition()
    while True:
        page = await store.read_all(after, PAGE, connection=connection)
        for stored in page:
            event = registry.decode_json(
                stored.event_type, stored.schema_version, stored.payload_json
            )
            yield event, stored.causation_id
        if len(page) < PAGE:
            return
        after = page[-1].global_position


def _rows(p: WalletProjections) -> list[list[tuple[Any, ...]]]:
    return [
        [(*key, balance) for key, balance in p.accounts.items() if balance != 0],
        [(*key, *transfer) for key, transfer in p.transfers.items()],
        [(bet_id, *bet) for bet_id, bet in p.bets.items()],
        [row for row, times in p.ledger.items() for _ in range(times)],
        [
            (round_id, table_id, count, _jsonb(total), digest)
            for round_id, (table_id, count, total, digest) in p.seals.items()
        ],
    ]


def _jsonb(value: dict[str, int]) -> str:
    return json.dumps(value)


async def _compare(
    connection: asyncpg.Connection, projection: Projection, table: str, rebuilt: int
) -> ProjectionCheck:
    live_rows = f"({projection.live})"
    only_live = await connection.fetch(
        f"{live_rows} EXCEPT ALL (SELECT * FROM {table}) LIMIT {SHOWN}"
    )
    only_rebuilt = await connection.fetch(
        f"(SELECT * FROM {table}) EXCEPT ALL {live_rows} LIMIT {SHOWN}"
    )
    counts = await connection.fetchrow(
        f"SELECT (SELECT count(*) FROM {live_rows} AS l) AS live,"
        f" (SELECT count(*) FROM ({live_rows} EXCEPT ALL (SELECT * FROM {table})) AS a) AS a,"
        f" (SELECT count(*) FROM ((SELECT * FROM {table}) EXCEPT ALL {live_rows}) AS b) AS b"
    )
    assert counts is not None
    return ProjectionCheck(
        name=projection.name,
        live_rows=int(counts["live"]),
        rebuilt_rows=rebuilt,
        only_live=int(counts["a"]),
        only_rebuilt=int(counts["b"]),
        examples_live=[_text(row) for row in only_live],
        examples_rebuilt=[_text(row) for row in only_rebuilt],
    )


def _text(row: asyncpg.Record) -> dict[str, Any]:
    return {
        key: value if isinstance(value, int | str | None) else str(value)
        for key, value in row.items()
    }
