"""The scanner-gateway service: `create_app(settings)`; its lifespan opens the event store,
the outbox relay to `scanner.events`, the Redis verdict broker and the `verdicts` consumer
of `table.events`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
from fastapi import FastAPI
from redis.asyncio import Redis

from scanner_gateway.adapters import postgres as db
from scanner_gateway.adapters.verdicts import VerdictBroker
from scanner_gateway.config import ScannerSettings
from scanner_gateway.consumers import verdict_recorder
from scanner_gateway.entrypoints import BodyLimitMiddleware, router
from scanner_gateway.handlers import Gateway
from teenpatti.events import EventEnvelope
from teenpatti.events.catalog import SCANNER_EVENTS, TABLE_EVENTS
from teenpatti.eventsourcing import AfterCommit
from teenpatti.http import ApiKeys, install_problem_handlers
from teenpatti.runtime import ServiceRuntime

SERVICE_NAME = "scanner-gateway"


def create_app(settings: ScannerSettings | None = None) -> FastAPI:
    settings = settings or ScannerSettings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runtime = ServiceRuntime(
            service=SERVICE_NAME,
            database=settings.scanner_database,
            emits=SCANNER_EVENTS,
            settings=settings,
        )
        redis = Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=5)
        try:
            await runtime.start()
            await db.migrate(runtime.pool)
            broker = VerdictBroker(
                redis, prefix=settings.topic_prefix, ttl_seconds=settings.verdict_ttl_seconds
            )
            runtime.spawn(broker.listen(runtime.stopping), name=f"{SERVICE_NAME}-verdict-listener")

            async def joined(partitions: set[int]) -> None:
                app.state.verdicts_joined = True

            # a poll per transaction, its verdicts in one statement; a failed poll is
            # handled again one event at a time
            record_verdicts = verdict_recorder(broker)

            async def on_verdict(
                connection: asyncpg.Connection, envelope: EventEnvelope
            ) -> AfterCommit | None:
                return await record_verdicts(connection, [envelope])

            runtime.consume(
                "verdicts",
                [TABLE_EVENTS],
                on_verdict,
                batch_handler=record_verdicts,
                on_assigned=joined,
            )
            app.state.broker = broker
            app.state.gateway = Gateway(
                pool=runtime.pool,
                store=runtime.store,
                broker=broker,
                duplicate_window_seconds=settings.duplicate_window_seconds,
                verdict_timeout_seconds=settings.verdict_timeout_seconds,
            )
            yield
        finally:
            await runtime.stop()
            await redis.aclose()

    app = FastAPI(title=f"Teen Patti {SERVICE_NAME}", lifespan=lifespan)
    app.state.api_keys = ApiKeys(settings.api_keys.get_secret_value())
    app.state.verdicts_joined = False
    app.add_middleware(BodyLimitMiddleware, exempt=frozenset({"/scans"}))
    install_problem_handlers(app)
    app.include_router(router)

    @app.get("/health")
    async def health() -> dict[str, str]:
        broker: VerdictBroker | None = getattr(app.state, "broker", None)
        return {
            "service": SERVICE_NAME,
            "status": "ok",
            # ready to hear verdicts: in the consumer group, and subscribed in Redis
            "verdicts": (
                "ready"
                if app.state.verdicts_joined and broker is not None and broker.listening.is_set()
                else "starting"
            ),
        }

    return app


app = create_app()
