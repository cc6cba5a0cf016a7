-- 0013's index takes the name the transactions API's index of bets by time has had
-- (0007, 0010): a rename locks the index alone, not the bets, and reads no row.
ALTER INDEX wallet_bets_time_online RENAME TO wallet_bets_time;
