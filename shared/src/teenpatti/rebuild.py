"""`teenpatti rebuild SERVICE`: a service's projections rebuilt from its own event stream
into fresh tables and compared, row for row, with the live ones (docs/audit.md,
"Rebuilding a service's projections"). A service declares what it rebuilds
(`Service.rebuild`); the command runs it on the service's database as the admin.

Exit status: 0 every projection equal; 1 a difference (each listed); 2 bad input (a service
that is not installed or rebuilds nothing, a database that cannot be reached)."""

from __future__ import annotations

import argparse
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    import asyncpg

EXIT_EQUAL, EXIT_DIFFERENT = 0, 1


class RebuildUsageError(Exception):
    """A bad argument, or a database that cannot be used: exit status 2."""


@dataclass(frozen=True)
class ProjectionCheck:
    """One projection rebuilt and compared: its rows on each side, the rows only one side
    has (counted, and up to a few shown)."""

    name: str
    live_rows: int
    rebuilt_rows: int
    only_live: int
    only_rebuilt: int
    examples_live: list[dict[str, Any]] = field(default_factory=list)
    examples_rebuilt: list[dict[str, Any]] = field(default_factory=list)

    @property
    def equal(self) -> bool:
        return self.only_live == 0 and self.only_rebuilt == 0


@dataclass(frozen=True)
class RebuildReport:
    service: str
    events: int
    schema: str | None  # the fresh tables, when kept
    projections: list[ProjectionCheck]
    # the stream disagreeing with itself (an event's balance_after against the fold)
    disagreements: list[str]

    @property
    def equal(self) -> bool:
        return all(p.equal for p in self.projections) and not self.disagreements


@dataclass(frozen=True)
class Projection:
    """A projection as rebuilt (`columns` of the fresh table) and as it lives (`live`, the
    same columns read from the service's table)."""

    name: str
    columns: str
    live: str


SHOWN = 20  # differing rows shown per projection and side
PAGE = 5_000


async def stored_events(connection: asyncpg.Connection) -> AsyncIterator[tuple[Any, Any]]:
    """Every event of the service's store in commit order, decoded, with its cause."""
    from teenpatti.events.catalog import registry
    from teenpatti.eventsourcing.store import AsyncpgEventStore, GlobalPosition

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


async def rebuild_into_fresh_tables(
    connection: asyncpg.Connection,
    service: str,
    projections: Sequence[tuple[Projection, list[tuple[Any, ...]]]],
    *,
    events: int,
    disagreements: list[str],
    keep: bool,
) -> RebuildReport:
    """Write each projection's rebuilt rows into a new schema, compare each with the live
    table (both ways, `EXCEPT ALL`); the schema is dropped unless `keep`."""
    schema = f"rebuild_{service}_{datetime.now(UTC):%Y%m%d%H%M%S%f}"
    await connection.execute(f"CREATE SCHEMA {schema}")
    try:
        checks = []
        for projection, rows in projections:
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
        service=service,
        events=events,
        schema=schema if keep else None,
        projections=checks,
        disagreements=disagreements,
    )


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
        examples_live=[_plain(row) for row in only_live],
        examples_rebuilt=[_plain(row) for row in only_rebuilt],
    )


def _plain(row: asyncpg.Record) -> dict[str, Any]:
    return {
        key: value if isinstance(value, int | str | None) else str(value)
        for key, value in row.items()
    }


def add_rebuild_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "rebuild",
        help="rebuild a service's projections from its event stream and compare them",
        description=(
            "Folds SERVICE's own event stream into fresh tables (a new schema of its"
            " database) and compares each projection, row for row, with the live one."
            " Exit status 0 when all are equal, 1 when one differs, 2 on bad input."
            " See docs/audit.md."
        ),
    )
    parser.add_argument("service", metavar="SERVICE", help="the service (wallet, settlement)")
    parser.add_argument(
        "--keep", action="store_true", help="keep the fresh tables (their schema is printed)"
    )
    parser.add_argument("--json", action="store_true", help="write a JSON object")


def run_rebuild(args: argparse.Namespace, out: TextIO) -> int:
    from teenpatti.admin_cli import AdminDatabaseError, admin_settings, with_connection
    from teenpatti.migrations import declared_services

    services = declared_services()
    if args.service not in services:
        raise RebuildUsageError(
            f"no service {args.service!r} is installed (installed: {', '.join(sorted(services))})"
        )
    service = services[args.service]()
    if service.rebuild is None:
        raise RebuildUsageError(
            f"the {args.service} service declares no rebuild of its projections"
        )
    try:
        settings = admin_settings(service.settings)
        database = str(service.database(settings))
        report: RebuildReport = with_connection(
            str(settings.postgres_dsn(database)),
            f"the {args.service} database {database}",
            lambda connection: service.rebuild(connection, keep=args.keep),
            missing_table="is not migrated: run `teenpatti migrate`",
        )
    except AdminDatabaseError as error:
        raise RebuildUsageError(str(error)) from None
    if args.json:
        body = {**asdict(report), "equal": report.equal}
        out.write(json.dumps(body, indent=2, default=str) + "\n")
    else:
        out.write(_text(report))
    return EXIT_EQUAL if report.equal else EXIT_DIFFERENT


def _text(report: RebuildReport) -> str:
    lines = [f"{report.service}: {report.events} events folded"]
    for p in report.projections:
        verdict = (
            "equal"
            if p.equal
            else f"DIFFERENT: {p.only_live} only live, {p.only_rebuilt} only rebuilt"
        )
        lines.append(
            f"  {p.name:<22} live {p.live_rows:>9}  rebuilt {p.rebuilt_rows:>9}  {verdict}"
        )
        lines += [f"    only live:    {json.dumps(row, default=str)}" for row in p.examples_live]
        lines += [f"    only rebuilt: {json.dumps(row, default=str)}" for row in p.examples_rebuilt]
    lines += [f"  the stream disagrees with itself: {d}" for d in report.disagreements]
    if report.schema:
        lines.append(f"  the rebuilt tables are kept in the schema {report.schema}")
    lines.append("equal" if report.equal else "DIFFERENT")
    return "\n".join(lines) + "\n"
