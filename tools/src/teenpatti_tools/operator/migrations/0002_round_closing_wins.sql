-- A win with round_closed settles every open bet of the player's round
-- (docs/decisions/0079-one-win-per-player-and-round.md): whether a bet is settled looks for
-- that win by player and round, not through the round's every transaction.
CREATE INDEX transactions_round_closing_wins ON transactions (user_id, round)
    WHERE kind = 'win' AND round_closed;
