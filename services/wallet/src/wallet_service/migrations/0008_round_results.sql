-- A player's last games (games.py, docs/decisions/0077-last-games-kept-by-the-wallet.md): the
-- wallet keeps what it recalls, so the recall asks no other service.
-- Each round's cards as dealt (CardDealt: position -> card), for a round cancelled before its
-- sixth card, and when it ended (RoundClosed's or RoundCancelled's time, or the void's).
ALTER TABLE wallet_rounds
    ADD COLUMN dealt jsonb NOT NULL DEFAULT '{}'::jsonb,
    ADD COLUMN ended_at timestamptz;
-- A transfer player's balance in the round's currency just before its first slip on the round
-- was debited, and just after the last payment (or refund) of its bets on the round.
CREATE TABLE wallet_round_balances (
    operator_id     text NOT NULL,
    player_id       text NOT NULL,
    round_id        text NOT NULL,
    currency        text NOT NULL,
    balance_before  bigint,
    balance_after   bigint,
    PRIMARY KEY (operator_id, player_id, round_id, currency)
);
