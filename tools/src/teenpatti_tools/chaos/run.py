"""A chaos run from start to verdict: an isolated system (with the reference operator as the
seamless operator's wallet server), a simulated studio under load, the seeded faults, then a
wind-down and the end checks, printed as a report."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.chaos.checks import (
    Violation,
    audit,
    audit_violations,
    check_consumers,
    check_money,
    check_seamless,
    rebuilt,
    reconcile,
)
from teenpatti_tools.chaos.faults import Faults, Injected
from teenpatti_tools.chaos.plan import INFRASTRUCTURE, OPERATOR, operator_faults, schedule
from teenpatti_tools.devrun import SEAMLESS_OPERATOR, IsolatedSystem, endpoints, isolated_system
from teenpatti_tools.simulator import SUPERVISOR_KEY, SeamlessOperator, Studio, money

SERVICE_KINDS = ("table", "scanner-gateway", "wallet", "settlement")


@dataclass(frozen=True)
class ChaosConfig:
    seed: int = 1
    duration: float = 120.0  # seconds of load with faults (at least one fault per target)
    tables: int = 3
    players: int = 12
    instances: int = 2
    betting_seconds: float = 3.0
    base_port: int = 8201
    settle_seconds: float = 180.0  # to finish the rounds in play and pay them, at the end
    patience: float = 120.0  # how long a request is retried before the run gives up
    calm: tuple[float, float] = (2.0, 6.0)  # seconds between a repair and the next fault

    def reproduce(self) -> str:
        return (
            f'make chaos ARGS="--seed {self.seed} --duration {self.duration:g}'
            f" --tables {self.tables} --players {self.players} --instances {self.instances}"
            f' --betting-seconds {self.betting_seconds:g}"'
        )


@dataclass
class ChaosReport:
    config: ChaosConfig
    injected: Injected = field(default_factory=Injected)
    counts: dict[str, int] = field(default_factory=dict)
    violations: list[Violation] = field(default_factory=list)
    databases: dict[str, str] = field(default_factory=dict)
    refusals: str = ""  # the wallet's reasons for the refused slips, counted
    operator_fired: dict[str, int] = field(default_factory=dict)  # its switches, by kind
    calls: str = ""  # our calls to the seamless operator, counted by status

    @property
    def ok(self) -> bool:
        return not self.violations

    def to_mapping(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "seed": self.config.seed,
            "config": self.config.__dict__,
            "kills": dict(self.injected.kills),
            "operator_faults": self.operator_fired,
            "faults": self.injected.log,
            "unexpected_exits": self.injected.unexpected_exits,
            "counts": self.counts,
            "violations": [str(v) for v in self.violations],
        }

    def format(self) -> str:
        kills = self.injected.kills
        kinds = [*SERVICE_KINDS, *INFRASTRUCTURE, OPERATOR]
        c = self.counts
        by_check = Counter(v.check for v in self.violations)
        lines = [
            "",
            f"chaos seed {self.config.seed}: result",
            "  kills: "
            + ", ".join(f"{kind} {kills.get(kind, 0)}" for kind in kinds)
            + f" (total {sum(kills.values())}); unexpected exits"
            f" {len(self.injected.unexpected_exits)}",
            f"  rounds: {c.get('rounds', 0):,} ({c.get('rounds_closed', 0):,} closed and settled,"
            f" {c.get('rounds_cancelled', 0):,} cancelled and refunded)",
            f"  bets: {c.get('bets_accepted', 0):,} accepted, {c.get('bets_settled', 0):,} settled,"
            f" {c.get('bets_paid', 0):,} paid; slips refused {c.get('slips_refused', 0):,}"
            + (f" ({self.refusals})" if self.refusals else ""),
            "  the reference operator's faults: "
            + (", ".join(f"{k} {n}" for k, n in sorted(self.operator_fired.items())) or "none"),
            f"  seamless ({SEAMLESS_OPERATOR}): calls {c.get('calls', 0):,}"
            + (f" ({self.calls})" if self.calls else "")
            + f", the operator's transactions {c.get('transactions', 0):,},"
            f" reconciled {c.get('reconciled', 0):,}",
            f"  requests sent again {c.get('retries', 0):,}; rounds resumed by the supervisor"
            f" {c.get('resumed', 0):,}",
            f"  money: deposits {money(c.get('deposits', 0))} = players"
            f" {money(c.get('balances', 0))} + house {money(c.get('house', 0))}",
            f"  events: {c.get('events', 0):,} stored, {c.get('deliveries', 0):,} consumer"
            f" deliveries due, {c.get('parked', 0):,} parked",
            "  checks:",
        ]
        for check, label in (
            ("money", "money conservation, per account and in total"),
            ("bets", "every accepted bet settled and paid, none invented"),
            ("audit", "audit: rounds, settlements once, payments once, chains, Kafka"),
            ("consumers", "every event applied once by every consumer"),
            ("process", "no service died unless killed"),
            ("seamless", "seamless: both sides' money; each debit ended once; none twice"),
            ("reconcile", "teenpatti reconcile: our calls = the operator's transactions"),
            ("rebuild", "teenpatti rebuild: wallet and settlement = their events folded"),
        ):
            found = by_check.get(check, 0)
            lines.append(f"    {label:<64} {'ok' if not found else f'{found} VIOLATIONS'}")
        lines.append(f"  violations: {len(self.violations)}")
        lines.extend(f"    {v}" for v in self.violations[:50])
        if not self.ok:
            lines.append("  the run's databases are kept for `teenpatti audit`:")
            lines.extend(f"    {name}: {db}" for name, db in sorted(self.databases.items()))
        lines.append(f"  reproduce: {self.config.reproduce()}")
        return "\n".join(lines) + "\n"


async def run_chaos(
    config: ChaosConfig,
    infrastructure: InfrastructureSettings,
    *,
    print_line: Callable[[str], None] = print,
) -> ChaosReport:
    report = ChaosReport(config)
    loop = asyncio.get_running_loop()
    async with isolated_system(
        infrastructure,
        label="chaos",
        base_port=config.base_port,
        instances=config.instances,
        keep=lambda: not report.ok,
        seamless=SEAMLESS_OPERATOR,
    ) as system:
        assert system.operator is not None
        started = datetime.now(UTC)
        report.databases = dict(system.databases)
        studio = Studio(
            endpoints(system.processes.services),
            tables=config.tables,
            players=config.players,
            betting_seconds=config.betting_seconds,
            seed=config.seed,
            print_line=lambda _: None,
            patience=config.patience,
            seamless=SeamlessOperator(SEAMLESS_OPERATOR, system.operator.admin),
            last_moment=0.5,
        )
        faults = Faults(
            system.processes,
            print_line=print_line,
            operator=system.operator,
            operator_faults=operator_faults(config.seed),
        )
        report.injected = faults.injected
        stop = asyncio.Event()
        tasks: list[asyncio.Task[None]] = []
        try:
            await studio.open_tables()
            await studio.fund_players()
            await faults.operator_faults_on()
            tasks = [asyncio.create_task(studio.run_table(t, stop)) for t in studio.table_ids]
            targets = [s.name for s in system.processes.services] + [*INFRASTRUCTURE, OPERATOR]
            print_line(
                f"chaos seed {config.seed}: {config.duration:g} s of load on {config.tables}"
                f" tables with {config.players} players; {config.instances} instance(s) of each"
                f" service; faults among {len(targets)} targets"
            )
            print_line(
                f"the services' logs: {system.processes.log_dir}/<instance>.log; the reference"
                f" operator's: {system.processes.log_dir}/operator/operator.log"
            )
            until = loop.time() + config.duration
            plan = schedule(config.seed, targets, calm=config.calm)
            fault_run = asyncio.create_task(faults.run(plan, until=until, at_least=len(targets)))
            await _watch(fault_run, tasks)
            await faults.heal()
            await faults.operator_faults_off()
            report.operator_fired = dict(faults.operator_fired)
            print_line("faults over, everything up; closing the tables and finishing the rounds")
            await _wind_down(studio, tasks, stop, config.settle_seconds)
            await studio.ask_again()
            await _finish(report, studio, system, config)
            await _reconciled(report, system, started)
            for service in ("wallet", "settlement"):
                events, differences = await rebuilt(service, system.databases[service])
                report.counts[f"rebuilt_{service}_events"] = events
                report.violations += differences
        finally:
            stop.set()
            for task in tasks:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(*tasks, return_exceptions=True)
            await studio.close()
    return report


async def _watch(fault_run: asyncio.Task[None], tables: list[asyncio.Task[None]]) -> None:
    """Wait for the faults to end; a table driver that gives up ends the run with its error."""
    while not fault_run.done():
        await asyncio.wait([fault_run, *tables], return_when=asyncio.FIRST_COMPLETED)
        for task in tables:
            if task.done() and task.exception() is not None:
                fault_run.cancel()
                raise task.exception()  # type: ignore[misc]
    fault_run.result()


async def _wind_down(
    studio: Studio, tables: list[asyncio.Task[None]], stop: asyncio.Event, seconds: float
) -> None:
    """Close every table (no new round; the one in play plays to its end) and wait until no
    round is in play, the studio dealing and resuming as before."""
    for table_id in studio.table_ids:
        await studio.call(
            "POST",
            "table",
            f"/tables/{table_id}/close",
            headers={"X-Api-Key": SUPERVISOR_KEY},
            json={"reason": "end of the chaos run"},
        )
    async with asyncio.timeout(seconds):
        while True:
            playing = [t for t in studio.table_ids if await _in_play(studio, t)]
            if not playing:
                break
            for task in tables:
                if task.done() and task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]
            await asyncio.sleep(0.5)
    stop.set()
    await asyncio.gather(*tables)


async def _in_play(studio: Studio, table_id: str) -> bool:
    """Whether the table may still have a round in play. The live view comes from the feed,
    which can lag (its consumer catching up after Kafka came back): only a view that holds
    the table's close is recent enough to say that no round is in play."""
    response = await studio.call(
        "GET", "table", f"/tables/{table_id}", headers={"X-Api-Key": SUPERVISOR_KEY}
    )
    view = response.json()
    round_ = view.get("round")
    ended = round_ is None or round_["phase"] in ("closed", "cancelled")
    return view.get("status") != "closed" or not ended


async def _finish(
    report: ChaosReport,
    studio: Studio,
    system: IsolatedSystem,
    config: ChaosConfig,
) -> None:
    """Wait until the audit sees nothing in progress (settlements and payments of the last
    rounds) and every consumer has applied every event on its topics (a consumer back from
    a kill may still be catching up on the last rounds' events), then run every check."""
    settings, databases = system.settings, system.databases
    assert system.operator is not None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + config.settle_seconds
    while True:
        audited = await audit(settings, databases)
        found = audit_violations(audited)
        if not found or loop.time() >= deadline:
            break
        await asyncio.sleep(2.0)
    while True:
        consumed = await check_consumers(settings, databases)
        behind = [v for v in consumed.violations if "never applied" in v.detail]
        if not behind or loop.time() >= deadline:
            break
        await asyncio.sleep(2.0)
    money_check = await check_money(studio)
    # owed wins and rollbacks still pending (backing off after the last faults) are waited for
    seamless = await check_seamless(
        studio,
        system.operator,
        settings.postgres_dsn(databases["wallet"]),
        within_seconds=max(30.0, deadline - loop.time()),
    )
    report.violations = [
        *money_check.violations,
        *found,
        *consumed.violations,
        *seamless.violations,
        *(
            Violation("process", exit_, "died without being killed")
            for exit_ in report.injected.unexpected_exits
        ),
    ]
    out = audited.outcome
    ledger = studio.ledger
    report.refusals = ", ".join(f"{code} {n}" for code, n in ledger.refusals.most_common())
    report.counts = {
        "rounds": out.rounds,
        "rounds_closed": out.rounds_closed,
        "rounds_cancelled": out.rounds_cancelled,
        "bets_accepted": len(ledger.accepted),
        "bets_settled": out.bets_settled,
        "bets_paid": out.bets_paid,
        "slips_refused": ledger.refused_slips,
        "retries": ledger.retries,
        "resumed": ledger.resumed,
        "deposits": money_check.deposits,
        "balances": money_check.balances,
        "house": money_check.stakes - money_check.returns,
        "events": sum(s.chain.events for s in audited.stores),
        "deliveries": consumed.events,
        "parked": consumed.parked,
        "calls": seamless.calls,
        "transactions": seamless.transactions,
    }
    report.calls = ", ".join(f"{s} {n}" for s, n in seamless.calls_by_status.most_common())


async def _reconciled(report: ChaosReport, system: IsolatedSystem, started: datetime) -> None:
    """`teenpatti reconcile` over the whole run, once every call has ended."""
    assert system.operator is not None
    ours, differences = await reconcile(
        SEAMLESS_OPERATOR,
        system.operator,
        system.databases["wallet"],
        started - timedelta(seconds=1),
        datetime.now(UTC) + timedelta(seconds=1),
    )
    report.counts["reconciled"] = ours
    report.violations += differences


def write_json(report: ChaosReport, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report.to_mapping(), indent=2, default=str) + "\n")
