-- The studio console's last reads of a table (GET /tables/{table_id}/scans,
-- docs/decisions/0077-last-games-kept-by-the-wallet.md): each read keeps what arrived, and the
-- reads are found by table, newest first.
ALTER TABLE scans ADD COLUMN raw text;
CREATE INDEX scans_by_table ON scans (table_id, received_at DESC);
