-- The table service's projections beside its event store (adapters/tables.py,
-- adapters/snapshots.py).

-- One row per table, written in the transaction of each append to its stream.
CREATE TABLE tables (
    table_id        text PRIMARY KEY,
    kafka_partition integer NOT NULL,
    status          text NOT NULL,
    phase           text NOT NULL,
    round_id        text,
    needs_clock     boolean NOT NULL,
    config          jsonb NOT NULL,
    version         integer NOT NULL,
    updated_at      timestamptz NOT NULL DEFAULT now(),
    clock_due_at    timestamptz
);
CREATE INDEX tables_needing_clock ON tables (kafka_partition) WHERE needs_clock;

-- Every change of a table, on any instance, as '<table_id>:<version>:<clock due, epoch ms>'
-- (due empty when nothing is timed), delivered at commit to the instances' table clocks.
CREATE FUNCTION notify_table_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('table_changed', NEW.table_id || ':' || NEW.version || ':'
        || CASE WHEN NEW.clock_due_at IS NULL THEN ''  -- "now" is stored as -infinity
           ELSE (extract(epoch FROM greatest(NEW.clock_due_at, 'epoch')) * 1000)::bigint::text
           END);
    RETURN NULL;
END $$;
CREATE TRIGGER table_changed AFTER INSERT OR UPDATE ON tables
    FOR EACH ROW EXECUTE FUNCTION notify_table_changed();

-- Snapshots of table states, one row per stream: only an optimisation (adapters/snapshots.py).
CREATE TABLE table_snapshots (
    stream_id      text PRIMARY KEY,
    version        integer NOT NULL,
    event_id       uuid NOT NULL,
    schema_version integer NOT NULL,
    state          jsonb NOT NULL,
    taken_at       timestamptz NOT NULL DEFAULT now()
);
