-- Held rounds resolved from the API by two supervisors (resolutions.py): a problem is open
-- until a confirmed resolution closes it (seen again, it opens again); one pending request
-- per round, the maker never its checker.
ALTER TABLE settlement_problems
    ADD COLUMN resolved_at timestamptz,
    ADD COLUMN resolved_by text;
CREATE TABLE settlement_resolutions (
    resolution_id uuid PRIMARY KEY,
    round_id      text NOT NULL,
    action        text NOT NULL CHECK (action IN ('release', 'void')),
    reason        text NOT NULL,
    problems      text[] NOT NULL,
    requested_by  text NOT NULL,
    requested_at  timestamptz NOT NULL DEFAULT now(),
    status        text NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'confirmed', 'superseded')),
    confirmed_by  text,
    confirmed_at  timestamptz,
    outcome       text,               -- settled | waiting | held, once confirmed
    CHECK (confirmed_by IS DISTINCT FROM requested_by)
);
CREATE UNIQUE INDEX settlement_resolutions_pending ON settlement_resolutions (round_id)
    WHERE status = 'pending';
