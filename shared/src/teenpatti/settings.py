"""Connection settings shared by every service, read once from `TP_*` environment variables.

The defaults match the local stack (`deploy/local/defaults.env`), so a developer's
`make up` and the services agree without any configuration. Its secrets' defaults are
public, so outside development (`TP_ENV`) a process that connects refuses them:
`refuse_default_secrets` (docs/decisions/0049-no-default-secret-outside-development.md).
Each field's description is its entry in docs/configuration.md (`make contracts`).
"""

from pydantic import Field, SecretStr
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, SettingsConfigDict

DEVELOPMENT = "dev"
DEVELOPMENT_API_KEYS = (
    "operator-1:operator:dev-operator-1-key,operator-2:operator:dev-operator-2-key,"
    "supervisor-1:supervisor:dev-supervisor-key,dealer-1:dealer:dev-dealer-key"
)
# what deploy/docker/.env.example holds until its values are replaced: public too
PLACEHOLDER = "replace-me"


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
    topic_prefix: str = Field(
        default="",
        description="Put in front of every topic, consumer group and Redis key and channel, so"
        " that test runs can share one broker and one Redis; empty in production.",
    )
    api_keys: SecretStr = Field(
        default=SecretStr(DEVELOPMENT_API_KEYS),
        description="Who may call the HTTP APIs, `name:role:key,...`: each entry a holder's"
        " name, its role (`operator`, `supervisor` or `dealer`) and its key; a request's"
        " operator id is its key's holder, and only the keys' hashes are kept. The default"
        " holds development keys of `operator-1`, `operator-2`, `supervisor-1` and `dealer-1`,"
        " refused outside development (`TP_ENV`) as is any of those keys in another value.",
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

    def default_secrets(self) -> list[str]:
        """Each secret setting that holds a public development value, as `TP_NAME ...` and
        why; never the value."""
        prefix = str(self.model_config.get("env_prefix", ""))
        found = []
        for name, field in type(self).model_fields.items():
            default = _secret_default(field)
            if default is None:
                continue
            variable = f"{prefix}{name}".upper()
            value: SecretStr = getattr(self, name)
            if name not in self.model_fields_set:
                found.append(f"{variable} is not set, so its development default is in use")
            elif value == default:
                found.append(f"{variable} is set to its development default")
            elif name != "api_keys" and value.get_secret_value().startswith(PLACEHOLDER):
                found.append(f"{variable} is still the placeholder of deploy/docker/.env.example")
        keys = self.api_keys.get_secret_value()
        if "api_keys" in self.model_fields_set and keys != DEVELOPMENT_API_KEYS:
            development = {key for _, key in _keys(DEVELOPMENT_API_KEYS)}
            for holder, key in _keys(keys):
                if key in development:
                    found.append(f"TP_API_KEYS gives {holder!r} a development key")
                elif key.startswith(PLACEHOLDER):
                    found.append(f"TP_API_KEYS gives {holder!r} a placeholder key")
        return found

    def refuse_default_secrets(self) -> None:
        """Outside development, raise DefaultSecretError if a secret setting holds a public
        development value: called before a process connects to anything."""
        if self.env == DEVELOPMENT:
            return
        found = self.default_secrets()
        if found:
            env = f"TP_ENV={self.env}" + ("" if "env" in self.model_fields_set else ", the default")
            raise DefaultSecretError(env, found)

    def postgres_dsn(self, database: str) -> str:
        password = self.pg_password.get_secret_value()
        return f"postgresql://{self.pg_user}:{password}@{self.pg_host}:{self.pg_port}/{database}"

    @property
    def kafka_servers(self) -> str:
        return self.kafka_bootstrap or f"127.0.0.1:{self.kafka_port}"

    def topic(self, name: str) -> str:
        return f"{self.topic_prefix}{name}"

    @property
    def redis_url(self) -> str:
        return f"redis://{self.redis_host}:{self.redis_port}/0"


def _secret_default(field: FieldInfo) -> SecretStr | None:
    """A secret field's default, if it has one."""
    default = field.get_default(call_default_factory=True)
    if isinstance(default, SecretStr):
        return default
    if field.annotation is SecretStr and isinstance(default, str):
        return SecretStr(default)
    return None


def _keys(spec: str) -> list[tuple[str, str]]:
    """The holders and keys of an API keys setting (`name:role:key,...`); bad entries are left
    to `teenpatti.http.ApiKeys` to refuse."""
    entries = (entry.strip().split(":", 2) for entry in spec.split(","))
    return [(parts[0], parts[2]) for parts in entries if len(parts) == 3]
