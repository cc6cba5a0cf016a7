"""What runs in production imports only the runtime: not numpy (the engine's PAR analysis,
for the command line), not the development tools (`teenpatti_tools`). httpx is runtime: the
seamless wallet calls operators' wallet servers with it (`teenpatti.seamless`)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

RUNTIME_MODULES = (
    "table_service.app",
    "scanner_gateway.app",
    "wallet_service.app",
    "settlement_service.app",
    "teenpatti.engine",
    "teenpatti.seamless",
    "teenpatti.cli",  # `evaluate` and `audit` need no numpy; `par-sheet` imports it itself
)
NOT_RUNTIME = ("numpy", "teenpatti_tools")


@pytest.mark.parametrize("module", RUNTIME_MODULES)
def test_imports_nothing_but_the_runtime(module: str) -> None:
    # A fresh interpreter: this one has loaded numpy and the tools for other tests.
    probe = (
        f"import {module}, json, sys\n"
        "top_level = {name.partition('.')[0] for name in sys.modules}\n"
        f"print(json.dumps(sorted(top_level & {set(NOT_RUNTIME)!r})))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[-1]) == []


@pytest.mark.parametrize("counterpart", ["hub88_operator", "broken_operator"])
def test_the_independent_operators_share_no_code_with_the_product(counterpart: str) -> None:
    # tests/counterparts: written from the protocol text alone, so that a mistake made on
    # both sides (a header name, an amount scaled twice) cannot pass unseen
    probe = (
        f"import tests.counterparts.{counterpart}, json, sys\n"
        "top_level = {name.partition('.')[0] for name in sys.modules}\n"
        "print(json.dumps(sorted(top_level)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    loaded = set(json.loads(result.stdout.splitlines()[-1]))
    product = {
        "teenpatti",
        "teenpatti_tools",
        "table_service",
        "scanner_gateway",
        "wallet_service",
        "settlement_service",
        "web_service",
    }
    assert loaded & product == set()
    assert "cryptography" in loaded  # it signs and verifies on its own
