"""Trace context (`teenpatti.observability.tracing`): a span as a `traceparent` and back, and
the span a consumer handles a batch in, continuing its records' traces."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanContext, SpanKind
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from teenpatti.observability import tracing
from teenpatti.observability.sampling import sampler
from teenpatti.observability.tracing import (
    TRACEPARENT,
    IncomingTraceContext,
    consuming,
    current_traceparent,
    extract_context,
    inject_context,
    parse_traceparent,
)
from teenpatti.settings import InfrastructureSettings

A = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
B = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
A_SIBLING = "00-4bf92f3577b34da6a3ce929d0e0e4736-1111111111111111-01"


@pytest.fixture
def spans(monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemorySpanExporter]:
    """The module's spans recorded in memory (no global tracer provider is set)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(tracing, "_tracer", provider.get_tracer("test"))
    yield exporter
    provider.shutdown()


def context(value: str) -> SpanContext:
    parsed = parse_traceparent(value)
    assert parsed is not None
    return parsed


def test_a_traceparent_is_read_back_as_it_was_written(spans: InMemorySpanExporter) -> None:
    assert current_traceparent() is None  # no trace going on
    with consuming("scanner.events", "table-scanner", [context(A)], 1):
        written = current_traceparent()
    assert written is not None and written.startswith("00-4bf92f3577b34da6a3ce929d0e0e4736-")
    assert parse_traceparent(written.encode()) == context(written)
    assert context(A).trace_id == 0x4BF92F3577B34DA6A3CE929D0E0E4736
    assert context(A).is_remote


@pytest.mark.parametrize(
    "value",
    [
        None,
        "",
        b"",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  # the forbidden version
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-00",  # version 00, 5 parts
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  # no trace
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  # no span
        "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",  # short
        "00-4bf92f3577b34da6a3ce929d0e0e47zz-00f067aa0ba902b7-01",  # not hex
        b"\xff\xfe",
    ],
)
def test_what_is_not_a_traceparent_names_no_span(value: str | bytes | None) -> None:
    assert parse_traceparent(value) is None


def test_records_of_one_trace_are_handled_in_a_child_of_their_span(
    spans: InMemorySpanExporter,
) -> None:
    with consuming("table.events", "settlement-table", [context(A), context(A_SIBLING)], 2):
        pass
    [span] = spans.get_finished_spans()
    assert span.name == "process table.events"
    assert span.kind is SpanKind.CONSUMER
    assert span.parent == context(A)
    assert span.context.trace_id == context(A).trace_id
    assert [link.context for link in span.links] == [context(A_SIBLING)]
    assert span.attributes == {
        "messaging.system": "kafka",
        "messaging.operation.type": "process",
        "messaging.destination.name": "table.events",
        "messaging.consumer.group.name": "settlement-table",
        "messaging.batch.message_count": 2,
    }


def test_records_of_several_traces_start_a_trace_linked_to_each(
    spans: InMemorySpanExporter,
) -> None:
    with consuming("scanner.events", "table-scanner", [context(A), context(B), context(A)], 3):
        pass
    [span] = spans.get_finished_spans()
    assert span.parent is None
    assert span.context.trace_id not in {context(A).trace_id, context(B).trace_id}
    assert [link.context for link in span.links] == [context(A), context(B)]


def test_records_without_a_trace_start_one(spans: InMemorySpanExporter) -> None:
    with consuming("wallet.events", "settlement-wallet", [], 1):
        inside = current_traceparent()
    [span] = spans.get_finished_spans()
    assert span.parent is None and not span.links
    assert inside is not None and inside.split("-")[1] == f"{span.context.trace_id:032x}"


def test_without_a_recording_tracer_a_record_s_context_is_still_passed_on() -> None:
    # the module's tracer is the API's: no provider is installed without TP_OTLP_ENDPOINT
    with consuming("settlement.events", "wallet-settlement", [context(A)], 1):
        assert current_traceparent() == A


def test_without_an_endpoint_nothing_is_set_up() -> None:
    tracing.setup_tracing(InfrastructureSettings(otlp_endpoint=""), "table")
    assert tracing._provider is None
    assert (
        tracing.traces_url(InfrastructureSettings(otlp_endpoint="http://collector:4318/"))
        == "http://collector:4318/v1/traces"
    )
    assert (
        tracing.traces_url(InfrastructureSettings(otlp_endpoint="http://c:4318/v1/traces"))
        == "http://c:4318/v1/traces"
    )


def test_a_client_span_starts_no_trace_but_joins_one() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(sampler=sampler(1.0))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("test")
    # a relay's polling statement, a Kafka poll with nothing traced: no trace of their own
    with tracer.start_as_current_span("SELECT", kind=SpanKind.CLIENT):
        pass
    with tracer.start_as_current_span("table.events send", kind=SpanKind.PRODUCER):
        pass
    with tracer.start_as_current_span("table.events receive", kind=SpanKind.CONSUMER):
        pass
    assert exporter.get_finished_spans() == ()
    # a request, an event handled: traces, and the client spans in them recorded
    with (
        tracer.start_as_current_span("POST", kind=SpanKind.SERVER),
        tracer.start_as_current_span("SELECT", kind=SpanKind.CLIENT),
    ):
        pass
    with tracer.start_as_current_span("process table.events", kind=SpanKind.CONSUMER):
        pass
    assert [span.name for span in exporter.get_finished_spans()] == [
        "SELECT",
        "POST",
        "process table.events",
    ]
    provider.shutdown()


def test_new_traces_are_sampled_at_the_ratio_and_a_callers_choice_is_kept() -> None:
    tracer = TracerProvider(sampler=sampler(0.0)).get_tracer("test")
    with tracer.start_as_current_span("POST", kind=SpanKind.SERVER) as span:
        assert not span.is_recording()
    # a caller that sampled its trace: its spans here are recorded, the clients' too
    parent = trace.set_span_in_context(trace.NonRecordingSpan(context(A)))
    with tracer.start_as_current_span("POST", context=parent, kind=SpanKind.SERVER) as span:
        assert span.is_recording()
        with tracer.start_as_current_span("SELECT", kind=SpanKind.CLIENT) as client:
            assert client.is_recording()


def test_http_headers_carry_the_context_both_ways(spans: InMemorySpanExporter) -> None:
    with consuming("scanner.events", "table-scanner", [context(A)], 1):
        headers: dict[str, str] = {}
        inject_context(headers)
        sent = current_traceparent()
    assert headers[TRACEPARENT] == sent
    received = trace.get_current_span(extract_context(headers)).get_span_context()
    assert received == context(sent or "")
    assert extract_context({}) == {}  # nothing arrives: no context


async def test_a_request_is_served_in_its_callers_trace_recorded_or_not() -> None:

    async def seen(request: Request) -> PlainTextResponse:
        return PlainTextResponse(current_traceparent() or "none")

    app = IncomingTraceContext(Starlette(routes=[Route("/", seen)]))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://s") as client:
        assert (await client.get("/", headers={"traceparent": A})).text == A
        assert (await client.get("/", headers={"traceparent": "garbage"})).text == "none"
        assert (await client.get("/")).text == "none"
    assert current_traceparent() is None
