-- When the table's round in play was paused (NULL when none is): with `updated_at` (the
-- table's last event), what `teenpatti_table_rounds` and `teenpatti_table_round_stall_seconds`
-- read (adapters/tables.py).
ALTER TABLE tables ADD COLUMN paused_at timestamptz;
