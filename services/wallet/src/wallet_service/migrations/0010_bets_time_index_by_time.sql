-- The transactions API's index of bets by time leads with the time, not the operator
-- (docs/performance.md, "Seamless wallet"). Led by `operator_id`, it was also a way to every
-- bet of an operator, and the planner took it for a player's stakes on a round (the exposure
-- check of every slip) whenever its statistics did not know the operator yet (a new
-- operator, or a burst of bets since the last ANALYZE): a scan of the operator's every bet per
-- slip. Led by `placed_at`, it serves a time range (the operator's filtered in the index) and
-- nothing else.
DROP INDEX wallet_bets_time;
CREATE INDEX wallet_bets_time ON wallet_bets (placed_at, operator_id);
