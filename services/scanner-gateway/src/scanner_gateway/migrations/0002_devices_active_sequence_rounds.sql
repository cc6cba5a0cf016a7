-- One active device per table, each read's sequence number, and the round the gateway
-- believes in play at each table (stamped on CardScanned; decision 0055).
ALTER TABLE devices
    ADD COLUMN active boolean NOT NULL DEFAULT true,
    ADD COLUMN last_sequence bigint NOT NULL DEFAULT 0,
    ADD COLUMN retired_at timestamptz,
    ADD COLUMN retired_reason text;
CREATE UNIQUE INDEX devices_one_active_per_table ON devices (table_id) WHERE active;
CREATE TABLE table_rounds (
    table_id  text PRIMARY KEY,
    round_id  text NOT NULL,
    number    integer NOT NULL,
    in_play   boolean NOT NULL
);
ALTER TABLE scans ADD COLUMN sequence bigint;
DROP FUNCTION gateway_lock_device(text);
-- As in 0001, with the device's state of this migration and its table's round in play.
CREATE FUNCTION gateway_lock_device(
    p_device text,
    OUT d_device_id text, OUT d_table_id text, OUT d_credential_hash text,
    OUT d_last_card text, OUT d_last_scan_id uuid, OUT d_last_read_at timestamptz,
    OUT d_last_status text, OUT d_active boolean, OUT d_last_sequence bigint,
    OUT d_round_id text, OUT read_at timestamptz
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
    END IF;
    read_at := clock_timestamp();
END $$;
