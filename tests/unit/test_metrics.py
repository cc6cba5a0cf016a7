"""The metric helpers (teenpatti.observability.metrics): HTTP requests by route template,
consumer lag and records, the relay's backlog, the gauges read when scraped, the pool's
connections, and `/metrics` on a service app."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import httpx
from fastapi import FastAPI
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.parser import text_string_to_metric_families
from starlette.middleware import Middleware

from teenpatti.eventsourcing.consumer import ConsumerStats
from teenpatti.http import install_problem_handlers
from teenpatti.observability import metrics as metrics_module
from teenpatti.observability.metrics import (
    UNMATCHED_ROUTE,
    ConsumerMetrics,
    GaugeFamily,
    HttpMetricsMiddleware,
    PoolCollector,
    Reading,
    RelayMetrics,
    ScrapedGauges,
    exposition,
)


def value(name: str, **labels: str) -> float:
    """A sample of the process-wide registry, 0 when it has none."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


# ------------------------------------------------------------------------------ HTTP
def routed_app() -> FastAPI:
    app = FastAPI(middleware=[Middleware(HttpMetricsMiddleware)])
    install_problem_handlers(app)

    @app.get("/metrics-test/tables/{table_id}")
    async def table(table_id: str) -> dict[str, str]:
        return {"table_id": table_id}

    @app.get("/metrics-test/boom")
    async def boom() -> None:
        raise RuntimeError("a bug")

    return app


async def test_requests_are_counted_and_timed_by_route_template_never_the_raw_path() -> None:
    route = "/metrics-test/tables/{table_id}"
    counted = value("teenpatti_http_requests_total", method="GET", route=route, status="200")
    timed = value("teenpatti_http_request_duration_seconds_count", method="GET", route=route)
    transport = httpx.ASGITransport(app=routed_app(), raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://service") as client:
        for table_id in ("T1", "T2", "T3"):
            assert (await client.get(f"/metrics-test/tables/{table_id}")).status_code == 200
        assert (await client.get("/metrics-test/nowhere/T1")).status_code == 404
        assert (await client.get("/metrics-test/boom")).status_code == 500

    assert (
        value("teenpatti_http_requests_total", method="GET", route=route, status="200")
        == counted + 3
    )
    assert (
        value("teenpatti_http_request_duration_seconds_count", method="GET", route=route)
        == timed + 3
    )
    assert (
        value("teenpatti_http_requests_total", method="GET", route=UNMATCHED_ROUTE, status="404")
        >= 1
    )
    assert (
        value(
            "teenpatti_http_requests_total", method="GET", route="/metrics-test/boom", status="500"
        )
        >= 1
    )
    exposed = exposition().decode()
    assert "/metrics-test/tables/T1" not in exposed  # no raw path ever becomes a label


# ------------------------------------------------------------------------------ consumers
@dataclass(frozen=True)
class TP:
    topic: str
    partition: int


@dataclass
class FakeConsumer:
    """What ConsumerMetrics reads of an aiokafka consumer."""

    highwaters: dict[TP, int | None]
    positions: dict[TP, int] = field(default_factory=dict)

    def assignment(self) -> set[TP]:
        return set(self.highwaters)

    def highwater(self, partition: TP) -> int | None:
        return self.highwaters[partition]

    async def position(self, partition: TP) -> int:
        return self.positions[partition]


async def test_consumer_lag_is_highwater_minus_position_per_assigned_partition() -> None:
    group = "unit-lag"
    p0, p1, p2 = TP("t.events", 0), TP("t.events", 1), TP("t.events", 2)
    kafka = FakeConsumer({p0: 120, p1: 7, p2: None}, {p0: 100, p1: 7})
    metrics = ConsumerMetrics(group)
    await metrics.after_poll(kafka, ConsumerStats())
    lag = "teenpatti_consumer_lag_records"
    assert (
        REGISTRY.get_sample_value(lag, {"group": group, "topic": "t.events", "partition": "0"})
        == 20
    )
    assert (
        REGISTRY.get_sample_value(lag, {"group": group, "topic": "t.events", "partition": "1"}) == 0
    )
    # never fetched yet: no figure rather than a wrong one
    assert (
        REGISTRY.get_sample_value(lag, {"group": group, "topic": "t.events", "partition": "2"})
        is None
    )

    # partition 0 moved to another instance: its series goes (the new owner reports it)
    kafka.highwaters.pop(p0)
    await metrics.measure_lag(kafka)
    assert (
        REGISTRY.get_sample_value(lag, {"group": group, "topic": "t.events", "partition": "0"})
        is None
    )
    assert (
        REGISTRY.get_sample_value(lag, {"group": group, "topic": "t.events", "partition": "1"}) == 0
    )

    metrics.forget_lag()
    assert (
        REGISTRY.get_sample_value(lag, {"group": group, "topic": "t.events", "partition": "1"})
        is None
    )


async def test_a_position_that_takes_long_does_not_hold_the_poll() -> None:
    class Stuck(FakeConsumer):
        async def position(self, partition: TP) -> int:
            await asyncio.sleep(10)
            return 0

    metrics = ConsumerMetrics("unit-stuck")
    async with asyncio.timeout(1):
        await metrics.measure_lag(Stuck({TP("t", 0): 5}))


def test_consumer_records_count_what_the_stats_grew_by() -> None:
    group = "unit-records"
    metrics = ConsumerMetrics(group)
    stats = ConsumerStats(handled=5, duplicates=1, parked=0, skipped=3)
    metrics.count(stats)
    stats.handled += 2
    stats.parked += 1
    metrics.count(stats)
    metrics.count(stats)  # nothing new: nothing added

    def records(outcome: str) -> float | None:
        return REGISTRY.get_sample_value(
            "teenpatti_consumer_records_total", {"group": group, "outcome": outcome}
        )

    assert (records("handled"), records("duplicate"), records("parked")) == (7, 1, 1)
    assert records("passed_over") == 3


# ------------------------------------------------------------------------------ relay
def test_the_relay_backlog_and_its_age_and_a_standby_withdraws_them() -> None:
    now = datetime(2025, 1, 1, 12, tzinfo=UTC)
    ticks = iter([0.0, 0.5, 1.2])
    relay = RelayMetrics("unit-relay", interval_seconds=1.0, clock=lambda: next(ticks))
    labels = {"relay": "unit-relay"}
    assert REGISTRY.get_sample_value("teenpatti_outbox_relay_leader", labels) == 0

    relay.leading(True)
    assert relay.due()  # never measured
    relay.backlog(42, now - timedelta(seconds=7.5), now)
    assert REGISTRY.get_sample_value("teenpatti_outbox_backlog_events", labels) == 42
    assert REGISTRY.get_sample_value("teenpatti_outbox_relay_lag_seconds", labels) == 7.5
    assert REGISTRY.get_sample_value("teenpatti_outbox_relay_leader", labels) == 1
    assert not relay.due()  # 0.5 s later
    assert relay.due()  # 1.2 s later
    relay.backlog(0, None, now)  # nothing waits: no age
    assert REGISTRY.get_sample_value("teenpatti_outbox_relay_lag_seconds", labels) == 0

    published = value("teenpatti_outbox_published_events_total", **labels)
    relay.published(3)
    assert value("teenpatti_outbox_published_events_total", **labels) == published + 3

    relay.leading(False)
    assert REGISTRY.get_sample_value("teenpatti_outbox_relay_leader", labels) == 0
    assert REGISTRY.get_sample_value("teenpatti_outbox_backlog_events", labels) is None
    assert REGISTRY.get_sample_value("teenpatti_outbox_relay_lag_seconds", labels) is None


# ------------------------------------------------------------------------------ when scraped
ROUNDS = GaugeFamily("unit_rounds", "Rounds by state.", ("state",))
HELD = GaugeFamily("unit_held", "Held rounds.")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def samples(registry: CollectorRegistry) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in registry.collect()
        for sample in family.samples
    }


async def test_scraped_gauges_are_read_at_most_every_max_age_and_shared() -> None:
    reads = 0

    async def rounds() -> Reading:
        nonlocal reads
        reads += 1
        await asyncio.sleep(0.01)
        return {("betting",): 2.0, ("dealing",): float(reads)}

    clock = Clock()
    gauges = ScrapedGauges({ROUNDS: rounds}, max_age_seconds=5, clock=clock)
    registry = CollectorRegistry()
    registry.register(gauges)
    await asyncio.gather(gauges.refresh(), gauges.refresh(), gauges.refresh())
    assert reads == 1  # concurrent scrapes share one reading
    clock.now = 4.9
    await gauges.refresh()
    assert reads == 1
    assert samples(registry)[("unit_rounds", (("state", "dealing"),))] == 1
    clock.now = 5.0
    await gauges.refresh()
    assert reads == 2
    assert samples(registry) == {
        ("unit_rounds", (("state", "betting"),)): 2,
        ("unit_rounds", (("state", "dealing"),)): 2,
    }


async def test_a_gauge_that_fails_or_times_out_has_no_series_and_is_counted() -> None:
    outcome = "works"

    async def held() -> Reading:
        if outcome == "fails":
            raise OSError("connection refused")
        if outcome == "hangs":
            await asyncio.sleep(10)
        return {(): 3.0}

    async def rounds() -> Reading:
        return {("paused",): 1.0}

    clock = Clock()
    gauges = ScrapedGauges(
        {HELD: held, ROUNDS: rounds}, max_age_seconds=1, timeout_seconds=0.05, clock=clock
    )
    registry = CollectorRegistry()
    registry.register(gauges)
    await gauges.refresh()
    assert samples(registry)[("unit_held", ())] == 3

    errors = value("teenpatti_metrics_read_errors_total", gauge="unit_held")
    for now, behaviour in ((1.0, "fails"), (2.0, "hangs")):
        clock.now, outcome = now, behaviour
        async with asyncio.timeout(1):
            await gauges.refresh()
        assert ("unit_held", ()) not in samples(registry)  # never a stale figure
        assert samples(registry)[("unit_rounds", (("state", "paused"),))] == 1  # the others read
    assert value("teenpatti_metrics_read_errors_total", gauge="unit_held") == errors + 2
    text = exposition(registry).decode()
    assert "# HELP unit_held Held rounds." in text  # the family is still described


def test_pool_connections_in_use_and_idle() -> None:
    @dataclass
    class Pool:
        size: int
        idle: int

        def get_size(self) -> int:
            return self.size

        def get_idle_size(self) -> int:
            return self.idle

        def get_max_size(self) -> int:
            return 20

    registry = CollectorRegistry()
    pool: Pool | None = None
    registry.register(PoolCollector(lambda: pool))
    assert samples(registry) == {}  # not started: no figures
    pool = Pool(size=5, idle=2)
    assert samples(registry) == {
        ("teenpatti_db_pool_connections", (("state", "in_use"),)): 3,
        ("teenpatti_db_pool_connections", (("state", "idle"),)): 2,
        ("teenpatti_db_pool_max_connections", ()): 20,
    }


# ------------------------------------------------------------------------------ /metrics
async def test_a_service_app_answers_metrics_in_the_text_format_before_it_starts() -> None:
    from table_service.app import create_app

    app = create_app()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://service") as client:
        await client.get("/health")
        answer = await client.get("/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
    families = {family.name for family in text_string_to_metric_families(answer.text)}
    assert {"teenpatti_http_requests", "teenpatti_http_request_duration_seconds"} <= families
    assert "/metrics" not in app.openapi()["paths"]  # an operations endpoint, not the API


def test_every_metric_is_named_teenpatti_with_its_unit() -> None:
    kept = [
        metric
        for metric in vars(metrics_module).values()
        if isinstance(metric, Counter | Gauge | Histogram)
    ]
    described = [
        family.name for family in vars(metrics_module).values() if isinstance(family, GaugeFamily)
    ]
    assert len(kept) > 10 and len(described) > 5
    for metric in kept:
        [family] = metric.describe()
        assert family.name.startswith("teenpatti_"), family.name
        if isinstance(metric, Histogram):
            assert family.name.endswith("_seconds"), family.name
    for name in described:
        assert name.startswith("teenpatti_"), name
