"""Traces: a request's trace goes on through the events it causes, in every service.

Over HTTP, a request's W3C `traceparent` header is its span's parent (FastAPI's own
telemetry makes the server span; the kernel configures it). Through Kafka the trace context
travels with the event: `append` stores the current span's `traceparent` beside the event
(the store's `trace_context` column, outside the hash chain's canonical bytes), the relay
sends it as the record's `traceparent` header, and the consumer handles a batch in a span
that continues it (`consuming`): the child of the records' span when they all come from one
trace, else a new trace linked to each. So one scan's trace spans the gateway's request,
the table's dealing, the settlement and the wallet's payment.
docs/decisions/0047-trace-context-with-the-event.md

`setup_tracing` records and exports spans only with `TP_OTLP_ENDPOINT`. Without, the API's
no-op tracer stands in: nothing is recorded, and a context that arrives is still passed on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Link, NonRecordingSpan, SpanContext, SpanKind, TraceFlags

from teenpatti.observability.logs import instance_name

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider

    from teenpatti.settings import InfrastructureSettings

log = logging.getLogger(__name__)

TRACEPARENT = "traceparent"  # the W3C header, on HTTP requests and Kafka records
_tracer = trace.get_tracer("teenpatti")
_provider: TracerProvider | None = None


def current_traceparent() -> str | None:
    """The current span as a W3C `traceparent` value (None: no trace is going on)."""
    span = trace.get_current_span().get_span_context()
    if not span.is_valid:
        return None
    return f"00-{span.trace_id:032x}-{span.span_id:016x}-{int(span.trace_flags):02x}"


def parse_traceparent(value: bytes | str | None) -> SpanContext | None:
    """The span a `traceparent` value names (version 00), None if it names none."""
    if not value:
        return None
    text = value.decode("ascii", "replace") if isinstance(value, bytes) else value
    parts = text.strip().split("-")
    if len(parts) != 4 or parts[0] != "00" or len(parts[1]) != 32 or len(parts[2]) != 16:
        return None
    try:
        trace_id, span_id, flags = int(parts[1], 16), int(parts[2], 16), int(parts[3], 16)
    except ValueError:
        return None
    span = SpanContext(trace_id, span_id, is_remote=True, trace_flags=TraceFlags(flags & 0xFF))
    return span if span.is_valid else None


@contextmanager
def consuming(
    topic: str, group: str, parents: Sequence[SpanContext], records: int
) -> Iterator[None]:
    """Handle `records` records of `topic` in a span of `group`, current inside: the child
    of `parents` (the spans that appended them) when those are of one trace, else the root
    of a new trace with a link to each."""
    distinct = list({(span.trace_id, span.span_id): span for span in parents}.values())
    parent: otel_context.Context = otel_context.Context()  # no parent: a trace of its own
    links = [Link(span) for span in distinct]
    if distinct and len({span.trace_id for span in distinct}) == 1:
        parent = trace.set_span_in_context(NonRecordingSpan(distinct[0]), parent)
        links = links[1:]
    attributes: dict[str, str | int] = {
        "messaging.system": "kafka",
        "messaging.operation.type": "process",
        "messaging.destination.name": topic,
        "messaging.consumer.group.name": group,
    }
    if records > 1:
        attributes["messaging.batch.message_count"] = records
    with _tracer.start_as_current_span(
        f"process {topic}",
        context=parent,
        kind=SpanKind.CONSUMER,
        links=links,
        attributes=attributes,
    ):
        yield


def setup_tracing(settings: InfrastructureSettings, service: str) -> None:
    """With `TP_OTLP_ENDPOINT`, record spans (`TP_TRACE_SAMPLE_RATIO` of new traces) and
    export them there over OTLP/HTTP; once per process. Without, nothing."""
    global _provider
    if not settings.otlp_endpoint or _provider is not None:
        return
    # Imported here: a process that exports nothing loads none of it.
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor
    from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased

    provider = TracerProvider(
        resource=Resource.create(
            {"service.name": service, "service.instance.id": instance_name(settings.instance)}
        ),
        sampler=ParentBased(TraceIdRatioBased(settings.trace_sample_ratio)),
    )
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=traces_url(settings))))
    trace.set_tracer_provider(provider)
    _provider = provider
    log.info("traces exported to %s", traces_url(settings))


def traces_url(settings: InfrastructureSettings) -> str:
    endpoint = settings.otlp_endpoint.rstrip("/")
    return endpoint if endpoint.endswith("/v1/traces") else f"{endpoint}/v1/traces"


async def flush_traces(timeout_seconds: float = 5.0) -> None:
    """Export the spans still waiting (a stopping service), in a thread: it blocks."""
    if _provider is not None:
        await asyncio.to_thread(_provider.force_flush, int(timeout_seconds * 1000))
