"""Event sourcing: the Postgres event store, the outbox relay and the consumer runtime."""

from teenpatti.eventsourcing.consumer import (
    AfterCommit,
    BatchHandler,
    ConsumerStats,
    Handler,
    KafkaEventConsumer,
    each_in_order,
)
from teenpatti.eventsourcing.relay import KafkaOutboxRelay, kafka_producer
from teenpatti.eventsourcing.store import (
    AppendResult,
    AsyncpgEventStore,
    CommitOrderError,
    ConcurrencyError,
    EventStoreError,
    GlobalPosition,
    StoredEvent,
    StreamAppend,
)
from teenpatti.eventsourcing.topics import TopicConfigurationError, ensure_topics, partition_for

__all__ = [
    "AfterCommit",
    "AppendResult",
    "AsyncpgEventStore",
    "BatchHandler",
    "CommitOrderError",
    "ConcurrencyError",
    "ConsumerStats",
    "EventStoreError",
    "GlobalPosition",
    "Handler",
    "KafkaEventConsumer",
    "KafkaOutboxRelay",
    "StoredEvent",
    "StreamAppend",
    "TopicConfigurationError",
    "each_in_order",
    "ensure_topics",
    "kafka_producer",
    "partition_for",
]
