"""The throwaway stack in containers (testcontainers, `TP_TESTCONTAINERS=1`), authenticated as
the local one is (deploy/local/stack.sh, docs/decisions/0050-a-principal-per-service.md):
Kafka in KRaft mode with SASL/SCRAM-SHA-512 and the ACLs of deploy/kafka/acls.txt, Redis with
its ACL users (`default` off), Postgres with a role per service beside the admin's.

`render_stack` is the whole configuration as data (images, environment, commands, the files
copied in before each starts, the commands run once it is ready, the credentials folder), a
pure function of the secrets and the ACLs that tests/unit/test_containers.py checks without a
Docker engine; tests/conftest.py starts what it renders
(docs/decisions/0095-acls-generated-and-the-containers-stack.md).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from teenpatti.settings import ADMIN
from teenpatti_tools.acls import Acl
from teenpatti_tools.databases import SERVICE_PRINCIPALS

# the images, as docker-compose.yml pins them (Kafka: TP_KAFKA_VERSION)
POSTGRES_IMAGE = "postgres:16.10-bookworm"
KAFKA_IMAGE = "apache/kafka:4.1.1"
REDIS_IMAGE = "redis:7.4.5-bookworm"
# the admin's Postgres role, as on the local stack (TP_PG_USER)
ADMIN_ROLE = "teenpatti"
# each Redis user's keys, channels and commands: stack.sh's redis_acl, after the password
REDIS_RULES = {
    ADMIN: "~* &* +@all",
    "table": "resetchannels ~*table:* ~*feed:* ~*feed-ticket:* &*feed:* +@all -@admin -@dangerous",
    "scanner-gateway": "resetchannels ~*scan:* &*scan:* +@all -@admin -@dangerous",
}
# the broker's listener inside the container (the brokers' and the tools'), and the clients'
_INTERNAL_PORT = 19094
KAFKA_CLIENT_PORT = 9092
# the files copied in: straight into /tmp, which exists in every image and which the images'
# users (Kafka's is not root) may write, so no folder the copy would make root's
_KAFKA_FILE = "/tmp/teenpatti-kafka-{}"


@dataclass(frozen=True, slots=True)
class PrincipalSecrets:
    """One principal's passwords: its Postgres role's, its Kafka user's, its Redis user's."""

    postgres: str
    kafka: str
    redis: str


@dataclass(frozen=True, slots=True)
class StackSecrets:
    principals: Mapping[str, PrincipalSecrets]
    superuser: str  # Postgres's `postgres`, which only makes the roles
    cluster_id: str  # the KRaft cluster's id


def new_secrets() -> StackSecrets:
    """Random passwords for the admin and each service: a stack has no default secret."""

    def password() -> str:
        return secrets.token_hex(32)

    return StackSecrets(
        principals={
            principal: PrincipalSecrets(password(), password(), password())
            for principal in (ADMIN, *SERVICE_PRINCIPALS)
        },
        superuser=password(),
        cluster_id=base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("="),
    )


@dataclass(frozen=True, slots=True)
class Container:
    image: str
    env: Mapping[str, str] = field(default_factory=dict)
    command: tuple[str, ...] = ()
    files: Mapping[str, str] = field(default_factory=dict)  # path in the container: text
    exposed_port: int = 0  # published on a port the engine chooses
    bound_ports: Mapping[int, int] = field(default_factory=dict)  # container: host
    ready_log: str = ""  # the container is ready once its log shows this ...
    ready_count: int = 1  # ... this many times
    setup: tuple[tuple[str, ...], ...] = ()  # run in the container once it is ready


@dataclass(frozen=True, slots=True)
class ContainerStack:
    postgres: Container
    kafka: Container
    redis: Container
    # `<principal>.env` of a credentials folder (TP_CREDENTIALS_DIR): file name -> text
    credentials: Mapping[str, str]


def pg_role(principal: str) -> str:
    """A principal's Postgres role, as stack.sh names it."""
    return ADMIN_ROLE if principal == ADMIN else f"teenpatti_{principal.replace('-', '_')}"


def render_stack(
    stack_secrets: StackSecrets, acls: Sequence[Acl], *, host: str, kafka_port: int
) -> ContainerStack:
    """The three containers and the credentials folder. `host`: where the tests reach the
    engine's published ports; `kafka_port`: the host port bound to the broker's client
    listener, which the broker advertises (so it is chosen before the start)."""
    unknown = {acl.principal for acl in acls} - set(stack_secrets.principals)
    if unknown:
        raise ValueError(f"ACLs for principals without credentials: {sorted(unknown)}")
    return ContainerStack(
        postgres=_postgres(stack_secrets),
        kafka=_kafka(stack_secrets, acls, host=host, kafka_port=kafka_port),
        redis=_redis(stack_secrets),
        credentials={
            f"{principal}.env": _credentials(principal, principal_secrets)
            for principal, principal_secrets in stack_secrets.principals.items()
        },
    )


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _postgres(stack_secrets: StackSecrets) -> Container:
    """The admin may create databases and is a member of each service's role; no one else
    may connect to the server's own databases (stack.sh's pg_databases)."""
    admin = pg_role(ADMIN)
    lines = [
        f'CREATE ROLE "{admin}" LOGIN CREATEDB NOSUPERUSER'
        f" PASSWORD {_sql_text(stack_secrets.principals[ADMIN].postgres)};",
    ]
    for principal in SERVICE_PRINCIPALS:
        role = pg_role(principal)
        password = _sql_text(stack_secrets.principals[principal].postgres)
        lines.append(
            f'CREATE ROLE "{role}" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD {password};'
        )
        lines.append(f'GRANT "{role}" TO "{admin}";')
    for database in ("postgres", "template1"):
        lines.append(f"REVOKE CONNECT, TEMPORARY ON DATABASE {database} FROM PUBLIC;")
        lines.append(f'GRANT CONNECT ON DATABASE {database} TO "{admin}";')
    return Container(
        image=POSTGRES_IMAGE,
        env={
            "POSTGRES_USER": "postgres",
            "POSTGRES_PASSWORD": stack_secrets.superuser,
            "POSTGRES_HOST_AUTH_METHOD": "scram-sha-256",
        },
        command=("postgres", "-c", "max_connections=300"),
        files={"/docker-entrypoint-initdb.d/teenpatti-roles.sql": "\n".join(lines) + "\n"},
        exposed_port=5432,
        # once by the entrypoint's server that runs the init files, once by the real one
        ready_log="database system is ready to accept connections",
        ready_count=2,
    )


def _kafka(
    stack_secrets: StackSecrets, acls: Sequence[Acl], *, host: str, kafka_port: int
) -> Container:
    """stack.sh's broker configuration: SCRAM-SHA-512 on the brokers' listeners (the users
    added at the log directory's format), PLAIN for the controller (the admin alone),
    StandardAuthorizer, the admin the one super user, nothing allowed without an ACL."""
    admin = stack_secrets.principals[ADMIN].kafka
    scram = "org.apache.kafka.common.security.scram.ScramLoginModule required"
    plain = "org.apache.kafka.common.security.plain.PlainLoginModule required"
    controller = f'{plain} username="admin" password="{admin}" user_admin="{admin}"'
    server = f"""\
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@localhost:9093
listeners=CLIENT://0.0.0.0:{KAFKA_CLIENT_PORT},BROKER://localhost:{_INTERNAL_PORT},CONTROLLER://localhost:9093
advertised.listeners=CLIENT://{host}:{kafka_port},BROKER://localhost:{_INTERNAL_PORT}
controller.listener.names=CONTROLLER
inter.broker.listener.name=BROKER
listener.security.protocol.map=CLIENT:SASL_PLAINTEXT,BROKER:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT
sasl.enabled.mechanisms=SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
listener.name.client.sasl.enabled.mechanisms=SCRAM-SHA-512
listener.name.client.scram-sha-512.sasl.jaas.config={scram};
listener.name.broker.sasl.enabled.mechanisms=SCRAM-SHA-512
listener.name.broker.scram-sha-512.sasl.jaas.config={scram} username="admin" password="{admin}";
sasl.mechanism.controller.protocol=PLAIN
listener.name.controller.sasl.enabled.mechanisms=PLAIN
listener.name.controller.plain.sasl.jaas.config={controller};
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:admin
allow.everyone.if.no.acl.found=false
log.dirs=/tmp/teenpatti-kafka-data
num.partitions=12
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=12
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
log.retention.hours=-1
"""
    client = (
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n"
        f'sasl.jaas.config={scram} username="admin" password="{admin}";\n'
    )
    users = " ".join(
        f"--add-scram 'SCRAM-SHA-512=[name={principal},password={passwords.kafka}]'"
        for principal, passwords in stack_secrets.principals.items()
    )
    server_file = _KAFKA_FILE.format("server.properties")
    start = f"""\
set -eu
/opt/kafka/bin/kafka-storage.sh format -t {stack_secrets.cluster_id} \\
    -c {server_file} {users}
exec /opt/kafka/bin/kafka-server-start.sh {server_file}
"""
    tool = (
        "/opt/kafka/bin/kafka-acls.sh",
        "--bootstrap-server",
        f"localhost:{_INTERNAL_PORT}",
        "--command-config",
        _KAFKA_FILE.format("admin.properties"),
        "--add",
        "--force",
    )
    return Container(
        image=KAFKA_IMAGE,
        env={"KAFKA_HEAP_OPTS": "-Xms256m -Xmx1g"},
        command=("sh", _KAFKA_FILE.format("start.sh")),
        files={
            server_file: server,
            _KAFKA_FILE.format("admin.properties"): client,
            _KAFKA_FILE.format("start.sh"): start,
        },
        bound_ports={KAFKA_CLIENT_PORT: kafka_port},
        ready_log="Kafka Server started",
        setup=tuple((*tool, *acl.arguments()) for acl in acls),
    )


def _redis(stack_secrets: StackSecrets) -> Container:
    """stack.sh's ACL users, each password as its SHA-256 only."""
    lines = ["user default off resetkeys resetchannels -@all"]
    for principal, rules in REDIS_RULES.items():
        digest = hashlib.sha256(stack_secrets.principals[principal].redis.encode()).hexdigest()
        lines.append(f"user {principal} on #{digest} {rules}")
    acl_file = "/tmp/teenpatti-redis-users.acl"
    return Container(
        image=REDIS_IMAGE,
        command=("redis-server", "--save", "", "--appendonly", "no", "--aclfile", acl_file),
        files={acl_file: "\n".join(lines) + "\n"},
        exposed_port=6379,
        ready_log="Ready to accept connections",
    )


def _credentials(principal: str, principal_secrets: PrincipalSecrets) -> str:
    """A principal's file as stack.sh's secrets_up writes it."""
    lines = [
        f"# {principal}'s credentials on the testcontainers stack; TP_CREDENTIALS_DIR",
        f"TP_PG_USER={pg_role(principal)}",
        f"TP_PG_PASSWORD={principal_secrets.postgres}",
        "TP_KAFKA_SECURITY_PROTOCOL=SASL_PLAINTEXT",
        "TP_KAFKA_SASL_MECHANISM=SCRAM-SHA-512",
        f"TP_KAFKA_USERNAME={principal}",
        f"TP_KAFKA_PASSWORD={principal_secrets.kafka}",
    ]
    if principal in REDIS_RULES:
        lines += [f"TP_REDIS_USERNAME={principal}", f"TP_REDIS_PASSWORD={principal_secrets.redis}"]
    return "\n".join(lines) + "\n"
