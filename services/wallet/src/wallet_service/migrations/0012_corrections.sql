-- A round voided after its result (docs/services/wallet.md, "Corrections after a result"):
-- the table's void on the round, each bet corrected once, the ledger's `correction` entries,
-- and one row per player, currency and reversal part (`BetsCorrected`) with what was moved
-- and what was not: a transfer balance's shortfall, or a seamless operator's listed net.
ALTER TABLE wallet_rounds
    ADD COLUMN voided_at   timestamptz,
    ADD COLUMN void_reason text;
ALTER TABLE wallet_bets ADD COLUMN corrected boolean NOT NULL DEFAULT false;
ALTER TABLE wallet_ledger DROP CONSTRAINT wallet_ledger_kind_check;
ALTER TABLE wallet_ledger ADD CONSTRAINT wallet_ledger_kind_check
    CHECK (kind IN ('deposit', 'withdrawal', 'stake', 'return', 'correction'));
CREATE TABLE wallet_corrections (
    reference     uuid NOT NULL,  -- the BetsReversed event it puts right
    operator_id   text NOT NULL,
    player_id     text NOT NULL,
    currency      text NOT NULL,
    round_id      text NOT NULL,
    table_id      text NOT NULL,
    wallet        text NOT NULL CHECK (wallet IN ('transfer', 'seamless')),
    bet_count     integer NOT NULL CHECK (bet_count > 0),
    refunded      bigint NOT NULL CHECK (refunded > 0),
    reversed      bigint NOT NULL CHECK (reversed >= 0),
    net           bigint NOT NULL,  -- refunded - reversed: owed to the player if positive
    applied       bigint NOT NULL,  -- moved on the balance here (0 at a seamless operator)
    shortfall     bigint NOT NULL CHECK (shortfall >= 0),
    balance_after bigint NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    -- a person's word that the operator has settled what was listed (a shortfall collected,
    -- a seamless net paid or taken): `teenpatti operators correction-settled`
    settled_at    timestamptz,
    settled_by    text,
    settle_reason text,
    PRIMARY KEY (reference, operator_id, player_id, currency),
    CHECK ((settled_at IS NULL) = (settled_by IS NULL))
);
CREATE INDEX wallet_corrections_by_time ON wallet_corrections (operator_id, created_at);
CREATE INDEX wallet_corrections_open ON wallet_corrections (created_at)
    WHERE settled_at IS NULL AND (shortfall > 0 OR (wallet = 'seamless' AND net <> 0));
