"""What runs in production imports only the runtime: not numpy (the engine's PAR analysis,
for the command line), not the development tools (`teenpatti_tools`). httpx is runtime: the
seamless wallet calls operators' wallet servers with it (`teenpatti.seamless`)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

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


def _package_imports(root: Path, package: str) -> dict[str, set[str]]:
    """Each module of `package` (under `root`) and the modules of the package it imports,
    at the top or inside a function alike."""
    modules = {
        ".".join((package, *path.relative_to(root).with_suffix("").parts)).removesuffix(
            ".__init__"
        ): path
        for path in root.rglob("*.py")
    }
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = here
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                target = f"{base}.{node.module}" if node.level and node.module else node.module
                target = target or base
                for alias in node.names:
                    found = f"{target}.{alias.name}"
                    if found in modules:
                        graph[name].add(found)
                    elif target in modules:
                        graph[name].add(target)
            elif isinstance(node, ast.Import):
                graph[name] |= {alias.name for alias in node.names if alias.name in modules}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> list[str] | None:
        if name in path:
            return [*path[path.index(name) :], name]
        if name in done:
            return None
        for imported in sorted(graph[name]):
            found = visit(imported, [*path, name])
            if found:
                return found
        done.add(name)
        return None

    for name in sorted(graph):
        found = visit(name, [])
        if found:
            return found
    return None


def test_the_wallet_s_modules_import_one_another_without_a_cycle() -> None:
    root = Path(__file__).resolve().parents[2] / "services" / "wallet" / "src" / "wallet_service"
    graph = _package_imports(root, "wallet_service")
    assert "wallet_service.slips" in graph["wallet_service.handlers"]  # it reads the graph
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]  # and it finds one
