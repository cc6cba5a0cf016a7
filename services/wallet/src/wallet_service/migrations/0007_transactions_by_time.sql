-- The transactions API reads an operator's money movements by time (transactions.py,
-- docs/decisions/0069-transactions-and-reconciliation.md): its transfers and its slips in a
-- time range. Bets gain no index on `paid_at`: it would stop their payment being a HOT update
-- (0043); a range of payments reads the operator's bets placed before its end.
CREATE INDEX wallet_transfers_time ON wallet_transfers (operator_id, created_at);
CREATE INDEX wallet_bets_time ON wallet_bets (operator_id, placed_at);
