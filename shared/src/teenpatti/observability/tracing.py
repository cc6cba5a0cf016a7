"""Traces: a request's trace goes on through the events it causes, in every service.

Over HTTP, a request's W3C `traceparent` header is its span's parent (FastAPI's own
telemetry makes the server span; the kernel configures it). Through Kafka the trace context
travels with the event: `append` stores the current span's `traceparent` beside the event
(the store's `trace_context` column, outside the hash chain's canonical bytes), the relay
sends it as the record's `traceparent` header, and the consumer handles a batch in a span
that continues it (`consuming`): the child of the records' span when they all come from one
trace, else a new trace linked to each. So one scan's trace spans the gateway's request,
the table's dealing, the settlement and the wallet's payment. The `traceparent` is written and
read by OpenTelemetry's W3C propagator, never by hand.
docs/decisions/0047-trace-context-with-the-event.md

`setup_tracing` records and exports spans only with `TP_OTLP_ENDPOINT`, and then also the
client spans OpenTelemetry's maintained instrumentations make (`instrument_clients`): each
HTTP call (the web front's calls to the services; an operator's wallet, whose own client
makes the same span, `client_tracer`), each Postgres statement, Redis command and Kafka
send or poll, in the trace of the request or event they serve. A client span with no trace
to join (a relay's or a consumer's polling) is not recorded
(`teenpatti.observability.sampling`). Without an endpoint, the API's no-op tracer
stands in: nothing is recorded, and a context that arrives is still passed on.
docs/decisions/0092-client-spans-and-the-w3c-propagator.md
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol

from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.trace import Link, NonRecordingSpan, SpanContext, SpanKind
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from teenpatti.observability.logs import instance_name

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from starlette.types import ASGIApp, Receive, Scope, Send

    from teenpatti.settings import InfrastructureSettings

log = logging.getLogger(__name__)

TRACEPARENT = "traceparent"  # the W3C header, on HTTP requests and Kafka records
_tracer = trace.get_tracer("teenpatti")
_provider: TracerProvider | None = None
# the tracer of our own clients' spans (teenpatti.seamless.http11) while clients are traced
_clients_tracer: trace.Tracer | None = None


# the W3C Trace Context format, for the store's column and the Kafka records' header: only
# `traceparent` travels with an event (the global propagator also carries HTTP's baggage)
_W3C = TraceContextTextMapPropagator()


def current_traceparent() -> str | None:
    """The current span as a W3C `traceparent` value (None: no trace is going on)."""
    carrier: dict[str, str] = {}
    _W3C.inject(carrier)
    return carrier.get(TRACEPARENT)


def parse_traceparent(value: bytes | str | None) -> SpanContext | None:
    """The span a `traceparent` value names, None if it names none (as the W3C propagator
    reads it: a malformed value, an all-zero id, version `ff`)."""
    if not value:
        return None
    text = value.decode("ascii", "replace") if isinstance(value, bytes) else value
    span = trace.get_current_span(_W3C.extract({TRACEPARENT: text})).get_span_context()
    return span if span.is_valid else None


def inject_context(headers: MutableMapping[str, str]) -> None:
    """Add the current trace context to outgoing HTTP `headers` (`traceparent`, and
    `tracestate` and `baggage` where there are), with the global propagator."""
    propagate.inject(headers)


def extract_context(headers: Mapping[str, str]) -> otel_context.Context:
    """The trace context incoming HTTP `headers` carry (an empty one when none)."""
    return propagate.extract(headers)


class IncomingTraceContext:
    """ASGI middleware: a request or WebSocket is served in the trace context its headers
    carry (`traceparent`), so that what it calls and appends carries it on even where no
    span of our own is recorded. Where FastAPI's telemetry already serves it in a server
    span (a tracer provider is set up), that span stays the current one."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] not in ("http", "websocket")
            or trace.get_current_span().get_span_context().is_valid
        ):
            await self.app(scope, receive, send)
            return
        headers = {
            bytes(name).decode("latin-1").lower(): bytes(value).decode("latin-1")
            for name, value in scope["headers"]
        }
        token = otel_context.attach(extract_context(headers))
        try:
            await self.app(scope, receive, send)
        finally:
            otel_context.detach(token)


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


class _Instrumentor(Protocol):
    """What is used of OpenTelemetry's `BaseInstrumentor`."""

    @property
    def is_instrumented_by_opentelemetry(self) -> bool: ...

    def instrument(self, **kwargs: Any) -> None: ...

    def uninstrument(self, **kwargs: Any) -> None: ...


def _instrumentors() -> list[_Instrumentor]:
    # imported here: a process that records nothing loads none of them
    from opentelemetry.instrumentation.aiokafka import AIOKafkaInstrumentor
    from opentelemetry.instrumentation.asyncpg import AsyncPGInstrumentor
    from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor
    from opentelemetry.instrumentation.redis import RedisInstrumentor

    return [
        HTTPXClientInstrumentor(),
        AsyncPGInstrumentor(),  # type: ignore[no-untyped-call]
        RedisInstrumentor(),
        AIOKafkaInstrumentor(),
    ]


def instrument_clients(provider: trace.TracerProvider) -> None:
    """Client spans from OpenTelemetry's maintained instrumentations, recorded by `provider`:
    httpx (calls to operators' wallets and between services; it sends the W3C headers),
    asyncpg, redis and aiokafka (its sends add `traceparent`; its polls continue each
    record's), and our own HTTP/1.1 client of operators' wallets (`client_tracer`). Once per
    process; `uninstrument_clients` undoes it."""
    global _clients_tracer
    for instrumentor in _instrumentors():
        if not instrumentor.is_instrumented_by_opentelemetry:
            instrumentor.instrument(tracer_provider=provider)
    _clients_tracer = provider.get_tracer("teenpatti.clients")


def uninstrument_clients() -> None:
    global _clients_tracer
    _clients_tracer = None
    for instrumentor in _instrumentors():
        if instrumentor.is_instrumented_by_opentelemetry:
            instrumentor.uninstrument()


def client_tracer() -> trace.Tracer | None:
    """The tracer of the client spans our own clients make (the operator calls'
    `Http11Transport`, which has no maintained instrumentation); None while clients are not
    traced: then they make no span and send no trace context, as httpx's instrumentation."""
    return _clients_tracer


def setup_tracing(settings: InfrastructureSettings, service: str) -> None:
    """With `TP_OTLP_ENDPOINT`, record spans (`TP_TRACE_SAMPLE_RATIO` of new traces), the
    clients' included, and export them there over OTLP/HTTP; once per process. Without,
    nothing."""
    global _provider
    if not settings.otlp_endpoint or _provider is not None:
        return
    # Imported here: a process that exports nothing loads none of it.
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    from teenpatti.observability.sampling import sampler

    provider = TracerProvider(
        resource=Resource.create(
            {"service.name": service, "service.instance.id": instance_name(settings.instance)}
        ),
        sampler=sampler(settings.trace_sample_ratio),
    )
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=traces_url(settings))))
    trace.set_tracer_provider(provider)
    instrument_clients(provider)
    _provider = provider
    log.info("traces exported to %s", traces_url(settings))


def traces_url(settings: InfrastructureSettings) -> str:
    endpoint = settings.otlp_endpoint.rstrip("/")
    return endpoint if endpoint.endswith("/v1/traces") else f"{endpoint}/v1/traces"


async def flush_traces(timeout_seconds: float = 5.0) -> None:
    """Export the spans still waiting (a stopping service), in a thread: it blocks."""
    if _provider is not None:
        await asyncio.to_thread(_provider.force_flush, int(timeout_seconds * 1000))
