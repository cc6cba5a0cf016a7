"""Hostile insiders at the transport (issue 23, "Authenticated transport, least privilege"), on
the real stack as `make up` makes it: a client without credentials, or with a wrong password,
is refused by Kafka, Redis and Postgres; a service's principal may write only its own topic,
read only the topics and consumer groups it consumes, reach only its own Redis keys and
connect only to its own database (docs/decisions/0050-a-principal-per-service.md). Each case
ends with nothing written where it was refused: the topic read up to its end offsets as the
admin holds nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from uuid import uuid4

import asyncpg
import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.errors import (
    GroupAuthorizationFailedError,
    KafkaConnectionError,
    KafkaError,
    TopicAuthorizationFailedError,
)
from pydantic import SecretStr
from redis.asyncio import Redis
from redis.exceptions import AuthenticationError, NoPermissionError, ResponseError

from teenpatti.events.catalog import SETTLEMENT_EVENTS, TABLE_EVENTS, WALLET_EVENTS
from teenpatti.eventsourcing import kafka_producer
from teenpatti.settings import InfrastructureSettings

from ..integration.services import topics_ready

pytestmark = pytest.mark.integration

# each service's own database on the local stack (deploy/local/stack.sh)
DATABASE_OF = {
    "table": "tp_table",
    "scanner-gateway": "tp_scanner",
    "settlement": "tp_settlement",
    "wallet": "tp_wallet",
}


@pytest.fixture
async def run(settings: InfrastructureSettings) -> AsyncIterator[InfrastructureSettings]:
    """This test's topics, made by the admin; the settings of the admin on them."""
    if not settings.credentials_dir:
        pytest.fail(
            "the stack has no credentials (no $TP_HOME/secrets): it runs without"
            " authentication; `make up` turns it on"
        )
    await topics_ready(settings)
    yield settings


def as_service(settings: InfrastructureSettings, principal: str) -> InfrastructureSettings:
    return settings.as_principal(principal)


async def records_on(settings: InfrastructureSettings, topic: str) -> int:
    """How many records `topic` holds, up to its end offsets, read as the admin."""
    consumer = AIOKafkaConsumer(**settings.kafka_options(), enable_auto_commit=False)
    await consumer.start()
    try:
        assigned = [TopicPartition(topic, p) for p in range(settings.kafka_partitions)]
        ends = await consumer.end_offsets(assigned)
        starts = await consumer.beginning_offsets(assigned)
        return sum(ends[tp] - starts[tp] for tp in assigned)
    finally:
        await consumer.stop()


async def test_a_producer_without_credentials_is_refused_by_kafka(
    run: InfrastructureSettings,
) -> None:
    anonymous = AIOKafkaProducer(bootstrap_servers=run.kafka_servers, request_timeout_ms=5000)
    with pytest.raises(KafkaConnectionError):
        async with asyncio.timeout(30):
            await anonymous.start()
    await anonymous.stop()

    wrong = run.as_principal("wallet").model_copy(
        update={"kafka_password": SecretStr("not-the-password")}
    )
    guessing = AIOKafkaProducer(**wrong.kafka_options(), request_timeout_ms=5000)
    with pytest.raises(KafkaError):
        async with asyncio.timeout(30):
            await guessing.start()
    await guessing.stop()

    assert await records_on(run, run.topic(WALLET_EVENTS)) == 0


async def test_a_service_writes_only_its_own_topic(run: InfrastructureSettings) -> None:
    settlement = as_service(run, "settlement")
    producer = kafka_producer(settlement.kafka_options(), client_id="hostile-settlement")
    await producer.start()
    try:
        # its own topic: allowed (the control)
        await producer.send_and_wait(run.topic(SETTLEMENT_EVENTS), b"{}", key=b"T01")
        # the wallet's topic and the table's: refused by the broker
        for topic in (WALLET_EVENTS, TABLE_EVENTS):
            with pytest.raises(TopicAuthorizationFailedError):
                async with asyncio.timeout(30):
                    await producer.send_and_wait(run.topic(topic), b"{}", key=b"T01")
    finally:
        await producer.stop()

    assert await records_on(run, run.topic(SETTLEMENT_EVENTS)) == 1
    assert await records_on(run, run.topic(WALLET_EVENTS)) == 0
    assert await records_on(run, run.topic(TABLE_EVENTS)) == 0


async def test_a_service_reads_only_what_it_consumes_in_its_own_groups(
    run: InfrastructureSettings,
) -> None:
    gateway = as_service(run, "scanner-gateway")  # consumes table.events only

    async def read(topic: str, group: str) -> None:
        consumer = AIOKafkaConsumer(
            run.topic(topic),
            **gateway.kafka_options(),
            group_id=run.topic(group),
            enable_auto_commit=False,
            auto_offset_reset="earliest",
        )
        try:
            async with asyncio.timeout(30):
                await consumer.start()
                await consumer.getmany(timeout_ms=1000)
        finally:
            await consumer.stop()

    await read(TABLE_EVENTS, "scanner-gateway-table")  # its own: allowed (the control)
    with pytest.raises(TopicAuthorizationFailedError):
        await read(WALLET_EVENTS, "scanner-gateway-wallet")
    with pytest.raises(GroupAuthorizationFailedError):
        await read(TABLE_EVENTS, "wallet-table")  # the wallet's group


async def test_a_service_role_cannot_reach_another_services_database(
    run: InfrastructureSettings,
) -> None:
    table = as_service(run, "table")
    own = await asyncpg.connect(table.postgres_dsn(DATABASE_OF["table"]), timeout=15)
    try:
        assert await own.fetchval("SELECT current_user") == table.pg_user
    finally:
        await own.close()
    for service, database in DATABASE_OF.items():
        if service == "table":
            continue
        with pytest.raises(asyncpg.InsufficientPrivilegeError, match="permission denied"):
            await asyncpg.connect(table.postgres_dsn(database), timeout=15)
    for database in ("postgres", "teenpatti"):
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await asyncpg.connect(table.postgres_dsn(database), timeout=15)


async def test_a_service_role_may_only_read_the_access_database(
    run: InfrastructureSettings,
) -> None:
    """Every service reads the API keys (`tp_access`, migrated by `make up`); none may issue,
    change or revoke one."""
    for principal in DATABASE_OF:
        service = as_service(run, principal)
        connection = await asyncpg.connect(service.postgres_dsn(run.access_database), timeout=15)
        try:
            assert await connection.fetchval("SELECT count(*) >= 0 FROM access_keys")
            with pytest.raises(asyncpg.InsufficientPrivilegeError):
                await connection.execute("UPDATE access_keys SET revoked_at = NULL")
            with pytest.raises(asyncpg.InsufficientPrivilegeError):
                await connection.execute("DELETE FROM access_keys")
        finally:
            await connection.close()


async def test_a_service_role_cannot_read_another_services_tables(
    run: InfrastructureSettings, database_name: str
) -> None:
    """Where one could connect (a test's database, open to every service's role), a table the
    wallet's role made stays the wallet's."""
    wallet, table = as_service(run, "wallet"), as_service(run, "table")
    owner = await asyncpg.connect(wallet.postgres_dsn(database_name), timeout=15)
    try:
        await owner.execute("CREATE TABLE balances (player text PRIMARY KEY, amount bigint)")
        await owner.execute("INSERT INTO balances VALUES ('p1', 100)")
    finally:
        await owner.close()
    intruder = await asyncpg.connect(table.postgres_dsn(database_name), timeout=15)
    try:
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await intruder.fetch("SELECT * FROM balances")
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await intruder.execute("UPDATE balances SET amount = 1000000000")
    finally:
        await intruder.close()
    admin = await asyncpg.connect(run.postgres_dsn(database_name), timeout=15)
    try:
        assert await admin.fetchval("SELECT amount FROM balances WHERE player = 'p1'") == 100
    finally:
        await admin.close()


async def test_redis_refuses_a_client_without_the_password(run: InfrastructureSettings) -> None:
    anonymous = Redis(host=run.redis_host, port=run.redis_port, socket_timeout=5)
    try:
        with pytest.raises((AuthenticationError, ResponseError), match=r"(?i)auth"):
            await anonymous.set("table:T01", "forged")
    finally:
        await anonymous.aclose()
    guessing = Redis(
        host=run.redis_host,
        port=run.redis_port,
        username="table",
        password="not-the-password",
        socket_timeout=5,
    )
    try:
        with pytest.raises(AuthenticationError):
            await guessing.ping()
    finally:
        await guessing.aclose()

    admin = Redis.from_url(run.redis_url, socket_timeout=5)
    try:
        assert await admin.get("table:T01") != b"forged"
    finally:
        await admin.aclose()


async def test_a_service_reaches_only_its_own_redis_keys(run: InfrastructureSettings) -> None:
    scan = f"{run.topic_prefix}scan:{uuid4()}"
    table = Redis.from_url(as_service(run, "table").redis_url, socket_timeout=5)
    gateway = Redis.from_url(as_service(run, "scanner-gateway").redis_url, socket_timeout=5)
    try:
        await gateway.set(scan, "verdict", ex=30)  # its own key: allowed (the control)
        await table.set(f"{run.topic_prefix}table:T01", "state", ex=30)
        with pytest.raises(NoPermissionError):
            await table.get(scan)  # the gateway's verdict
        with pytest.raises(NoPermissionError):
            await gateway.set(f"{run.topic_prefix}table:T01", "forged")
        with pytest.raises(NoPermissionError):
            await table.flushall()  # no admin or dangerous command
        with pytest.raises(NoPermissionError):
            await gateway.config_get("*")
    finally:
        await table.aclose()
        await gateway.aclose()
    admin = Redis.from_url(run.redis_url, socket_timeout=5)
    try:
        assert await admin.get(f"{run.topic_prefix}table:T01") == b"state"
        assert await admin.get(scan) == b"verdict"
    finally:
        await admin.aclose()
