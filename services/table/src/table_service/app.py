"""The table service: create_app(settings) wires the runtime (store, relay, consumers), the
table clocks, Redis and the routes; `app` is what uvicorn runs."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from redis.asyncio import Redis

from teenpatti.events.catalog import SCANNER_EVENTS, TABLE_EVENTS
from teenpatti.eventsourcing import ConcurrencyError
from teenpatti.http import ApiKeys, install_problem_handlers, problem_response
from teenpatti.runtime import ServiceRuntime

from .adapters import tables
from .adapters.redis_feed import RedisTableFeed
from .clock import ClockManager
from .config import TableSettings
from .consumers import FeedHandler, ScanHandler
from .domain import (
    InvalidTableConfigError,
    RoundConflictError,
    TableCommandError,
    UnknownTableError,
)
from .entrypoints import Components, router
from .handlers import TableService

SERVICE_NAME = "table"


def _status_of(error: TableCommandError) -> int:
    if isinstance(error, UnknownTableError):
        return 404
    if isinstance(error, InvalidTableConfigError):
        return 422
    if isinstance(error, RoundConflictError):
        return 409
    return 400


def create_app(settings: TableSettings | None = None) -> FastAPI:
    settings = settings or TableSettings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runtime = ServiceRuntime(
            service=SERVICE_NAME,
            database=settings.table_database,
            emits=TABLE_EVENTS,
            settings=settings,
        )
        # every live feed holds one subscription connection: the client's default cap (100)
        # would turn the 101st viewer away
        redis = Redis.from_url(
            settings.redis_url,
            decode_responses=True,
            max_connections=settings.redis_max_connections,
        )
        clocks: ClockManager | None = None
        try:
            await runtime.start()
            await tables.migrate(runtime.pool)
            service = TableService(runtime.store, settings)
            clocks = ClockManager(
                service, settings.clock_poll_seconds, settings.clock_max_nap_seconds
            )
            service.on_appended = clocks.poke
            feed = RedisTableFeed(redis, prefix=settings.topic_prefix)
            app.state.components = Components(
                service=service,
                feed=feed,
                keys=ApiKeys(settings.api_keys.get_secret_value()),
                clocks=clocks,
            )
            app.state.clocks = clocks
            on_scans = ScanHandler(service)
            runtime.consume(
                "scans",
                [SCANNER_EVENTS],
                on_scans,
                batch_handler=on_scans.batch,
                on_assigned=clocks.assigned,
                on_revoked=clocks.revoked,
            )
            on_feed = FeedHandler(service, feed)
            runtime.consume("feed", [TABLE_EVENTS], on_feed, batch_handler=on_feed.batch)
            runtime.spawn(clocks.run(runtime.stopping), name=f"{SERVICE_NAME}-clocks")
            yield
        finally:
            app.state.components = None
            if clocks is not None:
                await clocks.stop()
            await runtime.stop()
            await redis.aclose()

    app = FastAPI(title=f"Teen Patti {SERVICE_NAME}", lifespan=lifespan)
    install_problem_handlers(app)

    @app.exception_handler(TableCommandError)
    async def _refused(request: Request, error: TableCommandError) -> JSONResponse:
        return problem_response(
            _status_of(error), error.code, error.detail, request.url.path, **error.extra
        )

    @app.exception_handler(ConcurrencyError)
    async def _busy(request: Request, error: ConcurrencyError) -> JSONResponse:
        return problem_response(
            503, "table_busy", "the table changed too often meanwhile; try again", request.url.path
        )

    app.include_router(router)
    return app


app = create_app()
