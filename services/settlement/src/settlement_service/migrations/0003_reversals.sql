-- A round voided after its result (RoundVoided) and its settlement reversed (BetsReversed,
-- RoundReversed): adapters/postgres.py, handlers.reverse_if_voided.
ALTER TABLE rounds
    ADD COLUMN voided_at       timestamptz,  -- RoundVoided's time, as the table recorded it
    ADD COLUMN void_reason     text,         -- RoundReversed's reason: why, and both supervisors
    ADD COLUMN reversed_at     timestamptz,  -- RoundReversed's reversed_at
    ADD COLUMN reversal_totals jsonb;        -- RoundReversed's totals, every operator
ALTER TABLE bets
    ADD COLUMN reversed_at     timestamptz;  -- its round's RoundReversed's reversed_at
