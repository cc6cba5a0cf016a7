-- A failed owed win or rollback sent again by a person once its cause is fixed
-- (`teenpatti operators resend`; docs/operators.md, "Owed calls in sight"): who, why, when,
-- and what the call had come to before. The call keeps its transaction_uuid.
CREATE TABLE operator_call_resends (
    resend_id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    call_id             uuid NOT NULL REFERENCES operator_calls (call_id),
    reason              text NOT NULL CHECK (length(reason) BETWEEN 1 AND 1000),
    resent_by           text NOT NULL CHECK (length(resent_by) BETWEEN 1 AND 100),
    resent_at           timestamptz NOT NULL DEFAULT now(),
    attempts_before     integer NOT NULL,
    answer_status_before text,
    error_before        text
);
CREATE INDEX operator_call_resends_call ON operator_call_resends (call_id);
