-- The API keys issued by `teenpatti keys` (teenpatti.access): one row per key, never deleted,
-- so that who held which key, when, and who revoked it stays on record. Only the SHA-256 of
-- the key's secret is kept (docs/decisions/0053-api-keys-in-an-access-database.md).
CREATE TABLE access_keys (
    key_id          text PRIMARY KEY CHECK (key_id ~ '^[0-9a-f]{12}$'),
    holder          text NOT NULL CHECK (holder ~ '^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$'),
    role            text NOT NULL CHECK (role IN ('operator', 'supervisor', 'dealer')),
    -- the tables the holder may act on; NULL: every table (an operator's key always)
    tables          text[] CHECK (
                        tables IS NULL
                        OR (cardinality(tables) BETWEEN 1 AND 1000 AND array_position(tables, NULL) IS NULL)
                    ),
    secret_sha256   bytea NOT NULL CHECK (length(secret_sha256) = 32),
    created_at      timestamptz NOT NULL DEFAULT now(),
    created_by      text NOT NULL CHECK (length(created_by) BETWEEN 1 AND 100),
    expires_at      timestamptz NOT NULL,
    revoked_at      timestamptz,
    revoked_by      text CHECK (length(revoked_by) BETWEEN 1 AND 100),
    CHECK (expires_at > created_at),
    CHECK ((revoked_at IS NULL) = (revoked_by IS NULL)),
    CHECK (role = 'supervisor' OR role = 'dealer' OR tables IS NULL)
);
CREATE INDEX access_keys_by_holder ON access_keys (holder, created_at);
