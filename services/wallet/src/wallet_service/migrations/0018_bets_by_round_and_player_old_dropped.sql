-- teenpatti: no-transaction
-- The index 0004 built, now that 0017's serves the same reads (its first three columns are
-- the same): dropped without blocking the bets' writes
-- (docs/decisions/0094-online-migrations.md).
DROP INDEX CONCURRENTLY IF EXISTS wallet_bets_round_player;
