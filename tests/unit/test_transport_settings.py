"""The one place that builds each client's connection options from the settings
(docs/decisions/0050-a-principal-per-service.md), a principal's credentials from a credentials
folder, and a run's names after the production ones
(docs/decisions/0051-kafka-names-end-with-the-run.md)."""

from __future__ import annotations

import os
import ssl
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from pydantic import SecretStr

from table_service.config import TableSettings
from teenpatti.settings import CredentialsError, InfrastructureSettings, kafka_client_options


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in list(os.environ):
        if name.upper().startswith("TP_"):
            monkeypatch.delenv(name)
    yield


def test_without_credentials_kafka_is_plaintext_with_the_bootstrap_servers_alone() -> None:
    options = InfrastructureSettings(kafka_port=29092).kafka_options()
    assert options == {"bootstrap_servers": "127.0.0.1:29092", "security_protocol": "PLAINTEXT"}


def test_sasl_options_carry_the_principal_and_tls_a_context() -> None:
    settings = InfrastructureSettings(
        kafka_bootstrap="k1:9093,k2:9093",
        kafka_security_protocol="SASL_SSL",
        kafka_username="wallet",
        kafka_password=SecretStr("s3cret"),
        kafka_ssl_check_hostname=False,
    )
    options = settings.kafka_options()
    assert {k: v for k, v in options.items() if k != "ssl_context"} == {
        "bootstrap_servers": "k1:9093,k2:9093",
        "security_protocol": "SASL_SSL",
        "sasl_mechanism": "SCRAM-SHA-512",
        "sasl_plain_username": "wallet",
        "sasl_plain_password": "s3cret",
    }
    context = options["ssl_context"]
    assert isinstance(context, ssl.SSLContext) and context.check_hostname is False
    assert "s3cret" not in repr(settings)


def test_a_bare_bootstrap_string_is_still_accepted() -> None:
    assert kafka_client_options("h:1") == {"bootstrap_servers": "h:1"}


def test_postgres_and_redis_urls_carry_credentials_quoted_and_tls_options() -> None:
    settings = InfrastructureSettings(
        pg_user="teenpatti_table",
        pg_password=SecretStr("p@ss/word"),
        pg_sslmode="verify-full",
        pg_sslrootcert="/etc/ca.pem",
        redis_username="table",
        redis_password=SecretStr("r:pw"),
        redis_tls=True,
        redis_ssl_cafile="/etc/ca.pem",
    )
    assert settings.postgres_dsn("tp_table") == (
        "postgresql://teenpatti_table:p%40ss%2Fword@127.0.0.1:15432/tp_table"
        "?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem"
    )
    redis = urlsplit(settings.redis_url)
    assert (redis.scheme, redis.netloc) == ("rediss", "table:r%3Apw@127.0.0.1:16379")
    assert {"ssl_cert_reqs": ["required"], "ssl_ca_certs": ["/etc/ca.pem"]}.items() <= (
        parse_qs(redis.query).items()
    )
    plain = urlsplit(InfrastructureSettings().redis_url)
    assert (plain.scheme, plain.netloc) == ("redis", "127.0.0.1:16379")


def test_a_run_name_goes_after_topics_and_groups() -> None:
    assert InfrastructureSettings().topic("table.events") == "table.events"
    run = InfrastructureSettings(topic_prefix="t3f9a1c.")
    assert run.topic("table.events") == "table.events.t3f9a1c"
    assert run.topic("table-scanner") == "table-scanner.t3f9a1c"


def test_a_principal_takes_its_credentials_from_the_folder(tmp_path: Path) -> None:
    (tmp_path / "table.env").write_text(
        "# the table's\nTP_PG_USER=teenpatti_table\nTP_PG_PASSWORD=pg-pw\n"
        "TP_KAFKA_SECURITY_PROTOCOL=SASL_PLAINTEXT\nTP_KAFKA_USERNAME=table\n"
        "TP_KAFKA_PASSWORD=k-pw\nTP_REDIS_USERNAME=table\nTP_REDIS_PASSWORD=r-pw\n"
    )
    settings = TableSettings(credentials_dir=str(tmp_path), table_database="test_x")
    table = settings.as_principal("table")
    assert isinstance(table, TableSettings) and table.table_database == "test_x"
    assert (table.pg_user, table.pg_password.get_secret_value()) == ("teenpatti_table", "pg-pw")
    assert table.kafka_options()["sasl_plain_username"] == "table"
    assert table.redis_url.startswith("redis://table:r-pw@")
    assert InfrastructureSettings().as_principal("table") == InfrastructureSettings()


def test_a_missing_or_foreign_credentials_file_is_refused(tmp_path: Path) -> None:
    settings = InfrastructureSettings(credentials_dir=str(tmp_path))
    with pytest.raises(CredentialsError, match="no credentials of 'wallet'"):
        settings.as_principal("wallet")
    (tmp_path / "wallet.env").write_text("TP_KAFKA_BOOTSTRAP=evil:9092\n")
    with pytest.raises(CredentialsError, match=r"wallet\.env:1 is not a credential setting"):
        settings.as_principal("wallet")
