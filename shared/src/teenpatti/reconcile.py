"""`teenpatti reconcile`: our record of the calls made to a seamless operator's wallet (the
wallet database's `operator_calls`) beside what the operator says it applied (the reference
operator's admin transactions list, or a CSV file), every difference listed
(docs/operators.md, "Transactions and reconciliation"; decision 0069).

Exit status: 0 no difference; 1 some; 2 bad input (arguments, a CSV file that cannot be
read, a database or an operator that cannot be reached).

A call and a transaction are matched by `transaction_uuid`. What each of our calls expects:
- `ok`: the operator applied it, of the same kind, player, round, currency and amount (a
  rollback's amount is its bet's; the operator's tombstone, amount 0, when it never had the
  bet);
- `refused`: the operator applied nothing;
- a bet undone by a rollback (a timeout, a bad answer, a crash): applied or not, the
  rollback settles it;
- `pending`: still being sent, a difference until it ends;
- `failed`: a win or rollback retrying could not deliver, a difference for a person.
A win or rollback must name the bet ours names, and a win close the player's round as ours
does. From the operator's list alone: no `transaction_uuid` applied twice, and every bet
ended exactly once (a win or rollback naming it, or the first win closing its player's
round while it is open), unless our side still has it in play.
Each side is read over the range widened by `--margin-seconds`, so that a call near an edge
of the range, timed a little differently on each side, is still matched; a difference is
listed when the record it is about lies in the range.
"""

from __future__ import annotations

import argparse
import csv
import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any, TextIO

from teenpatti.seamless.hub88 import AmountError, to_protocol

EXIT_OK, EXIT_DIFFERENCES = 0, 1
CSV_COLUMNS = ("transaction_uuid", "kind", "user", "round", "amount", "currency", "created_at")
CSV_OPTIONAL = ("reference_transaction_uuid", "tombstone", "round_closed")
KINDS = frozenset(["bet", "win", "rollback"])


class ReconcileUsageError(Exception):
    """A bad argument, or a side that cannot be read: exit status 2."""


@dataclass(frozen=True, slots=True)
class OurCall:
    """A call of ours; `amount` in protocol units (a rollback's: its bet's)."""

    transaction_uuid: str
    kind: str
    user: str
    round: str
    amount: int | None
    currency: str
    status: str  # pending, ok, refused, failed
    reference_transaction_uuid: str | None
    created_at: datetime
    undone: bool = False  # a bet whose slip has a rollback
    round_closed: bool = False
    in_play: bool = False  # a bet whose slip has a bet not paid yet: it may still be open


@dataclass(frozen=True, slots=True)
class TheirTransaction:
    """A transaction the operator applied; `amount` in protocol units."""

    transaction_uuid: str
    kind: str
    user: str
    round: str
    amount: int
    currency: str
    reference_transaction_uuid: str | None
    created_at: datetime
    tombstone: bool = False
    round_closed: bool | None = None  # None: the operator's list does not say


@dataclass(frozen=True, slots=True)
class Difference:
    problem: str
    transaction_uuid: str
    kind: str
    detail: str
    ours: dict[str, Any] | None
    theirs: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class Reconciliation:
    ours: int
    theirs: int
    differences: list[Difference]


def _public(record: OurCall | TheirTransaction | None) -> dict[str, Any] | None:
    if record is None:
        return None
    view = asdict(record)
    view["created_at"] = record.created_at.isoformat()
    return view


def compare(
    ours: Sequence[OurCall],
    theirs: Sequence[TheirTransaction],
    since: datetime,
    until: datetime,
) -> Reconciliation:
    """Every difference between our calls and the operator's transactions about a record of
    [since, until); both sides read over a wider range so that edges match."""
    by_uuid: dict[str, TheirTransaction] = {}
    for applied in theirs:
        by_uuid.setdefault(applied.transaction_uuid, applied)
    ours_by_uuid = {c.transaction_uuid: c for c in ours}
    differences: list[Difference] = []

    def differ(
        problem: str, call: OurCall | None, their: TheirTransaction | None, why: str
    ) -> None:
        record = call or their
        assert record is not None
        differences.append(
            Difference(
                problem, record.transaction_uuid, record.kind, why, _public(call), _public(their)
            )
        )

    counted_ours = [c for c in ours if since <= c.created_at < until]
    for call in counted_ours:
        their = by_uuid.get(call.transaction_uuid)
        if call.status == "pending":
            differ("pending_here", call, their, "still being sent: reconcile again once it ends")
        elif call.status == "failed" and not (call.kind == "bet" and call.undone):
            where = "the operator has it" if their else "the operator has not"
            differ("failed_here", call, their, f"retrying could not deliver it; {where}")
        elif call.status == "refused" and their is not None and not call.undone:
            differ("refused_here_applied_there", call, their, "refused to us, yet applied")
        elif call.status == "ok" and their is None:
            differ("missing_at_operator", call, None, "answered RS_OK, not in its list")
        elif their is not None and call.status in ("ok", "failed", "refused"):
            mismatch = _mismatch(call, their, by_uuid)
            if mismatch is not None:
                differ(mismatch[0], call, their, mismatch[1])
    for their in theirs:
        if since <= their.created_at < until and their.transaction_uuid not in ours_by_uuid:
            differ("missing_here", None, their, "applied by the operator, never sent by us")
    for problem, their, why in _ledger_problems(theirs, ours_by_uuid):
        if since <= their.created_at < until:
            differ(problem, ours_by_uuid.get(their.transaction_uuid), their, why)
    return Reconciliation(
        len(counted_ours), sum(since <= t.created_at < until for t in theirs), differences
    )


def _mismatch(
    call: OurCall, their: TheirTransaction, by_uuid: Mapping[str, TheirTransaction]
) -> tuple[str, str] | None:
    if call.kind != their.kind:
        return "kind_mismatch", f"ours is a {call.kind}, theirs a {their.kind}"
    for name in ("user", "round", "currency"):
        if getattr(call, name) != getattr(their, name):
            return (
                f"{name}_mismatch",
                f"ours {getattr(call, name)!r}, theirs {getattr(their, name)!r}",
            )
    expected = call.amount
    if call.kind == "rollback":
        bet = by_uuid.get(call.reference_transaction_uuid or "")
        # the operator never had the bet: its rollback is a tombstone of amount 0
        expected = 0 if bet is None else bet.amount
        if their.tombstone != (bet is None):
            return "amount_mismatch", "a tombstone beside the bet it rolls back"
    if expected is not None and expected != their.amount:
        return "amount_mismatch", f"ours {expected}, theirs {their.amount} (protocol units)"
    if (
        call.kind != "bet"
        and their.reference_transaction_uuid is not None  # a CSV may leave it out
        and call.reference_transaction_uuid != their.reference_transaction_uuid
    ):
        return (
            "reference_mismatch",
            f"ours names the bet {call.reference_transaction_uuid},"
            f" theirs {their.reference_transaction_uuid}",
        )
    if call.kind == "win" and their.round_closed not in (None, call.round_closed):
        return (
            "round_closed_mismatch",
            f"ours round_closed {str(call.round_closed).lower()},"
            f" theirs {str(their.round_closed).lower()}",
        )
    return None


def _ledger_problems(
    theirs: Sequence[TheirTransaction], ours: Mapping[str, OurCall]
) -> Iterable[tuple[str, TheirTransaction, str]]:
    """What the operator's list shows on its own: a transaction_uuid applied more than once,
    and each bet ended other than exactly once (a win or rollback naming it, or the first
    win closing its player's round, which ends the round's bets still open)."""
    applied = Counter(t.transaction_uuid for t in theirs)
    reported: set[str] = set()
    for their in theirs:
        times = applied[their.transaction_uuid]
        if times > 1 and their.transaction_uuid not in reported:
            reported.add(their.transaction_uuid)
            yield "applied_twice", their, f"the operator applied it {times} times"
    ordered = sorted(theirs, key=lambda t: t.created_at)
    bets = {t.transaction_uuid: t for t in ordered if t.kind == "bet"}
    ends: dict[str, list[str]] = {uuid: [] for uuid in bets}
    # a closing win ends the bets of its player's round only: look those up, not every bet
    by_round: defaultdict[tuple[str, str], list[TheirTransaction]] = defaultdict(list)
    for bet in bets.values():
        by_round[(bet.user, bet.round)].append(bet)
    for their in ordered:
        if their.kind == "bet" or their.tombstone:
            continue
        named = their.reference_transaction_uuid
        if named in ends:
            ends[named].append(f"{their.kind} {their.transaction_uuid}")
        if their.kind == "win" and their.round_closed:
            for bet in by_round.get((their.user, their.round), ()):
                uuid = bet.transaction_uuid
                if uuid != named and not ends[uuid] and bet.created_at <= their.created_at:
                    ends[uuid].append(f"the round closed by win {their.transaction_uuid}")
    for uuid, bet in bets.items():
        call = ours.get(uuid)
        if len(ends[uuid]) > 1:
            yield "bet_ended_twice", bet, "ended by " + " and ".join(ends[uuid])
        elif not ends[uuid] and not (call is not None and call.in_play):
            yield "bet_not_ended", bet, "no win, rollback or round close ends it"


# ------------------------------------------------------------------------------ the CLI
def add_reconcile_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "reconcile",
        help="compare our calls to a seamless operator with the operator's transactions",
        description=(
            "Compares the calls made to OPERATOR's wallet in [--from, --to) (the wallet"
            " database, TP_WALLET_DATABASE) with the transactions the operator applied: its"
            " reference operator's admin API, or a CSV file (docs/operators.md). Lists every"
            " difference; exit status 0 when none, 1 when some, 2 on bad input."
        ),
    )
    parser.add_argument("--operator", required=True, help="the operator id (its key holder)")
    parser.add_argument(
        "--from", dest="since", required=True, help="ISO 8601 time with offset, or a UTC date"
    )
    parser.add_argument(
        "--to", dest="until", required=True, help="exclusive; ISO 8601 time or a UTC date"
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--csv", type=Path, metavar="FILE", help="the operator's transactions")
    source.add_argument(
        "--reference-operator", metavar="URL", help="a reference operator's base URL"
    )
    parser.add_argument(
        "--admin-token-file", type=Path, metavar="FILE", help="its admin token (with a URL)"
    )
    parser.add_argument(
        "--margin-seconds",
        type=float,
        default=300.0,
        help="each side is read this much beyond the range, to match calls near its edges",
    )
    parser.add_argument("--json", action="store_true", help="write a JSON object")


def parse_when(name: str, value: str, *, end: bool = False) -> datetime:
    """An ISO 8601 time with its offset, or a date: its UTC midnight (with `end`, the next)."""
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            return datetime.combine(day, time(), tzinfo=UTC) + timedelta(days=1 if end else 0)
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise ReconcileUsageError(f"{name}: {value!r} is not an ISO 8601 time or date") from None
    if parsed.tzinfo is None:
        raise ReconcileUsageError(f"{name}: {value!r} has no UTC offset; add Z or +hh:mm")
    return parsed.astimezone(UTC)


def run_reconcile(args: argparse.Namespace, out: TextIO) -> int:
    since = parse_when("--from", args.since)
    until = parse_when("--to", args.until)
    if since > until:
        raise ReconcileUsageError(f"--from {args.since} is after --to {args.until}")
    if args.margin_seconds < 0:
        raise ReconcileUsageError("--margin-seconds cannot be negative")
    margin = timedelta(seconds=args.margin_seconds)
    if args.csv is not None:
        if args.admin_token_file is not None:
            raise ReconcileUsageError("--admin-token-file goes with --reference-operator")
        theirs = read_csv(args.csv)
    else:
        if args.admin_token_file is None:
            raise ReconcileUsageError("--reference-operator needs --admin-token-file")
        theirs = fetch_reference(
            args.reference_operator, _token(args.admin_token_file), since - margin, until + margin
        )
    ours = read_ours(args.operator, since - margin, until + margin)
    result = compare(ours, theirs, since, until)
    if args.json:
        body = {
            "operator": args.operator,
            "from": since.isoformat(),
            "to": until.isoformat(),
            "ours": result.ours,
            "theirs": result.theirs,
            "differences": [asdict(d) for d in result.differences],
        }
        out.write(json.dumps(body, indent=2) + "\n")
    else:
        for d in result.differences:
            out.write(f"{d.problem}\t{d.kind}\t{d.transaction_uuid}\t{d.detail}\n")
        out.write(
            f"{len(result.differences)} difference(s): {result.ours} call(s) of ours,"
            f" {result.theirs} transaction(s) of {args.operator}'s,"
            f" {since.isoformat()} to {until.isoformat()}\n"
        )
    return EXIT_DIFFERENCES if result.differences else EXIT_OK


def _token(path: Path) -> str:
    try:
        token = path.read_text().strip()
    except OSError as error:
        raise ReconcileUsageError(f"--admin-token-file {path}: {error.strerror}") from None
    if not token:
        raise ReconcileUsageError(f"--admin-token-file {path} is empty")
    return token


# ---------------------------------------------------------------------- the operator's side
def _their(row: Mapping[str, Any], where: str) -> TheirTransaction:
    try:
        kind = str(row["kind"])
        if kind not in KINDS:
            raise ValueError(f"kind {kind!r} is not one of bet, win, rollback")
        amount = row["amount"]
        if isinstance(amount, str):
            amount = int(amount)
        if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
            raise ValueError(f"amount {amount!r} is not a whole number of protocol units")
        created = datetime.fromisoformat(str(row["created_at"]))
        if created.tzinfo is None:
            raise ValueError(f"created_at {row['created_at']!r} has no UTC offset")
        tombstone = row.get("tombstone") or False
        if isinstance(tombstone, str):
            if tombstone.lower() not in ("", "true", "false"):
                raise ValueError(f"tombstone {tombstone!r} is not true or false")
            tombstone = tombstone.lower() == "true"
        reference = row.get("reference_transaction_uuid") or None
        round_closed = row.get("round_closed")
        if isinstance(round_closed, str):
            if round_closed.lower() not in ("", "true", "false"):
                raise ValueError(f"round_closed {round_closed!r} is not true or false")
            round_closed = None if round_closed == "" else round_closed.lower() == "true"
        if round_closed is not None and not isinstance(round_closed, bool):
            raise ValueError(f"round_closed {round_closed!r} is not true or false")
        return TheirTransaction(
            transaction_uuid=str(row["transaction_uuid"]),
            kind=kind,
            user=str(row["user"]),
            round=str(row["round"]),
            amount=amount,
            currency=str(row["currency"]),
            reference_transaction_uuid=None if reference is None else str(reference),
            created_at=created.astimezone(UTC),
            tombstone=bool(tombstone),
            round_closed=round_closed,
        )
    except KeyError as error:
        raise ReconcileUsageError(f"{where}: no {error.args[0]}") from None
    except ValueError as error:
        raise ReconcileUsageError(f"{where}: {error}") from None


def read_csv(path: Path) -> list[TheirTransaction]:
    """The operator's transactions as a CSV file with a header line (docs/operators.md)."""
    try:
        with path.open(newline="", encoding="utf-8") as file:
            reader = csv.DictReader(file)
            missing = [c for c in CSV_COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise ReconcileUsageError(f"{path}: no column {', '.join(missing)}")
            return [_their(row, f"{path}:{reader.line_num}") for row in reader]
    except OSError as error:
        raise ReconcileUsageError(f"{path}: {error.strerror}") from None
    except (UnicodeDecodeError, csv.Error) as error:
        raise ReconcileUsageError(f"{path}: not a CSV file in UTF-8: {error}") from None


def fetch_reference(
    url: str, admin_token: str, since: datetime, until: datetime
) -> list[TheirTransaction]:
    """Every transaction of a reference operator in [since, until), all pages."""
    import httpx

    found: list[TheirTransaction] = []
    cursor: int | None = 0
    try:
        with httpx.Client(
            base_url=url, headers={"X-Admin-Token": admin_token}, timeout=30
        ) as client:
            while cursor is not None:
                response = client.get(
                    "/admin/transactions",
                    params={
                        "from": since.isoformat(),
                        "to": until.isoformat(),
                        "cursor": cursor,
                        "limit": 1_000,
                    },
                )
                if response.status_code != 200:
                    raise ReconcileUsageError(
                        f"{url}/admin/transactions answered {response.status_code}:"
                        f" {response.text[:300]}"
                    )
                page = response.json()
                found += [
                    _their(row, f"{url} transaction {n}")
                    for n, row in enumerate(page["transactions"], len(found))
                ]
                cursor = page["next_cursor"]
    except (httpx.HTTPError, ValueError, KeyError, TypeError) as error:
        raise ReconcileUsageError(
            f"{url}: its transactions cannot be read: {type(error).__name__}: {error}"
        ) from None
    return found


# ------------------------------------------------------------------------------ our side
_OUR_CALLS = """
SELECT c.transaction_uuid, c.kind, c.player_id, c.round_id,
       coalesce(c.amount, bet.amount) AS amount, c.currency, c.status,
       c.reference_transaction_uuid, c.created_at,
       (c.kind = 'bet' AND EXISTS (SELECT 1 FROM operator_calls r
                                    WHERE r.slip_id = c.slip_id AND r.kind = 'rollback'))
           AS undone,
       c.round_closed,
       (c.kind = 'bet' AND EXISTS (SELECT 1 FROM wallet_bets b
                                    WHERE b.slip_id = c.slip_id AND b.status <> 'paid'))
           AS in_play
  FROM operator_calls c
  LEFT JOIN operator_calls bet ON c.kind = 'rollback' AND bet.call_id = c.slip_id
 WHERE c.operator_id = $1 AND c.created_at >= $2 AND c.created_at < $3
 ORDER BY c.created_at
"""


def read_ours(operator_id: str, since: datetime, until: datetime) -> list[OurCall]:
    """The operator's calls in [since, until) from the wallet database, as the admin."""
    from teenpatti.operators_cli import OperatorsUsageError, wallet_database, with_wallet

    try:
        dsn, database = wallet_database()
        rows = with_wallet(dsn, database, lambda c: c.fetch(_OUR_CALLS, operator_id, since, until))
    except OperatorsUsageError as error:
        raise ReconcileUsageError(str(error)) from None
    return list(_ours(rows))


def _ours(rows: Iterable[Mapping[str, Any]]) -> Iterable[OurCall]:
    for row in rows:
        amount = row["amount"]
        try:
            units = None if amount is None else to_protocol(int(amount), row["currency"])
        except AmountError as error:
            raise ReconcileUsageError(f"call {row['transaction_uuid']}: {error}") from None
        yield OurCall(
            transaction_uuid=row["transaction_uuid"],
            kind=row["kind"],
            user=row["player_id"],
            round=row["round_id"],
            amount=units,
            currency=row["currency"],
            status=row["status"],
            reference_transaction_uuid=row["reference_transaction_uuid"],
            created_at=row["created_at"].astimezone(UTC),
            undone=bool(row["undone"]),
            round_closed=bool(row["round_closed"]),
            in_play=bool(row["in_play"]),
        )
