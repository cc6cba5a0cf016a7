"""Which spans a service records (with `TP_OTLP_ENDPOINT`): a span in a trace follows its
caller's choice; a new trace is sampled at `TP_TRACE_SAMPLE_RATIO` when it starts with work
of our own, and never when it would start with a client span
(docs/decisions/0092-client-spans-and-the-w3c-propagator.md)."""

from __future__ import annotations

from collections.abc import Sequence

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.trace.sampling import (
    Decision,
    ParentBased,
    Sampler,
    SamplingResult,
    TraceIdRatioBased,
)
from opentelemetry.trace import Link, SpanKind
from opentelemetry.util.types import Attributes


class TracedWork(Sampler):
    """Samples a new trace at `ratio` when it starts with work of our own (a request, an
    event handled); a client span that starts no trace of its own (a relay's or consumer's
    polling statement, a Kafka poll with no traced record) is dropped, not a trace each."""

    def __init__(self, ratio: float) -> None:
        self._ratio = TraceIdRatioBased(ratio)

    def should_sample(
        self,
        parent_context: otel_context.Context | None,
        trace_id: int,
        name: str,
        kind: SpanKind | None = None,
        attributes: Attributes = None,
        links: Sequence[Link] | None = None,
        trace_state: trace.TraceState | None = None,
    ) -> SamplingResult:
        if kind in (SpanKind.CLIENT, SpanKind.PRODUCER) or (
            kind is SpanKind.CONSUMER and name.endswith(" receive")
        ):
            return SamplingResult(Decision.DROP)
        return self._ratio.should_sample(
            parent_context, trace_id, name, kind, attributes, links, trace_state
        )

    def get_description(self) -> str:
        return f"TracedWork{{{self._ratio.get_description()}}}"


def sampler(ratio: float) -> Sampler:
    """Spans in a trace follow its caller's choice; new traces as `TracedWork` says."""
    return ParentBased(TracedWork(ratio))
