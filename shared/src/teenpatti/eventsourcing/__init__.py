"""Event sourcing: the Postgres event store, the outbox relay and the consumer runtime."""

from teenpatti.eventsourcing.consumer import (
    AfterCommit,
    BatchHandler,
    ConsumerStats,
    KafkaEventConsumer,
)
from teenpatti.eventsourcing.relay import KafkaOutboxRelay, kafka_producer
from teenpatti.eventsourcing.store import (
    MIGRATIONS,
    AppendResult,
    AsyncpgEventStore,
    CommitOrderError,
    ConcurrencyError,
    EventStoreError,
    GlobalPosition,
    ReplayedEvent,
    StoredEvent,
    StreamAppend,
    append_error,
)
from teenpatti.eventsourcing.topics import TopicConfigurationError, ensure_topics, partition_for

__all__ = [
    "MIGRATIONS",
    "AfterCommit",
    "AppendResult",
    "AsyncpgEventStore",
    "BatchHandler",
    "CommitOrderError",
    "ConcurrencyError",
    "ConsumerStats",
    "EventStoreError",
    "GlobalPosition",
    "KafkaEventConsumer",
    "KafkaOutboxRelay",
    "ReplayedEvent",
    "StoredEvent",
    "StreamAppend",
    "TopicConfigurationError",
    "append_error",
    "ensure_topics",
    "kafka_producer",
    "partition_for",
]
