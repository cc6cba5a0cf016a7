-- The events the outbox relay set aside instead of publishing them (teenpatti.eventsourcing
-- .relay): larger than the relay's bound, or refused by Kafka as too large. The event itself
-- stays in `events`, where the service's own state reads it; this row says it never reached
-- Kafka, and why (docs/decisions/0063-oversized-events-set-aside.md).
CREATE TABLE parked_outbox_events (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    relay           text NOT NULL,
    event_id        uuid NOT NULL,
    transaction_id  bigint NOT NULL,
    position        bigint NOT NULL,
    stream_id       text NOT NULL,
    stream_version  integer NOT NULL,
    event_type      text NOT NULL,
    table_id        text NOT NULL,
    size_bytes      integer NOT NULL,
    error           text NOT NULL,
    parked_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (relay, event_id)
);
