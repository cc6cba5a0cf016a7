"""Logs and traces of the running services, in-process on the real stack: the JSON lines of a
request and of a consumed event carry the service and what is being handled, and never an
API key; and one scan's trace spans the four services."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import asyncpg
import httpx
import pytest
import websockets
from fastapi import FastAPI
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind
from pydantic import SecretStr

from scanner_gateway.app import create_app as create_gateway
from scanner_gateway.config import ScannerSettings
from settlement_service.app import create_app as create_settlement
from settlement_service.config import SettlementSettings
from table_service.app import create_app as create_table
from table_service.config import TableSettings
from teenpatti.events.catalog import SCANNER_EVENTS, CardScanned
from teenpatti.kernel.migrate import migrate_service
from teenpatti.observability.logs import LogHandler
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.databases import create_database, drop_database, service_roles
from teenpatti_tools.simulator import STUDIO_API_KEYS, Endpoints
from tests.e2e.driver import Studio
from tests.integration.services import publish, topics_ready
from tests.integration.table.helpers import (
    SUPERVISOR_2,
    new_table_id,
    serving,
    table_body,
    with_second_supervisor,
)
from wallet_service.app import create_app as create_wallet
from wallet_service.config import WalletSettings

API_KEY = "dev-supervisor-key"


@pytest.fixture
def log_lines() -> Iterator[io.StringIO]:
    """Every line logged meanwhile, as the services write it (JSON), and the dispatcher's
    debug line for each run of events it hands a handler."""
    buffer = io.StringIO()
    handler = LogHandler(buffer, "json")
    root = logging.getLogger()
    dispatch = logging.getLogger("teenpatti.kernel.subscriptions")
    level = dispatch.level
    root.addHandler(handler)
    dispatch.setLevel(logging.DEBUG)
    yield buffer
    dispatch.setLevel(level)
    root.removeHandler(handler)


def parsed(buffer: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in buffer.getvalue().splitlines()]


async def test_a_request_s_and_an_event_s_lines_say_what_they_are_about_and_no_key(
    settings: InfrastructureSettings, database_name: str, log_lines: io.StringIO
) -> None:
    await topics_ready(settings)
    # two supervisors' keys: a new table is proposed by one, approved by the other (0086)
    table_settings = TableSettings(**settings.model_dump(), table_database=database_name)
    app = create_table(with_second_supervisor(table_settings))
    table_id, correlation = new_table_id(), str(uuid.uuid4())
    async with serving(app) as address, httpx.AsyncClient(base_url=f"http://{address}") as http:
        proposed = await http.post(
            "/tables",
            json=table_body(table_id, betting_seconds=30),
            headers={"X-Api-Key": API_KEY, "X-Correlation-Id": correlation},
        )
        assert proposed.status_code == 202, proposed.text
        change_id = proposed.json()["pending_change"]["change_id"]
        approved = await http.post(
            f"/tables/{table_id}/changes/{change_id}/approve", headers=SUPERVISOR_2
        )
        assert approved.status_code == 200, approved.text
        # a key where it does not belong, in a query string
        events = await http.get(f"/tables/{table_id}/events", params={"after": 0, "key": API_KEY})
        assert events.status_code in (200, 401)
        async with websockets.connect(
            f"ws://{address}/tables/{table_id}/feed", additional_headers={"X-Api-Key": API_KEY}
        ):
            pass
        scanned = await publish(
            settings,
            SCANNER_EVENTS,
            CardScanned(
                scan_id=uuid.uuid4(),
                device_id="D1",
                table_id=table_id,
                round_id=None,
                sequence=1,
                card="AS",
                raw="AS",
                scanned_at=datetime.now(UTC),
            ),
            table_id=table_id,
        )
        async with asyncio.timeout(30):
            while not any(
                line.get("event_type") == "CardScanned" and line.get("table_id") == table_id
                for line in parsed(log_lines)
            ):
                await asyncio.sleep(0.1)

    text = log_lines.getvalue()
    assert API_KEY not in text and SUPERVISOR_2["X-Api-Key"] not in text
    lines = parsed(log_lines)
    for line in lines:
        assert {"time", "level", "logger", "message", "service", "instance"} <= set(line)
    [request] = [
        line
        for line in lines
        if line["logger"] == "uvicorn.access" and line.get("http_path") == "/tables"
    ]
    assert request["service"] == "table"
    assert request["correlation_id"] == correlation
    assert request["message"].endswith('"POST /tables HTTP/1.1" 202')
    [read] = [line for line in lines if line.get("http_path") == f"/tables/{table_id}/events"]
    assert "?" not in read["message"]
    feed = [line for line in lines if "WebSocket" in line["message"]]
    assert feed and all(f'/tables/{table_id}/feed"' in line["message"] for line in feed)
    consumed = next(
        line
        for line in lines
        if line.get("event_type") == "CardScanned" and line.get("table_id") == table_id
    )
    assert consumed["service"] == "table"
    assert consumed["correlation_id"] == str(scanned.correlation_id)
    assert consumed["event_id"] == str(scanned.event_id)
    assert consumed["logger"] == "teenpatti.kernel.subscriptions"


# ------------------------------------------------------------------------- traces
@pytest.fixture(scope="module")
def spans() -> Iterator[InMemorySpanExporter]:
    """The spans every service of this process records from now on, in memory: the SDK's
    tracer provider, installed once for the process (as `TP_OTLP_ENDPOINT` would)."""
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield exporter
    exporter.shutdown()  # later spans are dropped


class InProcess(httpx.AsyncBaseTransport):
    """Each request to the app its URL's host names (`http://wallet/...`), in this process."""

    def __init__(self, apps: dict[str, FastAPI]) -> None:
        self.apps = {kind: httpx.ASGITransport(app=app) for kind, app in apps.items()}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        async with asyncio.timeout(30):  # no socket, so no httpx timeout applies
            return await self.apps[request.url.host].handle_async_request(request)


@asynccontextmanager
async def four_services(
    infrastructure: InfrastructureSettings, prefix: str
) -> AsyncIterator[tuple[Studio, dict[str, FastAPI]]]:
    """The four services in this process, on databases of their own and topics with
    `prefix`; a studio whose HTTP calls reach them in-process."""
    settings = infrastructure.model_copy(update={"topic_prefix": prefix})
    suffix = uuid.uuid4().hex[:8]
    names = {db: f"traces_{db}_{suffix}" for db in ("table", "scanner", "wallet", "settlement")}
    admin = await asyncpg.connect(infrastructure.postgres_dsn("postgres"))
    try:
        for name in names.values():
            await create_database(infrastructure, name, users=service_roles(infrastructure))
        await topics_ready(settings)
        # with a second supervisor, who approves the table's scanner (docs/decisions/0085)
        base = settings.model_dump() | {"api_keys": SecretStr(STUDIO_API_KEYS)}
        apps = {
            "table": create_table(TableSettings(**base, table_database=names["table"])),
            "scanner-gateway": create_gateway(
                ScannerSettings(**base, scanner_database=names["scanner"])
            ),
            "wallet": create_wallet(WalletSettings(**base, wallet_database=names["wallet"])),
            "settlement": create_settlement(
                SettlementSettings(**base, settlement_database=names["settlement"])
            ),
        }
        async with AsyncExitStack() as stack:
            for app in apps.values():
                await migrate_service(app.state.service, app.state.settings)
                await stack.enter_async_context(app.router.lifespan_context(app))
            studio = Studio(
                Endpoints({kind: [f"http://{kind}"] for kind in apps}), transport=InProcess(apps)
            )
            try:
                yield studio, apps
            finally:
                await studio.close()
    finally:
        for name in names.values():
            await drop_database(admin, name)
        await admin.close()


def consumed_by(span: ReadableSpan, group: str) -> bool:
    return (
        span.kind is SpanKind.CONSUMER
        and (span.attributes or {}).get("messaging.consumer.group.name") == group
    )


async def test_one_scan_s_trace_spans_the_four_services(
    infrastructure: InfrastructureSettings, topic_prefix: str, spans: InMemorySpanExporter
) -> None:
    table_id, player = new_table_id(), f"p-{uuid.uuid4().hex[:8]}"
    run = infrastructure.model_copy(update={"topic_prefix": topic_prefix})
    async with four_services(infrastructure, topic_prefix) as (studio, apps):
        await studio.open_table(table_id, betting_seconds=1.5)
        await studio.deposit("operator-1", player, 100_000)
        opened = await studio.next_round(table_id)
        round_id = str(opened["round_id"])
        placed = await studio.bet("operator-1", player, round_id, {"player_a": 1_000})
        assert placed.status_code == 201, placed.text
        await studio.wait_for(table_id, "BettingClosed", round_id=round_id)
        # the round is settled when RoundClosed comes, not when its book does
        settlement = apps["settlement"].state.kernel.pool
        async with asyncio.timeout(30):
            while not await settlement.fetchval(
                "SELECT book_closed FROM rounds WHERE round_id = $1", round_id
            ):
                await asyncio.sleep(0.05)
        spans.clear()
        await studio.deal(table_id, ["AS", "KS", "AC", "KH", "AD", "2D"])
        await studio.paid_bets("operator-1", player, round_id, count=1)

    finished = spans.get_finished_spans()
    paid = [s for s in finished if consumed_by(s, run.topic("wallet-settlement"))]
    assert paid, "the wallet recorded no span consuming settlement.events"
    trace_id = paid[-1].context.trace_id
    one_trace = [s for s in finished if s.context.trace_id == trace_id]
    names = sorted({s.name for s in one_trace})
    gateway = [s for s in one_trace if s.kind is SpanKind.SERVER and s.name == "POST /scans"]
    assert len(gateway) == 1, names
    assert gateway[0].parent is None  # the trace begins at the device's request
    assert any(consumed_by(s, run.topic("table-scanner")) for s in one_trace), names
    assert any(consumed_by(s, run.topic("settlement-table")) for s in one_trace), names
    # every span of it descends from the request
    by_id = {s.context.span_id: s for s in one_trace}
    for span in one_trace:
        ancestor = span
        while ancestor.parent is not None:
            ancestor = by_id[ancestor.parent.span_id]
        assert ancestor is gateway[0], span.name
