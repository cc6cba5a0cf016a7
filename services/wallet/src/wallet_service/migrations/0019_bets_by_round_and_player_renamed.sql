-- 0017's index takes the name the index of bets by round and player has had (0004): a
-- rename locks the index alone, not the bets, and reads no row.
ALTER INDEX wallet_bets_round_player_seq RENAME TO wallet_bets_round_player;
