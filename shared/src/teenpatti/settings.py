"""Connection settings shared by every service, read once from `TP_*` environment variables.

The defaults match the local stack (`deploy/local/defaults.env`), so a developer's
`make up` and the services agree without any configuration.
"""

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class InfrastructureSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TP_", frozen=True, extra="ignore")

    pg_host: str = "127.0.0.1"
    pg_port: int = Field(default=15432, ge=1, le=65535)
    pg_user: str = "teenpatti"
    pg_password: SecretStr = SecretStr("teenpatti")
    kafka_bootstrap: str = ""
    kafka_port: int = Field(default=19092, ge=1, le=65535)
    kafka_partitions: int = Field(default=12, ge=1, le=1000)
    kafka_replication_factor: int = Field(default=1, ge=1, le=7)
    redis_host: str = "127.0.0.1"
    redis_port: int = Field(default=16379, ge=1, le=65535)
    # the service's Postgres pool
    pg_pool_size: int = Field(default=20, ge=2, le=500)
    # a consumer handles each poll's records in one transaction (docs/decisions); off: one
    # transaction per record
    consumer_batches: bool = True
    # the most records one poll brings (a batch)
    consumer_max_records: int = Field(default=500, ge=1, le=100_000)
    # actions a consumer runs once its transaction has committed (the gateway's verdict
    # announcements); off: their readers fall back to Postgres
    consumer_after_commit: bool = True
    # how long a stopping service waits for its consumers, relay and tasks to finish
    drain_seconds: float = Field(default=15.0, gt=0, le=600)
    # how long `teenpatti migrate` waits for a table's lock before giving up
    migrate_lock_timeout: str = Field(default="10s", pattern=r"^\d+(ms|s|min)$")
    # prepended to every topic and consumer group: lets test runs share one broker
    topic_prefix: str = ""
    # API keys, "name:role:key,...": roles operator, supervisor, dealer. The defaults are
    # for development only; deployments set TP_API_KEYS.
    api_keys: SecretStr = SecretStr(
        "operator-1:operator:dev-operator-1-key,operator-2:operator:dev-operator-2-key,"
        "supervisor-1:supervisor:dev-supervisor-key,dealer-1:dealer:dev-dealer-key"
    )

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
