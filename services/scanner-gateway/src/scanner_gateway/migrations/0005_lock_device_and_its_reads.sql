-- As in 0002, and the device's reads stream locked in the same round trip (decision 0105):
-- the device's row first, then its stream, the order every read takes; `d_reads_version` is
-- the stream's version as its previous holder committed it (NULL for an unknown device).
DROP FUNCTION gateway_lock_device(text);
CREATE FUNCTION gateway_lock_device(
    p_device text, p_reads_stream text,
    OUT d_device_id text, OUT d_table_id text, OUT d_credential_hash text,
    OUT d_last_card text, OUT d_last_scan_id uuid, OUT d_last_read_at timestamptz,
    OUT d_last_status text, OUT d_active boolean, OUT d_last_sequence bigint,
    OUT d_round_id text, OUT d_reads_version integer, OUT read_at timestamptz
) LANGUAGE plpgsql AS $$
BEGIN
    SELECT device_id, table_id, credential_hash, last_card, last_scan_id, last_read_at,
           active, last_sequence
      INTO d_device_id, d_table_id, d_credential_hash, d_last_card, d_last_scan_id,
           d_last_read_at, d_active, d_last_sequence
      FROM devices WHERE device_id = p_device FOR UPDATE;
    IF FOUND THEN
        SELECT status INTO d_last_status FROM scans WHERE scan_id = d_last_scan_id;
        SELECT round_id INTO d_round_id FROM table_rounds
         WHERE table_id = d_table_id AND in_play;
        d_reads_version := event_stream_lock(p_reads_stream);
    END IF;
    read_at := clock_timestamp();
END $$;
