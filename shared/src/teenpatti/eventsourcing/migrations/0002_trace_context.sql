-- The W3C trace context (a `traceparent` value) of the span that appended the event, if a
-- trace was going on: the relay sends it as the record's `traceparent` header, and the
-- consumer's span continues that trace. Outside the hash chain's canonical bytes
-- (teenpatti.audit.chain): it says how the event was traced, not what happened
-- (docs/decisions/0047-trace-context-with-the-event.md). Nullable, no default: adding it
-- rewrites no row.
ALTER TABLE events ADD COLUMN trace_context text;
