"""Each service in-process against the real Postgres, Kafka and Redis, for fuzzing.

Every test gets its service on a fresh database and topic prefix (the `settings` and
`database_name` fixtures of tests/conftest.py), with its lifespan running (store, relay,
consumers), and an httpx client over ASGI that reports a crash as the 500 the client would
see instead of raising it. The counts of what was tried are printed at the end of the run
(and appended to the file named by `TP_FUZZ_REPORT`, if set).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest
from fastapi import FastAPI
from pydantic import SecretStr

from scanner_gateway.app import create_app as create_scanner
from scanner_gateway.config import ScannerSettings
from settlement_service.app import create_app as create_settlement
from settlement_service.config import SettlementSettings
from table_service.app import create_app as create_table
from table_service.config import TableSettings
from teenpatti.kernel.migrate import migrate_service
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.simulator import STUDIO_API_KEYS
from tests.integration.services import topics_ready
from wallet_service.app import create_app as create_wallet
from wallet_service.config import WalletSettings

from .report import REPORT

TRIED: list[str] = []  # what the run's fuzz tests tried, for its summary

STARTUP_TIMEOUT = 60.0
REQUEST_TIMEOUT = 30.0


class _TimedTransport(httpx.ASGITransport):
    """In-process requests bypass sockets and so httpx's timeouts: bound each one here."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        async with asyncio.timeout(REQUEST_TIMEOUT):
            return await super().handle_async_request(request)


@asynccontextmanager
async def started(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """The app's database migrated, its lifespan entered, the app ready, and a client bound to
    it."""
    await migrate_service(app.state.service, app.state.settings)
    async with contextlib.AsyncExitStack() as stack:
        async with asyncio.timeout(STARTUP_TIMEOUT):
            await stack.enter_async_context(app.router.lifespan_context(app))
        client = await stack.enter_async_context(
            httpx.AsyncClient(
                transport=_TimedTransport(app=app, raise_app_exceptions=False),
                base_url="http://service",
            )
        )
        # ready, as a load balancer would wait for: the fuzzing expects /ready to answer 200
        async with asyncio.timeout(STARTUP_TIMEOUT):
            while (await client.get("/ready")).status_code != 200:
                await asyncio.sleep(0.1)
        yield client


@pytest.fixture
async def wallet_settings(settings: InfrastructureSettings, database_name: str) -> WalletSettings:
    await topics_ready(settings)
    return WalletSettings(**settings.model_dump(), wallet_database=database_name)


@pytest.fixture
async def table_settings(settings: InfrastructureSettings, database_name: str) -> TableSettings:
    await topics_ready(settings)
    # a second supervisor approves a new table's terms (docs/decisions/0086)
    return TableSettings(
        **{
            **settings.model_dump(),
            "table_database": database_name,
            "api_keys": SecretStr(STUDIO_API_KEYS),
        }
    )


@pytest.fixture
async def scanner_settings(settings: InfrastructureSettings, database_name: str) -> ScannerSettings:
    await topics_ready(settings)
    # a short verdict wait: no table answers here, a read is `pending` after 0.2 s
    return ScannerSettings(
        **{
            **settings.model_dump(),
            "scanner_database": database_name,
            "verdict_timeout_seconds": 0.2,
            # a second supervisor approves a device (docs/decisions/0085)
            "api_keys": SecretStr(STUDIO_API_KEYS),
        }
    )


@pytest.fixture
async def settlement_settings(
    settings: InfrastructureSettings, database_name: str
) -> SettlementSettings:
    await topics_ready(settings)
    return SettlementSettings(**settings.model_dump(), settlement_database=database_name)


@pytest.fixture
async def wallet_app(
    wallet_settings: WalletSettings,
) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    app = create_wallet(wallet_settings)
    async with started(app) as client:
        yield app, client


@pytest.fixture
async def table_app(
    table_settings: TableSettings,
) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    app = create_table(table_settings)
    async with started(app) as client:
        yield app, client


@pytest.fixture
async def scanner_app(
    scanner_settings: ScannerSettings,
) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    app = create_scanner(scanner_settings)
    async with started(app) as client:
        yield app, client


@pytest.fixture
async def settlement_app(
    settlement_settings: SettlementSettings,
) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    app = create_settlement(settlement_settings)
    async with started(app) as client:
        yield app, client


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> pytest.TestReport:
    """What a test tried travels on its report: with test workers (pytest-xdist), the
    reports reach the process that prints the summary; the workers' lists do not."""
    report: pytest.TestReport = yield
    if report.when == "teardown":
        report.user_properties.extend(("fuzzing", block) for block in REPORT)
        REPORT.clear()
    return report


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    TRIED.extend(str(block) for name, block in report.user_properties if name == "fuzzing")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not TRIED:
        return
    terminalreporter.section("fuzzing: inputs tried")
    for block in TRIED:
        terminalreporter.write_line(block)
    target = os.environ.get("TP_FUZZ_REPORT")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write("\n".join(TRIED) + "\n")
