-- What `teenpatti migrate` applied to this database, one row per migration file.
CREATE TABLE IF NOT EXISTS schema_migrations (
    component   text NOT NULL,
    version     integer NOT NULL,
    name        text NOT NULL,
    checksum    text NOT NULL,
    applied_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (component, version)
);
