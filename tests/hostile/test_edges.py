"""Hostile insiders at the edges, on the real stack (issue 23, "Hardened edges"): an event too
large for Kafka, a record too large for a consumer, a flood of requests from one key or one
address, an oversized body on every service, a statement that would run for ever. Each ends
with nothing lost: the rest is published, handled or answered, and what was refused is in
`GET /problems` or answered with its problem."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import httpx
import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
from fastapi import FastAPI
from pydantic import SecretStr

from scanner_gateway.app import create_app as create_gateway
from scanner_gateway.config import ScannerSettings
from settlement_service.app import create_app as create_settlement
from settlement_service.config import SettlementSettings
from table_service.app import create_app as create_table
from table_service.config import TableSettings
from teenpatti.events.catalog import TABLE_EVENTS, WALLET_EVENTS
from teenpatti.eventsourcing import AsyncpgEventStore
from teenpatti.settings import InfrastructureSettings
from wallet_service.app import create_app as create_wallet
from wallet_service.config import WalletSettings

from ..integration.sample_events import ChipCounted, counted
from ..integration.services import running, topics_ready

pytestmark = pytest.mark.integration

API_KEYS = "op-1:operator:edge-op-1,op-2:operator:edge-op-2,sup-1:supervisor:edge-sup-1"
OPERATOR_1 = {"X-Api-Key": "edge-op-1"}
OPERATOR_2 = {"X-Api-Key": "edge-op-2"}
SUPERVISOR = {"X-Api-Key": "edge-sup-1"}
QUIET_SECONDS = 60.0


def _wallet(settings: InfrastructureSettings, database: str, **extra: Any) -> WalletSettings:
    return WalletSettings(
        **{
            **settings.model_dump(),
            "api_keys": SecretStr(API_KEYS),
            "wallet_database": database,
            **extra,
        }
    )


@asynccontextmanager
async def _wallet_running(
    settings: InfrastructureSettings, database: str, **extra: Any
) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    await topics_ready(settings)
    app = create_wallet(_wallet(settings, database, **extra))
    async with running(app) as client:
        yield app, client


def _store(app: FastAPI) -> AsyncpgEventStore:
    store: AsyncpgEventStore = app.state.kernel.store
    return store


async def _until_published(app: FastAPI, position: int) -> None:
    """Until the service's relay has passed the event at `position`: the relay is quiet."""
    pool: asyncpg.Pool = app.state.kernel.pool
    async with asyncio.timeout(QUIET_SECONDS):
        while True:
            reached = await pool.fetchval("SELECT max(position) FROM outbox_checkpoints")
            if reached is not None and reached >= position:
                return
            await asyncio.sleep(0.05)


async def _read_to_end(settings: InfrastructureSettings, topic: str) -> list[ChipCounted]:
    """Every record of `topic`, read up to the end offsets it has now: the chips counted."""
    consumer = AIOKafkaConsumer(**settings.kafka_options(), enable_auto_commit=False, group_id=None)
    await consumer.start()
    try:
        # every topic has the deployment's partition count (the services refuse another)
        partitions = [TopicPartition(topic, n) for n in range(settings.kafka_partitions)]
        consumer.assign(partitions)
        await consumer.seek_to_beginning(*partitions)
        ends = await consumer.end_offsets(partitions)
        found: list[ChipCounted] = []
        async with asyncio.timeout(QUIET_SECONDS):
            while [tp for tp, end in ends.items() if await consumer.position(tp) < end]:
                batches = await consumer.getmany(timeout_ms=500)
                for records in batches.values():
                    for record in records:
                        if record.offset < ends[TopicPartition(record.topic, record.partition)]:
                            found.append(_chips(record.value))
        return found
    finally:
        await consumer.stop()


def _chips(value: bytes | None) -> ChipCounted:
    envelope = json.loads(value or b"{}")
    payload = envelope["payload"]
    return ChipCounted(chips=payload["chips"], colour=payload["colour"][:10])


async def _problems(client: httpx.AsyncClient, kind: str) -> list[dict[str, Any]]:
    answer = await client.get("/problems", headers=SUPERVISOR)
    assert answer.status_code == 200, answer.text
    return [item for item in answer.json()["items"] if item["kind"] == kind]


# ------------------------------------------------------------------------ a huge event


async def test_an_event_larger_than_kafka_takes_is_set_aside_and_the_rest_published(
    settings: InfrastructureSettings, database_name: str
) -> None:
    async with _wallet_running(settings, database_name) as (app, client):
        store = _store(app)
        await store.append("edge-T01", 0, [counted(1)], table_id="T01")
        # a table opened with thousands of currencies, say: larger than Kafka's 1 MB
        huge = await store.append(
            "edge-T01", 1, [ChipCounted(chips=2, colour="x" * 1_500_000)], table_id="T01"
        )
        # the same stream goes on, and another one
        await store.append("edge-T01", 2, [counted(3)], table_id="T01")
        last = await store.append("edge-T02", 0, [counted(4)], table_id="T02")
        await _until_published(app, last.positions[-1])

        published = await _read_to_end(settings, settings.topic(WALLET_EVENTS))
        assert sorted(event.chips for event in published) == [1, 3, 4]  # each once, not 2

        [problem] = await _problems(client, "unpublished_event")
        assert problem["facts"]["event_id"] == str(huge.event_ids[0])
        assert problem["facts"]["size_bytes"] > 1_500_000
        assert problem["table_id"] == "T01"
        assert "TP_KAFKA_MAX_EVENT_BYTES" in problem["detail"]
        metrics = (await client.get("/metrics")).text
        assert 'teenpatti_outbox_parked_events{relay="wallet"} 1.0' in metrics


async def _limit_topic(settings: InfrastructureSettings, topic: str, max_bytes: int) -> None:
    """Give `topic` a smaller `max.message.bytes` than the relay's bound, as an operator
    might: Kafka, not the relay, refuses what is larger."""
    admin = AIOKafkaAdminClient(**settings.kafka_options())
    await admin.start()
    try:
        resource = ConfigResource(
            ConfigResourceType.TOPIC, topic, configs={"max.message.bytes": str(max_bytes)}
        )
        await admin.alter_configs([resource])
        async with asyncio.timeout(30):
            while True:
                [described] = await admin.describe_configs(
                    [ConfigResource(ConfigResourceType.TOPIC, topic)]
                )
                configs = {entry[0]: entry[1] for entry in described.resources[0][4]}
                if configs.get("max.message.bytes") == str(max_bytes):
                    return
                await asyncio.sleep(0.1)
    finally:
        await admin.close()


async def test_an_event_kafka_refuses_as_too_large_is_found_and_set_aside(
    settings: InfrastructureSettings, database_name: str
) -> None:
    await topics_ready(settings)
    await _limit_topic(settings, settings.topic(WALLET_EVENTS), 20_000)
    async with _wallet_running(settings, database_name) as (app, client):
        store = _store(app)
        # one append, one partition: the three go to Kafka in one batch, which it refuses
        refused = await store.append(
            "edge-T01",
            0,
            [counted(1), ChipCounted(chips=2, colour="x" * 60_000), counted(3)],
            table_id="T01",
        )
        # and the relay goes on with a new producer (the refusal spoilt the old one's sequence)
        last = await store.append("edge-T01", 3, [counted(4)], table_id="T01")
        await _until_published(app, last.positions[-1])

        published = await _read_to_end(settings, settings.topic(WALLET_EVENTS))
        # at least once: a record sent before the refusal may be there twice
        assert {event.chips for event in published} == {1, 3, 4}

        [problem] = await _problems(client, "unpublished_event")
        assert problem["facts"]["event_id"] == str(refused.event_ids[1])
        assert "refused by Kafka as too large" in problem["detail"]


# ------------------------------------------------------------------------ a huge record


async def test_a_consumer_parks_a_record_over_its_bound_unread_and_goes_on(
    settings: InfrastructureSettings, database_name: str
) -> None:
    async with _wallet_running(settings, database_name, consumer_max_record_bytes=4096) as (
        app,
        client,
    ):
        kafka = AIOKafkaProducer(**settings.kafka_options(), acks="all")
        await kafka.start()
        try:
            for n in range(2):  # the second proves the consumer did not stop at the first
                await kafka.send_and_wait(
                    settings.topic(TABLE_EVENTS), b"{" * 10_000 + str(n).encode(), key=b"T01"
                )
        finally:
            await kafka.stop()
        async with asyncio.timeout(QUIET_SECONDS):
            while len(parked := await _problems(client, "parked_event")) < 2:
                await asyncio.sleep(0.1)
        assert all("TP_CONSUMER_MAX_RECORD_BYTES" in problem["detail"] for problem in parked)
        pool: asyncpg.Pool = app.state.kernel.pool
        sizes = await pool.fetch("SELECT octet_length(record_value) FROM parked_events")
        assert [row[0] for row in sizes] == [4096, 4096]  # its beginning only


# ------------------------------------------------------------------------ a flood


async def test_a_flood_from_one_key_gets_429s_and_the_other_keys_are_served(
    settings: InfrastructureSettings, database_name: str
) -> None:
    limits = {
        "rate_limit_key_per_second": 0.001,  # one token back every 1000 s: none in this test
        "rate_limit_key_burst": 5,
        "rate_limit_address_per_second": 1000.0,
        "rate_limit_address_burst": 1000,
    }
    async with _wallet_running(settings, database_name, **limits) as (_, client):
        answers = [await client.get("/players/p1/balances", headers=OPERATOR_1) for _ in range(12)]
        assert [a.status_code for a in answers[:5]] == [200] * 5
        assert [a.status_code for a in answers[5:]] == [429] * 7
        for refused in answers[5:]:
            assert refused.json()["code"] == "rate_limited"
            assert refused.json()["limit"] == "api_key"
            assert int(refused.headers["Retry-After"]) >= 1
        # another operator, and the probes of the flooding key: unaffected
        assert (await client.get("/players/p1/balances", headers=OPERATOR_2)).status_code == 200
        for path in ("/health", "/ready", "/metrics"):
            assert (await client.get(path, headers=OPERATOR_1)).status_code == 200
        metrics = (await client.get("/metrics")).text
        assert 'teenpatti_http_rate_limited_total{limit="api_key"}' in metrics


async def test_a_flood_from_one_address_gets_429s_and_the_other_addresses_are_served(
    settings: InfrastructureSettings, database_name: str
) -> None:
    limits = {"rate_limit_address_per_second": 0.001, "rate_limit_address_burst": 3}
    async with _wallet_running(settings, database_name, **limits) as (app, _):

        def client_at(address: str) -> httpx.AsyncClient:
            transport = httpx.ASGITransport(app=app, client=(address, 40000))
            return httpx.AsyncClient(transport=transport, base_url="http://wallet")

        async with client_at("203.0.113.7") as flooding, client_at("203.0.113.8") as other:
            # made-up keys do not help: the address is limited with or without one
            statuses = [
                (
                    await flooding.get("/players/p1/balances", headers={"X-Api-Key": f"k{n}"})
                ).status_code
                for n in range(6)
            ]
            assert 429 not in statuses[:3]
            assert statuses[3:] == [429, 429, 429]
            assert (await other.get("/players/p1/balances", headers=OPERATOR_1)).status_code == 200


# ------------------------------------------------------------------------ an oversized body

ServiceFactory = Callable[[InfrastructureSettings, str], tuple[FastAPI, str, dict[str, str]]]


def _wallet_app(
    settings: InfrastructureSettings, database: str
) -> tuple[FastAPI, str, dict[str, str]]:
    return create_wallet(_wallet(settings, database)), "/bets", OPERATOR_1


def _table_app(
    settings: InfrastructureSettings, database: str
) -> tuple[FastAPI, str, dict[str, str]]:
    configured = TableSettings(
        **{**settings.model_dump(), "api_keys": SecretStr(API_KEYS), "table_database": database}
    )
    return create_table(configured), "/tables", SUPERVISOR


def _settlement_app(
    settings: InfrastructureSettings, database: str
) -> tuple[FastAPI, str, dict[str, str]]:
    configured = SettlementSettings(
        **{
            **settings.model_dump(),
            "api_keys": SecretStr(API_KEYS),
            "settlement_database": database,
        }
    )
    return create_settlement(configured), "/rounds/T01-000001/settlement/resolutions", SUPERVISOR


def _gateway_app(
    settings: InfrastructureSettings, database: str
) -> tuple[FastAPI, str, dict[str, str]]:
    configured = ScannerSettings(
        **{**settings.model_dump(), "api_keys": SecretStr(API_KEYS), "scanner_database": database}
    )
    return create_gateway(configured), "/devices", SUPERVISOR


async def _stream(size: int) -> AsyncIterator[bytes]:
    for _ in range(size // 4096):
        yield b" " * 4096


@pytest.mark.parametrize(
    "service", [_wallet_app, _table_app, _settlement_app, _gateway_app], ids=lambda f: f.__name__
)
async def test_an_oversized_body_is_refused_by_every_service(
    settings: InfrastructureSettings, database_name: str, service: ServiceFactory
) -> None:
    await topics_ready(settings)
    app, route, key = service(settings, database_name)
    limit = app.state.settings.http_max_body_bytes
    json_headers = {**key, "Content-Type": "application/json"}
    async with running(app) as client:
        declared = await client.post(route, content=b" " * (limit + 1), headers=json_headers)
        # no Content-Length: counted as it arrives
        streamed = await client.post(route, content=_stream(limit * 2), headers=json_headers)
        for refused in (declared, streamed):
            assert refused.status_code == 413, refused.text
            assert refused.json()["code"] == "payload_too_large"
        # a body within the limit is read (and refused for what it says, not for its size)
        within = await client.post(route, content=b"{" + b" " * 1000, headers=json_headers)
        assert within.status_code == 422


# ------------------------------------------------------------------------ timeouts


async def test_a_slow_statement_is_cancelled_by_postgres(
    settings: InfrastructureSettings, database_name: str
) -> None:
    async with _wallet_running(
        settings, database_name, pg_statement_timeout_ms=300, pg_idle_in_transaction_timeout_ms=400
    ) as (app, _):
        pool: asyncpg.Pool = app.state.kernel.pool
        with pytest.raises(asyncpg.QueryCanceledError, match="statement timeout"):
            await pool.fetchval("SELECT pg_sleep(30)")
        assert await pool.fetchval("SHOW statement_timeout") == "300ms"
        assert await pool.fetchval("SELECT 1") == 1  # the pool goes on

        # a session left idle inside its transaction is ended, its locks released
        async with pool.acquire() as idle:
            await idle.execute("BEGIN")
            pid = await idle.fetchval("SELECT pg_backend_pid()")
            async with asyncio.timeout(QUIET_SECONDS):
                while await pool.fetchval(
                    "SELECT count(*) FROM pg_stat_activity WHERE pid = $1", pid
                ):
                    await asyncio.sleep(0.05)
            with pytest.raises((asyncpg.PostgresError, asyncpg.InterfaceError, OSError)):
                await idle.fetchval("SELECT 1")


async def test_a_command_without_an_answer_times_out_in_the_client(
    settings: InfrastructureSettings, database_name: str
) -> None:
    async with _wallet_running(
        settings, database_name, pg_statement_timeout_ms=0, pg_command_timeout_seconds=0.5
    ) as (app, _):
        pool: asyncpg.Pool = app.state.kernel.pool
        with pytest.raises(TimeoutError):
            await pool.fetchval("SELECT pg_sleep(30)")
        assert await pool.fetchval("SELECT 1") == 1


async def test_redis_commands_of_a_service_time_out(
    settings: InfrastructureSettings, database_name: str
) -> None:
    await topics_ready(settings)
    app, _, _ = _table_app(
        settings.model_copy(
            update={"redis_socket_timeout_seconds": 1.5, "redis_connect_timeout_seconds": 2.5}
        ),
        database_name,
    )
    async with running(app):
        options = app.state.kernel.redis.connection_pool.connection_kwargs
        assert (options["socket_timeout"], options["socket_connect_timeout"]) == (1.5, 2.5)
        assert await app.state.kernel.redis.ping()
