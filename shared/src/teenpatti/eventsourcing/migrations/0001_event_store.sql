-- The event store (teenpatti.eventsourcing.store): streams, events (also the outbox), the
-- relay's checkpoints, and the consumers' record of what they processed or parked.
CREATE TABLE streams (
    stream_id   text PRIMARY KEY,
    version     integer NOT NULL CHECK (version >= 0)
);
CREATE TABLE events (
    transaction_id  bigint NOT NULL DEFAULT (pg_current_xact_id()::text::bigint),
    position        bigint GENERATED ALWAYS AS IDENTITY,
    stream_id       text NOT NULL,
    stream_version  integer NOT NULL,
    event_id        uuid NOT NULL DEFAULT gen_random_uuid(),
    event_type      text NOT NULL,
    schema_version  integer NOT NULL,
    table_id        text NOT NULL,
    occurred_at     timestamptz NOT NULL,
    correlation_id  uuid NOT NULL,
    causation_id    uuid,
    producer        text NOT NULL,
    -- the producer's text: checked, not parsed (docs/decisions: payloads stored as json)
    payload         json NOT NULL,
    hash            bytea,
    PRIMARY KEY (transaction_id, position),
    UNIQUE (stream_id, stream_version)
);
CREATE TABLE outbox_checkpoints (
    relay           text PRIMARY KEY,
    transaction_id  bigint NOT NULL,
    position        bigint NOT NULL,
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE processed_events (
    consumer        text NOT NULL,
    event_id        uuid NOT NULL DEFAULT gen_random_uuid(),
    processed_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, event_id)
);
CREATE TABLE parked_events (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    consumer        text NOT NULL,
    topic           text NOT NULL,
    kafka_partition integer NOT NULL,
    kafka_offset    bigint NOT NULL,
    record_key      bytea,
    record_value    bytea,
    error           text NOT NULL,
    parked_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (consumer, topic, kafka_partition, kafka_offset)
);
CREATE FUNCTION notify_events_appended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('events_appended', '');
    RETURN NULL;
END $$;
CREATE TRIGGER events_appended AFTER INSERT ON events
    FOR EACH STATEMENT EXECUTE FUNCTION notify_events_appended();
-- The canonical bytes of an event (docs/audit.md, teenpatti.audit.chain): self-delimiting
-- fields, text ones as netstrings ("<bytes>:<text>,"), the payload last. Inlined by the planner.
CREATE FUNCTION events_canonical(
    stream_id text, stream_version integer, event_id uuid, event_type text,
    schema_version integer, table_id text, occurred_at timestamptz, correlation_id uuid,
    causation_id uuid, producer text, payload text
) RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE
RETURN convert_to(concat(
    octet_length(stream_id), ':', stream_id, ',', stream_version, ',', event_id, ',',
    octet_length(event_type), ':', event_type, ',', schema_version, ',',
    octet_length(table_id), ':', table_id, ',',
    (extract(epoch FROM occurred_at) * 1000000)::bigint, ',', correlation_id, ',',
    causation_id, ',', octet_length(producer), ':', producer, ',', payload), 'UTF8');
-- The links of an append's events, in their order: each hash from the one before, the first
-- from `previous` (NULL if unknown: then every hash is NULL). One call per stream appended to.
CREATE FUNCTION events_chain_hashes(previous bytea, canonicals bytea[])
    RETURNS bytea[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $chain$
DECLARE
    hashes bytea[] := ARRAY[]::bytea[];
    running bytea := previous;
    canonical bytea;
BEGIN
    FOREACH canonical IN ARRAY canonicals LOOP
        running := sha256(running || canonical);
        hashes := hashes || running;
    END LOOP;
    RETURN hashes;
END $chain$;
-- For rows stored without a hash (a writer other than `append`, or an append whose snapshot
-- did not show the stream's previous event): chain them here, one row at a time.
CREATE FUNCTION events_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    previous bytea := decode(repeat('00', 32), 'hex');
BEGIN
    IF NEW.stream_version > 1 THEN
        -- sees the rows stored earlier by the same INSERT too (a multi-event append)
        SELECT hash INTO previous FROM events
         WHERE stream_id = NEW.stream_id AND stream_version = NEW.stream_version - 1;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'stream % has no version % to chain version % to',
                NEW.stream_id, NEW.stream_version - 1, NEW.stream_version;
        END IF;
    END IF;
    NEW.hash := sha256(previous || events_canonical(NEW.stream_id, NEW.stream_version,
        NEW.event_id, NEW.event_type, NEW.schema_version, NEW.table_id, NEW.occurred_at,
        NEW.correlation_id, NEW.causation_id, NEW.producer, NEW.payload::text));
    RETURN NEW;
END $$;
CREATE TRIGGER events_chain BEFORE INSERT ON events
    FOR EACH ROW WHEN (NEW.hash IS NULL) EXECUTE FUNCTION events_chain();
-- The store's API for a service's own SQL functions (one round trip where a service locks
-- its rows and reads a stream's version together): no service names the store's tables.
-- A stream's version, 0 for a stream not yet written.
CREATE FUNCTION event_stream_version(p_stream text) RETURNS integer
LANGUAGE sql STABLE AS $$
    SELECT coalesce((SELECT version FROM streams WHERE stream_id = p_stream), 0)
$$;
-- Lock a stream for the rest of the transaction, then read its version in a statement of
-- its own: a VOLATILE function's statements each take a fresh snapshot, so the version read
-- is what the lock's previous holder committed.
CREATE FUNCTION event_stream_lock(p_stream text) RETURNS integer
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(p_stream, 0));
    RETURN coalesce((SELECT version FROM streams WHERE stream_id = p_stream), 0);
END $$;
