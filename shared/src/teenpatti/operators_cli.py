"""`teenpatti operators`: set, list and show each operator's wallet configuration (the
wallet database's `operators` table; docs/operators.md, "Seamless mode"), resend a failed
owed call (`operator_calls`), and record a voided round's correction settled by the operator
(`wallet_corrections`).

An operator without a configuration is a transfer wallet. The wallet reads a change within
TP_SEAMLESS_CONFIG_CACHE_SECONDS, without a restart.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from teenpatti.admin_cli import AdminDatabaseError, admin_settings, with_connection

if TYPE_CHECKING:
    import asyncpg

T = TypeVar("T")


class OperatorsUsageError(Exception):
    """A bad argument, or a wallet database that cannot be used: exit status 2."""


def add_operators_parser(commands: Any) -> None:
    operators = commands.add_parser(
        "operators",
        help="set, list and show operators' wallet configurations (transfer or seamless)",
        description=(
            "Each operator's wallet mode and, when seamless, its wallet server: base URL,"
            " protocol adapter, public keys, call timeout and the retry policy of owed wins"
            " and rollbacks. Kept in the wallet database (TP_WALLET_DATABASE); the wallet"
            " reads a change within TP_SEAMLESS_CONFIG_CACHE_SECONDS. See docs/operators.md."
        ),
    )
    actions = operators.add_subparsers(dest="action", required=True, metavar="ACTION")
    setting = actions.add_parser(
        "set",
        help="set an operator's configuration; options not given keep their current value",
        description=(
            "Sets OPERATOR's wallet configuration in the wallet database: its mode and, when"
            " seamless, its wallet server. Options not given keep their current value (an"
            " operator with no configuration is on the transfer wallet); who set it (--by) is"
            " kept. The wallet reads the change within TP_SEAMLESS_CONFIG_CACHE_SECONDS."
        ),
    )
    setting.add_argument("operator", metavar="OPERATOR", help="the operator id (its key holder)")
    setting.add_argument(
        "--mode", choices=("transfer", "seamless"), help="where its players' money is kept"
    )
    setting.add_argument("--adapter", choices=("hub88",), help="its wallet server's dialect")
    setting.add_argument("--base-url", metavar="URL", help="its wallet server's base URL")
    setting.add_argument(
        "--public-key",
        action="append",
        type=Path,
        metavar="PEM_FILE",
        help="the operator's public key; twice during a rollover (replaces the current keys)",
    )
    setting.add_argument("--timeout", type=float, metavar="SECONDS", help="one call's deadline")
    setting.add_argument(
        "--base-backoff", type=float, metavar="SECONDS", help="the first retry's wait"
    )
    setting.add_argument(
        "--max-backoff", type=float, metavar="SECONDS", help="the longest wait between retries"
    )
    setting.add_argument("--game-code", metavar="CODE", help="the game code sent in calls")
    setting.add_argument(
        "--win-per",
        choices=("round", "slip"),
        help="one win per player and round (default) or one per slip",
    )
    setting.add_argument("--by", metavar="NAME", help="who sets it (default: $USER)")
    setting.add_argument("--json", action="store_true", help="write a JSON object")
    listing = actions.add_parser(
        "list",
        help="list the configured operators",
        description="Lists every configured operator, one line each: its mode and wallet server.",
    )
    listing.add_argument("--json", action="store_true", help="write a JSON array")
    show = actions.add_parser(
        "show",
        help="show one operator's configuration as JSON",
        description=(
            "Writes OPERATOR's configuration as a JSON object; an operator never configured"
            ' is on the transfer wallet ("configured": false).'
        ),
    )
    show.add_argument("operator", metavar="OPERATOR", help="the operator id (its key holder)")
    resend = actions.add_parser(
        "resend",
        help="send a failed win or rollback again, once its cause is fixed (recorded)",
        description=(
            "A win or rollback owed to a seamless operator that retrying could not deliver"
            " (`failed_operator_call` on the wallet's GET /problems) is owed again from now,"
            " with the same transaction_uuid, so the operator applies it at most once. Who"
            " resent it, why, and what it had come to are recorded."
        ),
    )
    resend.add_argument("call_id", metavar="CALL_ID", help="the call's id (the problem's call_id)")
    resend.add_argument("--reason", required=True, help="why it can now be delivered")
    resend.add_argument("--by", metavar="NAME", help="who resends it (default: $USER)")
    resend.add_argument("--json", action="store_true", help="write a JSON object")
    settled = actions.add_parser(
        "correction-settled",
        help="record that the operator settled what a voided round's correction left (recorded)",
        description=(
            "A round voided after its result leaves something for the operator to settle:"
            " a transfer balance's shortfall (`correction_shortfall` on the wallet's GET"
            " /problems) or a seamless player's net (`seamless_correction`). Once the"
            " operator has settled it, record who says so and why: it leaves the problems and"
            " the transactions API shows it `ok` with the reason."
        ),
    )
    settled.add_argument("round_id", metavar="ROUND_ID", help="the voided round")
    settled.add_argument("player_id", metavar="PLAYER_ID", help="the player it is settled for")
    settled.add_argument("--operator", required=True, help="the player's operator")
    settled.add_argument("--reason", required=True, help="how the operator settled it")
    settled.add_argument("--by", metavar="NAME", help="who records it (default: $USER)")
    settled.add_argument("--json", action="store_true", help="write a JSON object")


_OPTIONS = {
    "mode": "mode",
    "adapter": "adapter",
    "base_url": "base_url",
    "timeout": "timeout_seconds",
    "base_backoff": "base_backoff_seconds",
    "max_backoff": "max_backoff_seconds",
    "game_code": "game_code",
    "win_per": "win_per",
}


def run_operators(args: argparse.Namespace, out: TextIO) -> int:
    """Run `teenpatti operators ACTION`; raises OperatorsUsageError on bad input or an
    unusable database."""
    dsn, database = wallet_database()
    if args.action == "set":
        changes: dict[str, Any] = {
            field: getattr(args, option)
            for option, field in _OPTIONS.items()
            if getattr(args, option) is not None
        }
        if args.public_key:
            try:
                changes["public_keys"] = [path.read_text() for path in args.public_key]
            except OSError as error:
                raise OperatorsUsageError(f"a public key cannot be read: {error}") from None
        by = _by(args.by)
        row = with_wallet(dsn, database, lambda c: _set(c, args.operator, changes, by))
        out.write(json.dumps(row, indent=2) + "\n" if args.json else _line(row) + "\n")
        return 0
    if args.action == "resend":
        call_id = _call_id(args.call_id)
        reason = args.reason.strip()
        if not 1 <= len(reason) <= 1000:
            raise OperatorsUsageError("say why with --reason TEXT (1 to 1,000 characters)")
        by = _by(args.by)
        resent = with_wallet(dsn, database, lambda c: _resend(c, call_id, reason, by))
        if args.json:
            out.write(json.dumps(resent, indent=2) + "\n")
        else:
            out.write(
                f"{resent['kind']} {resent['transaction_uuid']} to {resent['operator_id']}"
                f" is owed again from now (was failed after {resent['attempts_before']}"
                f" attempt(s): {resent['error_before']}); resent by {by}\n"
            )
        return 0
    if args.action == "correction-settled":
        reason = args.reason.strip()
        if not 1 <= len(reason) <= 1000:
            raise OperatorsUsageError("say how with --reason TEXT (1 to 1,000 characters)")
        by = _by(args.by)
        rows = with_wallet(
            dsn,
            database,
            lambda c: _settle_correction(
                c, args.operator, args.player_id, args.round_id, reason, by
            ),
        )
        if args.json:
            out.write(json.dumps(rows, indent=2) + "\n")
        else:
            out.write(
                "".join(
                    f"{args.round_id} {args.player_id} {row['currency']}: {row['wallet']} net"
                    f" {row['net']}, shortfall {row['shortfall']} settled; recorded by {by}\n"
                    for row in rows
                )
            )
        return 0
    if args.action == "list":
        rows = with_wallet(dsn, database, _all)
        if args.json:
            out.write(json.dumps(rows, indent=2) + "\n")
        else:
            out.write("".join(_line(row) + "\n" for row in rows) or "no operator configured\n")
        return 0
    found = with_wallet(dsn, database, lambda c: _one(c, args.operator))
    if found is None:
        out.write(
            json.dumps({"operator_id": args.operator, "mode": "transfer", "configured": False})
            + "\n"
        )
    else:
        out.write(json.dumps(found, indent=2) + "\n")
    return 0


async def _set(
    connection: asyncpg.Connection, operator_id: str, changes: dict[str, Any], by: str
) -> dict[str, Any]:
    from pydantic import ValidationError

    from teenpatti.seamless import OperatorConfig

    async with connection.transaction():
        raw = await connection.fetchval(
            "SELECT config::text FROM operators WHERE operator_id = $1 FOR UPDATE", operator_id
        )
        current = {} if raw is None else json.loads(raw)
        try:
            config = OperatorConfig.model_validate(
                {**current, **changes, "operator_id": operator_id}
            )
        except ValidationError as error:
            raise OperatorsUsageError(str(error)) from None
        stored = config.model_dump(mode="json", exclude={"operator_id"})
        await connection.execute(
            "INSERT INTO operators (operator_id, config, updated_by) VALUES ($1, $2::jsonb, $3)"
            " ON CONFLICT (operator_id) DO UPDATE SET config = EXCLUDED.config,"
            " updated_by = EXCLUDED.updated_by, updated_at = now()",
            operator_id,
            json.dumps(stored),
            by,
        )
    found = await _one(connection, operator_id)
    assert found is not None
    return found


def _call_id(given: str) -> uuid.UUID:
    try:
        return uuid.UUID(given)
    except ValueError:
        raise OperatorsUsageError(f"{given!r} is not a call id (a UUID)") from None


async def _settle_correction(
    connection: asyncpg.Connection,
    operator_id: str,
    player_id: str,
    round_id: str,
    reason: str,
    by: str,
) -> list[dict[str, Any]]:
    rows = await connection.fetch(
        "UPDATE wallet_corrections SET settled_at = now(), settled_by = $4, settle_reason = $5"
        " WHERE operator_id = $1 AND player_id = $2 AND round_id = $3 AND settled_at IS NULL"
        " AND (shortfall > 0 OR (wallet = 'seamless' AND net <> 0))"
        " RETURNING reference, currency, wallet, net, shortfall",
        operator_id,
        player_id,
        round_id,
        by,
        reason,
    )
    if not rows:
        raise OperatorsUsageError(
            f"nothing of round {round_id} is left to settle for {operator_id}/{player_id}"
            " (see the wallet's GET /problems: correction_shortfall, seamless_correction)"
        )
    return [
        {
            "reference": str(row["reference"]),
            "currency": row["currency"],
            "wallet": row["wallet"],
            "net": int(row["net"]),
            "shortfall": int(row["shortfall"]),
            "settled_by": by,
            "reason": reason,
        }
        for row in rows
    ]


async def _resend(
    connection: asyncpg.Connection, call_id: uuid.UUID, reason: str, by: str
) -> dict[str, Any]:
    """The failed call owed again, due now, its count of bad answers reset; recorded."""
    async with connection.transaction():
        row = await connection.fetchrow(
            "SELECT call_id, kind, status, operator_id, player_id, round_id, transaction_uuid,"
            " attempts, answer_status, error FROM operator_calls WHERE call_id = $1 FOR UPDATE",
            call_id,
        )
        if row is None:
            raise OperatorsUsageError(f"no call {call_id} in the wallet database")
        if row["kind"] == "bet":
            raise OperatorsUsageError(
                f"call {call_id} is a bet: a bet is never sent again (its slip was refused)"
            )
        if row["status"] != "failed":
            raise OperatorsUsageError(
                f"the {row['kind']} {call_id} is {row['status']}, not failed: only a failed"
                " win or rollback is sent again"
            )
        await connection.execute(
            "INSERT INTO operator_call_resends (call_id, reason, resent_by, attempts_before,"
            " answer_status_before, error_before) VALUES ($1, $2, $3, $4, $5, $6)",
            call_id,
            reason,
            by,
            row["attempts"],
            row["answer_status"],
            row["error"],
        )
        await connection.execute(
            "UPDATE operator_calls SET status = 'pending', next_attempt_at = now(),"
            " bad_answers = 0, finished_at = NULL WHERE call_id = $1",
            call_id,
        )
    return {
        "call_id": str(call_id),
        "kind": row["kind"],
        "operator_id": row["operator_id"],
        "player_id": row["player_id"],
        "round_id": row["round_id"],
        "transaction_uuid": row["transaction_uuid"],
        "status": "pending",
        "attempts_before": row["attempts"],
        "answer_status_before": row["answer_status"],
        "error_before": row["error"],
        "resent_by": by,
        "reason": reason,
    }


_SELECT = "SELECT operator_id, config::text AS config, updated_at, updated_by FROM operators"


async def _all(connection: asyncpg.Connection) -> list[dict[str, Any]]:
    return [_public(row) for row in await connection.fetch(_SELECT + " ORDER BY operator_id")]


async def _one(connection: asyncpg.Connection, operator_id: str) -> dict[str, Any] | None:
    row = await connection.fetchrow(_SELECT + " WHERE operator_id = $1", operator_id)
    return None if row is None else _public(row)


def _public(row: asyncpg.Record) -> dict[str, Any]:
    return {
        "operator_id": row["operator_id"],
        **json.loads(row["config"]),
        "configured": True,
        "updated_at": row["updated_at"].isoformat(),
        "updated_by": row["updated_by"],
    }


def _line(row: dict[str, Any]) -> str:
    keys = len(row.get("public_keys") or [])
    if row.get("mode") != "seamless":
        return f"{row['operator_id']:<20} transfer"
    return (
        f"{row['operator_id']:<20} seamless {row.get('adapter')} {row.get('base_url')}"
        f" keys={keys} win_per={row.get('win_per', 'round')}"
        f" timeout={row.get('timeout_seconds')}s backoff="
        f"{row.get('base_backoff_seconds')}..{row.get('max_backoff_seconds')}s"
        f" (set by {row['updated_by']} at {row['updated_at']})"
    )


def wallet_database() -> tuple[str, str]:
    """The wallet database's DSN as the admin, and its name (for `operators` and
    `reconcile`)."""
    from teenpatti.migrations import declared_services

    services = declared_services()
    if "wallet" not in services:
        raise OperatorsUsageError("the wallet service is not installed")
    service = services["wallet"]()
    try:
        settings = admin_settings(service.settings)
    except AdminDatabaseError as error:
        raise OperatorsUsageError(str(error)) from None
    database = str(service.database(settings))
    return str(settings.postgres_dsn(database)), database


def with_wallet(dsn: str, database: str, work: Callable[[asyncpg.Connection], Awaitable[T]]) -> T:
    """`work` on one connection to the wallet database, as the admin."""
    try:
        return with_connection(
            dsn,
            f"the wallet database {database}",
            work,
            missing_table="has no operators table: run `teenpatti migrate wallet`",
        )
    except AdminDatabaseError as error:
        raise OperatorsUsageError(str(error)) from None


def _by(given: str | None) -> str:
    if given is not None:
        by = given.strip()
    else:
        try:
            by = os.environ.get("USER") or getpass.getuser()
        except (KeyError, OSError):
            by = ""
    if not by or len(by) > 100:
        raise OperatorsUsageError("say who you are with --by NAME (1 to 100 characters)")
    return by
