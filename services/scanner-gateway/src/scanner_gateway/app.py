"""The scanner-gateway service, declared: two supervisors register a device; devices post
reads; the gateway records each and publishes it as `CardScanned` (or `ScanRejected`) on
`scanner.events`, then answers with the table's verdict, which it hears on `table.events`."""

from __future__ import annotations

from redis.asyncio import Redis

from scanner_gateway.adapters.verdicts import VerdictBroker
from scanner_gateway.config import ScannerSettings
from scanner_gateway.consumers import RoundTracker, VerdictRecorder
from scanner_gateway.domain import (
    DeviceConflictError,
    SameSupervisorError,
    UnknownChangeError,
    UnknownDeviceError,
)
from scanner_gateway.entrypoints import router
from scanner_gateway.handlers import Gateway
from teenpatti.events.catalog import (
    SCANNER_EVENTS,
    TABLE_EVENTS,
    BettingClosed,
    CardDealt,
    CardRefused,
    RoundCancelled,
    RoundClosed,
    RoundOpened,
)
from teenpatti.kernel import Consumption, Kernel, Service, Wiring
from teenpatti.migrations import MigrationSet


async def wire(kernel: Kernel[ScannerSettings]) -> Wiring:
    settings = kernel.settings
    broker = VerdictBroker(
        kernel.redis, prefix=settings.topic_prefix, ttl_seconds=settings.verdict_ttl_seconds
    )
    joined: set[str] = set()

    async def on_assigned(partitions: set[int]) -> None:
        joined.add("verdicts")

    record_verdicts = VerdictRecorder(broker)
    track_rounds = RoundTracker()
    return Wiring(
        subscriptions={
            TABLE_EVENTS: {
                CardDealt: record_verdicts,
                CardRefused: record_verdicts,
                RoundOpened: track_rounds,
                BettingClosed: track_rounds,
                RoundClosed: track_rounds,
                RoundCancelled: track_rounds,
            },
        },
        consumption={TABLE_EVENTS: Consumption(on_assigned=on_assigned)},
        tasks={"verdict-listener": broker.listen},
        components=Gateway(
            pool=kernel.pool,
            store=kernel.store,
            broker=broker,
            duplicate_window_seconds=settings.duplicate_window_seconds,
            verdict_timeout_seconds=settings.verdict_timeout_seconds,
        ),
        # ready to hear verdicts: in the consumer group, and subscribed in Redis
        ready={"verdicts": lambda: bool(joined) and broker.listening.is_set()},
    )


SERVICE = Service(
    name="scanner-gateway",
    settings=ScannerSettings,
    database=lambda settings: settings.scanner_database,
    migrations=MigrationSet.from_package("scanner-gateway", "scanner_gateway.migrations"),
    emits=SCANNER_EVENTS,
    routers=[router],
    wire=wire,
    errors={
        UnknownDeviceError: 404,
        UnknownChangeError: 404,
        SameSupervisorError: 403,
        DeviceConflictError: 409,
    },
    # its timeouts are in the URL (`TP_REDIS_SOCKET_TIMEOUT_SECONDS`...)
    redis=lambda settings: Redis.from_url(settings.redis_url),
    # POST /scans reads at most its own bound and records an oversized read before refusing
    body_limit_exempt=frozenset({"/scans"}),
)


create_app = SERVICE.create_app

# `app` (uvicorn's `<package>.app:app`) is built when first asked for: importing this module
# for SERVICE sets up no service's logging in the importing process
__getattr__ = SERVICE.app_on_demand()
