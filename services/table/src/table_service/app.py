"""The table service, declared: supervisors open tables over HTTP; each table's clock opens
rounds and closes betting; scanned cards (`scanner.events`) are dealt or refused; every
table event goes out on `table.events` and is mirrored into Redis for the live feed."""

from __future__ import annotations

from redis.asyncio import Redis

from teenpatti.events.catalog import (
    SCANNER_EVENTS,
    TABLE_EVENTS,
    CardScanned,
    DeviceCredentialRotated,
    DeviceRegistered,
    DeviceRevoked,
)
from teenpatti.eventsourcing import ConcurrencyError
from teenpatti.kernel import EVERY_EVENT, Consumption, Kernel, Refusal, Service, Wiring
from teenpatti.migrations import MigrationSet
from teenpatti.observability.metrics import TABLE_ROUND_STALL, TABLE_ROUNDS

from .adapters.feed_tickets import FeedTickets
from .adapters.redis_feed import RedisTableFeed
from .adapters.tables import round_stalls, rounds_by_state
from .clock import ClockManager
from .config import TableSettings
from .consumers import DealScans, MirrorToFeed, RecordScanners
from .domain.decisions import (
    FourEyesError,
    InvalidTableConfigError,
    RoundConflictError,
    TableCommandError,
    UnknownRoundError,
    UnknownTableError,
)
from .entrypoints import Components, router
from .handlers import TableService
from .problems import table_problems


async def wire(kernel: Kernel[TableSettings]) -> Wiring:
    settings = kernel.settings
    service = TableService(kernel.store, settings)
    clocks = ClockManager(service, settings.clock_poll_seconds, settings.clock_max_nap_seconds)
    service.on_appended = clocks.poke  # a table changed here: its clock learns at once
    feed = RedisTableFeed(kernel.redis, prefix=settings.topic_prefix)
    scanners = RecordScanners()
    return Wiring(
        subscriptions={
            SCANNER_EVENTS: {
                CardScanned: DealScans(service),
                # which device may scan for which table (decision 0055)
                DeviceRegistered: scanners,
                DeviceCredentialRotated: scanners,
                DeviceRevoked: scanners,
            },
            TABLE_EVENTS: {EVERY_EVENT: MirrorToFeed(service, feed)},
        },
        # a table's clock runs where its partition of scanner.events is consumed
        consumption={
            SCANNER_EVENTS: Consumption(on_assigned=clocks.assigned, on_revoked=clocks.revoked)
        },
        tasks={"clocks": clocks.run},
        components=Components(
            service=service,
            feed=feed,
            clocks=clocks,
            tickets=FeedTickets(kernel.redis, prefix=settings.topic_prefix),
        ),
        on_stop=[clocks.stop, service.gate.close],
        # paused rounds, exposed cards, voids and changes waiting for a second supervisor
        problems={"table": table_problems(service)},
        gauges={
            TABLE_ROUNDS: lambda: rounds_by_state(kernel.pool),
            TABLE_ROUND_STALL: lambda: round_stalls(kernel.pool),
        },
    )


SERVICE = Service(
    name="table",
    settings=TableSettings,
    database=lambda settings: settings.table_database,
    migrations=MigrationSet.from_package("table", "table_service.migrations"),
    emits=TABLE_EVENTS,
    routers=[router],
    wire=wire,
    errors={
        UnknownTableError: 404,
        UnknownRoundError: 404,
        InvalidTableConfigError: 422,
        RoundConflictError: 409,
        FourEyesError: 403,
        TableCommandError: 400,
        ConcurrencyError: Refusal(
            503, "table_busy", "the table changed too often meanwhile; try again"
        ),
    },
    # every live feed holds one subscription connection: the client's default cap (100)
    # would turn the 101st viewer away
    redis=lambda settings: Redis.from_url(
        settings.redis_url,
        decode_responses=True,
        max_connections=settings.redis_max_connections,
    ),
)


create_app = SERVICE.create_app

# `app` (uvicorn's `<package>.app:app`) is built when first asked for: importing this module
# for SERVICE sets up no service's logging in the importing process
__getattr__ = SERVICE.app_on_demand()
