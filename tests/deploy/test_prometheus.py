"""The local Prometheus's configuration and the alert rules (deploy/prometheus): promtool
finds them valid and the rules' unit tests (alerts_test.yml) pass; every metric a rule reads
is one the services expose; every alert has its entry in docs/runbook.md."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client import Counter, Gauge, Histogram

from teenpatti.observability import metrics

ROOT = Path(__file__).resolve().parents[2]
PROMETHEUS = ROOT / "deploy" / "prometheus"
RUNBOOK = ROOT / "docs" / "runbook.md"


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    found = shutil.which("promtool")
    if found is None:
        pytest.fail(
            "promtool is not installed; `make install` installs it"
            " (as root: apt-get install -y --no-install-recommends prometheus)"
        )
    return subprocess.run(
        [found, *args], capture_output=True, text=True, timeout=120, cwd=PROMETHEUS
    )


def test_the_alert_rules_are_valid() -> None:
    checked = promtool("check", "rules", "alerts.yml")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_local_configuration_is_valid() -> None:
    checked = promtool("check", "config", "local.yml")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_alerts_fire_as_their_unit_tests_say() -> None:
    tested = promtool("test", "rules", "alerts_test.yml")
    assert tested.returncode == 0, tested.stdout + tested.stderr


def rules() -> list[dict[str, Any]]:
    document = yaml.safe_load((PROMETHEUS / "alerts.yml").read_text())
    return [rule for group in document["groups"] for rule in group["rules"]]


def exposed_names() -> set[str]:
    """Every series name the services' metrics expose (histograms with their suffixes)."""
    names: set[str] = set()
    for item in vars(metrics).values():
        if isinstance(item, Counter | Gauge | Histogram):
            [family] = item.describe()
            if isinstance(item, Counter):
                names.add(f"{family.name}_total")
            elif isinstance(item, Histogram):
                names |= {f"{family.name}_{part}" for part in ("bucket", "count", "sum")}
            else:
                names.add(family.name)
        elif isinstance(item, metrics.GaugeFamily):
            names.add(item.name)
    return names


def test_every_metric_a_rule_reads_is_exposed() -> None:
    exposed = exposed_names()
    for rule in rules():
        for name in re.findall(r"\bteenpatti_[a-z_]+", rule["expr"]):
            assert name in exposed, f"{rule['alert']} reads {name}, which no service exposes"


def test_every_alert_has_a_runbook_entry() -> None:
    headings = {
        line.removeprefix("## ").strip()
        for line in RUNBOOK.read_text().splitlines()
        if line.startswith("## ")
    }
    for rule in rules():
        alert = rule["alert"]
        assert alert in headings, f"docs/runbook.md has no `## {alert}`"
        assert rule["annotations"]["runbook"] == f"docs/runbook.md#{alert.lower()}"
        assert rule["labels"]["severity"] in {"warning", "critical"}
