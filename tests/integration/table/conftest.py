"""Fixtures of the table service's integration tests."""

from __future__ import annotations

import asyncio

import pytest

from table_service.config import TableSettings
from teenpatti.events.catalog import ALL_TOPICS
from teenpatti.eventsourcing import TopicConfigurationError, ensure_topics
from teenpatti.settings import InfrastructureSettings

from .helpers import with_second_supervisor


@pytest.fixture
async def table_settings(settings: InfrastructureSettings, database_name: str) -> TableSettings:
    """The service's settings on this test's database and topics. The topics are created
    first, waiting until the broker describes them fully: right after creation a busy broker
    may describe a topic with no partitions yet, which the runtime's check refuses."""
    topics = [settings.topic(name) for name in ALL_TOPICS]
    async with asyncio.timeout(30):
        while True:
            try:
                await ensure_topics(
                    settings.kafka_options(), topics, partitions=settings.kafka_partitions
                )
                break
            except TopicConfigurationError:
                await asyncio.sleep(0.2)
    # two supervisors' keys: opening a table takes both (docs/decisions/0086)
    return with_second_supervisor(
        TableSettings(**settings.model_dump(), table_database=database_name)
    )
