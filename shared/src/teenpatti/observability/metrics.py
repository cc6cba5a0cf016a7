"""Prometheus metrics: every metric the services expose on `/metrics`, named here, and the
helpers that keep them (docs/runbook.md says what each alert on them means).

Three kinds, by where their values come from:
- counters, gauges and histograms kept as things happen, in the process-wide registry: HTTP
  requests (`HttpMetricsMiddleware`, which the kernel puts in front of every app), each
  consumer's records and lag (`ConsumerMetrics`, after each poll), the outbox backlog
  (`RelayMetrics`, measured by the leading relay after a publish or an idle poll, at most
  once a second: never by a scrape), and the services' own timings, observed where they
  happen;
- gauges read when `/metrics` is scraped (`ScrapedGauges`): from the service's own database
  (rounds by state, held settlements, parked events) and the readiness checks, each read at
  most every few seconds and under a timeout, so that a scrape never waits long and many
  scrapes cost one read;
- the Postgres pool's connections (`PoolCollector`), read off the pool as it is scraped.

Names are `teenpatti_*` and carry their unit (`_seconds`, `_records`, `_events`, `_total`).
No metric carries the service's name: Prometheus's target labels (job, instance, and the
`service` label the scrape configurations add) tell the instances apart.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4
from prometheus_client.metrics_core import GaugeMetricFamily, Metric
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger(__name__)

# What `/metrics` answers with: the text format `generate_latest` writes.
CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4

# A latency from one service's event to another's effect: milliseconds to a minute.
_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

# ------------------------------------------------------------------------------ HTTP
HTTP_REQUESTS = Counter(
    "teenpatti_http_requests_total",
    "HTTP requests answered, by method, route template and status.",
    ["method", "route", "status"],
)
HTTP_REQUEST_SECONDS = Histogram(
    "teenpatti_http_request_duration_seconds",
    "How long HTTP requests took, from the request to the end of the response, by method"
    " and route template.",
    ["method", "route"],
)
# the route label of a request no route matched (a 404): never the raw path
UNMATCHED_ROUTE = "<unmatched>"
HTTP_RATE_LIMITED = Counter(
    "teenpatti_http_rate_limited_total",
    "Requests refused with 429 rate_limited (teenpatti.kernel.edges), by the limit they"
    " exceeded: api_key or address.",
    ["limit"],
)

# ------------------------------------------------------------------------------ consumers
CONSUMER_LAG = Gauge(
    "teenpatti_consumer_lag_records",
    "Records on a partition this instance consumes that it has not read yet (the partition's"
    " high watermark minus the consumer's position), after its last poll.",
    ["group", "topic", "partition"],
)
CONSUMER_RECORDS = Counter(
    "teenpatti_consumer_records_total",
    "Records a consumer took from Kafka, by outcome: handled (applied in a transaction),"
    " duplicate (found in processed_events), parked (written to parked_events),"
    " passed_over (of a type its handlers ignore).",
    ["group", "outcome"],
)

# ------------------------------------------------------------------------------ outbox relay
OUTBOX_BACKLOG = Gauge(
    "teenpatti_outbox_backlog_events",
    "Events committed to the store and not yet published to Kafka (counted up to"
    " 100,000), as the leading relay last measured them.",
    ["relay"],
)
OUTBOX_RELAY_LAG = Gauge(
    "teenpatti_outbox_relay_lag_seconds",
    "How long ago the oldest event not yet published occurred (0: none waits), as the"
    " leading relay last measured it.",
    ["relay"],
)
OUTBOX_PUBLISHED = Counter(
    "teenpatti_outbox_published_events_total",
    "Events the relay published to Kafka (acknowledged).",
    ["relay"],
)
OUTBOX_SET_ASIDE = Counter(
    "teenpatti_outbox_set_aside_events_total",
    "Events the relay set aside instead of publishing them: larger than"
    " TP_KAFKA_MAX_EVENT_BYTES, or refused by Kafka as too large (parked_outbox_events).",
    ["relay"],
)
OUTBOX_RELAY_LEADER = Gauge(
    "teenpatti_outbox_relay_leader",
    "1 while this instance's relay holds its store's leader lock and publishes, else 0.",
    ["relay"],
)

# ------------------------------------------------------------------------------ table
BETTING_WINDOWS_CLOSED = Counter(
    "teenpatti_table_betting_windows_closed_total",
    "Betting windows the table clocks closed (BettingClosed appended).",
)
BETTING_CLOSE_LATENESS = Histogram(
    "teenpatti_table_betting_close_lateness_seconds",
    "How long after its round's betting_closes_at each BettingClosed was appended.",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
SCAN_TO_ROUND_CLOSED = Histogram(
    "teenpatti_table_scan_to_round_closed_seconds",
    "From a round's last CardScanned (its occurred_at, the gateway's reading) to the"
    " RoundClosed it caused, appended and committed.",
    buckets=_LATENCY_BUCKETS,
)

# ------------------------------------------------------------------------------ scanner-gateway
SCAN_TO_VERDICT = Histogram(
    "teenpatti_gateway_scan_to_verdict_seconds",
    "From a read reaching the gateway to the table's verdict on it being heard, by"
    " verdict (registered, refused).",
    ["verdict"],
    buckets=_LATENCY_BUCKETS,
)
VERDICTS_PENDING = Counter(
    "teenpatti_gateway_verdicts_pending_total",
    "Reads answered `pending`: no verdict was heard within the verdict timeout.",
)

# ------------------------------------------------------------------------------ wallet
ROUND_CLOSED_TO_PAID = Histogram(
    "teenpatti_wallet_round_closed_to_paid_seconds",
    "From a round's RoundClosed (its occurred_at) to the payment of each of its settlement"
    " parts committed; the largest per round is its last bet paid.",
    buckets=_LATENCY_BUCKETS,
)

# ------------------------------------------------------------------------------ operators' wallets
# An operator's wallet answers in milliseconds when well, in seconds when not: 5 ms to 10 s.
_OPERATOR_CALL_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
OPERATOR_CALLS = Counter(
    "teenpatti_operator_calls_total",
    "Attempts of calls to a seamless operator's wallet, by operator, call (balance, bet, win,"
    " rollback) and outcome: the answer's status (RS_OK, RS_ERROR_...), or timeout, no_answer"
    " (no connection, an HTTP status other than 200, an answer cut off) or bad_answer.",
    ["operator", "call", "outcome"],
)
OPERATOR_CALL_SECONDS = Histogram(
    "teenpatti_operator_call_duration_seconds",
    "How long attempts of calls to a seamless operator's wallet took, signing to the answer"
    " read (a timeout: the operator's timeout_seconds), by operator and call.",
    ["operator", "call"],
    buckets=_OPERATOR_CALL_BUCKETS,
)
OPERATOR_CALL_TIMEOUTS = Counter(
    "teenpatti_operator_call_timeouts_total",
    "Attempts of calls to a seamless operator's wallet not answered within the operator's"
    " timeout_seconds, by operator and call.",
    ["operator", "call"],
)
OPERATOR_BAD_ANSWERS = Counter(
    "teenpatti_operator_bad_answers_total",
    "Answers of a seamless operator's wallet that cannot be trusted or understood, by"
    " operator and reason (teenpatti.seamless.calls.BAD_ANSWER_REASONS: oversized, unsigned,"
    " wrong_signature, malformed, unknown_status, wrong_request_uuid, wrong_user,"
    " other_currency, negative_balance, absurd_balance).",
    ["operator", "reason"],
)
SLIPS_REFUSED = Counter(
    "teenpatti_wallet_slips_refused_total",
    "Slips refused (transfer and seamless), by operator and refusal code (docs/services.md,"
    " Refusal codes); a refusal answered again from its Idempotency-Key counts again.",
    ["operator", "code"],
)

# ------------------------------------------------------------------------------ API keys
AUTH_FAILURES = Counter(
    "teenpatti_auth_failures_total",
    "Requests refused for their API key, by reason: missing, unknown (no such key, or a wrong"
    " secret for a key id), expired, revoked, wrong_role, out_of_scope (a table the key may"
    " not act on), access_unavailable (the access database could not be read), invalid_ticket"
    " (a feed ticket unknown, used or expired).",
    ["reason"],
)

# ------------------------------------------------------------------------------ when scraped
READ_ERRORS = Counter(
    "teenpatti_metrics_read_errors_total",
    "Gauges read when scraped that failed or timed out (their series are left out of that"
    " scrape), by gauge.",
    ["gauge"],
)


@dataclass(frozen=True)
class GaugeFamily:
    """A gauge read when scraped: its name, help text and label names."""

    name: str
    documentation: str
    labels: tuple[str, ...] = ()


READY_CHECKS = GaugeFamily(
    "teenpatti_ready_check",
    "Each readiness check of /ready: 1 when ok, 0 when not (Postgres, Kafka, Redis"
    " reachable; each background task alive; the service's own conditions).",
    ("check",),
)
PARKED_EVENTS = GaugeFamily(
    "teenpatti_parked_events",
    "Events in the service's parked_events, waiting for a person, by consumer group.",
    ("group",),
)
PARKED_OUTBOX_EVENTS = GaugeFamily(
    "teenpatti_outbox_parked_events",
    "Events of the service's store that its relay set aside as too large for Kafka, by relay:"
    " never published, waiting for a person.",
    ("relay",),
)
TABLE_ROUNDS = GaugeFamily(
    "teenpatti_table_rounds",
    "Open tables by the state of their current round: open (none yet), betting, dealing,"
    " paused, closed, cancelled.",
    ("state",),
)
TABLE_ROUND_STALL = GaugeFamily(
    "teenpatti_table_round_stall_seconds",
    "The longest a round in play has gone without a card while dealing (state=dealing:"
    " since the table's last event) or has been paused (state=paused); 0 when none.",
    ("state",),
)
SETTLEMENT_HELD_ROUNDS = GaugeFamily(
    "teenpatti_settlement_held_rounds",
    "Rounds whose settlement is held by a recorded problem (settlement_problems, GET"
    " /problems), by kind of problem.",
    ("kind",),
)
OPERATOR_OWED_CALLS = GaugeFamily(
    "teenpatti_operator_owed_calls",
    "Wins and rollbacks owed to a seamless operator and not yet answered RS_OK, by operator"
    " and state: pending (still retried), overdue (pending past the operator's timeout and"
    " backoff; counted in pending too), failed (retrying cannot deliver it: a person resends"
    " it). Read from the wallet database.",
    ("operator", "state"),
)
OPERATOR_OWED_CALL_AGE = GaugeFamily(
    "teenpatti_operator_owed_call_oldest_age_seconds",
    "The age of the oldest win or rollback owed to a seamless operator and not yet answered"
    " RS_OK, by operator and state (pending, failed); absent when none is.",
    ("operator", "state"),
)
DB_POOL_CONNECTIONS = GaugeFamily(
    "teenpatti_db_pool_connections",
    "Connections of this instance's Postgres pool, by state (in_use, idle).",
    ("state",),
)
DB_POOL_MAX_CONNECTIONS = GaugeFamily(
    "teenpatti_db_pool_max_connections",
    "The most connections this instance's Postgres pool opens.",
)

# label values -> value: one reading of a gauge family
Reading = Mapping[tuple[str, ...], float]
GaugeReader = Callable[[], Awaitable[Reading]]


def exposition(*registries: CollectorRegistry) -> bytes:
    """The text `/metrics` answers: every registry's metrics (no family in two of them)."""
    return b"".join(generate_latest(registry) for registry in registries or (REGISTRY,))


def seconds_between(start: datetime, end: datetime) -> float:
    return (end - start).total_seconds()


# ------------------------------------------------------------------------------ HTTP
class HttpMetricsMiddleware:
    """Counts and times every HTTP request by method, route template (`/tables/{table_id}`,
    as declared: one series per route, not per table) and status. Outermost of the app's
    middleware, so it times theirs too. A request that raises counts as a 500."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def send_and_note(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_and_note)
        finally:
            method, route = scope["method"], route_template(scope)
            HTTP_REQUESTS.labels(method, route, str(status)).inc()
            HTTP_REQUEST_SECONDS.labels(method, route).observe(time.perf_counter() - started)


def route_template(scope: Scope) -> str:
    """The path template of the route that took the request (the router notes it in the
    scope), or `UNMATCHED_ROUTE`."""
    path = getattr(scope.get("route"), "path", None)
    return path if isinstance(path, str) and path else UNMATCHED_ROUTE


# ------------------------------------------------------------------------------ consumers
class PolledConsumer(Protocol):
    """What `ConsumerMetrics` reads of an aiokafka consumer."""

    def assignment(self) -> Iterable[Any]: ...

    def highwater(self, partition: Any) -> int | None: ...

    async def position(self, partition: Any) -> int: ...


class ConsumerCounts(Protocol):
    """A consumer's running totals (`ConsumerStats`)."""

    handled: int
    duplicates: int
    parked: int
    skipped: int


# the longest a lag measurement may hold up the next poll (a position being reset)
_LAG_SECONDS = 0.1
# lag is measured at most this often (Prometheus scrapes every 5-15 s), not after every poll,
# which cost a busy consumer's loop a position look-up per partition per poll (decision 0105)
_LAG_EVERY_SECONDS = 1.0


class ConsumerMetrics:
    """One consumer group's records and lag, from its running totals and its consumer."""

    def __init__(self, group: str) -> None:
        self._group = group
        self._outcomes = {
            outcome: CONSUMER_RECORDS.labels(group, outcome)
            for outcome in ("handled", "duplicate", "parked", "passed_over")
        }
        self._counted = {outcome: 0 for outcome in self._outcomes}
        self._lagging: set[tuple[str, int]] = set()
        self._lag_due = 0.0  # monotonic time of the next lag measurement

    async def after_poll(self, kafka: PolledConsumer, counts: ConsumerCounts) -> None:
        self.count(counts)
        now = time.monotonic()
        if now >= self._lag_due:
            self._lag_due = now + _LAG_EVERY_SECONDS
            await self.measure_lag(kafka)

    def count(self, counts: ConsumerCounts) -> None:
        """Add what the totals grew by since the last call."""
        totals = {
            "handled": counts.handled,
            "duplicate": counts.duplicates,
            "parked": counts.parked,
            "passed_over": counts.skipped,
        }
        for outcome, total in totals.items():
            grown = total - self._counted[outcome]
            if grown > 0:
                self._outcomes[outcome].inc(grown)
            self._counted[outcome] = total

    async def measure_lag(self, kafka: PolledConsumer) -> None:
        """Each assigned partition's lag, as of the consumer's last fetch of it; a partition
        no longer assigned here loses its series (its new owner reports it)."""
        measured: set[tuple[str, int]] = set()
        try:
            async with asyncio.timeout(_LAG_SECONDS):
                for tp in list(kafka.assignment()):
                    highwater = kafka.highwater(tp)
                    if highwater is None:  # not fetched yet
                        continue
                    position = await kafka.position(tp)
                    key = (str(tp.topic), int(tp.partition))
                    CONSUMER_LAG.labels(self._group, key[0], str(key[1])).set(
                        max(highwater - position, 0)
                    )
                    measured.add(key)
        except TimeoutError:
            return  # next poll
        except Exception as error:  # a rebalance under way: the next poll measures again
            log.debug("%s: lag not measured (%s)", self._group, error)
            return
        self._forget(self._lagging - measured)
        self._lagging = measured

    def forget_lag(self) -> None:
        """The session ended: this instance no longer consumes any partition."""
        self._forget(self._lagging)
        self._lagging = set()

    def _forget(self, partitions: set[tuple[str, int]]) -> None:
        for topic, partition in partitions:
            with contextlib.suppress(KeyError):
                CONSUMER_LAG.remove(self._group, topic, str(partition))


# ------------------------------------------------------------------------------ outbox relay
class RelayMetrics:
    """One relay's publishing, leadership and backlog. The backlog is measured by the relay
    itself (`due` says when next); only the leader (or a relay that just failed to publish)
    reports one, and a standby withdraws its series."""

    def __init__(
        self,
        relay: str,
        *,
        interval_seconds: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._relay = relay
        self._interval = interval_seconds
        self._clock = clock
        self._measured_at: float | None = None
        self._published = OUTBOX_PUBLISHED.labels(relay)
        self._leader = OUTBOX_RELAY_LEADER.labels(relay)
        self._leader.set(0)

    def published(self, events: int) -> None:
        self._published.inc(events)

    def set_aside(self, events: int) -> None:
        OUTBOX_SET_ASIDE.labels(self._relay).inc(events)

    def leading(self, leading: bool) -> None:
        self._leader.set(1 if leading else 0)
        if not leading:
            self.withdraw()

    def due(self) -> bool:
        """Whether to measure the backlog now: at most once an interval, whether the
        measurement then succeeds or not (a slow store does not slow the relay down)."""
        now = self._clock()
        if self._measured_at is not None and now - self._measured_at < self._interval:
            return False
        self._measured_at = now
        return True

    def backlog(self, events: int, oldest: datetime | None, now: datetime) -> None:
        OUTBOX_BACKLOG.labels(self._relay).set(events)
        lag = 0.0 if oldest is None else max(seconds_between(oldest, now), 0.0)
        OUTBOX_RELAY_LAG.labels(self._relay).set(lag)

    def withdraw(self) -> None:
        """Report no backlog from here: another instance's relay leads."""
        self._measured_at = None
        for gauge in (OUTBOX_BACKLOG, OUTBOX_RELAY_LAG):
            with contextlib.suppress(KeyError):
                gauge.remove(self._relay)


# ------------------------------------------------------------------------------ when scraped
class ScrapedGauges:
    """Gauges read when `/metrics` is scraped (`refresh`, then `collect`). All are read
    together, at most every `max_age_seconds` (scrapes meanwhile get the last reading), each
    reader under `timeout_seconds`: a reader that fails or times out is counted in
    `teenpatti_metrics_read_errors_total` and its family has no series until it reads again,
    never stale ones."""

    def __init__(
        self,
        readers: Mapping[GaugeFamily, GaugeReader],
        *,
        max_age_seconds: float = 5.0,
        timeout_seconds: float = 3.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._readers = dict(readers)
        self._max_age = max_age_seconds
        self._timeout = timeout_seconds
        self._clock = clock
        self._read_at: float | None = None
        self._readings: dict[GaugeFamily, Reading] = {}
        self._lock = asyncio.Lock()

    def _fresh(self) -> bool:
        return self._read_at is not None and self._clock() - self._read_at < self._max_age

    async def refresh(self) -> None:
        """Read every gauge again, unless the last reading is recent enough."""
        if self._fresh():
            return
        async with self._lock:  # concurrent scrapes share one reading
            if self._fresh():
                return
            families = list(self._readers)
            results = await asyncio.gather(*(self._read(family) for family in families))
            self._readings = {
                family: reading
                for family, reading in zip(families, results, strict=True)
                if reading is not None
            }
            self._read_at = self._clock()

    async def _read(self, family: GaugeFamily) -> Reading | None:
        try:
            async with asyncio.timeout(self._timeout):
                return dict(await self._readers[family]())
        except Exception as error:  # TimeoutError included
            READ_ERRORS.labels(family.name).inc()
            log.warning("metrics: %s not read (%s: %s)", family.name, type(error).__name__, error)
            return None

    def collect(self) -> Iterable[Metric]:
        for family in self._readers:
            metric = GaugeMetricFamily(family.name, family.documentation, labels=family.labels)
            for labels, value in sorted(self._readings.get(family, {}).items()):
                metric.add_metric(list(labels), value)
            yield metric


class _Pool(Protocol):
    def get_size(self) -> int: ...

    def get_idle_size(self) -> int: ...

    def get_max_size(self) -> int: ...


class PoolCollector:
    """The connections of a Postgres pool (asyncpg's), as it is scraped."""

    def __init__(self, pool: Callable[[], _Pool | None]) -> None:
        self._pool = pool

    def collect(self) -> Iterable[Metric]:
        pool = self._pool()
        connections = GaugeMetricFamily(
            DB_POOL_CONNECTIONS.name,
            DB_POOL_CONNECTIONS.documentation,
            labels=DB_POOL_CONNECTIONS.labels,
        )
        most = GaugeMetricFamily(
            DB_POOL_MAX_CONNECTIONS.name, DB_POOL_MAX_CONNECTIONS.documentation
        )
        if pool is not None:
            size, idle = pool.get_size(), pool.get_idle_size()
            connections.add_metric(["in_use"], size - idle)
            connections.add_metric(["idle"], idle)
            most.add_metric([], pool.get_max_size())
        yield connections
        yield most
