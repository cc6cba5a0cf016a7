-- The round's pay table from its RoundOpened (the engine's mapping form): the wallet settles
-- each bet itself with it and pays a settlement line only if it agrees
-- (domain/payment.py, docs/decisions/0048-wallet-recomputes-every-payout.md).
ALTER TABLE wallet_rounds ADD COLUMN paytable jsonb;
