"""The Kafka ACLs of each service's principal, generated from the services' declarations
(`make contracts` writes `deploy/kafka/acls.txt`; tests/unit/test_generated_docs.py fails while
it differs). One file for every stack: the local one (deploy/local/stack.sh), Compose
(deploy/docker/kafka-acls.sh) and the testcontainers one (`teenpatti_tools.containers`); the
production brokers' operators write the same (deploy/README.md).

What a service may do, and nothing more (docs/decisions/0050-a-principal-per-service.md):
WRITE the topic it emits to; READ the topics it subscribes to, with its own consumer group on
each (`<service>-<topic's first word>`, as the kernel names it); CREATE and DESCRIBE the
topics it uses, which it makes at start. Every pattern is PREFIXED, so a test run's names,
which end with the run (`table.events.<run>`, `table-scanner.<run>`), match
(docs/decisions/0051-kafka-names-end-with-the-run.md). No transactional id: the relay's
producer is idempotent, not transactional, which WRITE on its topic allows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from teenpatti_tools.contracts import DeclaredService

ACLS_PATH = Path("deploy/kafka/acls.txt")

RESOURCE_TYPES = ("topic", "group")
OPERATIONS = ("Read", "Write", "Create", "Describe")
_NAME = re.compile(r"^[A-Za-z0-9._-]+$")

_HEADER = """\
# The Kafka ACLs of each service's principal, generated from the services' declarations by
# `make contracts` (tools/src/teenpatti_tools/acls.py): do not edit.
# A line: the principal (User:<name>), its operations, then the resources they allow,
# `topic:<name>` or `group:<name>`; every pattern PREFIXED (a test run's names end with the
# run). Read by deploy/local/stack.sh, deploy/docker/kafka-acls.sh and the testcontainers
# stack (tools/src/teenpatti_tools/containers.py).
"""


class AclFileError(ValueError):
    """A line of the ACL file is not `principal Op,Op type:name...`."""


@dataclass(frozen=True, slots=True)
class Acl:
    """One grant: `principal` may do each of `operations` on each of `resources`."""

    principal: str
    operations: tuple[str, ...]
    resources: tuple[tuple[str, str], ...]  # (type, name)

    def line(self) -> str:
        resources = " ".join(f"{kind}:{name}" for kind, name in self.resources)
        return f"{self.principal} {','.join(self.operations)} {resources}"

    def arguments(self) -> list[str]:
        """kafka-acls's (`AclCommand`'s) arguments for this grant, without the action
        (`--add`/`--remove`) and the connection."""
        arguments = ["--allow-principal", f"User:{self.principal}"]
        arguments += ["--resource-pattern-type", "prefixed"]
        for operation in self.operations:
            arguments += ["--operation", operation]
        for kind, name in self.resources:
            arguments += [f"--{kind}", name]
        return arguments


def service_acls(services: Sequence[DeclaredService]) -> list[Acl]:
    """Each service's grants, in the order of the services."""
    acls: list[Acl] = []
    for service in services:
        consumed = list(service.receives)
        uses = list(dict.fromkeys([service.emits, *consumed]))
        acls.append(Acl(service.name, ("Write",), (("topic", service.emits),)))
        if consumed:
            resources = [("topic", topic) for topic in consumed]
            resources += [("group", service.group(topic)) for topic in consumed]
            acls.append(Acl(service.name, ("Read", "Describe"), tuple(resources)))
        acls.append(Acl(service.name, ("Create", "Describe"), tuple(("topic", t) for t in uses)))
    return acls


def acls_text(services: Sequence[DeclaredService]) -> str:
    return _HEADER + "".join(f"{acl.line()}\n" for acl in service_acls(services))


def generated(services: Sequence[DeclaredService]) -> dict[Path, str]:
    """The generated file, for `teenpatti_tools.contracts.generated`."""
    return {ACLS_PATH: acls_text(services)}


def read_acls(text: str) -> list[Acl]:
    """The grants of an ACL file's text; AclFileError naming the line that is not one."""
    acls = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        words = line.split()
        problem = _problem(words)
        if problem:
            raise AclFileError(f"line {number}: {problem}: {line!r}")
        resources = tuple(
            (kind, name) for kind, _, name in (word.partition(":") for word in words[2:])
        )
        acls.append(Acl(words[0], tuple(words[1].split(",")), resources))
    return acls


def _problem(words: list[str]) -> str:
    if len(words) < 3:
        return "a principal, operations and at least one resource are needed"
    if not _NAME.match(words[0]):
        return f"{words[0]!r} is not a principal's name"
    unknown = [op for op in words[1].split(",") if op not in OPERATIONS]
    if unknown:
        return f"unknown operation {unknown[0]!r} (one of {', '.join(OPERATIONS)})"
    for word in words[2:]:
        kind, colon, name = word.partition(":")
        if not colon or kind not in RESOURCE_TYPES or not _NAME.match(name):
            return f"{word!r} is not topic:<name> or group:<name>"
    return ""
