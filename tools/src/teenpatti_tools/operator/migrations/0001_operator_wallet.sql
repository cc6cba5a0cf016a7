-- The reference operator's wallet (teenpatti_tools.operator): its players, their balances per
-- currency, the session tokens it issued, the deposits it took and every transaction it applied.
-- Amounts are protocol units: the currency amount x 100,000 (docs/operators.md).

CREATE TABLE users (
    user_id     text PRIMARY KEY,
    disabled    boolean NOT NULL DEFAULT false,
    -- the largest bet it takes (RS_ERROR_LIMIT_REACHED above it); null: no limit
    bet_limit   bigint CHECK (bet_limit >= 0),
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE balances (
    user_id   text NOT NULL REFERENCES users,
    currency  text NOT NULL,
    balance   bigint NOT NULL CHECK (balance >= 0),
    PRIMARY KEY (user_id, currency)
);

CREATE TABLE tokens (
    token       text PRIMARY KEY,
    user_id     text NOT NULL REFERENCES users,
    currency    text NOT NULL,
    expires_at  timestamptz NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE deposits (
    deposit_id  bigserial PRIMARY KEY,
    user_id     text NOT NULL REFERENCES users,
    currency    text NOT NULL,
    amount      bigint NOT NULL CHECK (amount > 0),
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- Every money movement it applied, once per transaction_uuid (the idempotency key). A
-- rollback of a transaction it never saw is a tombstone: amount 0, remembered so that the
-- late bet is refused (RS_ERROR_TRANSACTION_ROLLED_BACK).
CREATE TABLE transactions (
    seq                         bigserial UNIQUE NOT NULL,
    transaction_uuid            text PRIMARY KEY,
    kind                        text NOT NULL CHECK (kind IN ('bet', 'win', 'rollback')),
    user_id                     text NOT NULL,
    currency                    text NOT NULL,
    amount                      bigint NOT NULL CHECK (amount >= 0),
    round                       text NOT NULL,
    round_closed                boolean NOT NULL DEFAULT false,
    reference_transaction_uuid  text,
    game_code                   text NOT NULL,
    bet                         text,
    tombstone                   boolean NOT NULL DEFAULT false,
    -- a bet's rollback, once rolled back
    rolled_back_by              text,
    request_uuid                text NOT NULL,
    request_hash                text NOT NULL,
    balance_after               bigint NOT NULL,
    answer                      jsonb NOT NULL,
    created_at                  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX transactions_by_time ON transactions (created_at, seq);
CREATE INDEX transactions_by_round ON transactions (round, seq);
CREATE INDEX transactions_by_reference ON transactions (reference_transaction_uuid)
    WHERE reference_transaction_uuid IS NOT NULL;
