-- Player sessions (adapters/sessions.py): opened by an operator for one player, currency and
-- table; the launch ticket and the session token kept only as their SHA-256
-- (docs/decisions/0068-player-sessions-and-launch.md).
CREATE TABLE wallet_sessions (
    session_id          uuid PRIMARY KEY,
    operator_id         text NOT NULL,
    player_id           text NOT NULL,
    currency            text NOT NULL,
    language            text NOT NULL CHECK (language IN ('en', 'th', 'fa', 'ja', 'ru')),
    table_id            text NOT NULL,
    -- the operator's own token for the player, sent back in its seamless `bet` calls
    operator_token      text NOT NULL,
    -- null once exchanged: a ticket opens its session once
    ticket_sha256       bytea UNIQUE CHECK (octet_length(ticket_sha256) = 32),
    ticket_expires_at   timestamptz NOT NULL,
    secret_sha256       bytea CHECK (octet_length(secret_sha256) = 32),
    created_at          timestamptz NOT NULL,
    created_by          text NOT NULL,
    expires_at          timestamptz NOT NULL,
    launched_at         timestamptz,
    ended_at            timestamptz,
    ended_by            text,
    CHECK ((launched_at IS NULL) = (secret_sha256 IS NULL)),
    CHECK ((launched_at IS NULL) = (ticket_sha256 IS NOT NULL)),
    CHECK ((ended_at IS NULL) = (ended_by IS NULL))
);
CREATE INDEX wallet_sessions_player ON wallet_sessions (operator_id, player_id);
