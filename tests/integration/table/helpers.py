"""Helpers for the table service's integration tests."""

from __future__ import annotations

import asyncio
import itertools
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import asyncpg
import httpx
import uvicorn
from fastapi import FastAPI
from pydantic import SecretStr

from table_service.adapters.scanners import apply_device_events, load_scanners
from table_service.app import SERVICE
from table_service.config import TableSettings
from table_service.domain.decisions import OpenTable
from table_service.domain.state import TableState, evolve, stream_id_for
from table_service.handlers import TableService
from teenpatti.events.catalog import SCANNER_EVENTS, CardScanned, DeviceRegistered, registry
from teenpatti.eventsourcing import MIGRATIONS as STORE_MIGRATIONS
from teenpatti.eventsourcing import AsyncpgEventStore
from teenpatti.kernel.migrate import migrate_service
from teenpatti.settings import DEVELOPMENT_API_KEYS, InfrastructureSettings
from teenpatti_tools.databases import migrated
from tests.integration.services import publish

SUPERVISOR = {"X-Api-Key": "dev-supervisor-key"}
# a second person, for what takes two supervisors (`with_second_supervisor`)
SUPERVISOR_2 = {"X-Api-Key": "dev-supervisor-2-key"}
DEALER = {"X-Api-Key": "dev-dealer-key"}
BET_TYPES = ("player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus")

Events = list[dict[str, Any]]


def with_second_supervisor(settings: TableSettings) -> TableSettings:
    """The settings with a second supervisor's key (`SUPERVISOR_2`, holder `supervisor-2`)."""
    keys = f"{DEVELOPMENT_API_KEYS},supervisor-2:supervisor:dev-supervisor-2-key"
    return settings.model_copy(update={"api_keys": SecretStr(keys)})


def new_table_id() -> str:
    return f"T{uuid4().hex[:8]}"


def table_body(table_id: str, **override: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "table_id": table_id,
        "name": "Test table",
        "betting_seconds": 0.5,
        "result_pause_seconds": 0.2,
        "limits": {"EUR": {bet: {"min": 100, "max": 10_000} for bet in BET_TYPES}},
    }
    body.update(override)
    return body


async def open_table(client: httpx.AsyncClient, table_id: str, **override: Any) -> None:
    """Open a new table on `table_body`'s terms as two supervisors do (`open_table_as`)."""
    await open_table_as(client, table_body(table_id, **override))


async def open_table_as(client: httpx.AsyncClient, body: dict[str, Any]) -> None:
    """Open a new table (`body` as `POST /tables` takes it) as two supervisors do: one
    proposes its terms, the other approves them (docs/decisions/0086; the app's keys hold
    `SUPERVISOR_2`: `with_second_supervisor`). The proposal is sent twice, as a client
    whose first answer was lost sends it again: both answers name the one change."""
    changes = []
    for _ in range(2):
        response = await client.post("/tables", json=body, headers=SUPERVISOR)
        assert response.status_code == 202, response.text
        changes.append(response.json()["pending_change"]["change_id"])
    change_id = changes[0]
    assert changes == [change_id, change_id]
    approved = await client.post(
        f"/tables/{body['table_id']}/changes/{change_id}/approve", headers=SUPERVISOR_2
    )
    assert approved.status_code == 200, approved.text


async def events_of(client: httpx.AsyncClient, table_id: str, after: int = 0) -> Events:
    response = await client.get(f"/tables/{table_id}/events?after={after}", headers=DEALER)
    assert response.status_code == 200, response.text
    events: Events = response.json()["events"]
    return events


async def wait_for(
    client: httpx.AsyncClient,
    table_id: str,
    until: Callable[[Events], bool],
    *,
    timeout: float = 30.0,
) -> Events:
    """The table's whole stream once `until(events)` holds (polling the HTTP API)."""
    events: Events = []
    try:
        async with asyncio.timeout(timeout):
            while True:
                events = await events_of(client, table_id)
                if until(events):
                    return events
                await asyncio.sleep(0.1)
    except TimeoutError:
        raise AssertionError(f"timed out; stream was {types(events)}") from None


def types(events: Events) -> list[str]:
    return [e["event_type"] for e in events]


def count(event_type: str, n: int = 1, **payload: Any) -> Callable[[Events], bool]:
    def enough(events: Events) -> bool:
        matching = [
            e
            for e in events
            if e["event_type"] == event_type
            and all(e["payload"].get(k) == v for k, v in payload.items())
        ]
        return len(matching) >= n

    return enough


def of_type(events: Events, event_type: str, **payload: Any) -> Events:
    return [
        e
        for e in events
        if e["event_type"] == event_type
        and all(e["payload"].get(k) == v for k, v in payload.items())
    ]


# every scan's sequence number, and every registration's version: above all before them
_numbers = itertools.count(1)
_registered: set[tuple[str, str]] = set()  # (topic prefix, table) told of its scanner


def device_of(table_id: str) -> str:
    return f"scanner-{table_id}"


async def scan(
    settings: InfrastructureSettings, table_id: str, card: str, *, round_id: str | None = None
) -> UUID:
    """Publish a CardScanned to scanner.events as the gateway's relay would: from the
    table's registered device (a `DeviceRegistered` published first, once per table), with a
    fresh sequence number, stamped with the round in play (read from the table service's
    `tables` projection unless given)."""
    if (settings.topic_prefix, table_id) not in _registered:
        device_id = device_of(table_id)
        await publish(
            settings,
            SCANNER_EVENTS,
            DeviceRegistered(device_id=device_id, table_id=table_id, actor="tests"),
            table_id=table_id,
            stream_id=f"device-{device_id}",
            stream_version=next(_numbers),
        )
        _registered.add((settings.topic_prefix, table_id))
    if round_id is None:
        round_id = await round_in_play(settings, table_id)
    scan_id = uuid4()
    await publish(
        settings,
        SCANNER_EVENTS,
        CardScanned(
            scan_id=scan_id,
            device_id=device_of(table_id),
            table_id=table_id,
            round_id=round_id,
            sequence=next(_numbers),
            card=card,
            raw=card,
            scanned_at=datetime.now(UTC),
        ),
        table_id=table_id,
        stream_id=f"scanner-test-{scan_id}",
    )
    return scan_id


async def round_in_play(settings: InfrastructureSettings, table_id: str) -> str | None:
    """The table's current round as its `tables` projection has it (None: none yet)."""
    database = getattr(settings, "table_database", None)
    if database is None:
        return None
    connection = await asyncpg.connect(settings.postgres_dsn(database))
    try:
        round_id: str | None = await connection.fetchval(
            "SELECT round_id FROM tables WHERE table_id = $1", table_id
        )
    finally:
        await connection.close()
    return round_id


@asynccontextmanager
async def serving(app: FastAPI) -> AsyncIterator[str]:
    """The app (its database migrated first) under uvicorn on a free port (lifespan on); its
    `host:port`."""
    await migrate_service(app.state.service, app.state.settings)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="on", log_level="warning")
    )
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        async with asyncio.timeout(60):
            while not server.started:
                if task.done():
                    task.result()
                    raise AssertionError("the server stopped while starting")
                await asyncio.sleep(0.05)
        yield f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 60)
        sock.close()


# ------------------------------------------------------- the service in-process, on a fake clock
class FakeClock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 20, 0, 0, 123456, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


async def card_scanned(
    service: TableService, clock: FakeClock, table_id: str, card: str
) -> CardScanned:
    """A read of `card` at the table, now by `clock`, as the gateway passes it on: from the
    table's device, with a fresh sequence number, in the round in play. The device is
    registered with the service once, at the table's first read: registered again mid-round,
    its credential would be newer than the round's first card, and refused (decision 0085)."""
    device_id = device_of(table_id)
    async with service.store.pool.acquire() as connection:
        if device_id not in await load_scanners(connection, [device_id]):
            registration = DeviceRegistered(device_id=device_id, table_id=table_id, actor="tests")
            await apply_device_events(connection, [(registration, next(_numbers))])
    state = await service.load(table_id)
    return CardScanned(
        scan_id=uuid4(),
        device_id=device_id,
        table_id=table_id,
        round_id=state.round.round_id if state.round is not None else None,
        sequence=next(_numbers),
        card=card,
        raw=card,
        scanned_at=clock.now,
    )


async def clocked_service(
    store: AsyncpgEventStore, infrastructure: InfrastructureSettings, snapshot_every: int
) -> tuple[TableService, FakeClock]:
    """A table service on `store` (its tables migrated) whose clock moves only when told."""
    await migrated(store.pool, STORE_MIGRATIONS, SERVICE.migrations)
    settings = TableSettings(**infrastructure.model_dump(), snapshot_every=snapshot_every)
    clock = FakeClock()
    return TableService(store, settings, clock=clock), clock


async def open_table_directly(
    service: TableService,
    table_id: str,
    name: str,
    betting_seconds: float,
    result_pause_seconds: float,
) -> None:
    opened = await service.open_table(
        OpenTable(
            table_id=table_id,
            name=name,
            betting_seconds=betting_seconds,
            result_pause_seconds=result_pause_seconds,
            limits=table_body(table_id)["limits"],
        ),
        "supervisor-1",
    )
    if opened.proposed is not None:  # new terms: a second supervisor approves them (0086)
        await service.approve_change(table_id, opened.proposed, "supervisor-2")


async def full_replay(pool: asyncpg.Pool, table_id: str) -> TableState:
    """The table's state folded from its whole stream, no snapshot or cache involved."""
    state = TableState(table_id=table_id)
    store = AsyncpgEventStore(pool, producer="tests")
    for row in await store.read_stream(stream_id_for(table_id)):
        event = registry.decode(row.event_type, row.schema_version, row.payload)
        state = evolve(state, event, row.occurred_at)
    return state


async def snapshot_row(pool: asyncpg.Pool, table_id: str) -> asyncpg.Record | None:
    return await pool.fetchrow(
        "SELECT version, event_id, schema_version, state::text AS state"
        " FROM table_snapshots WHERE stream_id = $1",
        f"table-{table_id}",
    )
