-- teenpatti: no-transaction
-- 0004's index of bets by round and player gains the bet's order (`seq`), so a payment asks
-- whether a player still has an unpaid bet in a round from the newest bet back: settlement
-- pays a round's bets in the order they were placed, so the newest is the last paid, and the
-- answer comes from one row instead of every bet already paid
-- (docs/decisions/0106-a-players-unpaid-bets-found-newest-first.md). Built without a lock
-- that blocks the bets' writes (docs/decisions/0094-online-migrations.md), under another
-- name beside the old one; 0018 drops the old one, 0019 gives the new one its name.
-- `seq` is never updated, so a bet's payment stays a HOT update (0043).
CREATE INDEX CONCURRENTLY IF NOT EXISTS wallet_bets_round_player_seq
    ON wallet_bets (round_id, operator_id, player_id, seq);
