"""The pages' pure scripts (money.js, i18n.js) under Node's own test runner: the `*.test.mjs`
files beside this one, one pytest test each, so `pytest tests/unit` runs them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).parent
SCRIPT_TESTS = sorted(HERE.glob("*.test.mjs"))


def test_there_are_script_tests() -> None:
    assert {path.name for path in SCRIPT_TESTS} >= {"money.test.mjs", "i18n.test.mjs"}


@pytest.mark.parametrize("script", SCRIPT_TESTS, ids=lambda path: path.name)
def test_script(script: Path) -> None:
    node = shutil.which("node")
    # `make install` (deploy/local/stack.sh tools) installs Debian's nodejs when missing
    assert node is not None, "node is not installed: run `deploy/local/stack.sh tools`"
    result = subprocess.run(
        [node, "--test", str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout
