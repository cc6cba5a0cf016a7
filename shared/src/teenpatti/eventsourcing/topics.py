"""Topic creation. Every topic has the same partition count, so one table's events land in
the same partition number of every topic and one consumer instance sees them all in order.
A record's value is the event's envelope (JSON); its headers name the event's type and
schema version, for consumers that pass it over without reading the value, and, for an
event appended in a trace, that trace's `traceparent` (teenpatti.observability.tracing).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Sequence

from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.partitioner import murmur2

from teenpatti.settings import KafkaConnection, kafka_client_options

TYPE_HEADER = "event_type"  # a record's header: its event's type (UTF-8)
VERSION_HEADER = "schema_version"  # and its schema version (decimal digits)

# error codes of the CreateTopics response (Kafka protocol)
_TOPIC_ALREADY_EXISTS = 36


class TopicConfigurationError(RuntimeError):
    pass


async def ensure_topics(
    kafka: KafkaConnection,
    topics: Sequence[str],
    *,
    partitions: int,
    replication_factor: int = 1,
) -> None:
    """Create the missing topics; refuse to run on topics with another partition count.
    `kafka`: the connection options (`InfrastructureSettings.kafka_options()`)."""
    if partitions < 1:
        raise ValueError(f"partitions must be at least 1, not {partitions}")
    admin = AIOKafkaAdminClient(**kafka_client_options(kafka))
    await admin.start()
    try:
        response = await admin.create_topics(
            [NewTopic(name, partitions, replication_factor) for name in topics]
        )
        for name, code, *rest in response.topic_errors:
            if code not in (0, _TOPIC_ALREADY_EXISTS):
                message = rest[0] if rest else ""
                raise TopicConfigurationError(f"cannot create topic {name}: error {code} {message}")
        # A topic just created can be described with no partitions yet: ask again.
        for _ in range(60):
            described = await admin.describe_topics(list(topics))
            if all(topic["partitions"] for topic in described):
                break
            await asyncio.sleep(0.5)
        for topic in described:
            count = len(topic["partitions"])
            if count != partitions:
                raise TopicConfigurationError(
                    f"topic {topic['topic']} has {count} partitions, this deployment expects"
                    f" {partitions} (TP_KAFKA_PARTITIONS): every topic must have the same count"
                )
    finally:
        await admin.close()


@functools.lru_cache(maxsize=65_536)
def partition_for(table_id: str, partitions: int) -> int:
    """The partition Kafka's default partitioner gives a record keyed by `table_id` (kept:
    a relay asks for every record)."""
    return int(murmur2(table_id.encode()) & 0x7FFFFFFF) % partitions
