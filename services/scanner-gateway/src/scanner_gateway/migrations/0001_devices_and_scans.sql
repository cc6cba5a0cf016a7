-- The gateway's projections beside its event store (adapters/postgres.py).
CREATE TABLE devices (
    device_id        text PRIMARY KEY,
    table_id         text NOT NULL,
    credential_hash  text NOT NULL,
    registered_at    timestamptz NOT NULL,
    registered_by    text NOT NULL,
    last_card        text,
    last_scan_id     uuid,
    last_read_at     timestamptz
);
CREATE TABLE scans (
    scan_id       uuid PRIMARY KEY,
    device_id     text NOT NULL,
    table_id      text NOT NULL,
    card          text,
    -- pending, registered, refused (the table's verdict); rescan, duplicate, rejected
    status        text NOT NULL,
    reason        text,
    detail        text,
    position      text,
    duplicate_of  uuid,
    received_at   timestamptz NOT NULL,
    decided_at    timestamptz
);
CREATE INDEX scans_by_device ON scans (device_id, received_at);
-- Lock the device's row, then read in a statement of its own: a VOLATILE function's
-- statements each take a fresh snapshot, so what it reads is what the lock's previous holder
-- committed. One round trip.
CREATE FUNCTION gateway_lock_device(
    p_device text,
    OUT d_device_id text, OUT d_table_id text, OUT d_credential_hash text,
    OUT d_last_card text, OUT d_last_scan_id uuid, OUT d_last_read_at timestamptz,
    OUT d_last_status text, OUT read_at timestamptz
) LANGUAGE plpgsql AS $$
BEGIN
    SELECT device_id, table_id, credential_hash, last_card, last_scan_id, last_read_at
      INTO d_device_id, d_table_id, d_credential_hash, d_last_card, d_last_scan_id,
           d_last_read_at
      FROM devices WHERE device_id = p_device FOR UPDATE;
    IF FOUND THEN
        SELECT status INTO d_last_status FROM scans WHERE scan_id = d_last_scan_id;
    END IF;
    read_at := clock_timestamp();
END $$;
