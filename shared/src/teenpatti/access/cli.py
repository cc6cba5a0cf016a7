"""`teenpatti keys`: issue, list and revoke the API keys of the access database (docs/access.md).

A key is printed once, when it is issued; `list` and `revoke` show key ids, never a key or
its hash.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from teenpatti.access.keys import (
    DEFAULT_LIFETIME,
    HOLDER_PATTERN,
    KEY_ID_PATTERN,
    ROLES,
    AccessKey,
    InvalidKeySpecError,
    new_key,
    parse_expiry,
    parse_tables,
)
from teenpatti.admin_cli import AdminDatabaseError, admin_settings, with_connection

if TYPE_CHECKING:
    from teenpatti.access.store import AccessKeyStore

T = TypeVar("T")
# a new key's id drawn again when taken (one chance in 2^48 each)
_ISSUE_ATTEMPTS = 5


class KeysUsageError(Exception):
    """A bad argument, or an access database that cannot be used: exit status 2."""


def add_keys_parser(commands: Any) -> None:
    keys = commands.add_parser(
        "keys",
        help="issue, list and revoke the API keys of people and operators (the access database)",
        description=(
            "Keys of the access database (TP_ACCESS_DATABASE on the TP_PG_* server): each for"
            " one holder, with a role, the tables a supervisor or dealer may act on, and an"
            " expiry. The services accept them beside TP_API_KEYS; a revocation takes effect"
            " within TP_ACCESS_CACHE_SECONDS. See docs/access.md."
        ),
    )
    actions = keys.add_subparsers(dest="action", required=True, metavar="ACTION")

    issue = actions.add_parser(
        "issue",
        help="issue a key: printed once, only its hash is kept",
        description="Issues a key and prints it once: only its SHA-256 is kept.",
    )
    issue.add_argument("--holder", required=True, metavar="NAME", help="the person or operator id")
    issue.add_argument("--role", required=True, choices=ROLES, help="what the key may do")
    issue.add_argument(
        "--tables",
        default="all",
        metavar="T01,T02|all",
        help="the tables a supervisor's or dealer's key may act on (default: all)",
    )
    issue.add_argument(
        "--expires",
        default=f"{DEFAULT_LIFETIME.days}d",
        metavar="DURATION|TIME",
        help="when it expires: 30m, 12h, 90d, 2w, or an ISO 8601 time; at most 366 days"
        f" (default: {DEFAULT_LIFETIME.days}d)",
    )
    _add_by_option(issue, "issues")
    issue.add_argument("--json", action="store_true", help="write a JSON object")

    listing = actions.add_parser(
        "list",
        help="list the keys (ids, holders, scopes, status; never a key)",
        description="Lists the keys, oldest first, with their status at this moment.",
    )
    listing.add_argument("--holder", metavar="NAME", help="only this holder's keys")
    listing.add_argument("--json", action="store_true", help="write a JSON array")

    revoke = actions.add_parser(
        "revoke",
        help="revoke a key: refused by every service within TP_ACCESS_CACHE_SECONDS",
        description="Revokes a key for good; running it again changes nothing.",
    )
    revoke.add_argument("key_id", metavar="KEY_ID", help="the key's id (12 hex digits)")
    _add_by_option(revoke, "revokes")


def _add_by_option(parser: argparse.ArgumentParser, verb: str) -> None:
    parser.add_argument(
        "--by",
        metavar="NAME",
        help=f"who {verb} it, kept with the key (default: the login name)",
    )


def run_keys(args: argparse.Namespace, out: TextIO) -> int:
    """Run `teenpatti keys ACTION`; raises KeysUsageError on bad input or an unusable
    database."""
    from teenpatti.settings import InfrastructureSettings

    now = datetime.now(UTC)
    if args.action == "issue":
        spec = _issue_spec(args, now)
    elif args.action == "revoke" and not KEY_ID_PATTERN.match(args.key_id):
        raise KeysUsageError(f"{args.key_id!r} is not a key id (12 hex digits, as `list` shows)")
    elif (
        args.action == "list" and args.holder is not None and not HOLDER_PATTERN.match(args.holder)
    ):
        raise KeysUsageError(f"{args.holder!r} is not a holder's name")
    settings = _settings(InfrastructureSettings)
    dsn = settings.postgres_dsn(settings.access_database)

    if args.action == "issue":
        issued = _with_store(dsn, settings.access_database, lambda store: _issue(store, spec, now))
        row, key = issued
        if args.json:
            out.write(json.dumps({**_public(row, now), "key": key}, indent=2) + "\n")
        else:
            out.write(
                f"key id   {row.key_id}\n"
                f"holder   {row.holder} ({row.role}, {_scope(row)})\n"
                f"expires  {_time(row.expires_at)}\n"
                f"key      {key}\n"
                "Shown only now: only its hash is kept. Give it to its holder over a secure"
                " channel; send it in the X-Api-Key header.\n"
            )
        return 0
    if args.action == "list":
        rows = _with_store(dsn, settings.access_database, lambda store: store.all(args.holder))
        if args.json:
            out.write(json.dumps([_public(row, now) for row in rows], indent=2) + "\n")
        else:
            out.write(_table(rows, now))
        return 0
    by = _by(args.by)
    revoked = _with_store(
        dsn, settings.access_database, lambda store: store.revoke(args.key_id, by, now)
    )
    if revoked is None:
        raise KeysUsageError(f"no key {args.key_id}")
    row, changed = revoked
    if changed:
        out.write(f"revoked {row.key_id} ({row.holder}, {row.role})\n")
    else:
        out.write(
            f"{row.key_id} ({row.holder}) was already revoked, at {_time(row.revoked_at)} by"
            f" {row.revoked_by}: nothing changed\n"
        )
    return 0


class _IssueSpec:
    def __init__(
        self,
        holder: str,
        role: str,
        tables: frozenset[str] | None,
        expires_at: datetime,
        by: str,
    ) -> None:
        self.holder, self.role, self.tables = holder, role, tables
        self.expires_at, self.by = expires_at, by


def _issue_spec(args: argparse.Namespace, now: datetime) -> _IssueSpec:
    try:
        tables = parse_tables(args.tables)
        expires_at = parse_expiry(args.expires, now)
        spec = _IssueSpec(args.holder, args.role, tables, expires_at, _by(args.by))
        new_key(  # checks the whole spec before anything connects
            holder=spec.holder,
            role=spec.role,
            tables=spec.tables,
            expires_at=spec.expires_at,
            created_by=spec.by,
            now=now,
        )
    except InvalidKeySpecError as error:
        raise KeysUsageError(str(error)) from None
    return spec


async def _issue(store: AccessKeyStore, spec: _IssueSpec, now: datetime) -> tuple[AccessKey, str]:
    from teenpatti.access.store import KeyIdTakenError

    for _ in range(_ISSUE_ATTEMPTS):
        issued = new_key(
            holder=spec.holder,
            role=spec.role,
            tables=spec.tables,
            expires_at=spec.expires_at,
            created_by=spec.by,
            now=now,
        )
        try:
            await store.add(issued.row)
        except KeyIdTakenError:
            continue
        return issued.row, issued.key
    raise KeysUsageError("could not draw a free key id; try again")


def _with_store(dsn: str, database: str, work: Callable[[AccessKeyStore], Awaitable[T]]) -> T:
    from teenpatti.access.store import AccessKeyStore

    try:
        return with_connection(
            dsn,
            f"the access database {database}",
            lambda connection: work(AccessKeyStore(connection)),
            missing_table="has no keys table: run `teenpatti migrate access`",
        )
    except AdminDatabaseError as error:
        raise KeysUsageError(str(error)) from None


def _settings(settings_class: type[Any]) -> Any:
    try:
        return admin_settings(settings_class)
    except AdminDatabaseError as error:
        raise KeysUsageError(str(error)) from None


def _by(given: str | None) -> str:
    if given is not None:
        by = given.strip()
    else:
        try:
            by = os.environ.get("USER") or getpass.getuser()
        except (KeyError, OSError):
            by = ""
    if not by or len(by) > 100:
        raise KeysUsageError("say who you are with --by NAME (1 to 100 characters)")
    return by


def _scope(row: AccessKey) -> str:
    return "all tables" if row.tables is None else "tables " + ",".join(sorted(row.tables))


def _time(moment: datetime | None) -> str:
    return "" if moment is None else moment.astimezone(UTC).isoformat(timespec="seconds")


def _public(row: AccessKey, now: datetime) -> dict[str, Any]:
    """What a list shows of a key: never the key or its hash."""
    return {
        "key_id": row.key_id,
        "holder": row.holder,
        "role": row.role,
        "tables": None if row.tables is None else sorted(row.tables),
        "status": row.status(now),
        "created_at": _time(row.created_at),
        "created_by": row.created_by,
        "expires_at": _time(row.expires_at),
        "revoked_at": _time(row.revoked_at) or None,
        "revoked_by": row.revoked_by,
    }


def _table(rows: list[AccessKey], now: datetime) -> str:
    if not rows:
        return "no keys\n"
    header = ("KEY ID", "HOLDER", "ROLE", "TABLES", "STATUS", "EXPIRES", "CREATED BY")
    lines = [
        (
            row.key_id,
            row.holder,
            row.role,
            "all" if row.tables is None else ",".join(sorted(row.tables)),
            row.status(now),
            _time(row.expires_at),
            row.created_by,
        )
        for row in rows
    ]
    widths = [max(len(line[i]) for line in [header, *lines]) for i in range(len(header))]
    return "".join(
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        + "\n"
        for line in [header, *lines]
    )
