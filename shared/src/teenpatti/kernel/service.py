"""A service is a declaration (`Service`); the kernel runs it.

A declaration names the service's settings class, its database and migrations, the topic it
emits to, its HTTP routers, its domain errors and a `wire` function that builds its parts
once the kernel has opened the pool, the store and (if declared) Redis, and answers with its
`Wiring`: the subscriptions table `{topic: {EventType: handler}}`, the background tasks and
the object the routes depend on.

The kernel owns the rest, the same for every service: the lifespan (the schema check, pools,
topics, the outbox relay, one consumer per subscribed topic, the tasks, a graceful drain),
`/health` (the process answers) and `/ready` (every dependency reachable, every background
task alive), `/metrics` (Prometheus: HTTP requests timed by route, consumers, the relay, the
pool, and the gauges the service reads from its database, `teenpatti.observability.metrics`),
the log lines and traces (`teenpatti.observability.logs`, `.tracing`: JSON lines naming the
service and the request or event in hand; spans per request and per consumed batch),
problem details at the HTTP edge, `/problems` (what the service holds for a person,
`teenpatti.kernel.problems`), the request-scoped dependencies
(`teenpatti.kernel.dependencies`), and the edges: a body limit and rate limits in front of
every route (`teenpatti.kernel.edges`), timeouts on every Postgres session and Redis command.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import asyncpg
from aiokafka import AIOKafkaProducer
from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, Response
from fastapi.telemetry import TelemetryConfig
from prometheus_client import REGISTRY, CollectorRegistry
from pydantic import BaseModel, ConfigDict
from redis.asyncio import Redis
from starlette.middleware import Middleware

from teenpatti.access import Authenticator, ConfiguredKeys, PostgresKeyLookup
from teenpatti.events.catalog import registry
from teenpatti.eventsourcing import (
    MIGRATIONS as STORE_MIGRATIONS,
)
from teenpatti.eventsourcing import (
    AsyncpgEventStore,
    KafkaEventConsumer,
    KafkaOutboxRelay,
    TopicConfigurationError,
    ensure_topics,
    kafka_producer,
)
from teenpatti.eventsourcing.consumer import PartitionsCallback, parked_by_group
from teenpatti.eventsourcing.relay import parked_outbox_by_relay
from teenpatti.http import (
    ProblemError,
    install_problem_handlers,
    operation_id,
    problem_response,
)
from teenpatti.kernel.edges import BodyLimitMiddleware, Rate, RateLimitMiddleware
from teenpatti.kernel.problems import ProblemSource, problems_router
from teenpatti.kernel.process import freeze_startup_objects, keep_session
from teenpatti.kernel.proxies import TrustedProxies
from teenpatti.kernel.subscriptions import (
    Handlers,
    Subscriptions,
    dispatcher,
    handled_types,
    passed_over,
)
from teenpatti.migrations import MigrationSet, check
from teenpatti.observability.logs import RequestLogContext, log_context, setup_logging
from teenpatti.observability.metrics import (
    CONTENT_TYPE,
    PARKED_EVENTS,
    PARKED_OUTBOX_EVENTS,
    READY_CHECKS,
    GaugeFamily,
    GaugeReader,
    HttpMetricsMiddleware,
    PoolCollector,
    Reading,
    ScrapedGauges,
    exposition,
)
from teenpatti.observability.tracing import IncomingTraceContext, flush_traces, setup_tracing
from teenpatti.settings import DEVELOPMENT, InfrastructureSettings, development_keys
from teenpatti.transient import once_reachable

log = logging.getLogger(__name__)

S = TypeVar("S", bound=InfrastructureSettings)
Task = Callable[[asyncio.Event], Coroutine[Any, Any, None]]


@dataclass(frozen=True)
class Consumption:
    """How one subscribed topic is consumed, where the defaults do not fit."""

    max_records: int | None = None  # None: the `consumer_max_records` setting
    gather_ms: int = 0  # how long the broker may hold a fetch for more records to come
    on_assigned: PartitionsCallback | None = None  # hears which partitions this instance owns
    on_revoked: PartitionsCallback | None = None


@dataclass(frozen=True)
class Refusal:
    """How a domain error answers at the HTTP edge: its status, and its problem's code and
    detail (by default the error's own `code` and `detail`, else its message)."""

    status: int | Callable[[Exception], int]
    code: str | None = None
    detail: str | None = None


@dataclass
class Wiring:
    """What a service's `wire` builds."""

    subscriptions: Subscriptions
    components: object  # what the routes depend on (`dependencies.provide`)
    tasks: Mapping[str, Task] = field(default_factory=dict)
    consumption: Mapping[str, Consumption] = field(default_factory=dict)
    # more conditions of readiness, by name: each true when ready
    ready: Mapping[str, Callable[[], bool]] = field(default_factory=dict)
    # run first when the service stops (before its consumers and tasks are stopped)
    on_stop: Sequence[Callable[[], Awaitable[None]]] = ()
    # gauges read from the service's own database when /metrics is scraped (`ScrapedGauges`)
    gauges: Mapping[GaugeFamily, GaugeReader] = field(default_factory=dict)
    # what `GET /problems` lists beside the parked events, by kind (`teenpatti.kernel.problems`)
    problems: Mapping[str, ProblemSource] = field(default_factory=dict)


class Kernel(Generic[S]):
    """One running instance of a service: what `wire` may use."""

    def __init__(self, service: Service[S], settings: S) -> None:
        self.service = service
        self.settings = settings
        self.stopping = asyncio.Event()
        self._pool: asyncpg.Pool | None = None
        self._store: AsyncpgEventStore | None = None
        self._redis: Redis | None = None
        self._producer: AIOKafkaProducer | None = None
        self.consumers: list[KafkaEventConsumer] = []
        self.tasks: dict[str, asyncio.Task[None]] = {}
        # this instance's own metrics, beside the process-wide registry: its pool, and the
        # gauges read when scraped (once started)
        self.metrics = CollectorRegistry()
        self.metrics.register(PoolCollector(lambda: self._pool))
        self.gauges: ScrapedGauges | None = None
        self._ready: Mapping[str, Callable[[], bool]] = {}

    @property
    def pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise RuntimeError(f"{self.service.name} is not started")
        return self._pool

    @property
    def store(self) -> AsyncpgEventStore:
        if self._store is None:
            raise RuntimeError(f"{self.service.name} is not started")
        return self._store

    @property
    def redis(self) -> Redis:
        if self._redis is None:
            raise RuntimeError(f"{self.service.name} declares no Redis")
        return self._redis

    @property
    def migrations(self) -> list[MigrationSet]:
        return [STORE_MIGRATIONS, self.service.migrations]

    async def start(self) -> Wiring:
        settings = self.settings
        registry.use_compiled(settings.compiled_decoders)
        # before anything connects
        settings.refuse_default_secrets(redis=self.service.redis is not None)
        settings.refuse_development_settings()
        setup_tracing(settings, self.service.name)
        # Postgres and Kafka may be restarting: each is tried again for a while
        wait = settings.startup_wait_seconds
        pool = await once_reachable("postgres", self._open_pool, seconds=wait)
        self._pool = pool
        async with pool.acquire() as connection:
            await check(
                connection, self.migrations, command=f"teenpatti migrate {self.service.name}"
            )
        self._store = AsyncpgEventStore(self._pool, producer=self.service.name)
        if self.service.redis is not None:
            self._redis = self.service.redis(settings)
        wiring = await self.service.wire(self)
        # only its own topics: its principal may describe and create no other
        topics = list(dict.fromkeys([self.service.emits, *wiring.subscriptions]))
        await once_reachable("kafka", lambda: _ensure_topics(settings, topics), seconds=wait)
        self._producer = await once_reachable("kafka", self._renew_producer, seconds=wait)
        relay = KafkaOutboxRelay(
            self._store,
            self._producer,
            settings.topic(self.service.emits),
            name=self.service.name,
            max_event_bytes=settings.kafka_max_event_bytes,
            renew_producer=self._renew_producer,
        )
        self.spawn("relay", relay.run)
        self._ready = wiring.ready
        self.gauges = ScrapedGauges(
            {
                READY_CHECKS: self._ready_gauge,
                PARKED_EVENTS: lambda: parked_by_group(self.pool),
                PARKED_OUTBOX_EVENTS: lambda: parked_outbox_by_relay(self.pool),
                **wiring.gauges,
            }
        )
        self.metrics.register(self.gauges)
        for topic, handlers in wiring.subscriptions.items():
            self._consume(topic, handlers, wiring.consumption.get(topic, Consumption()))
        for name, task in wiring.tasks.items():
            self.spawn(name, task)
        freeze_startup_objects()
        return wiring

    async def _open_pool(self) -> asyncpg.Pool:
        settings = self.settings
        pool: asyncpg.Pool = await asyncpg.create_pool(
            settings.postgres_dsn(self.service.database(settings)),
            min_size=2,
            max_size=settings.pg_pool_size,
            reset=keep_session,
            # statement, idle-in-transaction and command timeouts (docs/configuration.md)
            **settings.postgres_pool_options(),
        )
        return pool

    def _consume(self, topic: str, handlers: Handlers, tuning: Consumption) -> None:
        """The consumer group `<service>-<topic's first word>` on `topic`."""
        settings = self.settings
        handles = handled_types(handlers)
        ignored = None if handles is None else passed_over(handles)
        consumer = KafkaEventConsumer(
            self.pool,
            name=settings.topic(f"{self.service.name}-{topic.split('.')[0]}"),
            topics=[settings.topic(topic)],
            bootstrap_servers=settings.kafka_options(),
            handler=dispatcher(handlers),
            batches=settings.consumer_batches,
            after_commit=settings.consumer_after_commit,
            wait_seconds=settings.consumer_wait_seconds,
            skips=None if ignored is None else lambda e: ignored(e.event_type, e.schema_version),
            skips_type=ignored,
            max_records=tuning.max_records or settings.consumer_max_records,
            gather_ms=tuning.gather_ms,
            on_assigned=tuning.on_assigned,
            on_revoked=tuning.on_revoked,
            max_record_bytes=settings.consumer_max_record_bytes,
        )
        self.consumers.append(consumer)
        self.spawn(consumer.name, consumer.run)

    async def _renew_producer(self) -> AIOKafkaProducer:
        """A new, started producer: the relay's first, or one for the relay whose old one
        Kafka's refusal spoilt (the relay stops the old one)."""
        producer = kafka_producer(self.settings.kafka_options(), client_id=self.service.name)
        try:
            await producer.start()
        except BaseException:
            await producer.stop()
            raise
        self._producer = producer
        return producer

    def spawn(self, name: str, task: Task) -> None:
        """Run a loop for the life of the service; if it ends early, /ready says so."""
        running: asyncio.Task[None] = asyncio.create_task(
            task(self.stopping), name=f"{self.service.name}-{name}"
        )
        running.add_done_callback(self._report_end)
        self.tasks[name] = running

    def _report_end(self, task: asyncio.Task[None]) -> None:
        if self.stopping.is_set():
            return
        if task.cancelled():
            log.error("%s stopped: cancelled", task.get_name())
        else:
            log.error("%s stopped", task.get_name(), exc_info=task.exception())

    async def stop(self, wiring: Wiring | None) -> None:
        self.stopping.set()
        for hook in wiring.on_stop if wiring is not None else ():
            try:
                await hook()
            except Exception:
                log.exception("%s: a stop hook failed", self.service.name)
        if self.tasks:
            _, pending = await asyncio.wait(
                self.tasks.values(), timeout=self.settings.drain_seconds
            )
            for task in pending:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(*pending, return_exceptions=True)
        if self._producer is not None:
            await self._producer.stop()
        if self._redis is not None:
            await self._redis.aclose()
        if self._pool is not None:
            await self._pool.close()
        await flush_traces()

    async def readiness(self) -> dict[str, str]:
        """Each dependency and task: "ok" or what is wrong. The dependencies are probed at
        once, so an answer takes at most `PROBE_SECONDS`."""
        producer = self._producer
        probes: dict[str, Awaitable[Any]] = {"postgres": self.pool.fetchval("SELECT 1")}
        if producer is not None:
            probes["kafka"] = producer.client.fetch_all_metadata()
        if self._redis is not None:
            probes["redis"] = self._redis.ping()
        results = await asyncio.gather(*(_probe(probe) for probe in probes.values()))
        checks = dict(zip(probes, results, strict=True))
        if producer is None:
            checks["kafka"] = "not started"
        for name, task in self.tasks.items():
            checks[f"task {name}"] = "ok" if not task.done() else "stopped"
        return checks

    async def _ready_gauge(self) -> Reading:
        """`teenpatti_ready_check`: each check of /ready, 1 when ok."""
        checks = await self.readiness()
        for name, is_ready in self._ready.items():
            checks[name] = "ok" if is_ready() else "not yet"
        return {(name,): 1.0 if value == "ok" else 0.0 for name, value in checks.items()}


PROBE_SECONDS = 2.0

# FastAPI's own OpenTelemetry: a server span per request, continuing the caller's
# `traceparent`, when `setup_tracing` has installed a tracer provider. Not for the probes
# and the scrapes; no spans per dependency, and no OpenTelemetry metrics or logs (the
# kernel has its own).
UNTRACED_PATHS = frozenset({"/health", "/ready", "/metrics"})
TELEMETRY: TelemetryConfig = {
    "auto_configure": False,
    "metrics": False,
    "logs": False,
    "operation_spans": False,
    "exclude": lambda scope: scope.get("path") in UNTRACED_PATHS,
}


async def _probe(check: Awaitable[Any]) -> str:
    try:
        async with asyncio.timeout(PROBE_SECONDS):
            await check
    except Exception as error:
        return f"unreachable: {type(error).__name__}"
    return "ok"


async def _ensure_topics(
    settings: InfrastructureSettings, topics: Sequence[str], attempts: int = 20
) -> None:
    """Create the topics and wait until Kafka describes them whole: right after creating a
    topic, Kafka may describe it with no partitions yet."""
    for attempt in range(1, attempts + 1):
        try:
            await ensure_topics(
                settings.kafka_options(),
                [settings.topic(t) for t in topics],
                partitions=settings.kafka_partitions,
                replication_factor=settings.kafka_replication_factor,
            )
            return
        except TopicConfigurationError as error:
            if attempt == attempts:
                raise
            log.info("topics not settled yet (%s); retrying", error)
            await asyncio.sleep(0.25)


class Health(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    service: str
    status: str
    """`ok`: the process answers."""


class Readiness(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    service: str
    status: str
    """`ready`: every check is `ok` (otherwise the answer is a 503 problem)."""
    checks: dict[str, str]  # each dependency and task: "ok"


@dataclass(frozen=True)
class Service(Generic[S]):
    """A service, declared."""

    name: str
    settings: type[S]
    database: Callable[[S], str]
    migrations: MigrationSet
    emits: str
    routers: Sequence[APIRouter]
    wire: Callable[[Kernel[S]], Awaitable[Wiring]]
    errors: Mapping[type[Exception], int | Refusal] = field(default_factory=dict)
    redis: Callable[[S], Redis] | None = None
    middleware: Sequence[Middleware] = ()
    # routes that bound their own reading of a body (`teenpatti.kernel.edges`)
    body_limit_exempt: frozenset[str] = frozenset()
    # its projections rebuilt from its own stream and compared (`teenpatti rebuild`), on a
    # connection to its database
    rebuild: Callable[..., Awaitable[Any]] | None = None

    def create_app(self, settings: S | None = None) -> FastAPI:
        settings = settings if settings is not None else self.settings()
        # its own principal's credentials, where a credentials folder holds them
        settings = settings.as_principal(self.name)
        service = self

        @asynccontextmanager
        async def lifespan(app: FastAPI) -> AsyncIterator[None]:
            # again: a uvicorn started in this process has configured its loggers since
            setup_logging(settings, service.name)
            kernel = Kernel(service, settings)
            wiring: Wiring | None = None
            with log_context(service=service.name):  # its tasks' lines too
                try:
                    app.state.configured_keys.load()  # TP_API_KEYS_FILE, read first here
                    wiring = await kernel.start()
                    app.state.kernel = kernel
                    app.state.components = wiring.components
                    app.state.ready_checks = wiring.ready
                    app.state.problem_sources = wiring.problems
                    yield
                finally:
                    app.state.components = None
                    await kernel.stop(wiring)
                    await app.state.authenticator.close()

        setup_logging(settings, self.name)  # before uvicorn's first line about the app
        app = FastAPI(
            title=f"Teen Patti {self.name}",
            lifespan=lifespan,
            # outermost: it times the service's own middleware too
            middleware=[
                Middleware(HttpMetricsMiddleware),
                Middleware(RequestLogContext, service=self.name),
                # the caller's trace goes on in what the request appends, recorded or not
                Middleware(IncomingTraceContext),
                *_edges(settings, self.body_limit_exempt),
                *self.middleware,
            ],
            telemetry=TELEMETRY,
            # stable operationIds for the committed specs and the generated client
            generate_unique_id_function=operation_id,
        )
        app.state.service = self
        app.state.settings = settings
        app.state.kernel = None
        app.state.components = None
        app.state.problem_sources = {}
        # the configured keys, then the access database's (docs/access.md)
        app.state.configured_keys = configured_keys(settings)
        app.state.authenticator = Authenticator(
            app.state.configured_keys,
            PostgresKeyLookup(settings.postgres_dsn(settings.access_database)),
            cache_seconds=settings.access_cache_seconds,
        )
        install_problem_handlers(app)
        for error_class, refusal in self.errors.items():
            app.add_exception_handler(error_class, _refusal_handler(refusal))
        app.include_router(_probes(self.name))
        app.include_router(problems_router(self.name))
        for router in self.routers:
            app.include_router(router)
        return app

    def app_on_demand(self) -> Callable[[str], FastAPI]:
        """The `__getattr__` of the service's `app` module: its `app` (uvicorn's
        `<package>.app:app`) is built when first asked for, once. Importing the module for
        its declaration (`teenpatti migrate`, `make run`, `make chaos`, `make bench`) builds
        no app, so the process's logging stays its own, not the service's."""
        built: list[FastAPI] = []

        def module_attribute(name: str) -> FastAPI:
            if name != "app":
                raise AttributeError(f"module of the {self.name} service has no attribute {name!r}")
            if not built:
                built.append(self.create_app())
            return built[0]

        return module_attribute


def configured_keys(settings: InfrastructureSettings) -> ConfiguredKeys:
    """`TP_API_KEYS` and `TP_API_KEYS_FILE`, the file read again within the bound of a
    revocation; outside development it may give no development key."""
    refused: frozenset[str] = frozenset()
    if settings.env != DEVELOPMENT:
        refused = frozenset(key for _, key in development_keys())
    return ConfiguredKeys(
        settings.api_keys.get_secret_value(),
        settings.api_keys_file,
        check_seconds=settings.access_cache_seconds,
        refused=refused,
    )


def _edges(settings: InfrastructureSettings, exempt: frozenset[str]) -> list[Middleware]:
    """What one caller may send: the rate limits (where on), then the body limit."""
    edges = []
    if settings.rate_limited:
        edges.append(
            Middleware(
                RateLimitMiddleware,
                per_key=Rate(settings.rate_limit_key_per_second, settings.rate_limit_key_burst),
                per_address=Rate(
                    settings.rate_limit_address_per_second, settings.rate_limit_address_burst
                ),
                trusted_proxies=TrustedProxies.parse(settings.trusted_proxies),
            )
        )
    edges.append(Middleware(BodyLimitMiddleware, limit=settings.http_max_body_bytes, exempt=exempt))
    return edges


def _refusal_handler(
    refusal: int | Refusal,
) -> Callable[[Request, Exception], Awaitable[JSONResponse]]:
    how = refusal if isinstance(refusal, Refusal) else Refusal(refusal)

    async def refuse(request: Request, error: Exception) -> JSONResponse:
        status = how.status if isinstance(how.status, int) else how.status(error)
        code = how.code or getattr(error, "code", None) or type(error).__name__
        detail = how.detail or getattr(error, "detail", None) or str(error)
        extra: dict[str, Any] = getattr(error, "extra", None) or {}
        return problem_response(status, code, detail, request.url.path, **extra)

    return refuse


def _probes(name: str) -> APIRouter:
    router = APIRouter(tags=["probes"])

    @router.get("/health")
    async def health() -> Health:
        """Liveness: the process answers."""
        return Health(service=name, status="ok")

    @router.get(
        "/ready",
        responses={503: {"description": "not_ready: a dependency or a task is down (checks)"}},
    )
    async def ready(request: Request) -> Readiness:
        """Readiness: Postgres, Kafka (and Redis) reachable, every background task alive."""
        kernel: Kernel[Any] | None = request.app.state.kernel
        if kernel is None:
            checks = {"service": "starting"}
        else:
            checks = await kernel.readiness()
            for check_name, is_ready in request.app.state.ready_checks.items():
                checks[check_name] = "ok" if is_ready() else "not yet"
        failing = {key: value for key, value in checks.items() if value != "ok"}
        if failing:
            detail = "; ".join(f"{key}: {value}" for key, value in failing.items())
            raise ProblemError(503, "not_ready", detail, checks=checks)
        return Readiness(service=name, status="ready", checks=checks)

    @router.get("/metrics", include_in_schema=False)
    async def metrics(request: Request) -> Response:
        """Prometheus metrics (text format): the process's, and this instance's gauges, read
        when scraped (cached a few seconds, each read under a timeout)."""
        kernel: Kernel[Any] | None = request.app.state.kernel
        registries = [REGISTRY]
        if kernel is not None:
            if kernel.gauges is not None:
                await kernel.gauges.refresh()
            registries.append(kernel.metrics)
        return Response(exposition(*registries), media_type=CONTENT_TYPE)

    return router
