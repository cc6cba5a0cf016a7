"""Outside development a process that connects refuses the public development secrets
(docs/decisions/0049-no-default-secret-outside-development.md): the check on
`InfrastructureSettings`, the kernel's start and the `teenpatti` commands that connect."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import Field, SecretStr, ValidationError

from scanner_gateway.app import SERVICE
from scanner_gateway.config import ScannerSettings
from teenpatti import cli
from teenpatti.kernel import Kernel
from teenpatti.settings import (
    DEVELOPMENT_API_KEYS,
    DefaultSecretError,
    InfrastructureSettings,
)

ROOT = Path(__file__).resolve().parents[2]
DEVELOPMENT_KEYS = (
    "dev-operator-1-key",
    "dev-operator-2-key",
    "dev-supervisor-key",
    "dev-dealer-key",
    "dev-web-key",
)
OWN_PASSWORD = "correct-horse-battery-staple"
OWN_KEYS = "operator-1:operator:k-3f9a1c,supervisor-1:supervisor:k-77d0e2"
# authenticated Kafka and Redis, so that only what a test is about is refused
OWN_TRANSPORT: dict[str, object] = {
    "kafka_security_protocol": "SASL_SSL",
    "kafka_username": "wallet",
    "kafka_password": SecretStr(OWN_PASSWORD),
    "redis_password": SecretStr(OWN_PASSWORD),
}
UNAUTHENTICATED = [
    "TP_KAFKA_SECURITY_PROTOCOL is PLAINTEXT: Kafka without authentication",
    "TP_REDIS_PASSWORD is not set: Redis without authentication",
]


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No `TP_*` variable of the test session (`TP_ENV=dev`, the Makefile's password)."""
    for name in list(os.environ):
        if name.upper().startswith("TP_"):
            monkeypatch.delenv(name)
    yield


def refusal(settings: InfrastructureSettings) -> str:
    with pytest.raises(DefaultSecretError) as raised:
        settings.refuse_default_secrets()
    return str(raised.value)


def assert_no_secret_in(message: str) -> None:
    for value in (*DEVELOPMENT_KEYS, OWN_PASSWORD, "k-3f9a1c", "k-77d0e2", ":teenpatti"):
        assert value not in message


def test_production_is_the_default() -> None:
    assert InfrastructureSettings().env == "production"


def test_unset_secrets_are_refused_by_name_with_the_way_out() -> None:
    message = refusal(InfrastructureSettings())
    assert "TP_PG_PASSWORD is not set" in message
    assert "TP_API_KEYS is not set" in message
    assert "TP_ENV=production, the default" in message
    assert "TP_ENV=dev" in message
    assert_no_secret_in(message)


def test_secrets_set_to_their_defaults_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TP_ENV", "production")
    monkeypatch.setenv("TP_PG_PASSWORD", "teenpatti")
    monkeypatch.setenv("TP_API_KEYS", DEVELOPMENT_API_KEYS)
    with pytest.raises(DefaultSecretError) as raised:
        InfrastructureSettings().refuse_default_secrets()
    assert raised.value.reasons == [
        "TP_PG_PASSWORD is set to its development default",
        "TP_API_KEYS is set to its development default",
        *UNAUTHENTICATED,
    ]
    assert_no_secret_in(str(raised.value))


def test_a_development_key_among_own_keys_is_refused_naming_its_holder() -> None:
    settings = InfrastructureSettings(
        pg_password=SecretStr(OWN_PASSWORD),
        api_keys=SecretStr(f"{OWN_KEYS},dealer-7:dealer:dev-dealer-key"),
        **OWN_TRANSPORT,
    )
    with pytest.raises(DefaultSecretError) as raised:
        settings.refuse_default_secrets()
    assert raised.value.reasons == ["TP_API_KEYS gives 'dealer-7' a development key"]
    assert_no_secret_in(str(raised.value))


def test_the_placeholders_of_the_compose_env_file_are_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    example = ROOT / "deploy" / "docker" / ".env.example"
    for line in example.read_text().splitlines():
        if line.startswith("TP_"):
            name, _, value = line.partition("=")
            monkeypatch.setenv(name, value)
    reasons = InfrastructureSettings().default_secrets()
    assert reasons == [
        "TP_PG_PASSWORD is still the placeholder of deploy/docker/.env.example",
        "TP_API_KEYS gives 'operator-1' a placeholder key",
        "TP_API_KEYS gives 'supervisor-1' a placeholder key",
        "TP_API_KEYS gives 'dealer-1' a placeholder key",
        "TP_API_KEYS gives 'web' a placeholder key",
        # the env file alone names no Kafka or Redis credentials (Compose sets each service's)
        *UNAUTHENTICATED,
    ]


def test_own_secrets_pass_in_production() -> None:
    settings = InfrastructureSettings(
        env="production",
        pg_password=SecretStr(OWN_PASSWORD),
        api_keys=SecretStr(OWN_KEYS),
        **OWN_TRANSPORT,
    )
    assert settings.default_secrets() == []
    settings.refuse_default_secrets()


def test_development_accepts_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TP_ENV", "dev")
    settings = InfrastructureSettings()
    assert len(settings.default_secrets()) == 2 + len(UNAUTHENTICATED)  # known, and allowed
    settings.refuse_default_secrets()


def test_env_takes_only_dev_or_production(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TP_ENV", "prod")
    with pytest.raises(ValidationError, match="env"):
        InfrastructureSettings()


def test_a_service_settings_secret_with_a_default_is_refused_too() -> None:
    class WebhookSettings(ScannerSettings):
        webhook_secret: SecretStr = Field(default=SecretStr("public"), description="A secret.")

    settings = WebhookSettings(
        pg_password=SecretStr(OWN_PASSWORD), api_keys=SecretStr(OWN_KEYS), **OWN_TRANSPORT
    )
    assert settings.default_secrets() == [
        "TP_WEBHOOK_SECRET is not set, so its development default is in use"
    ]


async def test_the_kernel_refuses_to_start_before_connecting() -> None:
    # nothing listens on port 1: a start that got as far as connecting would fail otherwise
    settings = ScannerSettings(pg_port=1, redis_port=1, kafka_port=1)
    kernel = Kernel(SERVICE, settings)
    with pytest.raises(DefaultSecretError, match="TP_API_KEYS"):
        await kernel.start()
    await kernel.stop(None)


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(
        argv,
        stdin=io.StringIO('{"player_a": ["AS","KS","QS"], "player_b": ["2D","3C","4H"]}\n'),
        stdout=out,
        stderr=err,
    )
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv", [["migrate"], ["migrate", "wallet"], ["audit"]])
def test_the_commands_that_connect_refuse_with_status_2(argv: list[str]) -> None:
    status, out, err = run(argv)
    assert status == 2
    assert out == ""
    assert err.startswith(f"teenpatti {argv[0]}: error: refusing to start outside development")
    assert "TP_PG_PASSWORD" in err and "TP_API_KEYS" in err
    assert_no_secret_in(err)


def test_a_bad_env_is_a_usage_error_of_the_commands_that_connect(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TP_ENV", "staging")
    status, _, err = run(["migrate"])
    assert status == 2
    assert "env" in err and "String should match pattern" in err


def test_evaluate_needs_no_secret() -> None:
    status, out, err = run(["evaluate"])
    assert (status, err) == (0, "")
    assert '"winner"' in out


def test_kafka_and_redis_without_credentials_are_refused_by_name() -> None:
    settings = InfrastructureSettings(
        pg_password=SecretStr(OWN_PASSWORD),
        api_keys=SecretStr(OWN_KEYS),
        kafka_security_protocol="SASL_PLAINTEXT",
    )
    assert settings.default_secrets() == [
        "TP_KAFKA_USERNAME is not set",
        "TP_KAFKA_PASSWORD is not set",
        "TP_REDIS_PASSWORD is not set: Redis without authentication",
    ]
    # a process that uses no Redis (settlement, wallet, the commands) needs no Redis password
    assert settings.default_secrets(redis=False) == [
        "TP_KAFKA_USERNAME is not set",
        "TP_KAFKA_PASSWORD is not set",
    ]
    placeholder = settings.model_copy(update={"kafka_password": SecretStr("replace-me-1")})
    assert "TP_KAFKA_PASSWORD is still the placeholder of deploy/docker/.env.example" in (
        placeholder.default_secrets()
    )
    mtls = settings.model_copy(
        update={"kafka_security_protocol": "SSL", "kafka_ssl_certfile": "/etc/tp/client.pem"}
    )
    assert mtls.default_secrets(redis=False) == []
