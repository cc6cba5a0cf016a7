"""The local stack's Kafka tools (`stack.sh kafka <tool>`) and the generated ACLs
(deploy/kafka/acls.txt) on the real broker: a principal given a service's grants does that
service's work and is refused the rest."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import secrets
import subprocess
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.errors import GroupAuthorizationFailedError, TopicAuthorizationFailedError
from pydantic import SecretStr

from teenpatti.eventsourcing import ensure_topics
from teenpatti.eventsourcing.topics import TopicConfigurationError
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.acls import ACLS_PATH, read_acls

ROOT = Path(__file__).resolve().parents[2]
STACK = ROOT / "deploy" / "local" / "stack.sh"

pytestmark = pytest.mark.skipif(
    os.environ.get("TP_TESTCONTAINERS") == "1", reason="the local stack's own tools"
)


def stack_kafka(*arguments: str) -> str:
    """`stack.sh kafka ...`'s output; its error output in the failure."""
    done = subprocess.run(
        [str(STACK), "kafka", *arguments], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr + done.stdout
    return done.stdout


async def test_stack_sh_kafka_runs_kafka_s_tools_as_the_admin(topic: str) -> None:
    listed = await asyncio.to_thread(stack_kafka, "kafka-topics", "--list")
    assert topic in listed.splitlines()


async def test_a_service_s_generated_acls_allow_its_work_and_nothing_else(
    settings: InfrastructureSettings,
) -> None:
    """A new principal with the table's grants from the generated file: it creates its
    topics, writes its own, commits with its consumer group; it may not write the gateway's
    topic nor use another group."""
    principal = f"acl-check-{secrets.token_hex(4)}"
    password = secrets.token_hex(16)
    grants = [
        dataclasses.replace(acl, principal=principal)
        for acl in read_acls((ROOT / ACLS_PATH).read_text(encoding="utf-8"))
        if acl.principal == "table"
    ]
    assert [acl.operations for acl in grants] == [
        ("Write",),
        ("Read", "Describe"),
        ("Create", "Describe"),
    ]
    user = ["--entity-type", "users", "--entity-name", principal]
    await asyncio.to_thread(
        stack_kafka, "kafka-configs", "--alter", *user,
        "--add-config", f"SCRAM-SHA-512=[password={password}]",
    )  # fmt: skip
    try:
        for acl in grants:
            await asyncio.to_thread(stack_kafka, "kafka-acls", "--add", "--force", *acl.arguments())
        scratch = settings.model_copy(
            update={
                "kafka_security_protocol": "SASL_PLAINTEXT",
                "kafka_username": principal,
                "kafka_password": SecretStr(password),
            }
        )
        options = scratch.kafka_options()
        own, scanned = settings.topic("table.events"), settings.topic("scanner.events")
        async with asyncio.timeout(60):
            # the grants reach the broker's authorizer through its metadata log, a moment
            # after kafka-acls returns
            while True:
                try:
                    await ensure_topics(options, [own, scanned], partitions=1)
                    break
                except TopicConfigurationError as error:
                    if "Authorization failed" not in str(error):
                        raise
                    await asyncio.sleep(0.5)
            producer = AIOKafkaProducer(**options, enable_idempotence=True, acks="all")
            await producer.start()
            try:
                await producer.send_and_wait(own, b"allowed")
                with pytest.raises(TopicAuthorizationFailedError):
                    await producer.send_and_wait(scanned, b"not the table's topic")
            finally:
                await producer.stop()
            for group, allowed in (
                (settings.topic("table-scanner"), True),
                (settings.topic("table-other"), False),
            ):
                consumer = AIOKafkaConsumer(**options, group_id=group, enable_auto_commit=False)
                await consumer.start()
                try:
                    consumer.assign([TopicPartition(scanned, 0)])
                    if allowed:
                        await consumer.commit({TopicPartition(scanned, 0): 0})
                    else:
                        with pytest.raises(GroupAuthorizationFailedError):
                            await consumer.commit({TopicPartition(scanned, 0): 0})
                finally:
                    await consumer.stop()
    finally:
        for acl in grants:
            await asyncio.to_thread(
                stack_kafka, "kafka-acls", "--remove", "--force", *acl.arguments()
            )
        await asyncio.to_thread(
            stack_kafka, "kafka-configs", "--alter", *user, "--delete-config", "SCRAM-SHA-512"
        )
    left = await asyncio.to_thread(
        stack_kafka, "kafka-acls", "--list", "--principal", f"User:{principal}"
    )
    assert "ResourcePattern" not in left
