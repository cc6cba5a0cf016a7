-- teenpatti: no-transaction
-- 0010's index of bets by time, built again without a lock that blocks the bets' writes
-- (docs/decisions/0094-online-migrations.md): under another name, beside the old one; 0014
-- drops the old one, 0015 gives the new one its name. IF NOT EXISTS: a build that succeeded
-- but was not recorded is not built twice (an INVALID one the runner drops first).
CREATE INDEX CONCURRENTLY IF NOT EXISTS wallet_bets_time_online
    ON wallet_bets (placed_at, operator_id);
