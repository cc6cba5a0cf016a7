"""Fixtures for the tests that need the real servers.

By default they use the local stack (`make up`; `make test` starts it), as its admin principal
(`$TP_HOME/secrets/admin.env`, `TP_CREDENTIALS_DIR`); a service a test starts runs as its own
principal. With `TP_TESTCONTAINERS=1` and a reachable Docker engine they start throwaway
containers instead, authenticated as the local stack is (Kafka SASL/SCRAM and the generated
ACLs, Redis ACL users, a Postgres role per service; `teenpatti_tools.containers`), with random
credentials. Every test gets its own database and its own topics, so tests never see each
other's data.
"""

from __future__ import annotations

import contextlib
import os
import socket
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from uuid import uuid4

import asyncpg
import pytest
from aiokafka.admin import AIOKafkaAdminClient

from teenpatti.events.catalog import ALL_TOPICS
from teenpatti.eventsourcing import MIGRATIONS as STORE_MIGRATIONS
from teenpatti.eventsourcing import AsyncpgEventStore, ensure_topics
from teenpatti.settings import ADMIN, InfrastructureSettings
from teenpatti_tools.containers import KAFKA_CLIENT_PORT, Container
from teenpatti_tools.databases import create_database, drop_database, migrated, service_roles

if TYPE_CHECKING:
    from testcontainers.core.container import DockerContainer

_ROOT = Path(__file__).resolve().parents[1]

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
    """The stack `teenpatti_tools.containers` renders, authenticated as the local one, with
    random credentials in a folder of its own; the services a test starts in a process find
    it through the environment."""
    import docker  # installed with testcontainers

    try:
        docker.from_env().ping()
    except Exception as error:
        pytest.fail(f"TP_TESTCONTAINERS=1 but no Docker engine is reachable ({error})")
    from testcontainers.core.docker_client import DockerClient

    from teenpatti_tools.acls import ACLS_PATH, read_acls
    from teenpatti_tools.containers import new_secrets, render_stack

    host = DockerClient().host()
    acls = read_acls((_ROOT / ACLS_PATH).read_text(encoding="utf-8"))
    stack = render_stack(new_secrets(), acls, host=host, kafka_port=_free_port())
    with tempfile.TemporaryDirectory() as credentials, contextlib.ExitStack() as started:
        for name, text in stack.credentials.items():
            path = Path(credentials) / name
            path.touch(mode=0o600)
            path.write_text(text)
        postgres = started.enter_context(_started(stack.postgres))
        redis = started.enter_context(_started(stack.redis))
        started.enter_context(_started(stack.kafka))
        where = {
            "TP_CREDENTIALS_DIR": credentials,
            "TP_PG_HOST": host,
            "TP_PG_PORT": str(postgres.get_exposed_port(stack.postgres.exposed_port)),
            "TP_KAFKA_BOOTSTRAP": f"{host}:{stack.kafka.bound_ports[KAFKA_CLIENT_PORT]}",
            "TP_REDIS_HOST": host,
            "TP_REDIS_PORT": str(redis.get_exposed_port(stack.redis.exposed_port)),
        }
        os.environ.update(where)
        yield InfrastructureSettings().as_principal(ADMIN)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def _started(spec: Container) -> Iterator[DockerContainer]:
    """One rendered container, started, ready (its log line) and set up, stopped after."""
    from testcontainers.core.container import DockerContainer
    from testcontainers.core.waiting_utils import wait_for_logs

    container = DockerContainer(spec.image).with_envs(**spec.env)
    if spec.command:
        container = container.with_command(list(spec.command))
    for path, text in spec.files.items():
        container = container.with_copy_into_container(text.encode(), path)
    if spec.exposed_port:
        container = container.with_exposed_ports(spec.exposed_port)
    for inside, outside in spec.bound_ports.items():
        container = container.with_bind_ports(inside, outside)
    with container:
        wait_for_logs(
            container,
            lambda logs: logs.count(spec.ready_log) >= spec.ready_count,
            timeout=180,
            raise_on_exit=True,
        )
        for command in spec.setup:
            done = container.exec(list(command))
            if done.exit_code != 0:
                pytest.fail(f"{spec.image}: {command[0]} failed: {done.output.decode()[-2000:]}")
        yield container


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
    """Everything under tests/integration, e2e, fuzz, bench and chaos needs the servers; the
    chaos run kills them, so `make test` runs it alone (`-m "not chaos"`, then tests/chaos)."""
    for item in items:
        if {"integration", "e2e", "fuzz", "bench", "chaos"} & set(item.path.parts):
            item.add_marker(pytest.mark.integration)
        if "chaos" in item.path.parts:
            item.add_marker(pytest.mark.chaos)
