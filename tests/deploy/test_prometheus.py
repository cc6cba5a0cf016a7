"""The local Prometheus's configuration and the alert rules (deploy/prometheus): promtool
finds them valid and the rules' unit tests (alerts_test.yml) pass; every metric a rule reads
is one the services expose; every alert has its entry in docs/runbook.md, which its
`runbook_url` annotation names."""

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


def anchor(heading: str) -> str:
    """The anchor a Markdown renderer (GitHub's) gives a heading: lower case, punctuation
    but hyphens dropped, spaces as hyphens."""
    kept = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return kept.replace(" ", "-")


def runbook_anchors() -> dict[str, str]:
    """Each `##` heading of docs/runbook.md by its anchor."""
    return {
        anchor(line.removeprefix("## ")): line.removeprefix("## ").strip()
        for line in RUNBOOK.read_text().splitlines()
        if line.startswith("## ")
    }


def test_anchors_are_those_a_renderer_gives() -> None:
    assert anchor("ServiceDown") == "servicedown"
    assert anchor('A table opens no rounds: "No round opens: wallet unreachable"') == (
        "a-table-opens-no-rounds-no-round-opens-wallet-unreachable"
    )


def test_every_alert_has_a_runbook_entry_its_runbook_url_names() -> None:
    anchors = runbook_anchors()
    for rule in rules():
        alert = rule["alert"]
        assert alert in anchors.values(), f"docs/runbook.md has no `## {alert}`"
        url = rule["annotations"].get("runbook_url")
        assert url is not None, f"{alert} has no runbook_url annotation"
        page, _, fragment = url.partition("#")
        assert page == "docs/runbook.md", f"{alert}'s runbook_url {url} is not the runbook"
        assert anchors.get(fragment) == alert, f"{alert}'s runbook_url {url} names no entry of it"
        assert "runbook" not in rule["annotations"], f"{alert}: one runbook annotation, runbook_url"
        assert rule["labels"]["severity"] in {"warning", "critical"}
