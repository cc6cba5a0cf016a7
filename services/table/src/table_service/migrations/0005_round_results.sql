-- The roadmap (adapters/round_results.py): one row per round that ended, closed with its
-- result or cancelled with the cards dealt before the void, written in the transaction of
-- the event that ended it; a replay of the table's stream gives the same rows
-- (domain/results.py; docs/decisions/0076-the-roadmap-is-written-with-the-round-s-end.md).
CREATE TABLE round_results (
    round_id            text PRIMARY KEY,
    table_id            text NOT NULL,
    number              integer NOT NULL,
    status              text NOT NULL CHECK (status IN ('closed', 'cancelled')),
    ended_at            timestamptz NOT NULL,
    cards               text[] NOT NULL,  -- dealing order A1 B1 A2 B2 A3 B3
    player_a_hand       text,
    player_b_hand       text,
    winner              text,
    six_card_bonus_hand text,
    stream_version      integer NOT NULL,  -- of the event that ended the round
    UNIQUE (table_id, number)  -- also the index a page of the roadmap reads, newest first
);
