-- Seamless wallets (docs/decisions/0066-seamless-slips-and-owed-calls.md): each operator's
-- wallet configuration, and every call made to an operator's wallet server.
-- An operator without a row is a transfer wallet. `config` is `OperatorConfig` as JSON.
CREATE TABLE operators (
    operator_id     text PRIMARY KEY,
    config          jsonb NOT NULL,
    updated_at      timestamptz NOT NULL DEFAULT now(),
    updated_by      text NOT NULL
);
-- One row per money movement sent to an operator: a slip's bet (transaction_uuid = the slip
-- id), the win settling it or the rollback undoing it (reference = the slip id). Wins and
-- rollbacks are owed: `pending` until RS_OK, retried from `next_attempt_at`.
CREATE TABLE operator_calls (
    call_id             uuid PRIMARY KEY,
    kind                text NOT NULL CHECK (kind IN ('bet', 'win', 'rollback')),
    operator_id         text NOT NULL,
    player_id           text NOT NULL,
    round_id            text NOT NULL,
    table_id            text NOT NULL,
    slip_id             uuid NOT NULL,
    transaction_uuid    text NOT NULL,
    reference_transaction_uuid text,
    -- the operator's session token of the player, sent again with the win or rollback
    token               text NOT NULL,
    amount              bigint CHECK (amount >= 0),  -- null for a rollback: the bet's
    currency            text NOT NULL,
    round_closed        boolean NOT NULL DEFAULT false,
    status              text NOT NULL CHECK (status IN ('pending', 'ok', 'refused', 'failed')),
    attempts            integer NOT NULL DEFAULT 0,
    bad_answers         integer NOT NULL DEFAULT 0,
    next_attempt_at     timestamptz,
    answer_status       text,
    answer_raw          text,
    answered_at         timestamptz,
    error               text,
    -- a bet's slip while it is pending: its key, lines (with their bet ids) and time
    idempotency_key     text,
    slip                jsonb,
    created_at          timestamptz NOT NULL DEFAULT now(),
    finished_at         timestamptz,
    UNIQUE (operator_id, transaction_uuid),
    UNIQUE (slip_id, kind)
);
CREATE INDEX operator_calls_due ON operator_calls (next_attempt_at)
    WHERE status = 'pending' AND kind <> 'bet';
CREATE INDEX operator_calls_pending_bets ON operator_calls (created_at)
    WHERE status = 'pending' AND kind = 'bet';
CREATE INDEX operator_calls_round ON operator_calls (round_id, operator_id, player_id);
CREATE INDEX operator_calls_failed ON operator_calls (finished_at) WHERE status = 'failed';
CREATE INDEX operator_calls_created ON operator_calls (operator_id, created_at);
-- A seamless slip is won or rolled back whole once its every bet is paid: the payment reads
-- the bets of each slip it touches (adapters/seamless.py `owe_settlement`).
CREATE INDEX wallet_bets_slip ON wallet_bets (slip_id);
