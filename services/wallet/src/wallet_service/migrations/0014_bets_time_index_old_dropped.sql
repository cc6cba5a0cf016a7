-- teenpatti: no-transaction
-- The index 0010 built while it blocked the bets' writes, now that 0013's serves the same
-- reads: dropped without blocking them (docs/decisions/0094-online-migrations.md).
DROP INDEX CONCURRENTLY IF EXISTS wallet_bets_time;
