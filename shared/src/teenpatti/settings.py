"""Connection settings shared by every service, read once from `TP_*` environment variables.

The defaults match the local stack (`deploy/local/defaults.env`), so a developer's
`make up` and the services agree without any configuration. Its secrets' defaults are
public, so outside development (`TP_ENV`) a process that connects refuses them:
`refuse_default_secrets` (docs/decisions/0049-no-default-secret-outside-development.md).
Each field's description is its entry in docs/configuration.md (`make contracts`).
"""

import ipaddress
import ssl
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Self
from urllib.parse import quote, urlencode

from pydantic import Field, SecretStr, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, SettingsConfigDict

DEVELOPMENT = "dev"
DEVELOPMENT_API_KEYS = (
    "operator-1:operator:dev-operator-1-key,operator-2:operator:dev-operator-2-key,"
    "supervisor-1:supervisor:dev-supervisor-key,dealer-1:dealer:dev-dealer-key,"
    "web:viewer:dev-web-key"
)
# what deploy/docker/.env.example holds until its values are replaced: public too
PLACEHOLDER = "replace-me"
# the principal of the tools, the tests and `teenpatti migrate` in a credentials folder
ADMIN = "admin"
# what a principal's file in TP_CREDENTIALS_DIR may set: its own credentials, nothing else
CREDENTIAL_SETTINGS = frozenset(
    {
        "pg_user",
        "pg_password",
        "kafka_username",
        "kafka_password",
        "kafka_security_protocol",
        "kafka_sasl_mechanism",
        "redis_username",
        "redis_password",
    }
)


class CredentialsError(Exception):
    """A principal's credentials file is missing or holds something else than credentials."""


class DefaultSecretError(Exception):
    """Outside development, secret settings hold values everyone knows. The message names
    each of them, never its value, and says how to fix it."""

    def __init__(self, env: str, reasons: list[str]) -> None:
        self.reasons = reasons
        super().__init__(
            f"refusing to start outside development ({env}) with public development secrets:"
            f" {'; '.join(reasons)}. Set each to a secret of your own (docs/configuration.md),"
            " or set TP_ENV=dev on a development machine."
        )


class DevelopmentSettingError(Exception):
    """Outside development, settings a serving instance reads hold values fit for a development
    machine only (plain http, a loopback address). The message names each and says why."""

    def __init__(self, env: str, reasons: list[str]) -> None:
        self.reasons = reasons
        super().__init__(
            f"refusing to start outside development ({env}) with settings for a development"
            f" machine: {'; '.join(reasons)}. Set each as docs/configuration.md says, or set"
            " TP_ENV=dev on a development machine."
        )


class InfrastructureSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TP_", frozen=True, extra="ignore")

    env: str = Field(
        default="production",
        pattern=r"^(dev|production)$",
        description="`production`: every service, `teenpatti migrate` and `teenpatti audit`"
        " refuse to start while a secret setting holds a public development value"
        " (`TP_PG_PASSWORD`, `TP_API_KEYS` or any other secret unset or at its default, or a"
        " development key in `TP_API_KEYS`), naming each; `dev`: they accept them (the"
        " Makefile's targets and the tests set it)"
        " (docs/decisions/0049-no-default-secret-outside-development.md).",
    )
    pg_host: str = Field(default="127.0.0.1", description="Postgres host.")
    pg_port: int = Field(default=15432, ge=1, le=65535, description="Postgres port.")
    pg_user: str = Field(default="teenpatti", description="Postgres role.")
    pg_password: SecretStr = Field(
        default=SecretStr("teenpatti"),
        description="That role's password; its default is refused outside development (`TP_ENV`).",
    )
    pg_sslmode: str = Field(
        default="prefer",
        pattern=r"^(disable|allow|prefer|require|verify-ca|verify-full)$",
        description="TLS to Postgres, as libpq's `sslmode`: `verify-full` checks the server's"
        " certificate against `TP_PG_SSLROOTCERT` and its name against `TP_PG_HOST`.",
    )
    pg_sslrootcert: str = Field(
        default="", description="The CA file that signs Postgres's certificate (TLS)."
    )
    pg_sslcert: str = Field(
        default="", description="A client certificate for Postgres (TLS), with `TP_PG_SSLKEY`."
    )
    pg_sslkey: str = Field(default="", description="The client certificate's private key file.")
    credentials_dir: str = Field(
        default="",
        description="A folder of credentials files, `<principal>.env`, each `TP_NAME=value`"
        " lines of one principal's `TP_PG_USER`, `TP_PG_PASSWORD`, `TP_KAFKA_USERNAME`,"
        " `TP_KAFKA_PASSWORD`, `TP_KAFKA_SECURITY_PROTOCOL`, `TP_KAFKA_SASL_MECHANISM`,"
        " `TP_REDIS_USERNAME` and `TP_REDIS_PASSWORD`: a service reads its own"
        " (`table.env`, `scanner-gateway.env`, `settlement.env`, `wallet.env`) over those"
        " settings, and the tools, the tests and `teenpatti migrate`'s checks read `admin.env`;"
        " `teenpatti migrate` applies each service's migrations as that service, so its role"
        " owns its tables. `make up` writes them under `$TP_HOME/secrets` (mode 0600); empty:"
        " the settings alone (docs/decisions/0050-a-principal-per-service.md).",
    )
    kafka_bootstrap: str = Field(
        default="",
        description="Kafka bootstrap servers, `host:port[,host:port...]`; empty: the local"
        " broker, `127.0.0.1:<TP_KAFKA_PORT>`.",
    )
    kafka_port: int = Field(
        default=19092,
        ge=1,
        le=65535,
        description="The local broker's port, used only while `TP_KAFKA_BOOTSTRAP` is empty.",
    )
    kafka_security_protocol: str = Field(
        default="PLAINTEXT",
        pattern=r"^(PLAINTEXT|SASL_PLAINTEXT|SASL_SSL|SSL)$",
        description="How a client talks to Kafka: `SASL_PLAINTEXT` or `SASL_SSL` authenticate"
        " with `TP_KAFKA_USERNAME`/`TP_KAFKA_PASSWORD` (the local stack: `SASL_PLAINTEXT`),"
        " `SSL` with a client certificate; `PLAINTEXT` (no authentication) is refused outside"
        " development (`TP_ENV`).",
    )
    kafka_sasl_mechanism: str = Field(
        default="SCRAM-SHA-512",
        pattern=r"^(SCRAM-SHA-512|SCRAM-SHA-256|PLAIN)$",
        description="The SASL mechanism; `PLAIN` sends the password itself, so only over TLS.",
    )
    kafka_username: str = Field(
        default="",
        description="This process's Kafka principal (`User:<name>`): the ACLs give each"
        " service's principal its own topic to write and the topics it consumes to read.",
    )
    kafka_password: SecretStr = Field(
        default=SecretStr(""),
        description="That principal's password; required outside development with SASL.",
    )
    kafka_ssl_cafile: str = Field(
        default="", description="The CA file that signs the brokers' certificates (TLS)."
    )
    kafka_ssl_certfile: str = Field(
        default="",
        description="A client certificate for Kafka (TLS; with `SSL`, the principal's"
        " credential), with `TP_KAFKA_SSL_KEYFILE`.",
    )
    kafka_ssl_keyfile: str = Field(default="", description="The client certificate's key file.")
    kafka_ssl_check_hostname: bool = Field(
        default=True, description="Check that a broker's certificate names its host (TLS)."
    )
    kafka_partitions: int = Field(
        default=12,
        ge=1,
        le=1000,
        description="Partitions of every topic: a service creates the missing topics with this"
        " count and refuses to start on a topic with another"
        " (docs/decisions/0015-one-partition-count-keyed-by-table.md); the table service also"
        " maps each table to its partition with it.",
    )
    kafka_replication_factor: int = Field(
        default=1,
        ge=1,
        le=7,
        description="Replication factor of the topics a service creates (3 on a production"
        " cluster).",
    )
    redis_host: str = Field(
        default="127.0.0.1",
        description="Redis host; only the table service and the scanner-gateway use Redis.",
    )
    redis_port: int = Field(default=16379, ge=1, le=65535, description="Redis port.")
    redis_username: str = Field(
        default="",
        description="This process's Redis ACL user; empty: `default`. The local stack's users"
        " reach only their service's keys and channels.",
    )
    redis_password: SecretStr = Field(
        default=SecretStr(""),
        description="That user's password; required outside development by the services that"
        " use Redis.",
    )
    redis_tls: bool = Field(default=False, description="Talk to Redis over TLS (`rediss://`).")
    redis_ssl_cafile: str = Field(
        default="", description="The CA file that signs Redis's certificate (TLS)."
    )
    redis_ssl_certfile: str = Field(
        default="", description="A client certificate for Redis (TLS), with its key file."
    )
    redis_ssl_keyfile: str = Field(default="", description="The client certificate's key file.")
    pg_pool_size: int = Field(
        default=20,
        ge=2,
        le=500,
        description="The most connections of one instance's Postgres pool (at least 2 are kept"
        " open); HTTP requests, consumers, the relay and background tasks share it.",
    )
    consumer_batches: bool = Field(
        default=True,
        description="A consumer handles each poll's records in one transaction; `false`: one"
        " transaction per record (docs/decisions/0018-batched-consumers.md).",
    )
    consumer_max_records: int = Field(
        default=500,
        ge=1,
        le=100_000,
        description="The most records one poll brings, so the largest batch; a subscription may"
        " set its own (the wallet's `settlement.events`: `TP_SETTLEMENT_POLL_RECORDS`).",
    )
    consumer_wait_seconds: float = Field(
        default=120.0,
        gt=0,
        le=240,
        description="How long a consumer keeps handling again an event that came before a fact"
        " it depends on (`NotYetError`: a settlement before its round's result reached the"
        " wallet) before parking it; below Kafka's 5-minute poll interval.",
    )
    consumer_after_commit: bool = Field(
        default=True,
        description="Run the actions a handler returns once its transaction has committed (the"
        " gateway's verdict announcements); `false` drops them, and their readers fall back to"
        " Postgres (docs/decisions/0022-actions-after-commit.md).",
    )
    compiled_decoders: bool = Field(
        default=True,
        description="Decode the event types read most (a table's configuration and rounds,"
        " settlement parts) with compiled decoders derived from their contracts, which answer"
        " as the contracts do; `false`: pydantic alone"
        " (docs/decisions/0102-compiled-event-decoders.md).",
    )
    startup_wait_seconds: float = Field(
        default=45.0,
        ge=0,
        le=600,
        description="How long a starting instance keeps trying Postgres and Kafka while they"
        " are unreachable or restarting before it gives up and exits (status 3): an instance"
        " started while Kafka or Postgres restarts waits for it. 0: one try.",
    )
    drain_seconds: float = Field(
        default=15.0,
        gt=0,
        le=600,
        description="How long a stopping instance waits for its consumers, relay and background"
        " tasks to finish before cancelling them.",
    )
    migrate_lock_timeout: str = Field(
        default="10s",
        pattern=r"^\d+(ms|s|min)$",
        description="How long a migration statement waits for a table's lock before the run"
        " fails (docs/decisions/0002-versioned-migrations.md); read by `teenpatti migrate`, and"
        " by `make chaos`, `make bench` and the end-to-end tests, which migrate the databases"
        " they create.",
    )
    # the edges: what one caller, one statement or one event may take (teenpatti.kernel.edges,
    # docs/decisions/0062-rate-limits-per-instance.md, 0063-oversized-events-set-aside.md)
    http_max_body_bytes: int = Field(
        default=64 * 1024,
        ge=1024,
        le=64 * 1024 * 1024,
        description="The largest request body any HTTP route accepts; a larger one is refused"
        " with 413 `payload_too_large` as it arrives, whatever its Content-Length says (the"
        " gateway's `POST /scans` bounds its own reading and records what it refused).",
    )
    rate_limit_key_per_second: float = Field(
        default=500.0,
        ge=0,
        le=1_000_000,
        description="Requests per second one API key (or device credential) may make to one"
        " instance, sustained; past its burst a caller gets 429 `rate_limited` with"
        " `Retry-After`, and the other keys are unaffected. 0: no limit per key. Per instance:"
        " N instances behind a balancer let a key make up to N times this. In development"
        " (`TP_ENV=dev`) the limits are off unless a `TP_RATE_LIMIT_*` setting is given another"
        " value than its default.",
    )
    rate_limit_key_burst: int = Field(
        default=1000,
        ge=1,
        le=1_000_000,
        description="How many requests one API key may make at once above its rate.",
    )
    rate_limit_address_per_second: float = Field(
        default=1000.0,
        ge=0,
        le=1_000_000,
        description="Requests per second one client address may make to one instance (with or"
        " without a key), sustained; 0: no limit per address. The address is the socket's"
        " peer, or the one a proxy of `TP_TRUSTED_PROXIES` names; an IPv6 address counts by"
        " its /64.",
    )
    rate_limit_address_burst: int = Field(
        default=2000,
        ge=1,
        le=1_000_000,
        description="How many requests one client address may make at once above its rate.",
    )
    trusted_proxies: str = Field(
        default="",
        description="The proxies whose `X-Forwarded-For` a service believes, comma-separated"
        " addresses or CIDR networks: the web front's, a balancer's. From such a peer the"
        " client address is the right-most entry of `X-Forwarded-For` that is not one of them,"
        " and a key is counted per key and client address (the web front's one key serves"
        " every player: docs/decisions/0087-limits-at-the-web-front.md). Empty: none, every"
        " caller is its socket's peer, and behind a proxy every caller shares its address.",
    )

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, value: str) -> str:
        for entry in filter(None, (part.strip() for part in value.split(","))):
            ipaddress.ip_network(entry, strict=False)  # a ValueError names the entry
        return value

    pg_statement_timeout_ms: int = Field(
        default=15_000,
        ge=0,
        le=3_600_000,
        description="Postgres cancels any statement of a service's pool that runs longer"
        " (`statement_timeout`); 0: never. Not for `teenpatti migrate`.",
    )
    pg_idle_in_transaction_timeout_ms: int = Field(
        default=30_000,
        ge=0,
        le=3_600_000,
        description="Postgres ends a pooled session left idle inside a transaction this long"
        " (`idle_in_transaction_session_timeout`), releasing its locks; 0: never.",
    )
    pg_command_timeout_seconds: float = Field(
        default=30.0,
        ge=0,
        le=3600,
        description="How long a service waits for Postgres to answer one command before it"
        " gives up (asyncpg's `command_timeout`), even when the server or the network is gone"
        " silent; above `TP_PG_STATEMENT_TIMEOUT_MS`, so that Postgres's own cancellation comes"
        " first. 0: no limit.",
    )
    redis_socket_timeout_seconds: float = Field(
        default=5.0,
        gt=0,
        le=300,
        description="How long a Redis command may wait for its answer before it fails (a"
        " subscription's reads set their own, shorter, wait).",
    )
    redis_connect_timeout_seconds: float = Field(
        default=5.0, gt=0, le=300, description="How long connecting to Redis may take."
    )
    kafka_max_event_bytes: int = Field(
        default=1_000_000,
        ge=1024,
        le=100 * 1024 * 1024,
        description="The largest record (key, value and headers) the outbox relay sends to"
        " Kafka; a larger event, or one Kafka refuses as too large, is set aside (parked in"
        " the store, listed by `GET /problems`) and the relay goes on with the rest. Keep it"
        " below the broker's `message.max.bytes` and the topics' `max.message.bytes`"
        " (1,048,588 by default).",
    )
    consumer_max_record_bytes: int = Field(
        default=1_000_000,
        ge=1024,
        le=100 * 1024 * 1024,
        description="The largest record (key and value) a consumer reads; a larger one is parked"
        " unread. No producer of ours sends more than `TP_KAFKA_MAX_EVENT_BYTES`.",
    )
    topic_prefix: str = Field(
        default="",
        description="A run's name, so that test runs can share one broker and one Redis: after"
        " every topic and consumer group (`table.events.<run>`, `table-scanner.<run>`; a"
        " trailing `.` is dropped), so that the services' PREFIXED ACLs hold for them, and in"
        " front of every Redis key and channel; empty in production"
        " (docs/decisions/0051-kafka-names-end-with-the-run.md).",
    )
    api_keys: SecretStr = Field(
        default=SecretStr(DEVELOPMENT_API_KEYS),
        description="Who may call the HTTP APIs beside the keys of the access database"
        " (`TP_ACCESS_DATABASE`), `name:role:key,...`: each entry a holder's name, its role"
        " (`operator`, `supervisor`, `dealer` or `viewer`) and its key, then optionally"
        " `:tables=T01|T02` (a supervisor's or a dealer's: only those tables; else every"
        " table) and `:expires=<ISO 8601 time>` (refused from then on), last; a"
        " request's operator id is its key's holder, and only the keys' hashes are kept. Read"
        " once, at start: a key that may have to be withdrawn without a restart belongs in"
        " `TP_API_KEYS_FILE` or the access database. The"
        " default holds development keys of `operator-1`, `operator-2`, `supervisor-1`,"
        " `dealer-1` and `web` (the web front's viewer key), refused outside development"
        " (`TP_ENV`) as is any of those keys in another value.",
    )
    api_keys_file: str = Field(
        default="",
        description="A file of more keys like `TP_API_KEYS`'s, one per line (or comma-separated;"
        " a line that starts with `#` is a comment), read again when it changes, checked every"
        " `TP_ACCESS_CACHE_SECONDS` (at least every second): a line removed or changed takes"
        " effect without a restart, as a revocation of the access database does; a mounted"
        " Kubernetes Secret is such a file. A line that cannot be read stops the start, and is"
        " skipped (logged) when the file is read again. Empty: none.",
    )
    access_database: str = Field(
        default="tp_access",
        description="The access database: the API keys issued by `teenpatti keys`, per person"
        " or operator, stored hashed with a role, the tables they may act on, an expiry and a"
        " revocation (docs/access.md). Every service reads it (only when a request"
        " brings such a key), beside `TP_API_KEYS`; `teenpatti keys` and `teenpatti migrate`"
        " write it.",
    )
    access_cache_seconds: float = Field(
        default=5.0,
        ge=0,
        le=300,
        description="How long a service remembers a key read from the access database: a"
        " revocation takes effect within this bound, without a restart (an expiry at once);"
        " 0: every request reads the database.",
    )
    log_level: str = Field(
        default="INFO",
        pattern=r"^(?i:debug|info|warning|error|critical)$",
        description="The least severe log lines a process writes (uvicorn's included).",
    )
    log_format: str = Field(
        default="json",
        pattern=r"^(json|text)$",
        description="`json`: one JSON object per line on stderr (time, level, logger, message,"
        " service, instance and, where known, table_id, round_id, event_type, event_id,"
        " correlation_id, trace_id); `text`: one line for people, `HH:MM:SS level service"
        " message key=value...` (`make run`).",
    )
    instance: str = Field(
        default="",
        description="The `instance` of every log line and trace of the process; empty:"
        " `<hostname>:<pid>`.",
    )
    otlp_endpoint: str = Field(
        default="",
        description="Where spans go, over OTLP/HTTP: the collector's base URL"
        " (`http://collector:4318`, `/v1/traces` added) or its full traces URL; empty: no"
        " exporter, nothing recorded, trace context still passed on"
        " (docs/decisions/0047-trace-context-with-the-event.md).",
    )
    trace_sample_ratio: float = Field(
        default=1.0,
        ge=0,
        le=1,
        description="With `TP_OTLP_ENDPOINT`, the share of new traces recorded; a trace begun"
        " elsewhere keeps its caller's choice.",
    )

    def default_secrets(self, *, redis: bool = True, kafka: bool = True) -> list[str]:
        """Each secret setting that holds a public development value, and each connection
        without authentication (Redis's only if `redis`, Kafka's only if `kafka`: for a
        process that uses it), as `TP_NAME ...` and why; never the value."""
        prefix = str(self.model_config.get("env_prefix", ""))
        found = []
        for name, field in type(self).model_fields.items():
            default = _secret_default(field)
            if default is None:
                continue
            variable = f"{prefix}{name}".upper()
            value: SecretStr = getattr(self, name)
            if not default.get_secret_value():  # no default to refuse: a placeholder only
                if value.get_secret_value().startswith(PLACEHOLDER):
                    found.append(
                        f"{variable} is still the placeholder of deploy/docker/.env.example"
                    )
                continue
            if name not in self.model_fields_set:
                found.append(f"{variable} is not set, so its development default is in use")
            elif value == default:
                found.append(f"{variable} is set to its development default")
            elif name != "api_keys" and value.get_secret_value().startswith(PLACEHOLDER):
                found.append(f"{variable} is still the placeholder of deploy/docker/.env.example")
        keys = self.api_keys.get_secret_value()
        given = []
        if "api_keys" in self.model_fields_set and keys != DEVELOPMENT_API_KEYS:
            given.append(("TP_API_KEYS", keys))
        if self.api_keys_file:
            given.append(("TP_API_KEYS_FILE", _keys_file(self.api_keys_file)))
        development = {key for _, key in development_keys()}
        for variable, spec in given:
            for holder, key in _keys(spec):
                if key in development:
                    found.append(f"{variable} gives {holder!r} a development key")
                elif key.startswith(PLACEHOLDER):
                    found.append(f"{variable} gives {holder!r} a placeholder key")
        return found + self._unauthenticated(redis=redis, kafka=kafka)

    def _unauthenticated(self, *, redis: bool, kafka: bool) -> list[str]:
        """The connections this process would open without a credential of its own."""
        found = []
        protocol = self.kafka_security_protocol
        if kafka and protocol == "PLAINTEXT":
            found.append("TP_KAFKA_SECURITY_PROTOCOL is PLAINTEXT: Kafka without authentication")
        elif kafka and protocol == "SSL" and not self.kafka_ssl_certfile:
            found.append("TP_KAFKA_SSL_CERTFILE is not set: SSL to Kafka without a credential")
        elif kafka and protocol.startswith("SASL"):
            if not self.kafka_username:
                found.append("TP_KAFKA_USERNAME is not set")
            if not self.kafka_password.get_secret_value():
                found.append("TP_KAFKA_PASSWORD is not set")
        if redis and not self.redis_password.get_secret_value():
            found.append("TP_REDIS_PASSWORD is not set: Redis without authentication")
        return found

    def refuse_default_secrets(self, *, redis: bool = True, kafka: bool = True) -> None:
        """Outside development, raise DefaultSecretError if a secret setting holds a public
        development value or a connection would go without authentication (Redis's only if
        `redis`, Kafka's only if `kafka`): called before a process connects to anything."""
        if self.env == DEVELOPMENT:
            return
        found = self.default_secrets(redis=redis, kafka=kafka)
        if found:
            env = f"TP_ENV={self.env}" + ("" if "env" in self.model_fields_set else ", the default")
            raise DefaultSecretError(env, found)

    def development_settings(self) -> list[str]:
        """Each setting a serving instance reads that holds a value fit for a development
        machine only, as `TP_NAME ...` and why: none of these; a service's settings add its
        own."""
        return []

    def refuse_development_settings(self) -> None:
        """Outside development, raise DevelopmentSettingError naming each of
        `development_settings()`: called by a service's start, before it connects (not by the
        `teenpatti` commands, which serve no one)."""
        if self.env == DEVELOPMENT:
            return
        found = self.development_settings()
        if found:
            env = f"TP_ENV={self.env}" + ("" if "env" in self.model_fields_set else ", the default")
            raise DevelopmentSettingError(env, found)

    def as_principal(self, principal: str) -> Self:
        """These settings with `principal`'s credentials from `TP_CREDENTIALS_DIR`
        (`<principal>.env`); themselves when that setting is empty."""
        if not self.credentials_dir:
            return self
        path = Path(self.credentials_dir) / f"{principal}.env"
        try:
            text = path.read_text()
        except OSError as error:
            raise CredentialsError(
                f"no credentials of {principal!r} in TP_CREDENTIALS_DIR ({path}:"
                f" {error.strerror}); `make up` writes them for the local stack"
            ) from None
        values: dict[str, Any] = {}
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            variable, equals, value = line.partition("=")
            name = variable.strip().lower().removeprefix("tp_")
            if not equals or name not in CREDENTIAL_SETTINGS:
                raise CredentialsError(f"{path}:{number} is not a credential setting")
            values[name] = value.strip()
        return type(self).model_validate({**self.model_dump(), **values})

    def postgres_dsn(self, database: str) -> str:
        """The DSN of `database` with these credentials and TLS options (asyncpg and libpq)."""
        user = quote(self.pg_user, safe="")
        password = quote(self.pg_password.get_secret_value(), safe="")
        options = {"sslmode": self.pg_sslmode}
        for name, value in (
            ("sslrootcert", self.pg_sslrootcert),
            ("sslcert", self.pg_sslcert),
            ("sslkey", self.pg_sslkey),
        ):
            if value:
                options[name] = value
        return (
            f"postgresql://{user}:{password}@{self.pg_host}:{self.pg_port}/{database}"
            f"?{urlencode(options)}"
        )

    @property
    def kafka_servers(self) -> str:
        return self.kafka_bootstrap or f"127.0.0.1:{self.kafka_port}"

    def kafka_options(self) -> dict[str, Any]:
        """The connection options of every Kafka client (producer, consumer, admin): the
        bootstrap servers, the security protocol, the SASL credentials and the TLS context."""
        options: dict[str, Any] = {
            "bootstrap_servers": self.kafka_servers,
            "security_protocol": self.kafka_security_protocol,
        }
        if self.kafka_security_protocol.startswith("SASL"):
            options["sasl_mechanism"] = self.kafka_sasl_mechanism
            options["sasl_plain_username"] = self.kafka_username
            options["sasl_plain_password"] = self.kafka_password.get_secret_value()
        if self.kafka_security_protocol.endswith("SSL"):
            context = ssl.create_default_context(cafile=self.kafka_ssl_cafile or None)
            context.check_hostname = self.kafka_ssl_check_hostname
            if self.kafka_ssl_certfile:
                context.load_cert_chain(self.kafka_ssl_certfile, self.kafka_ssl_keyfile or None)
            options["ssl_context"] = context
        return options

    def topic(self, name: str) -> str:
        """A topic's or consumer group's name: `TP_TOPIC_PREFIX` goes after it, so that each
        service's ACLs, PREFIXED on its names, hold for every test run
        (docs/decisions/0051-kafka-names-end-with-the-run.md)."""
        run = self.topic_prefix.strip(".")
        return f"{name}.{run}" if run else name

    @property
    def redis_url(self) -> str:
        """Redis's URL with these credentials and TLS options (`Redis.from_url`)."""
        scheme = "rediss" if self.redis_tls else "redis"
        user = quote(self.redis_username, safe="")
        password = quote(self.redis_password.get_secret_value(), safe="")
        login = f"{user}:{password}@" if password else ""
        # no command waits on Redis for ever (docs/configuration.md)
        options = {
            "socket_timeout": str(self.redis_socket_timeout_seconds),
            "socket_connect_timeout": str(self.redis_connect_timeout_seconds),
        }
        if self.redis_tls:
            options["ssl_cert_reqs"] = "required"
            for name, value in (
                ("ssl_ca_certs", self.redis_ssl_cafile),
                ("ssl_certfile", self.redis_ssl_certfile),
                ("ssl_keyfile", self.redis_ssl_keyfile),
            ):
                if value:
                    options[name] = value
        return f"{scheme}://{login}{self.redis_host}:{self.redis_port}/0?{urlencode(options)}"

    def postgres_pool_options(self) -> dict[str, Any]:
        """The limits of every session of a service's pool (`asyncpg.create_pool`): the server
        cancels a long statement and ends a session idle in a transaction; the client stops
        waiting for an answer that does not come."""
        server_settings = {
            "statement_timeout": str(self.pg_statement_timeout_ms),
            "idle_in_transaction_session_timeout": str(self.pg_idle_in_transaction_timeout_ms),
        }
        command_timeout = self.pg_command_timeout_seconds or None
        return {"command_timeout": command_timeout, "server_settings": server_settings}

    @property
    def rate_limited(self) -> bool:
        """Whether the HTTP rate limits apply: always outside development; in development only
        when a `TP_RATE_LIMIT_*` setting is given another value than its default (benchmarks
        and `make run` drive everything through one key and one address)."""
        fields = type(self).model_fields
        given = any(
            getattr(self, name) != field.default
            for name, field in fields.items()
            if name.startswith("rate_limit_")
        )
        return self.env != DEVELOPMENT or given


def _secret_default(field: FieldInfo) -> SecretStr | None:
    """A secret field's default, if it has one."""
    default = field.get_default(call_default_factory=True)
    if isinstance(default, SecretStr):
        return default
    if field.annotation is SecretStr and isinstance(default, str):
        return SecretStr(default)
    return None


def development_keys() -> list[tuple[str, str]]:
    """The holders and keys of `TP_API_KEYS`'s development default."""
    return _keys(DEVELOPMENT_API_KEYS)


def _keys(spec: str) -> list[tuple[str, str]]:
    """The holders and keys of an API keys setting (`name:role:key[:...],...`); bad entries
    are left to `teenpatti.access.holders.ApiKeys` to refuse."""
    entries = (entry.strip().split(":", 3) for entry in spec.split(","))
    return [(parts[0], parts[2]) for parts in entries if len(parts) >= 3]


def _keys_file(path: str) -> str:
    """The entries of a keys file as one setting's value; none if it cannot be read (the
    process then refuses to start on reading it: `teenpatti.access.ConfiguredKeys`)."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError):
        return ""
    return ",".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


KafkaConnection = str | Mapping[str, Any]


def kafka_client_options(kafka: KafkaConnection) -> dict[str, Any]:
    """A Kafka client's connection options: `InfrastructureSettings.kafka_options()`, or
    bootstrap servers alone (no authentication: a broker of the local stack refuses it)."""
    return {"bootstrap_servers": kafka} if isinstance(kafka, str) else dict(kafka)
