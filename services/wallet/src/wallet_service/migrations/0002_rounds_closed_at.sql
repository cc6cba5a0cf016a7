-- When the round's RoundClosed occurred (its envelope's occurred_at): the start of
-- `teenpatti_wallet_round_closed_to_paid_seconds` (consumers.py).
ALTER TABLE wallet_rounds ADD COLUMN closed_at timestamptz;
