"""The web front: the pages people see (the studio console, the player view, the rules) and
the one address their scripts talk to.

A stateless process: no database, no broker, no cache. It serves files, forwards the pages'
API calls to the four services with the caller's own credentials, relays the tables' live
feeds, and reads a player's own table with its `viewer` key; it adds no privilege to anyone
(docs/web.md, docs/decisions/0074-a-stateless-web-front.md). It limits each client address
and each session itself, and names the client to the services (`callers`,
docs/decisions/0087-limits-at-the-web-front.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import APIRouter, FastAPI, Request
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from starlette.middleware import Middleware

from teenpatti.http import ProblemError, install_problem_handlers, operation_id
from teenpatti.kernel.edges import BodyLimitMiddleware
from teenpatti.observability.logs import RequestLogContext, setup_logging
from teenpatti.observability.tracing import flush_traces, setup_tracing
from teenpatti.settings import InfrastructureSettings

from . import callers, console, demo, forwarding, pages, play
from .config import WebSettings
from .rules import router as rules_router
from .upstream import SERVICES, Upstreams

NAME = "web"
HEALTH_SECONDS = 2.0


class Health(BaseModel):
    service: str
    status: str


class Readiness(BaseModel):
    service: str
    status: str
    checks: dict[str, str]


def create_app(
    settings: WebSettings | None = None, infrastructure: InfrastructureSettings | None = None
) -> FastAPI:
    settings = settings if settings is not None else WebSettings()
    # TP_ENV and the TP_LOG_* settings, shared with every process (nothing is connected)
    infrastructure = infrastructure if infrastructure is not None else InfrastructureSettings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        setup_logging(infrastructure, NAME)  # again: uvicorn configured its loggers since
        # before it answers anything, as every service does (decision 0049)
        settings.refuse_default_secrets(infrastructure.env)
        # with TP_OTLP_ENDPOINT: the calls to the services as client spans of the caller's trace
        setup_tracing(infrastructure, NAME)
        app.state.upstreams = Upstreams.open(settings)
        try:
            yield
        finally:
            parts, app.state.upstreams = app.state.upstreams, None
            await parts.close()
            await flush_traces()

    setup_logging(infrastructure, NAME)
    app = FastAPI(
        title="Teen Patti web front",
        lifespan=lifespan,
        docs_url=None,  # the services document their APIs; this one only passes them on
        redoc_url=None,
        generate_unique_id_function=operation_id,
        middleware=[
            Middleware(RequestLogContext, service=NAME),
            Middleware(pages.SecurityHeaders, frame_ancestors=settings.frame_ancestors),
            # the client address, passed on to the services, and the web front's own limits
            *callers.edges(settings, infrastructure.env),
            Middleware(BodyLimitMiddleware, limit=infrastructure.http_max_body_bytes),
        ],
    )
    app.state.settings = settings
    app.state.env = infrastructure.env
    app.state.upstreams = None
    install_problem_handlers(app)
    app.include_router(_probes())
    app.include_router(pages.router)
    app.include_router(rules_router)
    app.include_router(demo.router)
    # before the forwarding's `/api/{service}/{path}`, which would take their paths
    app.include_router(play.router)
    app.include_router(console.router)
    app.include_router(forwarding.router)
    app.mount("/static", StaticFiles(directory=pages.STATIC), name="static")
    return app


def _probes() -> APIRouter:
    router = APIRouter(tags=["probes"])

    @router.get("/health")
    async def health() -> Health:
        """Liveness: the process answers."""
        return Health(service=NAME, status="ok")

    @router.get("/ready")
    async def ready(request: Request) -> Readiness:
        """Readiness: the four services answer their `/health`."""
        parts: Upstreams | None = request.app.state.upstreams
        if parts is None:
            raise ProblemError(503, "not_ready", "the web front is starting or stopping")

        async def check(service: str) -> str:
            try:
                answer = await parts.http.get(parts.url(service, "/health"), timeout=HEALTH_SECONDS)
            except Exception as error:
                return f"unreachable ({type(error).__name__})"
            return "ok" if answer.status_code == 200 else f"status {answer.status_code}"

        results = await asyncio.gather(*(check(service) for service in SERVICES))
        checks = dict(zip(SERVICES, results, strict=True))
        failing = {name: value for name, value in checks.items() if value != "ok"}
        if failing:
            detail = "; ".join(f"{name}: {value}" for name, value in failing.items())
            raise ProblemError(503, "not_ready", detail, checks=checks)
        return Readiness(service=NAME, status="ready", checks=checks)

    return router


app = create_app()
