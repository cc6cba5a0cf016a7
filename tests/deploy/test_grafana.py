"""The Grafana dashboards (deploy/grafana/dashboards): what `make contracts` writes from
teenpatti_tools.dashboards; every query is valid PromQL (promtool) and reads only metrics the
services expose; each dashboard and panel is complete enough to read (a unique uid and title,
a title and a unit on every panel)."""

from __future__ import annotations

import importlib
import json
import re
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client import REGISTRY

from teenpatti.kernel import Kernel
from teenpatti.observability.metrics import GaugeFamily
from teenpatti_tools import dashboards

from .test_prometheus import promtool

ROOT = Path(__file__).resolve().parents[2]
DASHBOARDS = ROOT / dashboards.DASHBOARDS_DIR
PROVISIONING = ROOT / "deploy" / "grafana" / "provisioning"
# every app that answers /metrics, and the web front (its routes forward to theirs)
APPS = (
    "table_service.app",
    "scanner_gateway.app",
    "wallet_service.app",
    "settlement_service.app",
    "web_service.app",
)
# what Prometheus itself adds to every scrape
SCRAPE_SERIES = {"up", "scrape_duration_seconds", "scrape_samples_scraped"}
# what a dashboard's variables stand for, to check a query as Prometheus would get it
SUBSTITUTIONS = {
    "$__rate_interval": "1m",
    "$__interval": "15s",
    "$__range": "1h",
}
VARIABLE = re.compile(r"\$\{?(\w+)\}?")
PROMQL_WORDS = {"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring"}
SUFFIXES = {
    "counter": ("_total", "_created"),
    "histogram": ("_bucket", "_count", "_sum", "_created"),
    "summary": ("", "_count", "_sum", "_created"),
    "gaugehistogram": ("_bucket", "_gcount", "_gsum"),
    "info": ("_info",),
}


@cache
def exposed() -> frozenset[str]:
    """Every series name the services expose on /metrics: from the prometheus_client
    registries once their apps are imported (the process's and each kernel's own; counters
    and histograms with their suffixes), and the gauges their kernels read from the database
    when scraped, registered only once started (every `GaugeFamily` their modules declare)."""
    registries = [REGISTRY]
    for app in APPS:
        module = importlib.import_module(app)
        if hasattr(module, "SERVICE"):  # a kernel's own registry: its pool's connections
            registries.append(Kernel(module.SERVICE, module.app.state.settings).metrics)
    names: set[str] = set()
    for registry in registries:
        for family in registry.collect():
            names |= {f"{family.name}{suffix}" for suffix in SUFFIXES.get(family.type, ("",))}
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] in {"teenpatti", *(app.split(".")[0] for app in APPS)}:
            for item in vars(module).values():
                if isinstance(item, GaugeFamily):
                    names.add(item.name)
    return frozenset(names)


@cache
def routes() -> frozenset[str]:
    """The route templates of the apps' APIs (the `route` label of the HTTP metrics)."""
    found: set[str] = set()
    for app in APPS:
        found |= set(importlib.import_module(app).app.openapi()["paths"])
    return frozenset(found)


def loaded() -> dict[Path, dict[str, Any]]:
    return {path: json.loads(path.read_text()) for path in sorted(DASHBOARDS.glob("*.json"))}


def panels(dashboard: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every panel but the rows (which only group), those inside collapsed rows too."""
    for panel in dashboard["panels"]:
        if panel["type"] == "row":
            yield from panel.get("panels", [])
        else:
            yield panel


def queries(dashboard: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(where, PromQL) of every target of every panel, and of every query variable."""
    for panel in panels(dashboard):
        for target in panel["targets"]:
            yield f"{dashboard['uid']}: {panel['title']} {target['refId']}", target["expr"]
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            found = re.fullmatch(r"label_values\((.+), *(\w+)\)", variable["query"]["query"])
            assert found is not None, variable["name"]
            yield f"{dashboard['uid']}: ${variable['name']}", found[1]


def substituted(expr: str) -> str:
    """The query as Prometheus receives it: Grafana's interval variables as durations, a
    dashboard's own variables as their "All" value (`.*`)."""
    for variable, value in SUBSTITUTIONS.items():
        expr = expr.replace(variable, value)
    return VARIABLE.sub(".*", expr)


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression selects: what is left once strings, label
    matchers, ranges, grouping clauses, functions, keywords and numbers are taken out."""
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    bare = re.sub(r"\{[^}]*\}", " ", bare)
    bare = re.sub(r"\[[^\]]*\]", " ", bare)
    bare = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", bare)
    names = set()
    for found in re.finditer(r"(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?", bare):
        if found[2] is None and found[1] not in PROMQL_WORDS:
            names.add(found[1])
    return names


def test_the_committed_dashboards_are_what_the_code_generates() -> None:
    for path, text in dashboards.generated().items():
        assert (ROOT / path).read_text() == text, f"{path} is out of date: run `make contracts`"
    assert {ROOT / path for path in dashboards.generated()} == set(loaded())


def test_each_dashboard_has_a_unique_uid_and_title() -> None:
    found = list(loaded().values())
    assert len(found) == 4
    for field in ("uid", "title"):
        values = [dashboard[field] for dashboard in found]
        assert all(values) and len(set(values)) == len(values), field
    for dashboard in found:
        assert dashboard["schemaVersion"] >= 39
        assert dashboard["id"] is None  # Grafana gives its own on import


def test_every_panel_has_a_title_a_unit_and_the_chosen_data_source() -> None:
    for path, dashboard in loaded().items():
        variables = {v["name"]: v for v in dashboard["templating"]["list"]}
        assert variables["datasource"]["type"] == "datasource", path.name
        assert variables["datasource"]["query"] == "prometheus", path.name
        ids = [panel["id"] for panel in dashboard["panels"]]
        assert len(set(ids)) == len(ids), path.name
        for panel in panels(dashboard):
            where = f"{path.name}: {panel.get('title')!r}"
            assert panel.get("title"), where
            assert panel["fieldConfig"]["defaults"].get("unit"), where
            assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, where
            assert panel["targets"], where
            for target in panel["targets"]:
                assert target["datasource"] == panel["datasource"], where
            refs = [target["refId"] for target in panel["targets"]]
            assert len(set(refs)) == len(refs), where


def test_every_query_is_valid_promql(tmp_path: Path) -> None:
    """promtool checks each query as the expression of a recording rule."""
    rules = [
        {"record": f"dashboard:query:{number}", "expr": substituted(expr)}
        for number, (_, expr) in enumerate(
            query for dashboard in loaded().values() for query in queries(dashboard)
        )
    ]
    assert rules
    (tmp_path / "queries.yml").write_text(
        yaml.safe_dump({"groups": [{"name": "dashboards", "rules": rules}]})
    )
    checked = promtool("check", "rules", str(tmp_path / "queries.yml"))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_every_query_reads_metrics_the_services_expose() -> None:
    names = exposed()
    unknown = []
    for dashboard in loaded().values():
        for where, expr in queries(dashboard):
            read = metric_names(substituted(expr))
            assert read, f"{where}: no metric in {expr}"
            unknown += [f"{where} reads {name}" for name in sorted(read - names - SCRAPE_SERIES)]
    assert not unknown, "metrics no service exposes:\n" + "\n".join(unknown)


def test_every_route_a_query_names_is_one_the_services_serve() -> None:
    for dashboard in loaded().values():
        for where, expr in queries(dashboard):
            for route in re.findall(r'\broute="([^"]*)"', expr):
                assert route in routes(), f"{where}: no app serves {route}"


@pytest.mark.parametrize(
    ("expr", "names"),
    [
        (
            'sum by (le, call) (rate(a_bucket{x="y", z=~"$v"}[1m])) / on (call) b_total',
            {"a_bucket", "b_total"},
        ),
        ("histogram_quantile(0.99, sum by (le) (rate(c_bucket[5m])))", {"c_bucket"}),
        ('topk(10, max by (g) (d)) > bool 3 and e offset 5m or up{job="t"}', {"d", "e", "up"}),
    ],
)
def test_the_metric_names_of_a_query_are_found(expr: str, names: set[str]) -> None:
    assert metric_names(expr) == names


def test_the_exposed_names_are_found_in_the_registries() -> None:
    names = exposed()
    # a counter, a histogram and a gauge read when scraped, as /metrics spells them
    assert "teenpatti_http_requests_total" in names
    assert "teenpatti_wallet_round_closed_to_paid_seconds_bucket" in names
    assert "teenpatti_table_rounds" in names
    assert "teenpatti_http_requests" not in names


def test_grafana_provisions_the_dashboards_and_the_data_source() -> None:
    (provider,) = yaml.safe_load((PROVISIONING / "dashboards" / "teenpatti.yaml").read_text())[
        "providers"
    ]
    assert provider["type"] == "file"
    (source,) = yaml.safe_load((PROVISIONING / "datasources" / "prometheus.yaml").read_text())[
        "datasources"
    ]
    assert source["type"] == "prometheus"


def test_promtool_finds_a_bad_query(tmp_path: Path) -> None:
    bad = {
        "record": "dashboard:query:0",
        "expr": substituted("sum by (le (rate(x[$__rate_interval]))"),
    }
    (tmp_path / "bad.yml").write_text(
        yaml.safe_dump({"groups": [{"name": "dashboards", "rules": [bad]}]})
    )
    assert promtool("check", "rules", str(tmp_path / "bad.yml")).returncode != 0
