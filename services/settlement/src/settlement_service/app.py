"""The settlement service: create_app(settings) -> FastAPI; `app` for uvicorn (port 8104)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from teenpatti.events.catalog import SETTLEMENT_EVENTS, TABLE_EVENTS, WALLET_EVENTS
from teenpatti.eventsourcing import each_in_order
from teenpatti.http import ApiKeys, install_problem_handlers
from teenpatti.runtime import ServiceRuntime

from .adapters.postgres import migrate
from .config import SettlementSettings
from .consumers import (
    TABLE_EVENT_TYPES,
    WALLET_EVENT_TYPES,
    table_events_handler,
    wallet_events_batch_handler,
    wallet_events_handler,
)
from .entrypoints import router
from .handlers import Settlement
from .settler import Settler

SERVICE_NAME = "settlement"


def create_app(settings: SettlementSettings | None = None) -> FastAPI:
    settings = settings or SettlementSettings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runtime = ServiceRuntime(
            service=SERVICE_NAME,
            database=settings.settlement_database,
            emits=SETTLEMENT_EVENTS,
            settings=settings,
        )
        try:
            await runtime.start()
            await migrate(runtime.pool)
            # the parts of a large round after its first, a transaction each (settler.py)
            settler = Settler(runtime.pool, runtime.store)
            runtime.spawn(settler.run(runtime.stopping), name=f"{SERVICE_NAME}-settler")
            settlement = Settlement(runtime.store, on_decided=settler.take)
            # both only write to Postgres: a poll's worth of events in one transaction
            on_table = table_events_handler(settlement)
            on_wallet = wallet_events_handler(settlement)
            runtime.consume(
                "table",
                [TABLE_EVENTS],
                on_table,
                batch_handler=each_in_order(on_table),
                handles=TABLE_EVENT_TYPES,
            )
            runtime.consume(
                "wallet",
                [WALLET_EVENTS],
                on_wallet,
                batch_handler=wallet_events_batch_handler(settlement),
                # not the BetsPaid the wallet emits as it pays
                handles=WALLET_EVENT_TYPES,
                # the bets of an open round can wait a little: polls of many bets, not of a
                # slip or two, at 3,000 bets/s (the seal that settling waits for comes later)
                gather_ms=50,
            )
            app.state.runtime = runtime
            yield
        finally:
            await runtime.stop()

    app = FastAPI(title=f"Teen Patti {SERVICE_NAME}", lifespan=lifespan)
    app.state.settings = settings
    app.state.api_keys = ApiKeys(settings.api_keys.get_secret_value())
    install_problem_handlers(app)
    app.include_router(router)

    @app.get("/health")
    async def health() -> dict[str, str]:
        return {"service": SERVICE_NAME, "status": "ok"}

    return app


app = create_app()
