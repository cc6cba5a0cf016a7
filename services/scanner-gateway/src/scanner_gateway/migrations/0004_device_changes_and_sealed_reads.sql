-- Device registrations and rotations take two supervisors (decision 0085): a proposal waits
-- here with the SHA-256 of the credential the device made (never in an event), until another
-- supervisor approves it or any supervisor rejects it; the hash is dropped once it is decided.
CREATE TABLE device_changes (
    change_id        uuid PRIMARY KEY,
    device_id        text NOT NULL,
    table_id         text NOT NULL,
    kind             text NOT NULL,  -- register, rotate
    credential_hash  text,
    proposed_by      text NOT NULL,
    proposed_at      timestamptz NOT NULL,
    status           text NOT NULL DEFAULT 'pending',  -- pending, approved, rejected
    decided_by       text,
    decided_at       timestamptz
);
CREATE UNIQUE INDEX device_changes_one_pending_per_device ON device_changes (device_id)
    WHERE status = 'pending';
ALTER TABLE devices ADD COLUMN approved_by text;
-- a round between its betting closed and its result: no device change applies then
ALTER TABLE table_rounds ADD COLUMN betting_closed boolean NOT NULL DEFAULT false;
-- the table's verdict showed the read's value (it dealt the card, or refused it with its
-- value once betting had closed): until then the studio sees it sealed (decision 0058)
ALTER TABLE scans ADD COLUMN revealed boolean NOT NULL DEFAULT false;
UPDATE scans SET revealed = true WHERE status = 'registered';
