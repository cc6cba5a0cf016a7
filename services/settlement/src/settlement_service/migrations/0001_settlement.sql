-- The settlement projection beside its event store (adapters/postgres.py): the rounds, their
-- bets and the problems that hold a round.
CREATE TABLE rounds (
    round_id         text PRIMARY KEY,
    table_id         text NOT NULL,
    paytable         jsonb,               -- RoundOpened.paytable
    opened_at        timestamptz,
    result           jsonb,               -- RoundClosed: cards, hands, winner, bonus hand
    cancelled        boolean NOT NULL DEFAULT false,
    cancel_reason    text,
    book_closed      boolean NOT NULL DEFAULT false,
    book_bet_count   integer,
    book_digest      text,
    book_total_stake jsonb,
    settled          boolean NOT NULL DEFAULT false,
    settled_at       timestamptz,
    paytable_source  text,                -- round | published_fallback
    totals           jsonb,               -- RoundSettled.totals, every operator
    updated_at       timestamptz NOT NULL DEFAULT now(),
    -- set when the round's settlement is decided (its first events appended): RoundSettled's
    -- settled_at; `settled` once the last of its events is appended
    decided_at       timestamptz
);
-- written twice, recorded then settled: room for the second version on the row's page (a
-- HOT update, no index touched); see wallet_bets
CREATE TABLE bets (
    bet_id        uuid PRIMARY KEY,
    round_id      text NOT NULL,
    table_id      text NOT NULL,
    slip_id       uuid NOT NULL,
    operator_id   text NOT NULL,
    player_id     text NOT NULL,
    bet_type      text NOT NULL,
    stake         bigint NOT NULL CHECK (stake > 0),
    currency      text NOT NULL,
    placed_at     timestamptz NOT NULL,
    outcome       text,
    returned      bigint,
    fraction_kept text,
    odds          text,
    settled_at    timestamptz,
    -- a bet that arrived after its round's settlement was decided: stored, never settled
    late          boolean NOT NULL DEFAULT false
) WITH (fillfactor = 50);
CREATE INDEX bets_by_round ON bets (round_id);
CREATE TABLE settlement_problems (
    round_id      text NOT NULL,
    kind          text NOT NULL,
    detail        text NOT NULL,
    first_seen_at timestamptz NOT NULL DEFAULT now(),
    last_seen_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (round_id, kind)
);
