#!/bin/sh
# Compose's Kafka ACLs, as deploy/local/stack.sh writes them locally: each service's principal
# may write its own topic, read the topics it consumes with its own consumer groups, and
# create and describe the topics it uses; all PREFIXED
# (docs/decisions/0050-a-principal-per-service.md, 0051-kafka-names-end-with-the-run.md).
set -eu
printf 'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="%s";\n' \
    "$TP_PG_PASSWORD" > /tmp/admin.properties
acl() { # principal arguments...
    principal="$1"; shift
    /opt/kafka/bin/kafka-acls.sh --bootstrap-server kafka:9092 --command-config /tmp/admin.properties \
        --add --force --allow-principal "User:$principal" --resource-pattern-type prefixed "$@"
}
service() { # principal emits consumes...
    principal="$1" emits="$2"; shift 2
    acl "$principal" --operation Write --topic "$emits"
    consumed=""
    for topic in "$@"; do consumed="$consumed --topic $topic"; done
    # shellcheck disable=SC2086
    acl "$principal" --operation Read --operation Describe --group "$principal-" $consumed
    # shellcheck disable=SC2086
    acl "$principal" --operation Create --operation Describe --topic "$emits" $consumed
}
service table table.events scanner.events table.events
service scanner-gateway scanner.events table.events
service settlement settlement.events table.events wallet.events
service wallet wallet.events table.events settlement.events
