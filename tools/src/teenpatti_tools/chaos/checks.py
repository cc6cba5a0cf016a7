"""The end checks of a chaos run, made once everything is healthy again and the tables are
closed. Each finds `Violation`s; a run passes with none.

- money: every transfer-wallet account's balance is its deposits minus stakes plus returns,
  and players and house together hold what was deposited;
- bets: every bet the wallet accepted (answered 201) is in its player's history, settled and
  paid; no other bet is there (the audit adds: settled once, paid once, right amount);
- rounds, stores, Kafka: `teenpatti audit --kafka` over the run's four stores finds nothing,
  and nothing is left in progress (every round closed, settled and paid, or cancelled and
  refunded; every stored event on its topic);
- consumers: every event on a consumer group's topics is in its `processed_events` (handled
  once: the primary key), and none was parked;
- seamless: money on both sides of the seamless operator (`devrun.seamless_check`): the
  operator's balances are its deposits - bets + wins + rollbacks, every debit (bet) of a
  paid slip is ended by exactly one win or one rollback, no transaction applied twice or
  unknown to us, no call left pending or failed;
- rebuild: `teenpatti rebuild wallet` and `teenpatti rebuild settlement` find the
  projections equal to those folded from each service's events;
- reconcile: `teenpatti reconcile` over the run finds no difference between our record of
  calls and the reference operator's transactions.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

import asyncpg

from teenpatti.audit.checks import Scope
from teenpatti.audit.runner import STORE_TOPICS, Report, StoreSpec, read_topic, run_audit
from teenpatti.events.catalog import (
    SCANNER_EVENTS,
    SETTLEMENT_EVENTS,
    TABLE_EVENTS,
    WALLET_EVENTS,
)
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.devrun import seamless_check
from teenpatti_tools.operator.control import LaunchedOperator
from teenpatti_tools.simulator import DEPOSIT, Studio

# every consumer group: (service, its input topic, the store it writes to, the event types
# it must have applied: None for every type). The system's path as this check expects it,
# written apart from the services' subscription tables that it checks.
CONSUMERS: tuple[tuple[str, str, str, frozenset[str] | None], ...] = (
    (
        "table",
        SCANNER_EVENTS,
        "table",
        frozenset({"CardScanned", "DeviceRegistered", "DeviceCredentialRotated", "DeviceRevoked"}),
    ),
    ("table", TABLE_EVENTS, "table", None),
    (
        "scanner-gateway",
        TABLE_EVENTS,
        "scanner",
        frozenset(
            {
                "CardDealt",
                "CardRefused",
                "RoundOpened",
                "BettingClosed",
                "RoundClosed",
                "RoundCancelled",
            }
        ),
    ),
    (
        "settlement",
        TABLE_EVENTS,
        "settlement",
        frozenset({"RoundOpened", "RoundClosed", "RoundCancelled", "RoundVoided"}),
    ),
    ("settlement", WALLET_EVENTS, "settlement", frozenset({"BetsPlaced", "BetBookClosed"})),
    (
        "wallet",
        TABLE_EVENTS,
        "wallet",
        frozenset(
            {
                "RoundOpened",
                "BettingClosed",
                "CardDealt",
                "CardsWithdrawn",
                "RoundCancelled",
                "RoundClosed",
                "RoundPaused",
                "RoundResumed",
                "RoundVoided",
            }
        ),
    ),
    (
        "wallet",
        SETTLEMENT_EVENTS,
        "wallet",
        frozenset({"BetsSettled", "SettlementResolved", "BetsReversed"}),
    ),
)
KAFKA_TIMEOUT = 120.0


@dataclass(frozen=True, slots=True)
class Violation:
    check: str  # money, bets, audit, consumers, process, seamless, reconcile, rebuild
    subject: str
    detail: str

    def __str__(self) -> str:
        return f"[{self.check}] {self.subject}: {self.detail}"


@dataclass(slots=True)
class Money:
    """What the wallet holds for the run's players, in minor units."""

    deposits: int = 0
    balances: int = 0
    stakes: int = 0
    returns: int = 0
    bets: int = 0
    violations: list[Violation] = field(default_factory=list)


async def check_money(studio: Studio) -> Money:
    money = Money()
    accepted = studio.ledger.accepted
    seen: set[str] = set()
    for player in studio.players:
        subject = f"account {player.operator_id}:{player.player_id}"
        stakes = returns = 0
        for bet in await studio.player_bets(player):
            bet_id = str(bet.bet_id)
            seen.add(bet_id)
            stakes += bet.stake
            returns += bet.returned or 0
            if bet_id not in accepted:
                money.violations.append(
                    Violation("bets", f"bet {bet_id}", "in the wallet, never accepted")
                )
            elif bet.status != "paid" or bet.returned is None:
                money.violations.append(
                    Violation("bets", f"bet {bet_id}", f"{bet.status.value}, not paid")
                )
        if player.seamless:
            continue  # its money is at its operator: the seamless check's
        balance = await studio.balance(player)
        expected = DEPOSIT - stakes + returns
        if balance != expected:
            money.violations.append(
                Violation(
                    "money",
                    subject,
                    f"balance {balance:,}; deposits - stakes + returns {expected:,}",
                )
            )
        money.deposits += DEPOSIT
        money.balances += balance
        money.stakes += stakes
        money.returns += returns
    for bet_id in sorted(set(accepted) - seen):
        money.violations.append(
            Violation("bets", f"bet {bet_id}", "accepted (201), missing from the wallet")
        )
    money.bets = len(seen)
    # the totals below are the transfer wallet's; seamless stakes went to the operator
    house = money.stakes - money.returns
    if money.balances + house != money.deposits:
        money.violations.append(
            Violation(
                "money",
                "all accounts",
                f"players {money.balances:,} + house {house:,} != deposits {money.deposits:,}",
            )
        )
    return money


async def audit(settings: InfrastructureSettings, databases: Mapping[str, str]) -> Report:
    """`teenpatti audit --kafka` over the run's stores, every round due (no grace)."""
    stores = [
        StoreSpec(name, settings.postgres_dsn(databases[name]), settings.topic(topic))
        for name, topic in STORE_TOPICS.items()
    ]
    return await run_audit(
        stores,
        Scope(),
        settle_grace=timedelta(0),
        kafka_servers=settings.kafka_options(),
        kafka_timeout=KAFKA_TIMEOUT,
    )


def audit_violations(report: Report) -> list[Violation]:
    found = [
        Violation("audit", f.subject, f"{f.check}/{f.code}: {f.detail}") for f in report.findings
    ]
    out = report.outcome
    if out.rounds_in_progress or out.bets_in_progress:
        found.append(
            Violation(
                "audit",
                "in progress",
                f"{out.rounds_in_progress} rounds and {out.bets_in_progress} bets unfinished",
            )
        )
    for store in report.stores:
        if store.kafka_pending:
            found.append(
                Violation("audit", f"store {store.name}", f"{store.kafka_pending} not on Kafka")
            )
    return found


@dataclass(slots=True)
class Consumed:
    events: int = 0  # event deliveries due (events on the topics, per consumer group)
    parked: int = 0
    violations: list[Violation] = field(default_factory=list)


async def check_consumers(
    settings: InfrastructureSettings, databases: Mapping[str, str]
) -> Consumed:
    consumed = Consumed()
    topics: dict[str, dict[UUID, dict[str, Any]]] = {}
    for _, topic, _, _ in CONSUMERS:
        if topic not in topics:
            topics[topic] = await read_topic(
                settings.kafka_options(), settings.topic(topic), KAFKA_TIMEOUT
            )
    for service, topic, store, acts_on in CONSUMERS:
        # the kernel's name for the group: <service>-<the topic's first word>
        group = settings.topic(f"{service}-{topic.split('.')[0]}")
        # what the group must have applied: the events of the types it acts on
        due = {
            event_id
            for event_id, record in topics[topic].items()
            if acts_on is None or record.get("event_type") in acts_on
        }
        connection = await asyncpg.connect(settings.postgres_dsn(databases[store]))
        try:
            processed = {
                row[0]
                for row in await connection.fetch(
                    "SELECT event_id FROM processed_events WHERE consumer = $1", group
                )
            }
            parked = await connection.fetchval(
                "SELECT count(*) FROM parked_events WHERE consumer = $1", group
            )
        finally:
            await connection.close()
        consumed.events += len(due)
        consumed.parked += parked
        missing = due - processed
        if missing:
            consumed.violations.append(
                Violation(
                    "consumers",
                    group,
                    f"{len(missing)} events never applied, e.g. {sorted(missing)[0]}",
                )
            )
        if parked:
            consumed.violations.append(Violation("consumers", group, f"{parked} events parked"))
    return consumed


@dataclass(slots=True)
class Seamless:
    """The seamless operator's side: our calls, its transactions, the differences found."""

    calls: int = 0
    transactions: int = 0
    calls_by_status: Counter[str] = field(default_factory=Counter)
    differences: int = 0
    violations: list[Violation] = field(default_factory=list)


async def check_seamless(
    studio: Studio, operator: LaunchedOperator, wallet_dsn: str, *, within_seconds: float
) -> Seamless:
    """Money on both sides, every debit ended once, nothing applied twice: `make run`'s own
    check (`devrun.seamless_check`), its problems as violations."""
    problems, figures = await seamless_check(
        studio, operator, wallet_dsn, within_seconds=within_seconds
    )
    found = Seamless(calls=figures["calls"], transactions=figures["transactions"])
    connection = await asyncpg.connect(wallet_dsn)
    try:
        for status, count in await connection.fetch(
            "SELECT status, count(*) FROM operator_calls GROUP BY status"
        ):
            found.calls_by_status[status] = count
    finally:
        await connection.close()
    found.violations = [Violation("seamless", "operator", problem) for problem in problems]
    # applied twice: one transaction_uuid twice in its list, or a bet ended twice there
    # (the one-to-one comparison above reads its list by transaction_uuid, so says neither)
    uuids: Counter[str] = Counter()
    endings: Counter[str] = Counter()
    for player in studio.seamless_players:
        for transaction in await operator.admin.transactions(user=player.player_id):
            uuids[str(transaction["transaction_uuid"])] += 1
            if transaction["kind"] != "bet":
                endings[str(transaction["reference_transaction_uuid"])] += 1
    found.violations += [
        Violation("seamless", f"transaction {uuid}", f"applied {n} times by the operator")
        for uuid, n in sorted(uuids.items())
        if n > 1
    ]
    found.violations += [
        Violation("seamless", f"bet {uuid}", f"ended {n} times at the operator (wins, rollbacks)")
        for uuid, n in sorted(endings.items())
        if n > 1
    ]
    return found


async def reconcile(
    operator_id: str,
    operator: LaunchedOperator,
    wallet_database: str,
    since: datetime,
    until: datetime,
) -> tuple[int, list[Violation]]:
    """`teenpatti reconcile --operator ... --reference-operator ... --json` over [since, until),
    run as a person would (the admin on the run's wallet database): its differences."""
    token_file = Path(operator.command[operator.command.index("--admin-token-file") + 1])
    status, out, err = await _teenpatti(
        {"TP_WALLET_DATABASE": wallet_database},
        "reconcile", "--operator", operator_id,
        "--from", since.isoformat(), "--to", until.isoformat(),
        "--reference-operator", operator.url, "--admin-token-file", str(token_file), "--json",
    )  # fmt: skip
    if status not in (0, 1):
        return 0, [Violation("reconcile", operator_id, f"exit {status}: {err}")]
    body = json.loads(out)
    return int(body["ours"]), [
        Violation(
            "reconcile",
            f"{d['kind']} {d['transaction_uuid']}",
            f"{d['problem']}: {d['detail']}",
        )
        for d in body["differences"]
    ]


async def rebuilt(service: str, database: str) -> tuple[int, list[Violation]]:
    """`teenpatti rebuild SERVICE --json` on the run's database of the service, run as a
    person would: the events folded and the projections that differ from the live ones."""
    variable = f"TP_{service.upper()}_DATABASE"
    status, out, err = await _teenpatti({variable: database}, "rebuild", service, "--json")
    if status not in (0, 1):
        return 0, [Violation("rebuild", service, f"exit {status}: {err}")]
    body = json.loads(out)
    found = [
        Violation(
            "rebuild",
            p["name"],
            f"{p['only_live']} row(s) only live, {p['only_rebuilt']} only rebuilt:"
            f" {(p['examples_live'] + p['examples_rebuilt'])[:2]}",
        )
        for p in body["projections"]
        if p["only_live"] or p["only_rebuilt"]
    ]
    found += [Violation("rebuild", f"{service} events", d) for d in body["disagreements"]]
    return int(body["events"]), found


async def _teenpatti(databases: dict[str, str], *argv: str) -> tuple[int, bytes, str]:
    """`teenpatti ARGV...` as a person runs it (the admin, on the run's databases, named by
    their `TP_*_DATABASE` settings): its exit status, its output, and the end of its error
    output."""
    process = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "teenpatti.cli", *argv),
        env={
            **os.environ,
            "TP_ENV": os.environ.get("TP_ENV", "dev"),
            **databases,
        },
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out, err.decode(errors="replace").strip()[-500:]
