"""Fixtures for the tests that need the real servers.

By default they use the local stack (`make up`; `make test` starts it), as its admin principal
(`$TP_HOME/secrets/admin.env`, `TP_CREDENTIALS_DIR`); a service a test starts runs as its own
principal. With `TP_TESTCONTAINERS=1` and a reachable Docker engine they start throwaway
containers instead. Every test gets its own database and its own topics, so tests never see
each other's data.
"""

from __future__ import annotations

import os
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from uuid import uuid4

import asyncpg
import pytest
from aiokafka.admin import AIOKafkaAdminClient

from teenpatti.events.catalog import ALL_TOPICS
from teenpatti.eventsourcing import MIGRATIONS as STORE_MIGRATIONS
from teenpatti.eventsourcing import AsyncpgEventStore, ensure_topics
from teenpatti.settings import ADMIN, InfrastructureSettings
from teenpatti_tools.databases import create_database, drop_database, migrated, service_roles

# The tests use the local stack's public development credentials and API keys, which a
# process accepts only in development; the services they start inherit this
# (docs/decisions/0049-no-default-secret-outside-development.md).
os.environ.setdefault("TP_ENV", "dev")
# The local stack's credentials, where `make up` wrote them (a stack without them: none).
_SECRETS = Path(os.environ.get("TP_HOME", ".local")).resolve() / "secrets"
if _SECRETS.is_dir():
    os.environ.setdefault("TP_CREDENTIALS_DIR", str(_SECRETS))


def _reachable(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex((host, port)) == 0


@pytest.fixture(scope="session")
def infrastructure() -> Iterator[InfrastructureSettings]:
    if os.environ.get("TP_TESTCONTAINERS") == "1":
        yield from _containers()
        return
    settings = InfrastructureSettings().as_principal(ADMIN)
    for name, port in (
        ("Postgres", settings.pg_port),
        ("Kafka", settings.kafka_port),
        ("Redis", settings.redis_port),
    ):
        if not _reachable(port, settings.pg_host):
            pytest.fail(f"{name} is not listening on port {port}: start the stack with `make up`")
    yield settings


def _containers() -> Iterator[InfrastructureSettings]:
    import docker  # installed with testcontainers

    try:
        docker.from_env().ping()
    except Exception as error:
        pytest.fail(f"TP_TESTCONTAINERS=1 but no Docker engine is reachable ({error})")
    from testcontainers.kafka import KafkaContainer
    from testcontainers.postgres import PostgresContainer
    from testcontainers.redis import RedisContainer

    with (
        PostgresContainer("postgres:16", username="teenpatti", password="teenpatti") as pg,
        KafkaContainer("apache/kafka:4.1.1").with_kraft() as kafka,
        RedisContainer("redis:7") as redis,
    ):
        yield InfrastructureSettings(
            credentials_dir="",  # the containers' own credentials, not the local stack's
            pg_host=pg.get_container_host_ip(),
            pg_port=int(pg.get_exposed_port(5432)),
            kafka_bootstrap=kafka.get_bootstrap_server(),
            redis_host=redis.get_container_host_ip(),
            redis_port=int(redis.get_exposed_port(6379)),
        )


@pytest.fixture
async def database(
    infrastructure: InfrastructureSettings, database_name: str
) -> AsyncIterator[str]:
    """A new empty database for this test; its DSN."""
    yield infrastructure.postgres_dsn(database_name)


@pytest.fixture
async def topic_prefix(infrastructure: InfrastructureSettings) -> AsyncIterator[str]:
    """This test's run name, after its topics and consumer groups (in front of its Redis
    keys): no test sees another's events. The topics are deleted afterwards (each holds 12
    partitions' files open in the broker)."""
    prefix = f"t{uuid4().hex[:10]}."
    yield prefix
    run = infrastructure.model_copy(update={"topic_prefix": prefix})
    await delete_topics(infrastructure, [run.topic(topic) for topic in ALL_TOPICS])


async def delete_topics(settings: InfrastructureSettings, topics: list[str]) -> None:
    admin = AIOKafkaAdminClient(**settings.kafka_options())
    await admin.start()
    try:
        doomed = [t for t in await admin.list_topics() if t in topics]
        if doomed:
            await admin.delete_topics(doomed)
    finally:
        await admin.close()


@pytest.fixture
def settings(infrastructure: InfrastructureSettings, topic_prefix: str) -> InfrastructureSettings:
    return infrastructure.model_copy(update={"topic_prefix": topic_prefix})


@pytest.fixture
async def database_name(infrastructure: InfrastructureSettings) -> AsyncIterator[str]:
    """The name of a new empty database for this test, dropped afterwards; whichever
    service the test runs on it may use it (its role)."""
    name = f"test_{uuid4().hex[:12]}"
    await create_database(infrastructure, name, users=service_roles(infrastructure))
    try:
        yield name
    finally:
        admin = await asyncpg.connect(infrastructure.postgres_dsn("postgres"))
        try:
            await drop_database(admin, name)
        finally:
            await admin.close()


@pytest.fixture
async def access_database(infrastructure: InfrastructureSettings) -> AsyncIterator[str]:
    """The name of a new access database (the API keys of `teenpatti keys`, docs/access.md),
    migrated, which the services may read; dropped afterwards."""
    from teenpatti.access import migrate_access

    name = f"test_access_{uuid4().hex[:12]}"
    readers = service_roles(infrastructure)
    await create_database(infrastructure, name, users=readers)
    try:
        await migrate_access(infrastructure, dsn=infrastructure.postgres_dsn(name))
        connection = await asyncpg.connect(infrastructure.postgres_dsn(name))
        try:
            for reader in readers:
                await connection.execute(f'GRANT SELECT ON access_keys TO "{reader}"')
        finally:
            await connection.close()
        yield name
    finally:
        admin = await asyncpg.connect(infrastructure.postgres_dsn("postgres"))
        try:
            await drop_database(admin, name)
        finally:
            await admin.close()


@pytest.fixture
async def pool(database: str) -> AsyncIterator[asyncpg.Pool]:
    async with asyncpg.create_pool(database, min_size=1, max_size=8) as created:
        yield created


@pytest.fixture
async def store(pool: asyncpg.Pool) -> AsyncpgEventStore:
    await migrated(pool, STORE_MIGRATIONS)
    return AsyncpgEventStore(pool, producer="tests")


@pytest.fixture
async def topic(infrastructure: InfrastructureSettings) -> AsyncIterator[str]:
    """A new topic with the deployment's partition count, deleted afterwards."""
    name = f"test-{uuid4().hex[:12]}"
    await ensure_topics(
        infrastructure.kafka_options(), [name], partitions=infrastructure.kafka_partitions
    )
    yield name
    await delete_topics(infrastructure, [name])


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Everything under tests/integration, e2e, fuzz and chaos needs the servers; the chaos
    run kills them, so `make test` runs it alone (`-m "not chaos"`, then tests/chaos)."""
    for item in items:
        if {"integration", "e2e", "fuzz", "chaos"} & set(item.path.parts):
            item.add_marker(pytest.mark.integration)
        if "chaos" in item.path.parts:
            item.add_marker(pytest.mark.chaos)
