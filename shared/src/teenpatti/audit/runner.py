"""The audit's I/O: read the four event stores (and optionally their Kafka topics), run the
checks of `teenpatti.audit.checks` and `teenpatti.audit.chain`, and build the `Report`."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

import asyncpg

from teenpatti.audit.chain import ChainSummary, Finding, Row, verify_stream
from teenpatti.audit.checks import (
    BalanceTables,
    FailedCall,
    History,
    Outcome,
    Scope,
    check_balances,
    check_history,
)
from teenpatti.events.catalog import (
    SCANNER_EVENTS,
    SETTLEMENT_EVENTS,
    TABLE_EVENTS,
    WALLET_EVENTS,
)
from teenpatti.eventsourcing.store import audit_query, last_checkpoint, store_exists, stream_heads
from teenpatti.settings import KafkaConnection, kafka_client_options

Progress = Callable[[str], None]

CONNECT_TIMEOUT = 10.0
FETCH_BATCH = 5_000


class AuditUnavailableError(Exception):
    """A store or the broker cannot be read: the audit cannot run (exit status 2)."""


@dataclass(frozen=True, slots=True)
class StoreSpec:
    name: str  # table, scanner, wallet, settlement
    dsn: str
    topic: str  # the topic its outbox relay publishes to (prefixed)

    @property
    def database(self) -> str:
        return self.dsn.rsplit("/", 1)[-1].split("?", 1)[0]


# The services' stores in the order they are read; each one's topic before the prefix.
STORE_TOPICS = {
    "table": TABLE_EVENTS,
    "scanner": SCANNER_EVENTS,
    "wallet": WALLET_EVENTS,
    "settlement": SETTLEMENT_EVENTS,
}


@dataclass(slots=True)
class StoreReport:
    name: str
    database: str
    chain: ChainSummary = field(default_factory=ChainSummary)
    kafka_checked: int = 0
    kafka_pending: int = 0
    kafka_newer: int = 0  # on the topic, stored after this audit read the store
    heads: dict[str, int] = field(default_factory=dict, repr=False)  # `streams` as read


@dataclass(slots=True)
class Report:
    started_at: datetime
    scope: Scope
    settle_grace: timedelta
    stores: list[StoreReport] = field(default_factory=list)
    outcome: Outcome = field(default_factory=Outcome)
    balances_checked: int | None = None  # None: skipped
    kafka: bool = False
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.findings

    def to_mapping(self) -> dict[str, Any]:
        out = self.outcome
        return {
            "ok": self.ok,
            "started_at": self.started_at.isoformat(),
            "scope": {
                "table_id": self.scope.table_id,
                "since": None if self.scope.since is None else self.scope.since.isoformat(),
                "until": None if self.scope.until is None else self.scope.until.isoformat(),
            },
            "stores": [
                {
                    "store": s.name,
                    "database": s.database,
                    "streams": s.chain.streams,
                    "events": s.chain.events,
                    "chained": s.chain.chained,
                    "kafka_checked": s.kafka_checked if self.kafka else None,
                    "kafka_pending": s.kafka_pending if self.kafka else None,
                    "kafka_newer": s.kafka_newer if self.kafka else None,
                }
                for s in self.stores
            ],
            "rounds": {
                "total": out.rounds,
                "closed": out.rounds_closed,
                "cancelled": out.rounds_cancelled,
                "in_progress": out.rounds_in_progress,
                "voided_after_result": out.rounds_voided_after_result,
            },
            "bets": {
                "placed": out.bets,
                "settled": out.bets_settled,
                "paid": out.bets_paid,
                "in_progress": out.bets_in_progress,
                "reversed": out.bets_reversed,
            },
            "amounts": {
                currency: {
                    "staked": a.staked,
                    "returned": a.returned,
                    "paid": a.paid,
                    "house_result": a.staked - a.returned,
                    "deposited": a.deposited,
                    "withdrawn": a.withdrawn,
                    "refunded_after_void": a.refunded_after_void,
                    "taken_back": a.taken_back,
                }
                for currency, a in sorted(out.amounts.items())
            },
            "balances_checked": self.balances_checked,
            "mismatches": [
                {"check": f.check, "code": f.code, "subject": f.subject, "detail": f.detail}
                for f in self.findings
            ],
        }

    def format(self) -> str:
        out = self.outcome
        scope = self.scope
        lines = [f"teenpatti audit, started {self.started_at.isoformat(timespec='seconds')}"]
        lines.append(
            "scope: "
            + (f"table {scope.table_id}" if scope.table_id else "all tables")
            + ", rounds opened "
            + (
                "at any time"
                if scope.since is None and scope.until is None
                else f"from {scope.since.isoformat() if scope.since else 'the start'}"
                f" until {scope.until.isoformat() if scope.until else 'now'}"
            )
        )
        lines.append("stores:")
        for s in self.stores:
            kafka = (
                f", {s.kafka_checked:,} on Kafka, {s.kafka_pending:,} not yet published,"
                f" {s.kafka_newer:,} on Kafka stored after the read"
                if self.kafka
                else ""
            )
            chain = f"{s.chain.chained:,} chained"
            lines.append(
                f"  {s.name:<11} {s.database:<20} {s.chain.events:>10,} events in "
                f"{s.chain.streams:,} streams ({chain}{kafka})"
            )
        lines.append(
            f"rounds: {out.rounds:,} ({out.rounds_closed:,} closed, {out.rounds_cancelled:,} "
            f"cancelled, {out.rounds_in_progress:,} in progress)"
            + (
                f"; {out.rounds_voided_after_result:,} closed then voided after the result,"
                f" {out.bets_reversed:,} bets reversed"
                if out.rounds_voided_after_result
                else ""
            )
        )
        lines.append(
            f"bets: {out.bets:,} placed, {out.bets_settled:,} settled, {out.bets_paid:,} paid"
            f" ({out.bets_in_progress:,} settlements or payments still in progress)"
        )
        if out.amounts:
            lines.append("amounts (minor units):")
            for currency, a in sorted(out.amounts.items()):
                lines.append(
                    f"  {currency}  staked {a.staked:,}  returned {a.returned:,}  paid {a.paid:,}"
                    f"  house result {a.staked - a.returned:,}  deposited {a.deposited:,}"
                    f"  withdrawn {a.withdrawn:,}"
                    + (
                        f"  voided after the result: refunded {a.refunded_after_void:,},"
                        f" taken back {a.taken_back:,}"
                        if a.refunded_after_void or a.taken_back
                        else ""
                    )
                )
        lines.append(
            "balances: skipped (a scoped audit; balances need the whole history)"
            if self.balances_checked is None
            else f"balances: {self.balances_checked:,} accounts replayed and compared"
        )
        if not self.kafka:
            lines.append("kafka: not checked (--kafka)")
        lines.append(f"mismatches: {len(self.findings)}")
        for f in self.findings:
            lines.append(f"  [{f.check}/{f.code}] {f.subject}: {f.detail}")
        lines.append(
            "result: OK" if self.ok else f"result: FAILED ({len(self.findings)} mismatches)"
        )
        return "\n".join(lines) + "\n"


@dataclass(slots=True)
class _KafkaRow:
    ref: str
    stream_id: str
    stream_version: int
    event_type: str
    payload_text: str
    order: tuple[int, int]


async def run_audit(
    stores: list[StoreSpec],
    scope: Scope,
    *,
    settle_grace: timedelta = timedelta(seconds=60),
    kafka_servers: KafkaConnection | None = None,
    kafka_timeout: float = 60.0,
    progress: Progress | None = None,
    now: datetime | None = None,
) -> Report:
    started = now or datetime.now(UTC)
    report = Report(started_at=started, scope=scope, settle_grace=settle_grace)
    report.kafka = kafka_servers is not None
    history = History()
    balance_tables: BalanceTables | None = None
    for spec in stores:
        store_report = StoreReport(spec.name, spec.database)
        report.stores.append(store_report)
        kept: dict[UUID, _KafkaRow] | None = {} if kafka_servers is not None else None
        checkpoint, tables = await _read_store(
            spec, scope, history, store_report, kept, progress, wallet=spec.name == "wallet"
        )
        if tables is not None:
            balance_tables = tables
        report.findings.extend(store_report.chain.findings)
        if kafka_servers is not None and kept is not None:
            report.findings.extend(
                await _check_topic(
                    spec,
                    kafka_servers,
                    kafka_timeout,
                    kept,
                    checkpoint,
                    scope,
                    store_report,
                    started - settle_grace,
                    progress,
                )
            )
    report.outcome = check_history(history, scope, started - settle_grace)
    report.findings.extend(report.outcome.findings)
    if scope.complete and balance_tables is not None:
        findings, accounts = check_balances(history, balance_tables, report.outcome.amounts)
        report.findings.extend(findings)
        report.balances_checked = accounts
    elif scope.complete:
        report.findings.append(
            Finding("balance", "no_wallet", "wallet", "no wallet store was read")
        )
    return report


async def connect_store(spec: StoreSpec) -> asyncpg.Connection:
    try:
        connection: asyncpg.Connection = await asyncpg.connect(spec.dsn, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, asyncpg.PostgresError) as error:
        raise AuditUnavailableError(
            f"cannot connect to the {spec.name} store (database {spec.database!r}): "
            f"{str(error) or type(error).__name__}"
        ) from None
    return connection


async def _read_store(
    spec: StoreSpec,
    scope: Scope,
    history: History,
    store_report: StoreReport,
    kept: dict[UUID, _KafkaRow] | None,
    progress: Progress | None,
    *,
    wallet: bool,
) -> tuple[tuple[int, int] | None, BalanceTables | None]:
    connection = await connect_store(spec)
    try:
        if not await store_exists(connection):
            raise AuditUnavailableError(
                f"the {spec.name} store (database {spec.database!r}) has no events table"
            )
        query, args = audit_query(scope.table_id, scope.since)
        async with connection.transaction(isolation="repeatable_read", readonly=True):
            heads = await stream_heads(connection)
            store_report.heads = heads
            checkpoint = await last_checkpoint(connection)
            chain = store_report.chain
            current: list[Row] = []
            seen: set[str] = set()

            def finish_stream() -> None:
                if not current:
                    return
                findings, chained = verify_stream(current, heads.get(current[0].stream_id))
                chain.streams += 1
                chain.events += len(current)
                chain.chained += chained
                chain.findings.extend(findings)
                seen.add(current[0].stream_id)
                current.clear()

            cursor = await connection.cursor(query, *args)
            read = 0
            while True:
                records = await cursor.fetch(FETCH_BATCH)
                if not records:
                    break
                for record in records:
                    row = Row(
                        store=spec.name,
                        stream_id=record["stream_id"],
                        stream_version=record["stream_version"],
                        event_id=record["event_id"],
                        event_type=record["event_type"],
                        schema_version=record["schema_version"],
                        table_id=record["table_id"],
                        occurred_at=record["occurred_at"],
                        correlation_id=record["correlation_id"],
                        causation_id=record["causation_id"],
                        producer=record["producer"],
                        payload_text=record["payload"],
                        hash=None if record["hash"] is None else bytes(record["hash"]),
                        transaction_id=record["transaction_id"],
                        position=record["position"],
                    )
                    if current and current[0].stream_id != row.stream_id:
                        finish_stream()
                    current.append(row)
                    history.add(row)
                    if kept is not None:
                        kept[row.event_id] = _KafkaRow(
                            row.ref,
                            row.stream_id,
                            row.stream_version,
                            row.event_type,
                            row.payload_text,
                            (row.transaction_id, row.position),
                        )
                read += len(records)
                if progress is not None:
                    progress(f"{spec.name}: {read:,} events read")
            finish_stream()
            if scope.complete:
                for stream_id, version in sorted(heads.items()):
                    if stream_id not in seen and version > 0:
                        chain.findings.append(
                            Finding(
                                "chain",
                                "stream_empty",
                                f"{spec.name}:{stream_id}",
                                f"the store records version {version} but the stream has no event",
                            )
                        )
            tables = await read_balance_tables(connection) if wallet else None
        return checkpoint, tables
    except asyncpg.PostgresError as error:
        raise AuditUnavailableError(
            f"cannot read the {spec.name} store (database {spec.database!r}): {error}"
        ) from None
    finally:
        await connection.close()


async def read_balance_tables(connection: asyncpg.Connection) -> BalanceTables | None:
    """The wallet projection's balances, ledger sums and failed operator calls; None without
    a wallet schema."""
    if await connection.fetchval("SELECT to_regclass('wallet_accounts')") is None:
        return None
    accounts = {
        (r["operator_id"], r["player_id"], r["currency"]): int(r["balance"])
        for r in await connection.fetch(
            "SELECT operator_id, player_id, currency, balance FROM wallet_accounts"
        )
    }
    player: dict[tuple[str, str, str], int] = {}
    house: dict[tuple[str, str], int] = {}
    for r in await connection.fetch(
        "SELECT account, operator_id, player_id, currency, sum(amount) AS total"
        " FROM wallet_ledger GROUP BY account, operator_id, player_id, currency"
    ):
        if r["account"] == "house":
            house[(r["operator_id"], r["currency"])] = int(r["total"])
        else:
            player[(r["operator_id"], r["player_id"], r["currency"])] = int(r["total"])
    failed: list[FailedCall] = []
    if await connection.fetchval("SELECT to_regclass('operator_calls')") is not None:
        failed = [
            FailedCall(
                r["call_id"],
                r["kind"],
                r["operator_id"],
                r["player_id"],
                r["round_id"],
                r["answer_status"] or r["error"] or "no reason recorded",
            )
            # a failed bet (no answer) is rolled back by an owed rollback: that rollback, if
            # it fails, is the problem, as on the wallet's GET /problems
            for r in await connection.fetch(
                "SELECT call_id, kind, operator_id, player_id, round_id, answer_status, error"
                " FROM operator_calls WHERE status = 'failed' AND kind <> 'bet'"
                " ORDER BY created_at, call_id"
            )
        ]
    return BalanceTables(accounts, player, house, failed)


async def _check_topic(
    spec: StoreSpec,
    servers: KafkaConnection,
    timeout: float,  # noqa: ASYNC109 (bounds the whole read, also documented)
    kept: dict[UUID, _KafkaRow],
    checkpoint: tuple[int, int] | None,
    scope: Scope,
    store_report: StoreReport,
    recent: datetime,
    progress: Progress | None,
) -> list[Finding]:
    """Every stored event the relay has passed must be on the store's topic, the same; and
    every event on the topic of a stream that was read must be in the store, unless it was
    stored after the store was read (a version above the stream's head then, and occurred
    after `recent`)."""
    records = await read_topic(servers, spec.topic, timeout, progress)
    findings: list[Finding] = []
    streams = {row.stream_id for row in kept.values()}
    for event_id, row in kept.items():
        published = checkpoint is not None and row.order <= checkpoint
        on_topic = records.get(event_id)
        if on_topic is None:
            if published:
                findings.append(
                    Finding(
                        "kafka",
                        "not_on_topic",
                        row.ref,
                        f"event {event_id} ({row.event_type}) was published (the relay's "
                        f"checkpoint is past it) but is not on {spec.topic}",
                    )
                )
            else:
                store_report.kafka_pending += 1
            continue
        store_report.kafka_checked += 1
        stored = (row.stream_id, row.stream_version, row.event_type, json.loads(row.payload_text))
        told = (
            on_topic.get("stream_id"),
            on_topic.get("stream_version"),
            on_topic.get("event_type"),
            on_topic.get("payload"),
        )
        if stored != told:
            findings.append(
                Finding(
                    "kafka",
                    "topic_mismatch",
                    row.ref,
                    f"event {event_id}: stream, version, type or payload on {spec.topic} "
                    "differs from the store",
                )
            )
    for event_id, envelope in records.items():
        if event_id in kept:
            continue
        stream_id = envelope.get("stream_id")
        if not scope.complete and stream_id not in streams:
            continue
        if _newer_than_snapshot(envelope, store_report.heads, recent):
            store_report.kafka_newer += 1
            continue
        findings.append(
            Finding(
                "kafka",
                "not_in_store",
                f"{spec.name}:{stream_id}@{envelope.get('stream_version')}",
                f"event {event_id} ({envelope.get('event_type')}) is on {spec.topic} but not "
                "in the store",
            )
        )
    return findings


def _newer_than_snapshot(envelope: dict[str, Any], heads: dict[str, int], recent: datetime) -> bool:
    try:
        version = int(envelope["stream_version"])
        occurred_at = datetime.fromisoformat(str(envelope["occurred_at"]))
    except (KeyError, TypeError, ValueError):
        return False
    if occurred_at.tzinfo is None:
        return False
    return version > heads.get(str(envelope.get("stream_id")), 0) and occurred_at > recent


async def read_topic(
    servers: KafkaConnection,
    topic: str,
    timeout: float,  # noqa: ASYNC109
    progress: Progress | None = None,
) -> dict[UUID, dict[str, Any]]:
    """Every record of `topic` up to its end offsets at the start, by event id."""
    from aiokafka import AIOKafkaConsumer
    from aiokafka.errors import KafkaError

    consumer = AIOKafkaConsumer(
        topic,
        **kafka_client_options(servers),
        group_id=None,  # no group: every partition is assigned to this reader
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        request_timeout_ms=int(timeout * 1000),
    )
    records: dict[UUID, dict[str, Any]] = {}
    try:
        async with asyncio.timeout(timeout):
            await consumer.start()
            if topic not in await consumer.topics():
                raise AuditUnavailableError(f"kafka topic {topic!r} does not exist")
            while not consumer.assignment():  # noqa: ASYNC110 (aiokafka assigns, no event)
                await asyncio.sleep(0.1)
            partitions = sorted(consumer.assignment(), key=lambda tp: tp.partition)
            await consumer.seek_to_beginning(*partitions)
            ends = await consumer.end_offsets(partitions)
            remaining = {tp for tp in partitions if ends[tp] > 0}
            while remaining:
                batches = await consumer.getmany(*remaining, timeout_ms=500)
                for batch in batches.values():
                    for record in batch:
                        try:
                            envelope = json.loads(record.value or b"")
                            records[UUID(str(envelope["event_id"]))] = envelope
                        except (ValueError, KeyError, TypeError):
                            continue  # not an envelope: the consumers park those
                for tp in list(remaining):
                    if await consumer.position(tp) >= ends[tp]:
                        remaining.discard(tp)
                if progress is not None:
                    progress(f"{topic}: {len(records):,} records read")
    except TimeoutError:
        raise AuditUnavailableError(
            f"kafka topic {topic!r} could not be read within {timeout:g} s"
        ) from None
    except KafkaError as error:
        raise AuditUnavailableError(f"cannot read kafka topic {topic!r}: {error}") from None
    finally:
        await consumer.stop()
    return records
