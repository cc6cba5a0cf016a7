-- The wallet's projections beside its event store (adapters/postgres.py).
CREATE TABLE wallet_players (
    operator_id     text NOT NULL,
    player_id       text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (operator_id, player_id)
);
CREATE TABLE wallet_accounts (
    operator_id     text NOT NULL,
    player_id       text NOT NULL,
    currency        text NOT NULL,
    balance         bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (operator_id, player_id, currency)
);
CREATE TABLE wallet_ledger (
    entry_id        uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    account         text NOT NULL CHECK (account IN ('player', 'house')),
    operator_id     text NOT NULL,
    player_id       text,
    currency        text NOT NULL,
    amount          bigint NOT NULL CHECK (amount <> 0),
    kind            text NOT NULL CHECK (kind IN ('deposit', 'withdrawal', 'stake', 'return')),
    reference       text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    CHECK ((account = 'player') = (player_id IS NOT NULL))
);
CREATE INDEX wallet_ledger_reference ON wallet_ledger (reference);
CREATE TABLE wallet_transfers (
    operator_id     text NOT NULL,
    transfer_id     text NOT NULL,
    kind            text NOT NULL CHECK (kind IN ('deposit', 'withdrawal')),
    player_id       text NOT NULL,
    currency        text NOT NULL,
    amount          bigint NOT NULL CHECK (amount > 0),
    balance_after   bigint NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (operator_id, transfer_id)
);
CREATE TABLE wallet_rounds (
    round_id            text PRIMARY KEY,
    table_id            text NOT NULL,
    status              text NOT NULL CHECK (status IN ('open', 'sealed', 'closed', 'cancelled')),
    paused              boolean NOT NULL DEFAULT false,
    opened_at           timestamptz,
    betting_closes_at   timestamptz NOT NULL,
    limits              jsonb NOT NULL,
    sealed_at           timestamptz,
    bet_count           integer,
    total_stake         jsonb,
    digest              text,
    cards               jsonb,
    winner              text,
    player_a_hand       text,
    player_b_hand       text,
    six_card_bonus_hand text,
    cancel_reason       text,
    updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE wallet_bets (
    seq             bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    bet_id          uuid PRIMARY KEY,
    slip_id         uuid NOT NULL,
    operator_id     text NOT NULL,
    player_id       text NOT NULL,
    round_id        text NOT NULL REFERENCES wallet_rounds (round_id),
    table_id        text NOT NULL,
    bet_type        text NOT NULL,
    stake           bigint NOT NULL CHECK (stake > 0),
    currency        text NOT NULL,
    placed_at       timestamptz NOT NULL,
    status          text NOT NULL DEFAULT 'placed' CHECK (status IN ('placed', 'paid')),
    outcome         text,
    returned        bigint CHECK (returned >= 0),
    paid_at         timestamptz
);
-- A bet row is written twice, placed then paid: room on its page for the second version
-- lets Postgres update it in place without touching the indexes (a HOT update);
-- docs/decisions/0043-bet-rows-updated-in-place.md.
ALTER TABLE wallet_bets SET (fillfactor = 50);
CREATE INDEX wallet_bets_player ON wallet_bets (operator_id, player_id, seq DESC);
CREATE INDEX wallet_bets_round ON wallet_bets (round_id);
CREATE TABLE wallet_idempotency (
    operator_id     text NOT NULL,
    key             text NOT NULL,
    request_hash    text NOT NULL,
    status_code     integer,
    response        json,  -- json, not jsonb: a replay is byte for byte the first answer
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (operator_id, key)
);
-- Lock a player's row (creating it if new), then read its stream version and one balance.
-- A VOLATILE function's statements each take a fresh snapshot, so the reads come after the
-- lock is granted and see whatever the lock's previous holder committed.
CREATE FUNCTION wallet_lock_player(
    p_operator text, p_player text, p_stream text, p_currency text,
    OUT locked_version integer, OUT locked_balance bigint
) LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM wallet_players
     WHERE operator_id = p_operator AND player_id = p_player FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO wallet_players (operator_id, player_id) VALUES (p_operator, p_player)
            ON CONFLICT DO NOTHING;
        PERFORM 1 FROM wallet_players
         WHERE operator_id = p_operator AND player_id = p_player FOR UPDATE;
    END IF;
    SELECT event_stream_version(p_stream) INTO locked_version;
    SELECT coalesce(max(a.balance), 0) INTO locked_balance
      FROM wallet_accounts a
     WHERE a.operator_id = p_operator AND a.player_id = p_player AND a.currency = p_currency;
END
$$;
