-- The scanners the gateway registered, as heard on scanner.events (adapters/scanners.py):
-- a table deals a card only from its active device, with a sequence number above the last
-- (decision 0055). `device_version`: the version in the gateway's `device-<id>` stream of
-- the last event applied, so that one heard late (a device moved between tables travels
-- on two partitions) is not applied over a newer one.
CREATE TABLE scanner_devices (
    device_id       text PRIMARY KEY,
    table_id        text NOT NULL,
    active          boolean NOT NULL,
    last_sequence   bigint NOT NULL DEFAULT 0,
    device_version  integer NOT NULL,
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX scanner_devices_by_table ON scanner_devices (table_id) WHERE active;
