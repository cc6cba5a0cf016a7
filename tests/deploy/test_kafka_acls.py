"""The generated Kafka ACLs (deploy/kafka/acls.txt) as each stack writes them: the calls
deploy/local/stack.sh makes at `up` (`stack.sh acls` prints them) and those of Compose's
deploy/docker/kafka-acls.sh are the file's grants, as `teenpatti_tools.acls` reads them."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from teenpatti_tools import contracts
from teenpatti_tools.acls import ACLS_PATH, Acl, AclFileError, read_acls, service_acls

ROOT = Path(__file__).resolve().parents[2]
STACK = ROOT / "deploy" / "local" / "stack.sh"


@pytest.fixture(scope="module")
def grants() -> list[Acl]:
    return read_acls((ROOT / ACLS_PATH).read_text(encoding="utf-8"))


def plan(home: Path) -> list[str]:
    """`stack.sh acls` on a stack whose home is `home`: nothing runs, nothing is written."""
    done = subprocess.run(
        [str(STACK), "acls"],
        env={**os.environ, "TP_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.splitlines()


def marker(home: Path, text: str) -> None:
    (home / "data" / "kafka").mkdir(parents=True, exist_ok=True)
    (home / "data" / "kafka" / ".acls").write_text(text)


def test_every_service_writes_its_topic_and_reads_with_its_own_groups_only() -> None:
    services = contracts.declared()
    grants = service_acls(services)
    for service in services:
        own = [acl for acl in grants if acl.principal == service.name]
        assert own[0].operations == ("Write",)
        assert own[0].resources == (("topic", service.emits),)
        groups = {name for acl in own for kind, name in acl.resources if kind == "group"}
        assert groups == {f"{service.name}-{topic.split('.')[0]}" for topic in service.receives}
        read = {name for acl in own if "Read" in acl.operations for _, name in acl.resources}
        assert read == set(service.receives) | groups
    assert {acl.principal for acl in grants} == {service.name for service in services}


def test_a_fresh_stack_adds_every_grant_of_the_file(tmp_path: Path, grants: list[Acl]) -> None:
    assert plan(tmp_path) == [f"--add {' '.join(acl.arguments())}" for acl in grants]
    assert not (tmp_path / "data").exists()


def test_a_stack_given_the_file_already_does_nothing(tmp_path: Path) -> None:
    marker(tmp_path, (ROOT / ACLS_PATH).read_text())
    assert plan(tmp_path) == []


def test_a_grant_no_longer_in_the_file_is_removed_before_the_file_is_added(
    tmp_path: Path, grants: list[Acl]
) -> None:
    text = (ROOT / ACLS_PATH).read_text()
    marker(tmp_path, text.replace("group:table-table", "group:table-"))
    old = next(acl for acl in read_acls(text) if ("group", "table-table") in acl.resources)
    before = Acl(
        old.principal,
        old.operations,
        tuple(("group", "table-") if r == ("group", "table-table") else r for r in old.resources),
    )
    assert plan(tmp_path) == [
        f"--remove {' '.join(before.arguments())}",
        *(f"--add {' '.join(acl.arguments())}" for acl in grants),
    ]


def test_a_stack_from_before_the_file_loses_its_wider_consumer_groups(
    tmp_path: Path, grants: list[Acl]
) -> None:
    marker(tmp_path, 'declare -A CONSUMES=([table]="scanner.events table.events")')
    removed = [line for line in plan(tmp_path) if line.startswith("--remove")]
    assert removed == [
        f"--remove --allow-principal User:{name} --resource-pattern-type prefixed"
        f" --operation Read --operation Describe --group {name}-"
        for name in ("table", "scanner-gateway", "settlement", "wallet")
    ]


def test_up_makes_each_planned_call_then_keeps_the_file_it_wrote(
    tmp_path: Path, grants: list[Acl]
) -> None:
    """stack.sh's kafka_acls, Kafka's tool replaced by a stub that prints its arguments."""
    script = STACK.read_text()
    script = script.replace(
        'ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"', f'ROOT="{ROOT}"'
    )
    script = script.rsplit('\nmain "$@"', 1)[0]
    script += (
        '\nkafka_java() { printf "%s\\n" "$*"; }\nmkdir -p "$DATA/kafka" "$LOGS"\nkafka_acls\n'
    )
    environment = {**os.environ, "TP_HOME": str(tmp_path), "TP_KAFKA_PORT": "19092"}
    for _ in range(2):  # the second time: nothing to do
        subprocess.run(["bash", "-c", script], env=environment, check=True, timeout=60)
    calls = (tmp_path / "logs" / "kafka-acls.log").read_text().splitlines()
    connection = (
        "org.apache.kafka.tools.AclCommand --bootstrap-server 127.0.0.1:19092"
        f" --command-config {tmp_path / 'kafka' / 'admin.properties'} --add --force"
    )
    assert calls == [f"{connection} {' '.join(acl.arguments())}" for acl in grants]
    assert (tmp_path / "data" / "kafka" / ".acls").read_text() == (ROOT / ACLS_PATH).read_text()


def test_compose_s_job_makes_the_same_calls(tmp_path: Path, grants: list[Acl]) -> None:
    script = (ROOT / "deploy" / "docker" / "kafka-acls.sh").read_text()
    stub = tmp_path / "kafka-acls.sh"
    stub.write_text('#!/bin/sh\necho "$*"\n')
    stub.chmod(0o755)
    script = script.replace("/opt/kafka/bin/kafka-acls.sh", str(stub))
    script = script.replace("/acls.txt", str(ROOT / ACLS_PATH))
    script = script.replace("/tmp/admin.properties", str(tmp_path / "admin.properties"))
    done = subprocess.run(
        ["sh", "-c", script],
        env={"TP_PG_PASSWORD": "x", "PATH": os.environ["PATH"]},
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    connection = (
        f"--bootstrap-server kafka:9092 --command-config {tmp_path / 'admin.properties'}"
        " --add --force"
    )
    assert done.stdout.splitlines() == [
        f"{connection} {' '.join(acl.arguments())}" for acl in grants
    ]


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("table Write", "a principal, operations and at least one resource are needed"),
        ("table Alter topic:table.events", "unknown operation 'Alter'"),
        ("table Write cluster:kafka", "'cluster:kafka' is not topic:<name> or group:<name>"),
        ("table Write topic:a;b", "'topic:a;b' is not topic:<name>"),
        ("User:table Write topic:t", "'User:table' is not a principal's name"),
    ],
)
def test_a_line_that_is_no_grant_is_refused_naming_it(line: str, problem: str) -> None:
    with pytest.raises(AclFileError, match=re.escape(f"line 2: {problem}")):
        read_acls(f"# a comment\n{line}\n")
