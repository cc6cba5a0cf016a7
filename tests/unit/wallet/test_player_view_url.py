"""Outside development the wallet refuses to start with a player view URL fit only for a
development machine (plain http, localhost, a loopback address): a launch URL carries the
player's single-use ticket (docs/decisions/0093-dashboards-and-a-deployable-seamless-wallet.md).
The `teenpatti` commands, which build the same settings but serve no one, are not refused."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from pydantic import SecretStr, ValidationError

from teenpatti.admin_cli import admin_settings
from teenpatti.kernel import Kernel
from teenpatti.settings import DevelopmentSettingError
from wallet_service.app import SERVICE
from wallet_service.config import WalletSettings, unreachable_player_view

# secrets of its own and authenticated Kafka, so that only the URL is refused
OWN: dict[str, object] = {
    "env": "production",
    "pg_password": SecretStr("correct-horse-battery-staple"),
    "api_keys": SecretStr("operator-1:operator:k-3f9a1c"),
    "kafka_security_protocol": "SASL_SSL",
    "kafka_username": "wallet",
    "kafka_password": SecretStr("correct-horse-battery-staple"),
}


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No `TP_*` variable of the test session (`TP_ENV=dev`)."""
    for name in list(os.environ):
        if name.upper().startswith("TP_"):
            monkeypatch.delenv(name)
    yield


def refusal(settings: WalletSettings) -> str:
    with pytest.raises(DevelopmentSettingError) as raised:
        settings.refuse_development_settings()
    return str(raised.value)


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://play.example.com", "not https"),
        ("http://127.0.0.1:8105", "not https"),
        ("https://localhost:8105", "localhost"),
        ("https://LOCALHOST.", "localhost"),
        ("https://play.localhost", "localhost"),
        ("https://127.0.0.1", "loopback"),
        ("https://127.8.9.10:443/lobby", "loopback"),
        ("https://[::1]:8105", "loopback"),
        ("https://[::ffff:127.0.0.1]", "loopback"),
        ("https://0.0.0.0", "unspecified"),
        ("https://[::]", "unspecified"),
        ("https://replace-me.example", "placeholder"),
    ],
)
def test_a_url_players_cannot_safely_be_sent_to_says_why(url: str, why: str) -> None:
    found = unreachable_player_view(url)
    assert found is not None and why in found, (url, found)


@pytest.mark.parametrize(
    "url",
    ["https://play.example.com", "https://play.example.com:8443/casino", "https://203.0.113.7"],
)
def test_a_public_https_url_passes(url: str) -> None:
    assert unreachable_player_view(url) is None
    WalletSettings(**OWN, player_view_url=url).refuse_development_settings()


def test_the_default_is_refused_outside_development_naming_the_setting_and_the_way_out() -> None:
    message = refusal(WalletSettings(**OWN))
    assert "refusing to start outside development (TP_ENV=production)" in message
    default = "TP_PLAYER_VIEW_URL is http://localhost:8103 (not set: its default): not https"
    assert default in message
    assert "TP_ENV=dev" in message


def test_a_loopback_https_url_is_refused_outside_development() -> None:
    message = refusal(WalletSettings(**OWN, player_view_url="https://127.0.0.1:8105"))
    assert "TP_PLAYER_VIEW_URL is https://127.0.0.1:8105: 127.0.0.1 is a loopback" in message


def test_development_accepts_a_local_player_view() -> None:
    settings = WalletSettings(**{**OWN, "env": "dev"}, player_view_url="http://127.0.0.1:8105")
    assert settings.development_settings()  # found, and let pass in development
    settings.refuse_development_settings()


@pytest.mark.parametrize("url", ["play.example.com", "https://", "https://a b", "ftp://x.example"])
def test_a_url_that_is_not_one_is_refused_in_any_mode(url: str) -> None:
    with pytest.raises(ValidationError, match="player_view_url"):
        WalletSettings(**{**OWN, "env": "dev"}, player_view_url=url)


async def test_the_wallet_refuses_to_start_before_connecting() -> None:
    # nothing listens on port 1: a start that got as far as connecting would fail otherwise
    settings = WalletSettings(**OWN, pg_port=1, kafka_port=1, player_view_url="http://x.example")
    kernel = Kernel(SERVICE, settings)
    with pytest.raises(DevelopmentSettingError, match="TP_PLAYER_VIEW_URL"):
        await kernel.start()
    await kernel.stop(None)


def test_a_command_that_serves_no_one_is_not_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # `teenpatti migrate`, `operators`, `reconcile` build the wallet's settings too
    monkeypatch.setenv("TP_ENV", "production")
    monkeypatch.setenv("TP_PG_PASSWORD", "correct-horse-battery-staple")
    monkeypatch.setenv("TP_API_KEYS", "operator-1:operator:k-3f9a1c")
    settings = admin_settings(WalletSettings)
    assert settings.player_view_url == "http://localhost:8103"
