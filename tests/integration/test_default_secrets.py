"""A real process outside development, with the public development secrets, refuses to start
and names them (docs/decisions/0049-no-default-secret-outside-development.md): a service
started by uvicorn, and `teenpatti migrate`. Neither gets as far as connecting."""

from __future__ import annotations

import os
import subprocess
import sys

DEVELOPMENT_KEYS = (
    "dev-operator-1-key",
    "dev-operator-2-key",
    "dev-supervisor-key",
    "dev-dealer-key",
    "dev-web-key",
)


def production_with_defaults() -> dict[str, str]:
    """This session's environment with `TP_ENV=production` and neither secret set (nor a
    credentials folder to read them from)."""
    unset = ("TP_API_KEYS", "TP_PG_PASSWORD", "TP_CREDENTIALS_DIR")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    env["TP_ENV"] = "production"
    return env


def test_a_service_with_the_default_secrets_exits_naming_them() -> None:
    process = subprocess.run(
        [sys.executable, "-m", "uvicorn", "scanner_gateway.app:app", "--port", "0"],
        env=production_with_defaults(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode != 0
    assert "refusing to start outside development (TP_ENV=production)" in process.stderr
    assert "TP_PG_PASSWORD is not set" in process.stderr
    assert "TP_API_KEYS is not set" in process.stderr
    assert "TP_ENV=dev" in process.stderr
    assert "Application startup failed" in process.stderr
    assert not [key for key in DEVELOPMENT_KEYS if key in process.stderr + process.stdout]


def test_the_web_front_with_its_development_key_exits_naming_it() -> None:
    process = subprocess.run(
        [sys.executable, "-m", "uvicorn", "web_service.app:app", "--port", "0"],
        env={k: v for k, v in production_with_defaults().items() if k != "TP_WEB_API_KEY"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode != 0
    assert "refusing to start outside development (TP_ENV=production)" in process.stderr
    assert "TP_WEB_API_KEY is not set" in process.stderr
    assert "Application startup failed" in process.stderr
    assert not [key for key in DEVELOPMENT_KEYS if key in process.stderr + process.stdout]


def test_teenpatti_migrate_with_the_default_secrets_exits_2_naming_them() -> None:
    process = subprocess.run(
        [sys.executable, "-m", "teenpatti.cli", "migrate"],
        env=production_with_defaults(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert process.returncode == 2
    assert process.stdout == ""
    assert process.stderr.startswith("teenpatti migrate: error: refusing to start")
    assert "TP_PG_PASSWORD" in process.stderr and "TP_API_KEYS" in process.stderr


def test_the_wallet_with_a_local_player_view_exits_naming_it() -> None:
    """Secrets of its own, but launch URLs that would send players to their own machine in
    the clear (docs/decisions/0093-dashboards-and-a-deployable-seamless-wallet.md)."""
    env = production_with_defaults()
    env |= {
        "TP_PG_PASSWORD": "correct-horse-battery-staple",
        "TP_API_KEYS": "operator-1:operator:k-3f9a1c",
        "TP_KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
        "TP_KAFKA_USERNAME": "wallet",
        "TP_KAFKA_PASSWORD": "correct-horse-battery-staple",
        "TP_PLAYER_VIEW_URL": "http://127.0.0.1:8105",
    }
    process = subprocess.run(
        [sys.executable, "-m", "uvicorn", "wallet_service.app:app", "--port", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode != 0
    assert "refusing to start outside development (TP_ENV=production)" in process.stderr
    assert "TP_PLAYER_VIEW_URL is http://127.0.0.1:8105: not https" in process.stderr
    assert "Application startup failed" in process.stderr
    assert "correct-horse-battery-staple" not in process.stderr + process.stdout
