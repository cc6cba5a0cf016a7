#!/bin/sh
# Compose's Postgres, at its first start (after databases.sql): a role per service owning its
# database, no CONNECT for anyone else, as deploy/local/stack.sh does locally
# (docs/decisions/0050-a-principal-per-service.md). The admin (POSTGRES_USER) migrates; what
# it makes in a service's database that service's role may read and write.
set -eu
role() { # service database password
    psql -v ON_ERROR_STOP=1 -v role="teenpatti_$1" -v db="$2" -v password="$3" \
        --username "$POSTGRES_USER" --dbname postgres <<'SQL'
CREATE ROLE :"role" LOGIN PASSWORD :'password';
ALTER DATABASE :"db" OWNER TO :"role";
REVOKE CONNECT, TEMPORARY ON DATABASE :"db" FROM PUBLIC;
SQL
    psql -v ON_ERROR_STOP=1 -v role="teenpatti_$1" --username "$POSTGRES_USER" --dbname "$2" <<'SQL'
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON TABLES TO :"role";
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON SEQUENCES TO :"role";
SQL
    # the access database (API keys), where there is one: read only
    if [ -n "$(psql --username "$POSTGRES_USER" --dbname postgres -tAc \
            "SELECT 1 FROM pg_database WHERE datname = 'tp_access'")" ]; then
        psql -v ON_ERROR_STOP=1 -v role="teenpatti_$1" --username "$POSTGRES_USER" \
            --dbname tp_access <<'SQL'
GRANT CONNECT ON DATABASE tp_access TO :"role";
GRANT USAGE ON SCHEMA public TO :"role";
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO :"role";
SQL
    fi
}
for db in postgres template1 teenpatti; do
    psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
        -c "REVOKE CONNECT, TEMPORARY ON DATABASE \"$db\" FROM PUBLIC"
done
role table tp_table "$TP_TABLE_PASSWORD"
role scanner_gateway tp_scanner "$TP_SCANNER_GATEWAY_PASSWORD"
role settlement tp_settlement "$TP_SETTLEMENT_PASSWORD"
role wallet tp_wallet "$TP_WALLET_PASSWORD"
