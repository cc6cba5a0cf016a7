-- A round voided after its result (`RoundVoided`): its roadmap row keeps the result it
-- voided and when that was recorded (`ended_at`), and says when and why it was voided.
ALTER TABLE round_results
    DROP CONSTRAINT round_results_status_check,
    ADD CONSTRAINT round_results_status_check
        CHECK (status IN ('closed', 'cancelled', 'voided')),
    ADD COLUMN voided_at timestamptz,
    ADD COLUMN void_reason text,
    ADD CONSTRAINT round_results_voided_check
        CHECK ((status = 'voided') = (voided_at IS NOT NULL AND void_reason IS NOT NULL));
