-- A player's stakes on a round, every slip together, are read under the player's lock for
-- the exposure limit (domain/betting.py `check_exposure`): the round's index gains the
-- player, and still serves the reads by round alone (the book), so a bet writes no more
-- index entries than before.
CREATE INDEX wallet_bets_round_player ON wallet_bets (round_id, operator_id, player_id);
DROP INDEX wallet_bets_round;
