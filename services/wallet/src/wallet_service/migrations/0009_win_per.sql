-- How a seamless slip's returns are owed (docs/decisions/0079-one-win-per-player-and-round.md):
-- 'round' (one win per player and round) or 'slip' (one win per slip), as its operator was
-- configured when the slip's bet call was recorded. Calls recorded before are 'slip', as they
-- were taken.
ALTER TABLE operator_calls ADD COLUMN win_per text NOT NULL DEFAULT 'slip'
    CHECK (win_per IN ('round', 'slip'));
