"""The layers stay layered: the import contracts of pyproject.toml's `[tool.importlinter]` hold
for the code (as `make lint` checks), and each of them breaks on code that breaks its rule."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _declared() -> list[dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts: list[dict[str, Any]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def _contracts() -> dict[str, str]:
    """Each contract's id and name, as pyproject.toml declares them."""
    return {str(contract["id"]): str(contract["name"]) for contract in _declared()}


def _pure_domains() -> tuple[list[str], list[str]]:
    """The modules the pure-domains contract keeps pure, and the libraries it forbids them."""
    (pure,) = (contract for contract in _declared() if contract["id"] == "pure-domains")
    sources: list[str] = pure["source_modules"]
    forbidden: list[str] = pure["forbidden_modules"]
    return sources, [module for module in forbidden if "." not in module]


def _lint_imports(cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _verdicts(output: str) -> dict[str, str]:
    """Each contract's name and its verdict (KEPT or BROKEN), from lint-imports' report, whose
    lines it may wrap."""
    text = " ".join(output.split())
    found: dict[str, str] = {}
    for name in _contracts().values():
        for verdict in ("KEPT", "BROKEN"):
            if f"{name} {verdict}" in text:
                found[name] = verdict
    return found


def test_the_code_keeps_every_import_contract() -> None:
    contracts = _contracts()
    assert {"pure-domains", "services-apart", "shared-below-services", "no-cycles"} <= set(
        contracts
    )
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert _verdicts(result.stdout) == dict.fromkeys(contracts.values(), "KEPT")


@pytest.mark.parametrize("module", _pure_domains()[0])
def test_a_pure_module_loads_none_of_those_libraries_when_it_runs(module: str) -> None:
    # the contract reads the import statements; importing a module also runs its packages'
    # __init__, which can load more: a fresh interpreter, since this one has loaded them all
    libraries = _pure_domains()[1]
    probe = (
        f"import {module}, json, sys\n"
        "top_level = {name.partition('.')[0] for name in sys.modules}\n"
        f"print(json.dumps(sorted(top_level & {set(libraries)!r})))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "redis" in libraries and "httpx" in libraries
    assert json.loads(result.stdout.splitlines()[-1]) == []


# A stand-in of every root package with the modules the contracts name, each breaking one rule:
# the project's own configuration, run over it, must find every break.
BROKEN_CODE = {
    # a domain that calls an operator over HTTP itself
    "wallet_service/domain/__init__.py": "import httpx\n",
    # a domain that reaches the database through an adapter
    "table_service/domain/__init__.py": "from table_service.adapters import rows\n",
    "table_service/adapters/__init__.py": "",
    "table_service/adapters/rows.py": "import asyncpg\n",
    # one service that imports another's code
    "settlement_service/handlers.py": "from wallet_service import sender\n",
    "wallet_service/sender.py": "",
    # the shared library that imports a service
    "teenpatti/engine/__init__.py": "",
    "teenpatti/events/__init__.py": "",
    "teenpatti/kernel/__init__.py": "import scanner_gateway.entrypoints\n",
    "scanner_gateway/entrypoints.py": "",
    # two modules that import each other
    "web_service/pages.py": "from web_service import forwarding\n",
    "web_service/forwarding.py": "from web_service import pages\n",
}


def test_each_contract_breaks_on_code_that_breaks_its_rule(tmp_path: Path) -> None:
    source = tmp_path / "src"
    packages = {
        "teenpatti": ["http", "kernel", "eventsourcing", "seamless", "engine", "events"],
        "table_service": ["domain", "adapters"],
        "scanner_gateway": ["domain", "adapters"],
        "settlement_service": ["domain", "adapters"],
        "wallet_service": ["domain", "adapters"],
        "web_service": [],
    }
    for package, children in packages.items():
        (source / package).mkdir(parents=True)
        (source / package / "__init__.py").write_text("")
        for child in children:
            (source / package / child).mkdir()
            (source / package / child / "__init__.py").write_text("")
    for module in ("client", "transports", "http11"):
        (source / f"teenpatti/seamless/{module}.py").write_text("")
    for path, text in BROKEN_CODE.items():
        (source / path).parent.mkdir(parents=True, exist_ok=True)
        (source / path).write_text(text)
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    # the stand-ins come first on the path, before the installed packages of the same names
    env = {**os.environ, "PYTHONPATH": str(source)}

    result = _lint_imports(project, env)

    assert result.returncode == 1, result.stdout + result.stderr
    contracts = _contracts()
    assert _verdicts(result.stdout) == dict.fromkeys(contracts.values(), "BROKEN")
    report = result.stdout
    assert "wallet_service.domain is not allowed to import httpx" in report
    assert "table_service.domain is not allowed to import asyncpg" in report
    assert "table_service.domain is not allowed to import table_service.adapters" in report
    assert "settlement_service.handlers -> wallet_service.sender" in report
    assert "teenpatti.kernel -> scanner_gateway.entrypoints" in report
    assert "No cycles are allowed in web_service" in report
