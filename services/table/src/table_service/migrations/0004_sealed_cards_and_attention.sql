-- The value of each card refused before betting closed on any round it could belong to:
-- kept only here, never in an event, so it reaches neither Kafka, the feed nor a public read
-- (adapters/sealed_cards.py; docs/decisions/0058-a-card-read-during-betting-is-sealed.md).
CREATE TABLE sealed_cards (
    scan_id     uuid PRIMARY KEY,
    table_id    text NOT NULL,
    round_id    text,
    device_id   text NOT NULL,
    card        text NOT NULL,
    reason      text NOT NULL,
    scanned_at  timestamptz NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sealed_cards_by_table ON sealed_cards (table_id, recorded_at);

-- Whether the table holds something for a person (a paused round, an exposed card, a void
-- or a configuration change waiting for a second supervisor): what the problems source reads.
ALTER TABLE tables ADD COLUMN needs_person boolean NOT NULL DEFAULT false;
CREATE INDEX tables_needing_person ON tables (table_id) WHERE needs_person;
