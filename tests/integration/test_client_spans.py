"""Client spans from OpenTelemetry's maintained instrumentations (`instrument_clients`), on
the real stack, recorded in memory: a call to an operator's wallet is a client span whose
W3C `traceparent` reaches the operator (the independent counterpart records what it
received); a Postgres statement, a Redis command, a Kafka send and the poll that receives its
record are spans of the trace they serve, the record carrying the trace on; polling outside
any trace records nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from uuid import uuid4

import asyncpg
import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, Tracer
from redis.asyncio import Redis

from teenpatti.observability.sampling import sampler
from teenpatti.observability.tracing import (
    TRACEPARENT,
    instrument_clients,
    parse_traceparent,
    uninstrument_clients,
)
from teenpatti.seamless import OperatorWalletClient
from teenpatti.seamless.calls import Answered, BalanceCall
from teenpatti.seamless.config import OperatorConfig, WalletMode
from teenpatti.seamless.signing import generate_private_key, public_key_pem
from teenpatti.settings import InfrastructureSettings
from tests.counterparts.hub88_operator import hub88_operator


class Recorded:
    def __init__(self, exporter: InMemorySpanExporter, tracer: Tracer) -> None:
        self.exporter = exporter
        self.tracer = tracer

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def children_of(self, parent: ReadableSpan, kind: SpanKind) -> list[ReadableSpan]:
        return [
            span
            for span in self.spans()
            if span.kind is kind
            and span.parent is not None
            and span.parent.span_id == parent.context.span_id
        ]


@pytest.fixture
def recorded() -> Iterator[Recorded]:
    """The clients instrumented for this test, their spans kept in memory (as
    `setup_tracing` does, the sampler included, with an exporter of the test's own)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(sampler=sampler(1.0))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrument_clients(provider)
    try:
        yield Recorded(exporter, provider.get_tracer("test"))
    finally:
        uninstrument_clients()
        provider.shutdown()


def only(spans: list[ReadableSpan]) -> ReadableSpan:
    assert len(spans) == 1, [span.name for span in spans]
    return spans[0]


async def test_an_operator_call_is_a_client_span_whose_traceparent_reaches_the_operator(
    recorded: Recorded,
) -> None:
    game = generate_private_key()
    async with (
        hub88_operator([public_key_pem(game).decode()]) as operator,
        OperatorWalletClient(game, max_connections=1) as client,
    ):
        token = operator.add_player("p-traced", "INR", 1_000_000)
        config = OperatorConfig(
            operator_id="op-traced",
            mode=WalletMode.SEAMLESS,
            base_url=operator.base_url,
            public_keys=(operator.public_key_pem,),
        )
        with recorded.tracer.start_as_current_span("place slip", kind=SpanKind.SERVER):
            outcome = await client.balance(
                config, BalanceCall(user="p-traced", token=token, currency="INR")
            )
        assert isinstance(outcome, Answered) and outcome.ok
        [received] = operator.requests
    [slip] = [span for span in recorded.spans() if span.name == "place slip"]
    call = only(recorded.children_of(slip, SpanKind.CLIENT))
    assert call.attributes is not None
    # the semantic conventions' old names or their stable ones (OTEL_SEMCONV_STABILITY_OPT_IN)
    method = call.attributes.get("http.request.method", call.attributes.get("http.method"))
    url = call.attributes.get("url.full", call.attributes.get("http.url"))
    assert (method, str(url)) == ("POST", f"{operator.base_url}/user/balance")
    # the operator received the client span's own context, in the W3C format
    carried = parse_traceparent(received["headers"][TRACEPARENT])
    assert carried is not None
    assert (carried.trace_id, carried.span_id) == (call.context.trace_id, call.context.span_id)
    assert call.context.trace_id == slip.context.trace_id


async def test_a_postgres_statement_and_a_redis_command_are_spans_of_their_trace(
    recorded: Recorded, database: str, infrastructure: InfrastructureSettings
) -> None:
    connection = await asyncpg.connect(database)
    redis = Redis.from_url(infrastructure.redis_url)
    try:
        await connection.fetchval("SELECT 2")  # outside any trace: not recorded
        with recorded.tracer.start_as_current_span("handle", kind=SpanKind.CONSUMER):
            assert await connection.fetchval("SELECT 1 + $1::int", 1) == 2
            assert await redis.ping()
    finally:
        await connection.close()
        await redis.aclose()
    [handle] = [span for span in recorded.spans() if span.name == "handle"]
    statement, command = sorted(
        recorded.children_of(handle, SpanKind.CLIENT), key=lambda span: span.start_time or 0
    )
    assert statement.attributes is not None and command.attributes is not None
    assert statement.attributes["db.system"] == "postgresql"
    assert statement.attributes["db.statement"] == "SELECT 1 + $1::int"
    assert command.attributes["db.system"] == "redis"
    assert command.name == "PING"
    # the statement outside any trace started none
    assert [span for span in recorded.spans() if span.parent is None] == [handle]


async def test_a_kafka_send_carries_its_trace_to_the_poll_that_receives_it(
    recorded: Recorded, topic: str, infrastructure: InfrastructureSettings
) -> None:
    producer = AIOKafkaProducer(**infrastructure.kafka_options())
    consumer = AIOKafkaConsumer(
        topic,
        **infrastructure.kafka_options(),
        group_id=f"test-{uuid4().hex[:8]}",
        auto_offset_reset="earliest",
        enable_auto_commit=False,
    )
    await producer.start()
    await consumer.start()
    try:
        with recorded.tracer.start_as_current_span("append", kind=SpanKind.SERVER):
            await producer.send_and_wait(topic, b"an event", key=b"T1")
        records: list[object] = []
        async with asyncio.timeout(30):
            while not records:
                batches = await consumer.getmany(timeout_ms=500)
                records = [record for batch in batches.values() for record in batch]
    finally:
        await consumer.stop()
        await producer.stop()
    [append] = [span for span in recorded.spans() if span.name == "append"]
    send = only(recorded.children_of(append, SpanKind.PRODUCER))
    assert send.name == f"{topic} send"
    [record] = records
    headers = dict(record.headers)  # type: ignore[attr-defined]
    carried = parse_traceparent(headers[TRACEPARENT])
    assert carried is not None and carried.span_id == send.context.span_id
    received = only(recorded.children_of(send, SpanKind.CONSUMER))
    assert received.name == f"{topic} receive"
    assert received.context.trace_id == append.context.trace_id
