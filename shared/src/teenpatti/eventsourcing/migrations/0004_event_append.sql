-- Append one event to a stream after its expected version, from a service's own SQL function
-- (one round trip where a service writes its rows and the event together, e.g. the wallet's
-- `wallet_place_slip`): the same checks and hash chain as `append` (store.py). Refused with
-- SQLSTATE TPS01 when the stream is not at `p_expected`, TPS02 when its last event was
-- written by a newer transaction (commit order: the same append succeeds in a new one); the
-- store maps both to its errors (`append_error`). Returns the stream's new version.
CREATE FUNCTION event_append(
    p_stream text, p_expected integer, p_table_id text, p_occurred_at timestamptz,
    p_correlation_id uuid, p_causation_id uuid, p_producer text, p_event_type text,
    p_schema_version integer, p_payload json, p_trace_context text
) RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v_event uuid := gen_random_uuid();
    v_previous bytea;
    v_writer bigint;
BEGIN
    IF p_expected = 0 THEN
        INSERT INTO streams (stream_id, version) VALUES (p_stream, 1)
            ON CONFLICT (stream_id) DO NOTHING;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'stream % exists: not at the expected version 0', p_stream
                USING ERRCODE = 'TPS01';
        END IF;
        v_previous := decode(repeat('00', 32), 'hex');
    ELSE
        SELECT coalesce(hash, decode(repeat('00', 32), 'hex')), transaction_id
          INTO v_previous, v_writer
          FROM events WHERE stream_id = p_stream AND stream_version = p_expected;
        IF v_writer > pg_current_xact_id()::text::bigint THEN
            RAISE EXCEPTION 'stream %: its last event was written by a newer transaction',
                p_stream USING ERRCODE = 'TPS02';
        END IF;
        UPDATE streams SET version = p_expected + 1
         WHERE stream_id = p_stream AND version = p_expected;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'stream % is not at the expected version %', p_stream, p_expected
                USING ERRCODE = 'TPS01';
        END IF;
    END IF;
    -- v_previous NULL (the predecessor not visible here): stored without hash, chained by
    -- the `events_chain` trigger, as `append` does
    INSERT INTO events (stream_id, stream_version, event_id, event_type, schema_version,
                        table_id, occurred_at, correlation_id, causation_id, producer, payload,
                        hash, trace_context)
    VALUES (p_stream, p_expected + 1, v_event, p_event_type, p_schema_version, p_table_id,
            p_occurred_at, p_correlation_id, p_causation_id, p_producer, p_payload,
            sha256(v_previous || events_canonical(p_stream, p_expected + 1, v_event,
                p_event_type, p_schema_version, p_table_id, p_occurred_at, p_correlation_id,
                p_causation_id, p_producer, p_payload::text)),
            p_trace_context);
    RETURN p_expected + 1;
END $$;
