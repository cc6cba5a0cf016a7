"""The testcontainers stack as `teenpatti_tools.containers` renders it, checked without a Docker
engine: authenticated as the local stack is, with the generated ACLs, a role per service,
Redis's users, the images Compose pins, and no default secret."""

from __future__ import annotations

import hashlib
import re
import shlex
from pathlib import Path

import pytest
import yaml

from teenpatti.settings import ADMIN, InfrastructureSettings
from teenpatti_tools.acls import ACLS_PATH, Acl, read_acls
from teenpatti_tools.containers import (
    KAFKA_CLIENT_PORT,
    REDIS_RULES,
    ContainerStack,
    StackSecrets,
    new_secrets,
    pg_role,
    render_stack,
)
from teenpatti_tools.databases import SERVICE_PRINCIPALS

ROOT = Path(__file__).resolve().parents[2]
PRINCIPALS = (ADMIN, *SERVICE_PRINCIPALS)


@pytest.fixture(scope="module")
def acls() -> list[Acl]:
    return read_acls((ROOT / ACLS_PATH).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def stack_secrets() -> StackSecrets:
    return new_secrets()


@pytest.fixture(scope="module")
def stack(stack_secrets: StackSecrets, acls: list[Acl]) -> ContainerStack:
    return render_stack(stack_secrets, acls, host="docker.example", kafka_port=40123)


def properties(text: str) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in text.splitlines() if "=" in line)
    return {key: value for key, value in pairs}


def test_kafka_authenticates_every_listener_with_scram_and_allows_nothing_without_an_acl(
    stack: ContainerStack,
) -> None:
    server = properties(stack.kafka.files["/tmp/teenpatti-kafka-server.properties"])
    protocols = dict(
        pair.split(":") for pair in server["listener.security.protocol.map"].split(",")
    )
    assert set(protocols.values()) == {"SASL_PLAINTEXT"}
    assert protocols.keys() == {"CLIENT", "BROKER", "CONTROLLER"}
    assert server["process.roles"] == "broker,controller"  # KRaft, no ZooKeeper
    assert server["sasl.enabled.mechanisms"] == "SCRAM-SHA-512"
    assert server["listener.name.client.sasl.enabled.mechanisms"] == "SCRAM-SHA-512"
    assert server["authorizer.class.name"].endswith(".StandardAuthorizer")
    assert server["allow.everyone.if.no.acl.found"] == "false"
    assert server["super.users"] == "User:admin"
    assert server["auto.create.topics.enable"] == "false"
    assert "CLIENT://docker.example:40123" in server["advertised.listeners"]
    assert stack.kafka.bound_ports == {KAFKA_CLIENT_PORT: 40123}


def test_the_broker_is_configured_as_the_local_stack_s_but_for_where_it_listens(
    stack: ContainerStack,
) -> None:
    stack_sh = (ROOT / "deploy" / "local" / "stack.sh").read_text()
    heredoc = stack_sh.split('cat > "$TP_HOME/kafka/server.properties" <<EOF\n', 1)[1]
    # the authorizer's line, there unless stack.sh writes the configuration of an upgrade
    text = re.sub(r'^\$\(.* echo "([^"]*)"\)$', r"\1", heredoc.split("\nEOF\n", 1)[0], flags=re.M)
    local = properties(text)
    assert local["authorizer.class.name"].endswith(".StandardAuthorizer")
    rendered = properties(stack.kafka.files["/tmp/teenpatti-kafka-server.properties"])
    where = {
        "controller.quorum.voters",
        "listeners",
        "advertised.listeners",
        "listener.security.protocol.map",
        "log.dirs",
    }
    assert local.keys() <= rendered.keys()
    differ = {key for key in local.keys() - where if local[key] != rendered[key]}
    # the same settings; only the passwords (a shell variable there) are written differently
    assert {key for key in differ if "$admin_password" not in local[key]} == set()


def test_kafka_s_users_are_every_principal_with_its_own_password(
    stack: ContainerStack, stack_secrets: StackSecrets
) -> None:
    start = stack.kafka.files["/tmp/teenpatti-kafka-start.sh"]
    words = shlex.split(start.replace("\\\n", " "))
    users = [words[i + 1] for i, word in enumerate(words) if word == "--add-scram"]
    assert users == [
        f"SCRAM-SHA-512=[name={p},password={stack_secrets.principals[p].kafka}]" for p in PRINCIPALS
    ]
    assert stack.kafka.command == ("sh", "/tmp/teenpatti-kafka-start.sh")
    assert "kafka-server-start.sh /tmp/teenpatti-kafka-server.properties" in start


def test_kafka_s_acls_are_the_generated_file_s(stack: ContainerStack, acls: list[Acl]) -> None:
    assert [command[-len(acl.arguments()) :] for command, acl in zip(
        stack.kafka.setup, acls, strict=True
    )] == [tuple(acl.arguments()) for acl in acls]  # fmt: skip
    for command in stack.kafka.setup:
        assert command[0] == "/opt/kafka/bin/kafka-acls.sh"
        assert "--add" in command
        assert (
            command[command.index("--command-config") + 1]
            == "/tmp/teenpatti-kafka-admin.properties"
        )
    assert {acl.principal for acl in acls} == set(SERVICE_PRINCIPALS)


def test_postgres_has_a_role_per_service_the_admin_a_member_of_each(
    stack: ContainerStack, stack_secrets: StackSecrets
) -> None:
    sql = stack.postgres.files["/docker-entrypoint-initdb.d/teenpatti-roles.sql"]
    created = re.findall(r'CREATE ROLE "([^"]+)" (.*) PASSWORD \'([0-9a-f]+)\';', sql)
    assert [(role, password) for role, _, password in created] == [
        (pg_role(p), stack_secrets.principals[p].postgres) for p in PRINCIPALS
    ]
    options = {role: what.split() for role, what, _ in created}
    assert "CREATEDB" in options["teenpatti"] and "NOSUPERUSER" in options["teenpatti"]
    for principal in SERVICE_PRINCIPALS:
        role = pg_role(principal)
        assert {"NOSUPERUSER", "NOCREATEDB", "NOCREATEROLE"} <= set(options[role])
        assert f'GRANT "{role}" TO "teenpatti";' in sql
    assert "REVOKE CONNECT, TEMPORARY ON DATABASE postgres FROM PUBLIC;" in sql
    assert stack.postgres.env["POSTGRES_PASSWORD"] == stack_secrets.superuser
    assert stack.postgres.env["POSTGRES_HOST_AUTH_METHOD"] == "scram-sha-256"


def test_redis_has_stack_sh_s_users_and_no_password_in_the_clear(
    stack: ContainerStack, stack_secrets: StackSecrets
) -> None:
    acl_file = stack.redis.files["/tmp/teenpatti-redis-users.acl"]
    lines = acl_file.splitlines()
    assert lines[0] == "user default off resetkeys resetchannels -@all"
    for principal, rules in REDIS_RULES.items():
        password = stack_secrets.principals[principal].redis
        digest = hashlib.sha256(password.encode()).hexdigest()
        assert f"user {principal} on #{digest} {rules}" in lines
        assert password not in acl_file
    assert "--aclfile" in stack.redis.command
    # the same users and rules as the local stack's (deploy/local/stack.sh redis_acl)
    stack_sh = (ROOT / "deploy" / "local" / "stack.sh").read_text()
    local = re.findall(r'echo "user ([\w-]+) on #\$\(redis_hash [\w-]+\) (.*)"', stack_sh)
    assert dict(local) == REDIS_RULES


def test_each_principal_s_credentials_are_its_own_and_none_is_a_default(
    stack: ContainerStack, tmp_path: Path
) -> None:
    for name, text in stack.credentials.items():
        (tmp_path / name).write_text(text)
    base = InfrastructureSettings(credentials_dir=str(tmp_path), env="production")
    passwords = []
    for principal in PRINCIPALS:
        settings = base.as_principal(principal)
        assert settings.pg_user == pg_role(principal)
        assert settings.kafka_username == principal
        assert settings.kafka_security_protocol == "SASL_PLAINTEXT"
        assert settings.kafka_sasl_mechanism == "SCRAM-SHA-512"
        assert settings.redis_username == (principal if principal in REDIS_RULES else "")
        refused = [
            reason
            for reason in settings.default_secrets(redis=principal in REDIS_RULES)
            if reason.startswith(("TP_PG_", "TP_KAFKA_", "TP_REDIS_"))
        ]
        assert refused == [], principal
        passwords += [settings.pg_password.get_secret_value()]
        passwords += [settings.kafka_password.get_secret_value()]
    assert len(set(passwords)) == len(passwords)
    assert all(len(password) == 64 for password in passwords)


def test_every_stack_has_new_secrets() -> None:
    first, second = new_secrets(), new_secrets()
    assert first.principals[ADMIN] != second.principals[ADMIN]
    assert first.superuser != second.superuser and first.cluster_id != second.cluster_id
    assert len(first.cluster_id) == 22  # a KRaft cluster id: a UUID in base64, unpadded


def test_an_acl_for_a_principal_without_credentials_is_refused(
    stack_secrets: StackSecrets,
) -> None:
    with pytest.raises(ValueError, match=r"without credentials: \['croupier'\]"):
        render_stack(
            stack_secrets,
            [Acl("croupier", ("Write",), (("topic", "t"),))],
            host="h",
            kafka_port=1,
        )


def test_the_images_are_compose_s_and_kafka_the_local_stack_s_version(
    stack: ContainerStack,
) -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    assert stack.postgres.image == compose["postgres"]["image"]
    assert stack.kafka.image == compose["kafka"]["image"]
    assert stack.redis.image == compose["redis"]["image"]
    defaults = (ROOT / "deploy" / "local" / "defaults.env").read_text()
    version = re.search(r"^TP_KAFKA_VERSION \?= (.+)$", defaults, re.MULTILINE)
    assert version is not None
    assert stack.kafka.image == f"apache/kafka:{version[1]}"
