"""The `teenpatti` command: subcommands over the rules engine (docs/rules-engine.md, "CLI").

Exit status: 0 success; 1 some input lines could not be evaluated (`audit`: a mismatch was
found); 2 bad arguments or pay table (`audit`: a store or the broker cannot be read; `keys`:
the access database cannot be used; `operators`: the wallet database cannot be used, or a
configuration is not valid; `audit`, `migrate`, `keys`, `operators`: a public development
secret outside development; `reconcile`: a side that cannot be read); 130 interrupted.
`recall`: 1 when no such round was ever opened.
`reconcile`: 1 when our calls and the operator's transactions differ.
`operator-check`: 1 when a case fails; 2 also an operator's server that cannot be connected to.
`rebuild`: 1 when a projection rebuilt from the events differs from the live one; 2 a
service that rebuilds nothing, or a database that cannot be used.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from teenpatti.engine import (
    PUBLISHED_PAY_TABLE,
    Bet,
    BetType,
    Card,
    InvalidCardError,
    InvalidPayTableError,
    InvalidRtpFloorError,
    PayTable,
    RoundResult,
    RulesEngineError,
    parse_cards,
    pay_table_from_json,
    resolve_hands,
    settle_bet,
)
from teenpatti.observability.logs import configure_logging

if TYPE_CHECKING:
    from teenpatti.audit import StoreSpec
    from teenpatti.settings import InfrastructureSettings

S = TypeVar("S", bound="InfrastructureSettings")

EVALUATE_STAKE = 100  # minor units; `returns` are what a stake of 100 gets back
EVALUATE_CURRENCY = "XXX"  # ISO 4217 "no currency": the amounts are only proportions
_HANDS = ("player_a", "player_b")
EXIT_OK, EXIT_BAD_LINES, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
ACCESS = "access"  # `teenpatti migrate access`: the access database, which no service owns


class UsageError(Exception):
    """A bad argument or pay table: reported on stderr, exit status 2."""


class LineError(Exception):
    """One `evaluate` input line that cannot be answered; the message is the reason."""


def main(
    argv: Sequence[str] | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    streams = _Streams(stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse has already printed usage and the reason
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    handler: Callable[[argparse.Namespace, _Streams], int] = args.handler
    try:
        # what the commands' libraries log goes to stderr as text, warnings and worse unless
        # TP_LOG_LEVEL says otherwise (docs/architecture.md, "Logs and traces")
        configure_logging(
            service="teenpatti",
            level=os.environ.get("TP_LOG_LEVEL", "WARNING"),
            fmt="text",
            stream=streams.err,
        )
    except ValueError as error:
        print(f"teenpatti: error: TP_LOG_LEVEL: {error}", file=streams.err)
        return EXIT_USAGE
    try:
        return handler(args, streams)
    except UsageError as error:
        print(f"teenpatti {args.command}: error: {error}", file=streams.err)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`teenpatti par-sheet | head`): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BAD_LINES


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="teenpatti",
        description=(
            "The Teen Patti 20-20 backend's command line: the rules engine (evaluate, par-sheet),"
            " the databases (migrate), what happened (audit, recall, rebuild, reconcile) and"
            " who may do what (keys, operators). `teenpatti COMMAND --help` describes each."
            " Commands that connect read the TP_* settings (docs/configuration.md)."
        ),
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {_version()}", help="print the version"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    evaluate = commands.add_parser(
        "evaluate",
        help="evaluate rounds: JSON lines in, one JSON result line out per input line",
        description=(
            'Reads JSON lines {"player_a": ["AS","KS","QS"], "player_b": ["2D","3C","4H"]} '
            "from stdin; writes one JSON line per input line: the winner, both hands, the "
            "6 Card Bonus hand and, for each bet, the amount returned for a stake of 100. "
            'A line that cannot be evaluated (blank lines included) gets {"error": "..."} and '
            "the exit status is 1."
        ),
    )
    _add_paytable_option(evaluate)
    evaluate.set_defaults(handler=_evaluate)

    sheet = commands.add_parser(
        "par-sheet",
        help="exact PAR sheet (RTP, house edge, hit frequency of every bet) by full enumeration",
        description="Counts every possible deal exactly and prices every bet of a pay table.",
    )
    _add_paytable_option(sheet)
    sheet.add_argument("--json", action="store_true", help="write a JSON object instead of a table")
    sheet.add_argument(
        "--rtp-floor",
        type=_rtp_floor,
        default=None,  # the engine's DEFAULT_RTP_FLOOR, read when the sheet is made
        metavar="X",
        help="flag bets whose RTP is below X, e.g. 0.9 or 90%% (default: 0.9)",
    )
    sheet.set_defaults(handler=_par_sheet)
    _add_audit_parser(commands)
    _add_recall_parser(commands)
    migrate = commands.add_parser(
        "migrate",
        help="apply the database migrations of the services (the deploy step)",
        description=(
            "Applies, in order, the event store's and each service's migrations not yet"
            " applied to its database (TP_* settings name the databases), then the access"
            " database's (`access`: the API keys, TP_ACCESS_DATABASE), and records them in"
            " schema_migrations. Run again, it does nothing. Services refuse to start on a"
            " database that is behind."
        ),
    )
    migrate.add_argument(
        "services",
        nargs="*",
        metavar="SERVICE",
        help="the services to migrate, or `access` for the access database (default: all)",
    )
    migrate.set_defaults(handler=_migrate)
    from teenpatti.access.cli import add_keys_parser

    add_keys_parser(commands)
    commands.choices["keys"].set_defaults(handler=_keys)
    from teenpatti.operators_cli import add_operators_parser

    add_operators_parser(commands)
    commands.choices["operators"].set_defaults(handler=_operators)
    from teenpatti.reconcile import add_reconcile_parser

    add_reconcile_parser(commands)
    commands.choices["reconcile"].set_defaults(handler=_reconcile)
    from teenpatti.operator_check_cli import add_operator_check_parser

    add_operator_check_parser(commands)
    commands.choices["operator-check"].set_defaults(handler=_operator_check)
    from teenpatti.rebuild import add_rebuild_parser

    add_rebuild_parser(commands)
    commands.choices["rebuild"].set_defaults(handler=_rebuild)
    return parser


def _version() -> str:
    from importlib.metadata import version

    return version("teenpatti")


def _rebuild(args: argparse.Namespace, streams: _Streams) -> int:
    from teenpatti.rebuild import RebuildUsageError, run_rebuild

    try:
        return run_rebuild(args, streams.out)
    except RebuildUsageError as error:
        raise UsageError(str(error)) from None


def _operator_check(args: argparse.Namespace, streams: _Streams) -> int:
    from teenpatti.operator_check_cli import OperatorCheckUsageError, run_operator_check

    try:
        return run_operator_check(args, streams.out)
    except OperatorCheckUsageError as error:
        raise UsageError(str(error)) from None


def _reconcile(args: argparse.Namespace, streams: _Streams) -> int:
    from teenpatti.reconcile import ReconcileUsageError, run_reconcile

    try:
        return run_reconcile(args, streams.out)
    except ReconcileUsageError as error:
        raise UsageError(str(error)) from None


def _operators(args: argparse.Namespace, streams: _Streams) -> int:
    from teenpatti.operators_cli import OperatorsUsageError, run_operators

    try:
        return run_operators(args, streams.out)
    except OperatorsUsageError as error:
        raise UsageError(str(error)) from None


def _keys(args: argparse.Namespace, streams: _Streams) -> int:
    from teenpatti.access.cli import KeysUsageError, run_keys

    try:
        return run_keys(args, streams.out)
    except KeysUsageError as error:
        raise UsageError(str(error)) from None


def _migrate(args: argparse.Namespace, streams: _Streams) -> int:
    import asyncio

    from teenpatti.access import migrate_access
    from teenpatti.kernel.migrate import migrate_service
    from teenpatti.migrations import MigrationError, declared_services
    from teenpatti.settings import InfrastructureSettings

    services = declared_services()
    unknown = sorted(set(args.services) - {*services, ACCESS})
    if unknown:
        known = ", ".join([*sorted(services), ACCESS])
        raise UsageError(f"no service {', '.join(unknown)} (known: {known})")

    names = [name for name in args.services if name != ACCESS] or (
        [] if args.services else sorted(services)
    )
    chosen = {name: services[name]() for name in names}
    # every service's settings checked before the first migration is applied
    settings_of = {name: _connecting_settings(service.settings) for name, service in chosen.items()}
    access = not args.services or ACCESS in args.services
    access_settings = _connecting_settings(InfrastructureSettings) if access else None

    async def run() -> None:
        for name, service in chosen.items():
            settings = settings_of[name]
            applied = await migrate_service(service, settings)
            database = service.database(settings)
            if applied:
                for migration in applied:
                    print(f"{name}: {database}: applied {migration}", file=streams.out)
            else:
                print(f"{name}: {database}: up to date", file=streams.out)
        if access_settings is not None:
            done = await migrate_access(access_settings)
            database = access_settings.access_database
            for migration in done:
                print(f"{ACCESS}: {database}: applied {migration}", file=streams.out)
            if not done:
                print(f"{ACCESS}: {database}: up to date", file=streams.out)

    try:
        asyncio.run(run())
    except (MigrationError, OSError) as error:
        raise UsageError(str(error)) from None
    except Exception as error:
        if type(error).__module__.startswith("asyncpg"):
            raise UsageError(f"{type(error).__name__}: {error}") from None
        raise
    return EXIT_OK


def _connecting_settings(settings_class: type[S]) -> S:
    """The settings of a command that connects, read from the environment: a bad value, or a
    public development secret outside development, is a usage error."""
    from pydantic import ValidationError

    from teenpatti.settings import ADMIN, CredentialsError, DefaultSecretError

    try:
        settings = settings_class().as_principal(ADMIN)
        # no command here uses Redis; `audit --kafka` alone uses Kafka, whose broker refuses
        # a client without credentials anyway
        settings.refuse_default_secrets(redis=False, kafka=False)
    except (ValidationError, DefaultSecretError, CredentialsError) as error:
        raise UsageError(str(error)) from None
    return settings


def _add_audit_parser(commands: Any) -> None:
    audit = commands.add_parser(
        "audit",
        help="replay audit: recompute rounds, bets and balances from the event stores",
        description=(
            "Reads the four services' event stores (and with --kafka their topics), recomputes "
            "every round result and every bet's settlement with the engine, checks each "
            "stream's hash chain, that every bet was settled and paid exactly once, and that "
            "the wallet's balances agree with its events. Prints a report; exit status 0 when "
            "everything agrees, 1 on any mismatch, 2 on bad arguments or an unreachable store. "
            "Databases default to TP_<SERVICE>_DATABASE on the TP_PG_* server; see "
            "docs/audit.md."
        ),
    )
    for store, default in _AUDIT_DATABASES.items():
        audit.add_argument(
            f"--{store}-db",
            metavar="NAME|DSN",
            help=f"the {store} store: a database name or a postgresql:// DSN "
            f"(default: TP_{store.upper()}_DATABASE or {default})",
        )
    audit.add_argument("--table", metavar="TABLE_ID", help="audit only this table's rounds")
    audit.add_argument(
        "--since", type=_audit_time, metavar="TIME", help="only rounds opened at or after TIME"
    )
    audit.add_argument(
        "--until", type=_audit_time, metavar="TIME", help="only rounds opened before TIME"
    )
    audit.add_argument(
        "--settle-grace",
        type=_positive_seconds,
        default=60.0,
        metavar="SECONDS",
        help="a round that ended less than this long ago may still be settling: its missing "
        "settlements and payments are counted as in progress (default: 60)",
    )
    audit.add_argument(
        "--kafka", action="store_true", help="also compare each store with its Kafka topic"
    )
    audit.add_argument(
        "--kafka-timeout",
        type=_positive_seconds,
        default=120.0,
        metavar="SECONDS",
        help="give up reading a topic after this long (default: 120)",
    )
    audit.add_argument("--json", action="store_true", help="write the report as JSON")
    audit.set_defaults(handler=_audit)


_AUDIT_DATABASES = {
    "table": "tp_table",
    "scanner": "tp_scanner",
    "wallet": "tp_wallet",
    "settlement": "tp_settlement",
}


def _audit_time(text: str) -> datetime:
    """An ISO 8601 time; one without a zone is UTC (every time in this system is)."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not an ISO 8601 time: {text!r} (e.g. 2026-11-29T12:00:00Z)"
        ) from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 <= value <= 86_400 * 365:
        raise argparse.ArgumentTypeError(f"out of range: {text!r}")
    return value


def _audit(args: argparse.Namespace, streams: _Streams) -> int:
    # Imported here: the engine subcommands need neither asyncpg nor aiokafka.
    import asyncio

    from teenpatti.audit import AuditUnavailableError, Scope, run_audit
    from teenpatti.settings import InfrastructureSettings

    if args.since is not None and args.until is not None and args.since >= args.until:
        raise UsageError("--since must be before --until")
    settings = _connecting_settings(InfrastructureSettings)
    specs = _store_specs(args, settings)
    scope = Scope(table_id=args.table, since=args.since, until=args.until)
    progress = _TerminalProgress(streams.err, "audit") if streams.err.isatty() else None
    try:
        report = asyncio.run(
            run_audit(
                specs,
                scope,
                settle_grace=timedelta(seconds=args.settle_grace),
                kafka_servers=settings.kafka_options() if args.kafka else None,
                kafka_timeout=args.kafka_timeout,
                progress=None if progress is None else progress.message,
            )
        )
    except AuditUnavailableError as error:
        raise UsageError(str(error)) from None
    finally:
        if progress is not None:
            progress.finish()
    if args.json:
        streams.out.write(json.dumps(report.to_mapping(), indent=2) + "\n")
    else:
        streams.out.write(report.format())
    streams.out.flush()
    return EXIT_OK if report.ok else EXIT_BAD_LINES


def _add_recall_parser(commands: Any) -> None:
    recall = commands.add_parser(
        "recall",
        help="full game recall: every event of one round across the four stores, in order",
        description=(
            "Prints one round as it happened: every event of it in the table, scanner-gateway, "
            "wallet and settlement stores (opened, betting closed, each read, card dealt or "
            "refused, pauses, void, result; each slip, the sealed bet book, each settlement "
            "line and payment), in order of time, with its time, service, type and facts. "
            "Exit status 0; 1 when no such round was ever opened; 2 on bad arguments or an "
            "unreachable store. Databases as for `audit`; see docs/audit.md."
        ),
    )
    recall.add_argument("round_id", metavar="ROUND_ID", help="the round, e.g. T1-000042")
    for store, default in _AUDIT_DATABASES.items():
        recall.add_argument(
            f"--{store}-db",
            metavar="NAME|DSN",
            help=f"the {store} store (default: TP_{store.upper()}_DATABASE or {default})",
        )
    recall.add_argument("--json", action="store_true", help="write the recall as JSON")
    recall.set_defaults(handler=_recall)


def _store_specs(args: argparse.Namespace, settings: InfrastructureSettings) -> list[StoreSpec]:
    """The four stores of `audit` and `recall`: from --<store>-db, else the environment."""
    from teenpatti.audit import StoreSpec
    from teenpatti.audit.runner import STORE_TOPICS

    specs = []
    for store, default in _AUDIT_DATABASES.items():
        given = getattr(args, f"{store}_db") or os.environ.get(
            f"TP_{store.upper()}_DATABASE", default
        )
        dsn = given if "://" in given else settings.postgres_dsn(given)
        specs.append(StoreSpec(store, dsn, settings.topic(STORE_TOPICS[store])))
    return specs


def _recall(args: argparse.Namespace, streams: _Streams) -> int:
    import asyncio

    from teenpatti.audit import AuditUnavailableError
    from teenpatti.audit.recall import UnknownRoundError, recall_round
    from teenpatti.settings import InfrastructureSettings

    specs = _store_specs(args, _connecting_settings(InfrastructureSettings))
    try:
        recall = asyncio.run(recall_round(specs, args.round_id))
    except AuditUnavailableError as error:
        raise UsageError(str(error)) from None
    except UnknownRoundError as error:
        print(f"teenpatti recall: {error}", file=streams.err)
        return EXIT_BAD_LINES
    if args.json:
        streams.out.write(json.dumps(recall.to_mapping(), indent=2) + "\n")
    else:
        streams.out.write(recall.format())
    streams.out.flush()
    return EXIT_OK


class _Streams:
    def __init__(self, in_: TextIO, out: TextIO, err: TextIO) -> None:
        self.in_, self.out, self.err = in_, out, err


def _add_paytable_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--paytable",
        type=Path,
        metavar="FILE",
        help="JSON pay table (an operator variant); default: the published table",
    )


def _rtp_floor(text: str) -> Fraction:
    from teenpatti.engine.par import parse_rtp_floor  # numpy: only for `par-sheet`

    try:
        return parse_rtp_floor(text)
    except InvalidRtpFloorError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _load_pay_table(path: Path | None) -> PayTable:
    if path is None:
        return PUBLISHED_PAY_TABLE
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot read pay table {str(path)!r}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"pay table {str(path)!r} is not UTF-8 text") from None
    try:
        return pay_table_from_json(text)
    except InvalidPayTableError as error:
        raise UsageError(f"{str(path)!r}: {error}") from None


def _evaluate(args: argparse.Namespace, streams: _Streams) -> int:
    pay_table = _load_pay_table(args.paytable)
    failed = False
    for line in _input_lines(streams.in_):
        try:
            answer = evaluate_line(line, pay_table)
        except LineError as error:
            answer, failed = {"error": str(error)}, True
        streams.out.write(json.dumps(answer) + "\n")
        streams.out.flush()
    return EXIT_BAD_LINES if failed else EXIT_OK


def _input_lines(stream: TextIO) -> Iterator[str | LineError]:
    # Decode line by line, so that one line of bad bytes is one error line, not a crash.
    raw = getattr(stream, "buffer", None)
    if raw is None:
        yield from stream
        return
    for data in raw:
        try:
            yield data.decode("utf-8")
        except UnicodeDecodeError:
            yield LineError("line is not valid UTF-8")


def evaluate_line(line: str | LineError, pay_table: PayTable) -> dict[str, object]:
    """The `evaluate` answer for one input line; raises LineError with the reason."""
    if isinstance(line, LineError):
        raise line
    if not line.strip():
        # Our decision: a blank line is an error line, so output line n answers input line n.
        raise LineError('blank line: expected {"player_a": [3 cards], "player_b": [3 cards]}')
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise LineError(f"not JSON: {error.msg} at column {error.colno}") from None
    if not isinstance(data, dict):
        raise LineError('expected a JSON object {"player_a": [...], "player_b": [...]}')
    missing = [key for key in _HANDS if key not in data]
    if missing:
        raise LineError("missing key " + " and ".join(repr(key) for key in missing))
    unexpected = sorted(key for key in data if key not in _HANDS)
    if unexpected:
        raise LineError("unexpected key " + ", ".join(repr(key) for key in unexpected))
    hands = {key: _parse_hand(key, data[key]) for key in _HANDS}
    seen: dict[Card, str] = {}
    for key in _HANDS:
        for card in hands[key]:
            if card in seen:
                where = key if seen[card] == key else f"{seen[card]} and {key}"
                raise LineError(f"card {card} appears more than once ({where}): one deck per round")
            seen[card] = key
    try:
        result = resolve_hands(hands["player_a"], hands["player_b"])
    except RulesEngineError as error:
        raise LineError(str(error)) from None
    return round_answer(result, pay_table)


def round_answer(result: RoundResult, pay_table: PayTable) -> dict[str, object]:
    bonus = result.six_card_bonus
    return {
        "winner": result.winner.value,
        "player_a_hand": result.player_a.category.value,
        "player_b_hand": result.player_b.category.value,
        "six_card_bonus_hand": None if bonus is None else bonus.category.value,
        "returns": {
            bet_type.value: settle_bet(
                Bet(bet_type, EVALUATE_STAKE, EVALUATE_CURRENCY), result, pay_table
            ).returned
            for bet_type in BetType
        },
    }


def _parse_hand(key: str, value: object) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise LineError(f'{key}: expected a list of 3 cards such as ["AS", "KS", "QS"]')
    if len(value) != 3:
        raise LineError(f"{key}: expected 3 cards, got {len(value)}")
    try:
        return parse_cards(value)
    except InvalidCardError as error:
        raise LineError(f"{key}: {error}") from None


def _par_sheet(args: argparse.Namespace, streams: _Streams) -> int:
    # Imported here: the other subcommands need no numpy.
    from teenpatti.engine.par import DEFAULT_RTP_FLOOR, par_sheet
    from teenpatti.engine.par_report import format_par_sheet, par_sheet_to_mapping

    pay_table = _load_pay_table(args.paytable)
    rtp_floor = DEFAULT_RTP_FLOOR if args.rtp_floor is None else args.rtp_floor
    progress = _TerminalProgress(streams.err) if streams.err.isatty() else None
    try:
        sheet = par_sheet(pay_table, rtp_floor=rtp_floor, progress=progress)
    finally:
        if progress is not None:
            progress.finish()
    if args.json:
        streams.out.write(json.dumps(par_sheet_to_mapping(sheet), indent=2) + "\n")
    else:
        streams.out.write(format_par_sheet(sheet))
    streams.out.flush()
    return EXIT_OK


class _TerminalProgress:
    def __init__(self, stream: TextIO, name: str = "par-sheet") -> None:
        self.stream = stream
        self.name = name
        self.shown = False

    def __call__(self, stage: str, done: int, total: int) -> None:
        self.stream.write(f"\rpar-sheet: {stage} {100 * done // max(total, 1):3d}%\x1b[K")
        self.stream.flush()
        self.shown = True

    def message(self, text: str) -> None:
        self.stream.write(f"\r{self.name}: {text}\x1b[K")
        self.stream.flush()
        self.shown = True

    def finish(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


if __name__ == "__main__":
    sys.exit(main())
