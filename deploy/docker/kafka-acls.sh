#!/bin/sh
# Compose's Kafka ACLs: the lines of deploy/kafka/acls.txt (mounted at /acls.txt), generated
# from the services' declarations, as deploy/local/stack.sh writes them locally; each line a
# principal, its operations and the topics and consumer groups they allow, all PREFIXED
# (docs/decisions/0050-a-principal-per-service.md, 0051-kafka-names-end-with-the-run.md).
set -eu
printf 'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="%s";\n' \
    "$TP_PG_PASSWORD" > /tmp/admin.properties
while read -r principal operations resources; do
    case "$principal" in '' | '#'*) continue ;; esac
    set -- --allow-principal "User:$principal" --resource-pattern-type prefixed
    for operation in $(printf '%s' "$operations" | tr ',' ' '); do
        set -- "$@" --operation "$operation"
    done
    for resource in $resources; do set -- "$@" "--${resource%%:*}" "${resource#*:}"; done
    # not from the file the loop reads
    /opt/kafka/bin/kafka-acls.sh --bootstrap-server kafka:9092 \
        --command-config /tmp/admin.properties --add --force "$@" < /dev/null
done < /acls.txt
