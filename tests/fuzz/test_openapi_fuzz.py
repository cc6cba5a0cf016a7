"""Schemathesis over every HTTP API of the four services (see harness.py)."""

from __future__ import annotations

from collections.abc import Mapping

import httpx
import pytest
from fastapi import FastAPI

from teenpatti_tools.simulator import ScannerSecret, enrol_device, gateway_post

from .harness import Tally, fuzz
from .report import REPORT

pytestmark = [
    pytest.mark.integration,
    # schemathesis itself draws with `random` inside its strategies
    pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisDeprecationWarning"),
]

OPERATOR = {"X-Api-Key": "dev-operator-1-key"}
SUPERVISOR = {"X-Api-Key": "dev-supervisor-key"}

App = tuple[FastAPI, httpx.AsyncClient]


PROBES = ("/health", "/ready")  # the kernel's, open to all


def _settled(tally: Tally) -> None:
    REPORT.append(tally.summary())
    failures = tally.failures()
    assert not failures, f"{len(failures)} fuzz failures:\n" + "\n\n".join(failures)


async def test_wallet_api(wallet_app: App) -> None:
    app, client = wallet_app

    def credentials(method: str, path: str) -> Mapping[str, str] | None:
        return None if path in PROBES else OPERATOR

    _settled(await fuzz(app, client, "wallet", credentials))


async def test_table_api(table_app: App) -> None:
    app, client = table_app

    def credentials(method: str, path: str) -> Mapping[str, str] | None:
        return None if path in PROBES else SUPERVISOR

    _settled(await fuzz(app, client, "table", credentials))


async def test_scanner_gateway_api(scanner_app: App) -> None:
    app, client = scanner_app
    secret = ScannerSecret()
    registered = await enrol_device(gateway_post(client), "fuzz-device", "T1", secret)
    assert registered.status_code == 200, registered.text
    device = {"X-Device-Id": "fuzz-device", "Authorization": f"Bearer {secret.credential}"}

    def credentials(method: str, path: str) -> Mapping[str, str] | None:
        if path in PROBES:
            return None
        return device if path.startswith("/scans") else SUPERVISOR

    _settled(await fuzz(app, client, "scanner-gateway", credentials))


async def test_settlement_api(settlement_app: App) -> None:
    app, client = settlement_app

    def credentials(method: str, path: str) -> Mapping[str, str] | None:
        if path in PROBES:
            return None
        return SUPERVISOR if path == "/problems" else OPERATOR

    _settled(await fuzz(app, client, "settlement", credentials))
