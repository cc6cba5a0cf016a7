#!/usr/bin/env bash
# The local stack: Apache Kafka (KRaft, single node), PostgreSQL, Redis and Prometheus (which
# scrapes the services `make run` starts and evaluates deploy/prometheus/alerts.yml) as plain
# processes.
#
#   stack.sh up|down|status|logs [kafka|postgres|redis|prometheus ...]
#   stack.sh kill <component>     SIGKILL one component (fault tests); `up` restarts it
#   stack.sh tools                 install the Debian packages the tests use beside the stack:
#                                  kubectl (kubernetes-client), which renders deploy/kubernetes,
#                                  promtool (prometheus), which checks deploy/prometheus, and
#                                  chromium, the Noto fonts and nodejs for the pages' tests
#
# Everything lives under $TP_HOME: data/, logs/, run/ (pid files and sockets), kafka/jars-*,
# secrets/ (mode 0700): one credentials file per principal, `<principal>.env` (0600), made
# with random passwords on the first `up` and kept: `admin` (the tools, the tests, migrations)
# and each service's. Kafka authenticates with SASL/SCRAM-SHA-512 and authorises with ACLs,
# Redis with ACL users, Postgres with a role per service owning its database
# (docs/decisions/0050-a-principal-per-service.md). Ports come from deploy/local/defaults.env,
# overridable in the environment.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

# shellcheck disable=SC1091
eval "$(sed -nE 's/^([A-Z_]+) \?= (.*)$/: "${\1:=\2}"/p' deploy/local/defaults.env)"
mkdir -p "$TP_HOME"
TP_HOME="$(cd "$TP_HOME" && pwd)"
DATA="$TP_HOME/data"
LOGS="$TP_HOME/logs"
RUN="$TP_HOME/run"
JARS="$TP_HOME/kafka/jars-$TP_KAFKA_VERSION"
DATABASES="teenpatti tp_table tp_scanner tp_settlement tp_wallet tp_access tp_operator"
# Postgres's data, socket and log: under $TP_HOME, unless the postgres system user (which runs
# it when we are root) cannot enter $TP_HOME (a clone in a private folder such as /root/x):
# then in a folder of its own outside it (`pg_place`).
PG_DATA="$DATA/postgres"
PG_RUN="$RUN"
PG_LOG="$LOGS/postgres.log"
ALL="postgres redis kafka prometheus"
SECRETS="$TP_HOME/secrets"
# the principals: the admin and each service (its Kafka user, Redis user, Postgres role)
SERVICES="table scanner-gateway settlement wallet"
# each service's database
declare -A DATABASE_OF=([table]=tp_table [scanner-gateway]=tp_scanner [settlement]=tp_settlement [wallet]=tp_wallet)
# what each service consumes (the `subscriptions` of its app.py) and emits
declare -A CONSUMES=([table]="scanner.events table.events" [scanner-gateway]="table.events"
    [settlement]="table.events wallet.events" [wallet]="table.events settlement.events")
declare -A EMITS=([table]=table.events [scanner-gateway]=scanner.events
    [settlement]=settlement.events [wallet]=wallet.events)
REDIS_USERS="table scanner-gateway"

say() { printf '%s\n' "$*"; }
fail() { printf 'stack: %s\n' "$*" >&2; exit 1; }

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

who_listens() {
    command -v ss >/dev/null 2>&1 && ss -ltnpH "sport = :$1" 2>/dev/null | sed 's/.*users://' | head -1
}

refuse_busy_port() { # component port variable
    if port_busy "$2"; then
        fail "$1 cannot start: port $2 is already in use by another program $(who_listens "$2"). \
Stop that program or choose another port ($3=...; see deploy/local/defaults.env)."
    fi
}

# A killed process stays a zombie until its parent reaps it; daemons are reparented to
# PID 1, which on some machines reaps only every few seconds. A zombie is not running.
running_pid() { [[ -n "$1" ]] && kill -0 "$1" 2>/dev/null && [[ "$(ps -o stat= -p "$1")" != Z* ]]; }
zombie_pid() { [[ -n "$1" ]] && [[ "$(ps -o stat= -p "$1" 2>/dev/null)" == Z* ]]; }
pid_alive() { [[ -f "$1" ]] && running_pid "$(cat "$1")"; }

wait_for() { # description seconds log command...
    local what="$1" secs="$2" log="$3"; shift 3
    local i
    for ((i = 0; i < secs * 4; i++)); do
        if "$@" >/dev/null 2>&1; then return 0; fi
        sleep 0.25
    done
    fail "$what did not become ready within ${secs}s; read $log"
}

apt_install() { # package...
    [[ "$(id -u)" == 0 ]] || fail "missing $*; install it with: sudo apt-get install -y $*"
    say "==> installing Debian packages: $* (apt-get; minutes on a first run; its output: $LOGS/apt-get.log)"
    # Package scripts must not start system-wide services on their default ports.
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    {
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" ||
            { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@"; }
    } > "$LOGS/apt-get.log" 2>&1 || { rm -f /usr/sbin/policy-rc.d; fail "apt-get install $* failed; read $LOGS/apt-get.log"; }
    rm -f /usr/sbin/policy-rc.d
}

# ---------------------------------------------------------------- secrets
random_secret() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

# the Postgres role of a principal: the admin's is TP_PG_USER, a service's teenpatti_<name>
pg_role_of() { if [[ "$1" == admin ]]; then printf '%s' "$TP_PG_USER"; else printf 'teenpatti_%s' "${1//-/_}"; fi; }

secrets_up() {
    ( umask 077; mkdir -p "$SECRETS" ); chmod 700 "$SECRETS"
    local principal file
    for principal in admin $SERVICES; do
        file="$SECRETS/$principal.env"
        [[ -f "$file" ]] && continue
        ( umask 077
          {
            echo "# $principal's credentials on the local stack (deploy/local/stack.sh); TP_CREDENTIALS_DIR"
            echo "TP_PG_USER=$(pg_role_of "$principal")"
            echo "TP_PG_PASSWORD=$(random_secret)"
            echo "TP_KAFKA_SECURITY_PROTOCOL=SASL_PLAINTEXT"
            echo "TP_KAFKA_SASL_MECHANISM=SCRAM-SHA-512"
            echo "TP_KAFKA_USERNAME=$principal"
            echo "TP_KAFKA_PASSWORD=$(random_secret)"
            if [[ "$principal" == admin || " $REDIS_USERS " == *" $principal "* ]]; then
                echo "TP_REDIS_USERNAME=$principal"
                echo "TP_REDIS_PASSWORD=$(random_secret)"
            fi
          } > "$file.tmp" && mv "$file.tmp" "$file" )
        say "secrets   made $file"
    done
}

secret() { # principal NAME
    sed -nE "s/^TP_$2=(.*)$/\1/p" "$SECRETS/$1.env"
}

# ---------------------------------------------------------------- PostgreSQL
pg_bin() {
    local dir
    dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
    if [[ -z "$dir" || ! -x "$dir/postgres" ]]; then
        apt_install postgresql
        dir="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
    fi
    printf '%s' "$dir"
}

# Postgres refuses to run as root: as root it runs as the `postgres` system user.
as_pg() {
    # from / : the postgres user may not be able to enter the current folder
    if [[ "$(id -u)" == 0 ]]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

pg_psql() { as_pg "$(pg_bin)/psql" -X -q -v ON_ERROR_STOP=1 -h "$PG_RUN" -p "$TP_PG_PORT" -U postgres "$@"; }

pg_place() {
    [[ "$(id -u)" == 0 ]] && id postgres >/dev/null 2>&1 || return 0
    runuser -u postgres -- test -x "$TP_HOME" && return 0
    local outside
    outside="/var/lib/teenpatti-stack/$(printf '%s' "$TP_HOME" | sha256sum | cut -c1-12)"
    mkdir -p "$outside/run" && chown -R postgres "$outside" && chmod 700 "$outside"
    PG_DATA="$outside/postgres"
    PG_RUN="$outside/run"
    PG_LOG="$outside/postgres.log"
    ln -sfn "$PG_LOG" "$LOGS/postgres.log"
    PG_OUTSIDE="the postgres user cannot enter $TP_HOME, so its data is in $outside"
}

postgres_running() {
    running_pid "$(postgres_pid)" && as_pg "$(pg_bin)/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1
}

# A new postmaster refuses to start while the pid in postmaster.pid exists, zombie or not.
postgres_wait_reaped() {
    local pid; pid="$(postgres_pid)"
    if zombie_pid "$pid"; then
        wait_for "the killed postgres (pid $pid) to be reaped" 60 "$PG_LOG" \
            not_zombie "$pid"
    fi
}
not_zombie() { ! zombie_pid "$1"; }

postgres_up() {
    local bin log
    bin="$(pg_bin)"
    pg_place
    log="$PG_LOG"
    [[ -n "${PG_OUTSIDE:-}" ]] && say "postgres  $PG_OUTSIDE"
    if [[ -f "$PG_DATA/PG_VERSION" ]] && postgres_running; then
        pg_databases
        say "postgres  already running on port $TP_PG_PORT"; return
    fi
    refuse_busy_port postgres "$TP_PG_PORT" TP_PG_PORT
    postgres_wait_reaped
    if [[ "$(id -u)" == 0 ]]; then
        chown postgres "$DATA" "$RUN" "$LOGS"
    fi
    if [[ ! -f "$PG_DATA/PG_VERSION" ]]; then
        say "postgres  initialising $PG_DATA"
        as_pg "$bin/initdb" -D "$PG_DATA" -U postgres --auth-local=trust \
            --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 > "$LOGS/initdb.log" 2>&1 ||
            fail "initdb failed; read $LOGS/initdb.log"
        cat >> "$PG_DATA/postgresql.conf" <<EOF
# local stack (deploy/local/stack.sh)
listen_addresses = '127.0.0.1'
# local connections are trusted (stack.sh's own, as the postgres user): the socket is theirs
unix_socket_permissions = 0700
max_connections = 300
shared_buffers = 512MB
max_wal_size = 4GB
EOF
    fi
    touch "$log"; [[ "$(id -u)" == 0 ]] && chown postgres "$log"
    as_pg "$bin/pg_ctl" -D "$PG_DATA" -l "$log" -w -t 60 \
        -o "-p $TP_PG_PORT -k $PG_RUN" start > /dev/null ||
        fail "postgres did not start on port $TP_PG_PORT; read $log"
    pg_databases
    say "postgres  running on port $TP_PG_PORT (databases: $DATABASES)"
}

# The roles and databases, idempotent (a stack made before the roles is upgraded): the admin
# role (TP_PG_USER: migrations of the access database, tests, tools) may create databases and
# is a member of each service's role; each service's role owns its database and everything in
# it, and may connect to no other but the access database, which it may only read.
pg_databases() {
    local admin principal role db roles=""
    admin="$(pg_role_of admin)"
    # a stack made before: only the postgres user may use the trusted socket (next restart)
    pg_psql -d postgres -c "ALTER SYSTEM SET unix_socket_permissions = '0700'"
    pg_psql -d postgres <<SQL
SELECT format('CREATE ROLE %I LOGIN CREATEDB', '$admin')
 WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$admin')\gexec
ALTER ROLE "$admin" WITH LOGIN CREATEDB NOSUPERUSER PASSWORD '$(secret admin PG_PASSWORD)';
SQL
    for principal in $SERVICES; do
        role="$(pg_role_of "$principal")"
        roles="$roles${roles:+, }\"$role\""
        pg_psql -d postgres <<SQL
SELECT format('CREATE ROLE %I LOGIN', '$role')
 WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$role')\gexec
ALTER ROLE "$role" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION
    PASSWORD '$(secret "$principal" PG_PASSWORD)';
SELECT format('GRANT %I TO %I', '$role', '$admin')
 WHERE NOT pg_has_role('$admin', '$role', 'MEMBER')\gexec
SQL
    done
    for db in $DATABASES postgres template1; do
        pg_psql -d postgres <<SQL
SELECT format('CREATE DATABASE %I OWNER %I', '$db', '$admin')
 WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '$db')\gexec
REVOKE CONNECT, TEMPORARY ON DATABASE "$db" FROM PUBLIC;
GRANT CONNECT ON DATABASE "$db" TO "$admin";
SQL
    done
    for principal in $SERVICES; do
        role="$(pg_role_of "$principal")" db="${DATABASE_OF[$principal]}"
        pg_psql -d postgres -c "ALTER DATABASE \"$db\" OWNER TO \"$role\""
        # a stack made before the roles: what the admin made in it becomes the service's
        pg_psql -d "$db" <<SQL
DO \$\$
DECLARE object record;
BEGIN
    FOR object IN SELECT c.oid::regclass AS name FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm')
          AND c.relowner <> '$role'::regrole
    LOOP
        EXECUTE format('ALTER TABLE %s OWNER TO %I', object.name, '$role');
    END LOOP;
    FOR object IN SELECT p.oid::regprocedure AS name FROM pg_proc p
        JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public' AND p.proowner <> '$role'::regrole
    LOOP
        EXECUTE format('ALTER ROUTINE %s OWNER TO %I', object.name, '$role');
    END LOOP;
END
\$\$;
SQL
    done
    if [[ " $DATABASES " == *" tp_access "* ]]; then
        pg_psql -d postgres -c "GRANT CONNECT ON DATABASE tp_access TO $roles"
        pg_psql -d tp_access <<SQL
GRANT USAGE ON SCHEMA public TO $roles;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO $roles;
ALTER DEFAULT PRIVILEGES FOR ROLE "$admin" IN SCHEMA public GRANT SELECT ON TABLES TO $roles;
SQL
    fi
}

postgres_down() {
    if [[ -f "$PG_DATA/PG_VERSION" ]] && postgres_running; then
        as_pg "$(pg_bin)/pg_ctl" -D "$PG_DATA" -m fast -w stop > /dev/null
        say "postgres  stopped"
    else
        say "postgres  not running"
    fi
}

postgres_pid() { head -1 "$PG_DATA/postmaster.pid" 2>/dev/null || true; }

# ---------------------------------------------------------------- Redis
# The ACL users: `default` off; the admin (tests, tools) everything; each service that uses
# Redis only its own keys and channels (after any run's prefix), and no admin or dangerous
# command. A PSUBSCRIBE pattern must match an allowed channel pattern literally, so the
# gateway subscribes to `*scan:*` itself, whatever the run's prefix; it may publish on no
# other channel (the table's feed is the table's alone).
redis_acl() {
    echo "user default off resetkeys resetchannels -@all"
    echo "user admin on #$(redis_hash admin) ~* &* +@all"
    echo "user table on #$(redis_hash table) resetchannels ~*table:* ~*feed:* ~*feed-ticket:* &*feed:* +@all -@admin -@dangerous"
    echo "user scanner-gateway on #$(redis_hash scanner-gateway) resetchannels ~*scan:* &*scan:* +@all -@admin -@dangerous"
}
# only the password's SHA-256 is in the ACL file
redis_hash() { printf '%s' "$(secret "$1" REDIS_PASSWORD)" | sha256sum | cut -d' ' -f1; }
redis_ready() { [[ "$(redis_cli ping 2>/dev/null)" == PONG ]]; }

redis_cli() { REDISCLI_AUTH="$(secret admin REDIS_PASSWORD)" redis-cli --no-auth-warning --user admin -p "$TP_REDIS_PORT" "$@"; }

redis_up() {
    local log="$LOGS/redis.log" pidfile="$RUN/redis.pid" acl="$TP_HOME/redis/users.acl"
    command -v redis-server >/dev/null 2>&1 || apt_install redis-server
    ( umask 077; mkdir -p "$TP_HOME/redis"; redis_acl > "$acl" )
    if pid_alive "$pidfile"; then
        if [[ "$(redis-cli -p "$TP_REDIS_PORT" ping 2>&1)" != PONG ]]; then  # it asks who
            redis_cli ACL LOAD > /dev/null || fail "redis refused $acl; read $log"
            say "redis     already running on port $TP_REDIS_PORT"; return
        fi
        # made before the ACL users: it holds only state rebuilt from the stores, so restart it
        say "redis     running without authentication: restarting it with its ACL users"
        redis_down
    fi
    refuse_busy_port redis "$TP_REDIS_PORT" TP_REDIS_PORT
    mkdir -p "$DATA/redis"
    # Redis holds only live state rebuilt from the event stores: no persistence.
    redis-server --port "$TP_REDIS_PORT" --bind 127.0.0.1 --dir "$DATA/redis" \
        --daemonize yes --pidfile "$pidfile" --logfile "$log" --save "" --appendonly no \
        --aclfile "$acl" > /dev/null || fail "redis did not start; read $log"
    wait_for "redis" 20 "$log" redis_ready
    say "redis     running on port $TP_REDIS_PORT (ACL users: admin, $REDIS_USERS)"
}

redis_down() { stop_pidfile redis "$RUN/redis.pid"; }

# ---------------------------------------------------------------- Kafka
kafka_jars() {
    [[ -f "$JARS/.complete" ]] && return
    say "==> downloading Apache Kafka $TP_KAFKA_VERSION from Maven Central (once: about 110 MB into ~/.m2 and $JARS; its output: $LOGS/maven.log)"
    rm -rf "$JARS"
    mvn -q -B -f deploy/kafka/pom.xml -Dkafka.version="$TP_KAFKA_VERSION" \
        dependency:copy-dependencies -DoutputDirectory="$JARS" > "$LOGS/maven.log" 2>&1 ||
        fail "Maven could not fetch Kafka $TP_KAFKA_VERSION; read $LOGS/maven.log"
    touch "$JARS/.complete"
}

kafka_java() { # main-class args...
    java -Dlog4j2.configurationFile="$ROOT/deploy/kafka/tools-log4j2.properties" \
        -cp "$JARS/*" "$@"
}

# Every listener authenticates: clients and the broker itself with SCRAM-SHA-512 on BROKER
# (the users are in the cluster's metadata), the broker to its controller with PLAIN on
# CONTROLLER (its only user is in this file, mode 0600); StandardAuthorizer's ACLs decide
# what each principal may do, the admin being the one super user.
kafka_config() { # [plaintext]: as the stack was before authentication (kafka_upgrade)
    local admin_password listeners map
    admin_password="$(secret admin KAFKA_PASSWORD)"
    listeners="BROKER://127.0.0.1:$TP_KAFKA_PORT,CONTROLLER://127.0.0.1:$TP_KAFKA_CONTROLLER_PORT"
    map="BROKER:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT"
    [[ "${1:-}" == plaintext ]] && map="BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT"
    ( umask 077; cat > "$TP_HOME/kafka/server.properties" <<EOF
# generated by deploy/local/stack.sh
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$TP_KAFKA_CONTROLLER_PORT
listeners=$listeners
advertised.listeners=BROKER://127.0.0.1:$TP_KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=BROKER
listener.security.protocol.map=$map
sasl.enabled.mechanisms=SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
listener.name.broker.sasl.enabled.mechanisms=SCRAM-SHA-512
listener.name.broker.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="$admin_password";
sasl.mechanism.controller.protocol=PLAIN
listener.name.controller.sasl.enabled.mechanisms=PLAIN
listener.name.controller.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="$admin_password" user_admin="$admin_password";
$([[ "${1:-}" == plaintext ]] || echo "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer")
super.users=User:admin
allow.everyone.if.no.acl.found=false
log.dirs=$DATA/kafka
num.partitions=12
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=12
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
log.retention.hours=-1
EOF
    cat > "$TP_HOME/kafka/admin.properties" <<EOF
# the admin's client configuration for Kafka's command line tools (deploy/local/stack.sh)
security.protocol=SASL_PLAINTEXT
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="$admin_password";
EOF
    )
}

# the SCRAM users of every principal, as `kafka-storage format --add-scram` takes them
kafka_scram_arguments() {
    local principal
    for principal in admin $SERVICES; do
        printf -- '--add-scram\nSCRAM-SHA-512=[name=%s,password=%s]\n' "$principal" "$(secret "$principal" KAFKA_PASSWORD)"
    done
}

# A log directory formatted before authentication: its users are added through the broker,
# started once more as it was (PLAINTEXT, no authorizer), then it starts with authentication.
kafka_upgrade() {
    local principal
    say "kafka     made before authentication: adding its SCRAM users (once)"
    kafka_config plaintext
    kafka_start
    for principal in admin $SERVICES; do
        kafka_java kafka.admin.ConfigCommand --bootstrap-server "127.0.0.1:$TP_KAFKA_PORT" \
            --alter --entity-type users --entity-name "$principal" \
            --add-config "SCRAM-SHA-512=[password=$(secret "$principal" KAFKA_PASSWORD)]" \
            >> "$LOGS/kafka-users.log" 2>&1 || fail "adding Kafka user $principal failed; read $LOGS/kafka-users.log"
    done
    kafka_down > /dev/null
    touch "$DATA/kafka/.scram-users"
}

# What each service's principal may do: write its own topic; read the topics it consumes
# with its own consumer groups (`<service>-...`); describe and create the topics it uses.
# PREFIXED, so that a test run's names (`table.events.<run>`, `table-scanner.<run>`) match
# (docs/decisions/0051-kafka-names-end-with-the-run.md). Idempotent; done when they change.
kafka_acls() {
    local principal topic spec marker="$DATA/kafka/.acls" uses
    spec="$(declare -p CONSUMES EMITS)"
    [[ -f "$marker" && "$(cat "$marker")" == "$spec" ]] && return
    say "kafka     writing the ACLs of $SERVICES"
    for principal in $SERVICES; do
        uses="${EMITS[$principal]} ${CONSUMES[$principal]}"
        kafka_acl "$principal" --operation Write --topic "${EMITS[$principal]}"
        kafka_acl "$principal" --operation Read --operation Describe --group "$principal-" \
            $(for topic in ${CONSUMES[$principal]}; do printf -- '--topic %s ' "$topic"; done)
        kafka_acl "$principal" --operation Create --operation Describe \
            $(for topic in $uses; do printf -- '--topic %s ' "$topic"; done)
    done
    printf '%s' "$spec" > "$marker"
}

kafka_acl() { # principal aclcommand-arguments...
    local principal="$1"; shift
    kafka_java org.apache.kafka.tools.AclCommand --bootstrap-server "127.0.0.1:$TP_KAFKA_PORT" \
        --command-config "$TP_HOME/kafka/admin.properties" --add --force \
        --allow-principal "User:$principal" --resource-pattern-type prefixed "$@" \
        >> "$LOGS/kafka-acls.log" 2>&1 || fail "writing Kafka ACLs of $principal failed; read $LOGS/kafka-acls.log"
}

kafka_started() { # log offset
    local offset="$2"
    # the log may have rolled over since the start: then read the new file from its start
    (($(stat -c %s "$1") < offset)) && offset=0
    # grep -q stops at the line and tail gets SIGPIPE: under pipefail that failed the check
    # whenever much was logged after the line (a broker with many partitions), so ignore it
    { tail -c +"$((offset + 1))" "$1" 2>/dev/null || true; } | grep -q "Kafka Server started"
}

kafka_up() {
    local pidfile="$RUN/kafka.pid"
    if pid_alive "$pidfile"; then
        if [[ -f "$DATA/kafka/.scram-users" ]]; then
            kafka_acls
            say "kafka     already running on port $TP_KAFKA_PORT"; return
        fi
        say "kafka     running without authentication: restarting it with its users and ACLs"
        kafka_down
    fi
    refuse_busy_port kafka "$TP_KAFKA_PORT" TP_KAFKA_PORT
    refuse_busy_port "kafka controller" "$TP_KAFKA_CONTROLLER_PORT" TP_KAFKA_CONTROLLER_PORT
    command -v java >/dev/null 2>&1 || apt_install openjdk-17-jre-headless
    command -v mvn >/dev/null 2>&1 || apt_install maven
    kafka_jars
    mkdir -p "$TP_HOME/kafka"
    if [[ ! -f "$DATA/kafka/meta.properties" ]]; then
        kafka_config
        local scram=()
        mapfile -t scram < <(kafka_scram_arguments)
        kafka_java kafka.tools.StorageTool format -t "$(kafka_java kafka.tools.StorageTool random-uuid)" \
            -c "$TP_HOME/kafka/server.properties" "${scram[@]}" > "$LOGS/kafka-format.log" 2>&1 ||
            fail "formatting the Kafka log directory failed; read $LOGS/kafka-format.log"
        touch "$DATA/kafka/.scram-users"
    elif [[ ! -f "$DATA/kafka/.scram-users" ]]; then
        kafka_upgrade
    fi
    kafka_config
    kafka_start
    kafka_acls
}

kafka_start() {
    local log="$LOGS/kafka.log" pidfile="$RUN/kafka.pid" offset
    touch "$log"
    offset="$(stat -c %s "$log")"
    nohup java -Xms256m -Xmx1g -XX:+UseG1GC -Djava.awt.headless=true \
        -Dlog4j2.configurationFile="$ROOT/deploy/kafka/log4j2.properties" \
        -Dkafka.logs.dir="$LOGS" -cp "$JARS/*" kafka.Kafka "$TP_HOME/kafka/server.properties" \
        > "$LOGS/kafka.out" 2>&1 < /dev/null &
    echo $! > "$pidfile"
    local i
    for ((i = 0; i < 240; i++)); do
        kafka_started "$log" "$offset" && { say "kafka     running on port $TP_KAFKA_PORT"; return; }
        pid_alive "$pidfile" || fail "kafka exited during start; read $log and $LOGS/kafka.out"
        sleep 0.25
    done
    fail "kafka did not start within 60s; read $log and $LOGS/kafka.out"
}

kafka_down() { stop_pidfile kafka "$RUN/kafka.pid"; }

# ---------------------------------------------------------------- Prometheus
# Debian's package (promtool comes with it). Its folder, $DATA/prometheus, holds the
# configuration and the rules (links to deploy/prometheus/local.yml and alerts.yml: the paths
# in the configuration are relative to it), the targets file `make run` writes
# (targets/teenpatti.json) and the time series (tsdb/).
prometheus_bin() { command -v prometheus >/dev/null 2>&1 || apt_install --no-install-recommends prometheus; }

prometheus_up() {
    local log="$LOGS/prometheus.log" pidfile="$RUN/prometheus.pid" dir="$DATA/prometheus"
    prometheus_bin
    if pid_alive "$pidfile"; then say "prometheus already running on port $TP_PROMETHEUS_PORT"; return; fi
    refuse_busy_port prometheus "$TP_PROMETHEUS_PORT" TP_PROMETHEUS_PORT
    mkdir -p "$dir/targets" "$dir/tsdb"
    ln -sfn "$ROOT/deploy/prometheus/local.yml" "$dir/prometheus.yml"
    ln -sfn "$ROOT/deploy/prometheus/alerts.yml" "$dir/alerts.yml"
    [[ -f "$dir/targets/teenpatti.json" ]] || echo '[]' > "$dir/targets/teenpatti.json"
    nohup prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/tsdb" \
        --storage.tsdb.retention.time=7d --web.listen-address="127.0.0.1:$TP_PROMETHEUS_PORT" \
        --web.enable-lifecycle > "$log" 2>&1 < /dev/null &
    echo $! > "$pidfile"
    wait_for "prometheus" 30 "$log" prometheus_ready
    say "prometheus running on port $TP_PROMETHEUS_PORT (http://127.0.0.1:$TP_PROMETHEUS_PORT)"
}

prometheus_ready() { pid_alive "$RUN/prometheus.pid" && port_busy "$TP_PROMETHEUS_PORT"; }

prometheus_down() { stop_pidfile prometheus "$RUN/prometheus.pid"; }

# ---------------------------------------------------------------- tools
# `kubectl kustomize` renders deploy/kubernetes for tests/deploy; any kubectl will do, and
# Debian's kubernetes-client is the one installed when there is none. promtool checks the
# Prometheus configuration and rules (tests/deploy). The browser tests (tests/browser) drive
# Debian's Chromium, which has no Thai, Persian or Japanese glyphs without the Noto fonts
# (the rules pages would show boxes); Node runs the pages' script tests (tests/unit/web).
BROWSER_FONTS="fonts-noto-core fonts-noto-cjk"

deb_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

tools_up() {
    say "==> the Debian tools the tests use: kubectl, promtool, chromium, the Noto fonts, node (each installed when missing)"
    command -v kubectl >/dev/null 2>&1 || apt_install kubernetes-client
    command -v promtool >/dev/null 2>&1 || prometheus_bin
    [[ -x /usr/bin/chromium ]] || apt_install chromium
    local font missing=()
    for font in $BROWSER_FONTS; do deb_installed "$font" || missing+=("$font"); done
    if ((${#missing[@]})); then apt_install "${missing[@]}"; fi
    command -v node >/dev/null 2>&1 || apt_install nodejs
}

# ---------------------------------------------------------------- common
stop_pidfile() { # name pidfile
    local name="$1" pidfile="$2" pid i
    if ! pid_alive "$pidfile"; then say "$(printf '%-9s' "$name") not running"; rm -f "$pidfile"; return; fi
    pid="$(cat "$pidfile")"
    kill -TERM "$pid"
    for ((i = 0; i < 120; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.25
    done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
    rm -f "$pidfile"
    say "$(printf '%-9s' "$name") stopped"
}

kill_component() {
    case "$1" in
        # the whole server, as a crash takes it: the postmaster and every backend
        postgres) local pid; pid="$(postgres_pid)"; running_pid "$pid" && kill -KILL "$pid" $(pgrep -P "$pid") ;;
        redis | kafka | prometheus) pid_alive "$RUN/$1.pid" && kill -KILL "$(cat "$RUN/$1.pid")" ;;
        *) fail "unknown component '$1' (one of: $ALL)" ;;
    esac
    say "$1 killed"
}

status() {
    local line
    if [[ -f "$PG_DATA/PG_VERSION" ]] && postgres_running; then
        line="running  pid $(postgres_pid)  port $TP_PG_PORT"
    else line="stopped"; fi
    say "postgres  $line"
    local c
    for c in redis kafka prometheus; do
        local port_var="TP_${c^^}_PORT"
        if pid_alive "$RUN/$c.pid"; then
            line="running  pid $(cat "$RUN/$c.pid")  port ${!port_var}"
        else line="stopped"; fi
        say "$(printf '%-9s' "$c") $line"
    done
    say "data and logs: $TP_HOME"
}

check_component() {
    [[ " $ALL " == *" $1 "* ]] || fail "unknown component '$1' (one of: $ALL)"
}

main() {
    local cmd="${1:-}"; shift || true
    local components="${*:-$ALL}"
    mkdir -p "$DATA" "$LOGS" "$RUN"
    pg_place
    case "$cmd" in
        up) secrets_up; for c in $components; do check_component "$c"; "${c}_up"; done ;;
        down)
            local reversed=""
            for c in $components; do check_component "$c"; reversed="$c $reversed"; done
            for c in $reversed; do "${c}_down"; done ;;
        status) status ;;
        logs) exec tail -n 50 -F "$LOGS"/postgres.log "$LOGS"/redis.log "$LOGS"/kafka.log "$LOGS"/prometheus.log ;;
        kill) for c in $components; do kill_component "$c"; done ;;
        tools) tools_up ;;
        *) fail "usage: stack.sh up|down|status|logs|kill [postgres|redis|kafka|prometheus ...] | tools" ;;
    esac
}

main "$@"
