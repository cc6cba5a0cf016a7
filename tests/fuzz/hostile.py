"""Hostile inputs shared by the corpus tests: Kafka records no service should apply, and
helpers to see that a service's store did not change."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import uuid4

import asyncpg
import httpx
from aiokafka import AIOKafkaProducer

from teenpatti.settings import InfrastructureSettings

WAIT = 60.0


@dataclass(frozen=True)
class Expectation:
    """One hostile HTTP input and the problem it must get."""

    kind: str
    label: str
    status: int
    code: str


def problem_mismatch(response: httpx.Response, status: int, code: str, label: str) -> str | None:
    """Why `response` is not the problem (`status`, `code`) expected (None if it is)."""
    seen = f"{label}: expected {status} {code}, got {response.status_code} {response.text[:300]}"
    if response.status_code != status:
        return seen
    if not response.headers.get("content-type", "").startswith("application/problem+json"):
        return seen
    body = response.json()
    if body.get("code") != code or body.get("status") != status:
        return seen
    return None


def envelope(
    event_type: str,
    payload: dict[str, Any],
    *,
    table_id: str = "T1",
    schema_version: int = 1,
) -> bytes:
    return json.dumps(
        {
            "event_id": str(uuid4()),
            "event_type": event_type,
            "schema_version": schema_version,
            "stream_id": f"hostile-{uuid4().hex[:8]}",
            "stream_version": 1,
            "table_id": table_id,
            "occurred_at": datetime.now(UTC).isoformat(),
            "correlation_id": str(uuid4()),
            "causation_id": None,
            "producer": "hostile",
            "payload": payload,
        }
    ).encode()


def garbage_records(consumed_type: str, valid_payload: dict[str, Any]) -> dict[str, bytes]:
    """Records that must be parked by a consumer of `consumed_type` (by kind)."""
    wrong_types = {k: ([v] if not isinstance(v, list) else "x") for k, v in valid_payload.items()}
    nul_text = {k: (f"{v}\x00" if isinstance(v, str) else v) for k, v in valid_payload.items()}
    return {
        "not JSON": b"this is not an event",
        "empty record": b"",
        "invalid UTF-8": b"\xff\xfe\x00\x9c garbage",
        "JSON null": b"null",
        "JSON array": b"[1, 2, 3]",
        "envelope missing fields": json.dumps({"event_type": consumed_type}).encode(),
        "envelope with schema_version 0": envelope(consumed_type, valid_payload, schema_version=0),
        "deeply nested JSON": b"[" * 50_000 + b"]" * 50_000,
        "500 kB JSON string": json.dumps("x" * 500_000).encode(),
        "unknown event type": envelope("RoundExploded", valid_payload),
        "unknown event type (lower case twin)": envelope(consumed_type.lower(), valid_payload),
        "unsupported schema version 99": envelope(consumed_type, valid_payload, schema_version=99),
        "empty payload": envelope(consumed_type, {}),
        "payload with wrong types": envelope(consumed_type, wrong_types),
        "payload with NUL in text": envelope(consumed_type, nul_text),
    }


async def publish_raw(
    settings: InfrastructureSettings, topic: str, records: list[bytes], key: str = "T1"
) -> None:
    kafka = AIOKafkaProducer(**settings.kafka_options(), acks="all", max_request_size=2_000_000)
    async with asyncio.timeout(WAIT):
        await kafka.start()
        try:
            for record in records:
                await kafka.send_and_wait(settings.topic(topic), record, key=key.encode())
        finally:
            await kafka.stop()


async def eventually(
    condition: Callable[[], Awaitable[bool]], *, what: str, timeout: float = WAIT
) -> None:
    try:
        async with asyncio.timeout(timeout):
            while not await condition():
                await asyncio.sleep(0.1)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None


async def connect(settings: InfrastructureSettings, database: str) -> asyncpg.Connection:
    return await asyncpg.connect(settings.postgres_dsn(database), timeout=15, command_timeout=15)


async def parked(connection: asyncpg.Connection, consumer: str) -> list[str]:
    rows = await connection.fetch(
        "SELECT error FROM parked_events WHERE consumer = $1 ORDER BY id", consumer
    )
    return [row["error"] for row in rows]


async def stored_events(connection: asyncpg.Connection) -> dict[str, int]:
    rows = await connection.fetch("SELECT event_type, count(*) AS n FROM events GROUP BY 1")
    return {row["event_type"]: row["n"] for row in rows}
