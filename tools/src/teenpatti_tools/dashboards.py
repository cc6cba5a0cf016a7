"""The Grafana dashboards (`deploy/grafana/dashboards/*.json`), written from the panels declared
here by `make contracts` and drift-tested (tests/deploy/test_grafana.py).

Each dashboard reads the services' `/metrics` (teenpatti.observability.metrics) through a
Prometheus data source chosen by its `datasource` variable. Gauges read from a service's
database (rounds, held settlements, parked and owed counts) are reported by every instance of
the service, so panels take their max, never their sum, as the alert rules do
(deploy/prometheus/alerts.yml). Declared as tables so that a panel is one line to add.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DASHBOARDS_DIR = Path("deploy/grafana/dashboards")
SCHEMA_VERSION = 39
DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
# the rate window Grafana fits to the scrape interval and the zoom
RATE = "$__rate_interval"
WIDTH = 24


@dataclass(frozen=True)
class Query:
    expr: str
    legend: str = ""


@dataclass(frozen=True)
class Panel:
    title: str
    description: str
    unit: str  # a Grafana unit id: s, ops, short, percentunit...
    queries: tuple[Query, ...]
    kind: str = "timeseries"  # or "stat"
    stacked: bool = False

    @property
    def size(self) -> tuple[int, int]:
        return (6, 4) if self.kind == "stat" else (12, 8)


@dataclass(frozen=True)
class Row:
    title: str
    panels: tuple[Panel, ...]


@dataclass(frozen=True)
class Variable:
    """A query variable over one label of one metric (`label_values(metric, label)`)."""

    name: str
    label: str
    metric: str


@dataclass(frozen=True)
class Dashboard:
    uid: str
    title: str
    description: str
    rows: tuple[Row, ...]
    variables: tuple[Variable, ...] = field(default=())

    @property
    def path(self) -> Path:
        return DASHBOARDS_DIR / f"{self.uid}.json"


def quantiles(metric: str, by: str = "", matchers: str = "") -> tuple[Query, ...]:
    """The p50 and p99 of a histogram over the rate window, per `by` label if given."""
    labels = f"le, {by}" if by else "le"
    suffix = f" {{{{{by}}}}}" if by else ""
    return tuple(
        Query(
            f"histogram_quantile({q}, sum by ({labels}) (rate({metric}_bucket{matchers}[{RATE}])))",
            f"p{round(q * 100)}{suffix}",
        )
        for q in (0.5, 0.99)
    )


def rate(metric: str, by: str, matchers: str = "") -> Query:
    legend = " ".join(f"{{{{{label.strip()}}}}}" for label in by.split(","))
    return Query(f"sum by ({by}) (rate({metric}{matchers}[{RATE}]))", legend)


def worst(metric: str, by: str, matchers: str = "") -> Query:
    """A gauge every instance reports alike (read from the service's database): its max."""
    legend = " ".join(f"{{{{{label.strip()}}}}}" for label in by.split(","))
    return Query(f"max by ({by}) ({metric}{matchers})", legend)


# ------------------------------------------------------------------------------ the dashboards
TABLES_AND_CLOCKS = Dashboard(
    uid="teenpatti-tables",
    title="Teen Patti: tables and clocks",
    description="The tables' rounds, the clocks that close betting, the scans that deal and"
    " the services' health (docs/runbook.md).",
    rows=(
        Row(
            "Services",
            (
                Panel(
                    "Instances up",
                    "Instances of each service that answer /metrics.",
                    "short",
                    (Query('sum by (service) (up{job="teenpatti"})', "{{service}}"),),
                    kind="stat",
                ),
                Panel(
                    "Readiness checks failing",
                    "Checks of /ready that fail, by service and check (0: all ready).",
                    "short",
                    (
                        Query(
                            "sum by (service, check) (1 - teenpatti_ready_check)",
                            "{{service}} {{check}}",
                        ),
                    ),
                    kind="stat",
                ),
                Panel(
                    "Requests by status",
                    "HTTP requests answered per second, by service and status.",
                    "reqps",
                    (rate("teenpatti_http_requests_total", "service, status"),),
                    stacked=True,
                ),
                Panel(
                    "Request duration",
                    "HTTP request duration by service, p50 and p99.",
                    "s",
                    quantiles("teenpatti_http_request_duration_seconds", "service"),
                ),
            ),
        ),
        Row(
            "Tables",
            (
                Panel(
                    "Tables by round state",
                    "Open tables by the state of their current round.",
                    "short",
                    (worst("teenpatti_table_rounds", "state"),),
                    stacked=True,
                ),
                Panel(
                    "Longest stall",
                    "The longest a round has been dealing without a card, or paused.",
                    "s",
                    (worst("teenpatti_table_round_stall_seconds", "state"),),
                ),
            ),
        ),
        Row(
            "Clocks and scans",
            (
                Panel(
                    "Betting windows closed",
                    "Betting windows the table clocks closed per second.",
                    "ops",
                    (
                        Query(
                            f"sum(rate(teenpatti_table_betting_windows_closed_total[{RATE}]))",
                            "closed",
                        ),
                    ),
                ),
                Panel(
                    "Betting close lateness",
                    "How long after betting_closes_at the clock closed betting, p50 and p99.",
                    "s",
                    quantiles("teenpatti_table_betting_close_lateness_seconds"),
                ),
                Panel(
                    "Last scan to round closed",
                    "From a round's last card scanned to its RoundClosed committed.",
                    "s",
                    quantiles("teenpatti_table_scan_to_round_closed_seconds"),
                ),
                Panel(
                    "Scan to verdict",
                    "From a read reaching the gateway to the table's verdict, by verdict.",
                    "s",
                    quantiles("teenpatti_gateway_scan_to_verdict_seconds", "verdict"),
                ),
                Panel(
                    "Reads answered pending",
                    "Reads the gateway answered `pending` per second: no verdict in time.",
                    "ops",
                    (
                        Query(
                            f"sum(rate(teenpatti_gateway_verdicts_pending_total[{RATE}]))",
                            "pending",
                        ),
                    ),
                ),
                Panel(
                    "Authentication failures",
                    "Requests refused for their key per second, by service and reason.",
                    "reqps",
                    (rate("teenpatti_auth_failures_total", "service, reason"),),
                ),
            ),
        ),
    ),
)

# the wallet's slip route (POST /bets) and every other route of the money path
_SLIPS = '{service="wallet", method="POST", route="/bets"}'
MONEY_PATH = Dashboard(
    uid="teenpatti-money",
    title="Teen Patti: money path",
    description="Slips placed, rounds settled, wins paid: from a bet to its payment"
    " (docs/runbook.md).",
    rows=(
        Row(
            "Slips",
            (
                Panel(
                    "Slips by status",
                    "POST /bets per second by HTTP status (201 placed, 4xx refused).",
                    "reqps",
                    (rate("teenpatti_http_requests_total", "status", _SLIPS),),
                    stacked=True,
                ),
                Panel(
                    "Slip duration",
                    "How long POST /bets took, p50 and p99 (a seamless operator's bet call"
                    " included).",
                    "s",
                    quantiles("teenpatti_http_request_duration_seconds", matchers=_SLIPS),
                ),
            ),
        ),
        Row(
            "Settlement",
            (
                Panel(
                    "Held rounds",
                    "Rounds whose settlement is held by a recorded problem, by kind.",
                    "short",
                    (worst("teenpatti_settlement_held_rounds", "kind"),),
                ),
                Panel(
                    "Settlement's records",
                    "Records the settlement service's consumers take per second, by group"
                    " and outcome.",
                    "ops",
                    (
                        rate(
                            "teenpatti_consumer_records_total",
                            "group, outcome",
                            '{service="settlement"}',
                        ),
                    ),
                ),
            ),
        ),
        Row(
            "Payment",
            (
                Panel(
                    "Round closed to paid",
                    "From a round's RoundClosed to each settlement part paid, p50 and p99.",
                    "s",
                    quantiles("teenpatti_wallet_round_closed_to_paid_seconds"),
                ),
                Panel(
                    "Wallet's records",
                    "Records the wallet's consumers take per second (settlements paid,"
                    " rounds sealed), by group and outcome.",
                    "ops",
                    (
                        rate(
                            "teenpatti_consumer_records_total",
                            "group, outcome",
                            '{service="wallet"}',
                        ),
                    ),
                ),
                Panel(
                    "Events parked",
                    "Events parked for a person, by service and consumer group.",
                    "short",
                    (worst("teenpatti_parked_events", "service, group"),),
                ),
                Panel(
                    "Wallet server errors",
                    "The wallet's 5xx answers per second, by route.",
                    "reqps",
                    (
                        rate(
                            "teenpatti_http_requests_total",
                            "route",
                            '{service="wallet", status=~"5.."}',
                        ),
                    ),
                ),
            ),
        ),
    ),
)

_OPERATOR = '{operator=~"$operator"}'
OPERATORS_WALLETS = Dashboard(
    uid="teenpatti-operators",
    title="Teen Patti: operators' wallets",
    description="The calls to seamless operators' wallet servers and what we still owe them"
    " (docs/operators.md, docs/runbook.md).",
    variables=(Variable("operator", "Operator", "teenpatti_operator_calls_total"),),
    rows=(
        Row(
            "Calls",
            (
                Panel(
                    "Calls by outcome",
                    "Calls to the operators' wallet servers per second, by call and outcome.",
                    "ops",
                    (rate("teenpatti_operator_calls_total", "operator, call, outcome", _OPERATOR),),
                    stacked=True,
                ),
                Panel(
                    "Call duration",
                    "How long the operators' wallet servers took to answer, by call, p50 and p99.",
                    "s",
                    quantiles("teenpatti_operator_call_duration_seconds", "call", _OPERATOR),
                ),
                Panel(
                    "Timeouts",
                    "Calls given up at the operator's timeout per second, by call.",
                    "ops",
                    (rate("teenpatti_operator_call_timeouts_total", "operator, call", _OPERATOR),),
                ),
                Panel(
                    "Untrustworthy answers",
                    "Answers refused (unsigned, wrong signature, malformed...) per second, by"
                    " reason.",
                    "ops",
                    (rate("teenpatti_operator_bad_answers_total", "operator, reason", _OPERATOR),),
                ),
            ),
        ),
        Row(
            "Owed and refused",
            (
                Panel(
                    "Owed calls",
                    "Wins and rollbacks owed and not yet answered, by state: pending (still"
                    " retried), failed (a person resends it).",
                    "short",
                    (worst("teenpatti_operator_owed_calls", "operator, state", _OPERATOR),),
                ),
                Panel(
                    "Oldest owed call",
                    "The age of the oldest owed win or rollback, by state.",
                    "s",
                    (
                        worst(
                            "teenpatti_operator_owed_call_oldest_age_seconds",
                            "operator, state",
                            _OPERATOR,
                        ),
                    ),
                ),
                Panel(
                    "Slips refused",
                    "Slips refused per second, by operator and refusal code.",
                    "ops",
                    (rate("teenpatti_wallet_slips_refused_total", "operator, code", _OPERATOR),),
                    stacked=True,
                ),
            ),
        ),
    ),
)

KAFKA_AND_OUTBOX = Dashboard(
    uid="teenpatti-kafka",
    title="Teen Patti: Kafka lag and outbox",
    description="How far behind the consumers are and what waits in each store's outbox"
    " (docs/runbook.md).",
    rows=(
        Row(
            "Consumers",
            (
                Panel(
                    "Consumer lag by group",
                    "Records not yet read, summed over a group's partitions.",
                    "short",
                    (Query("sum by (group) (teenpatti_consumer_lag_records)", "{{group}}"),),
                ),
                Panel(
                    "Most lagging partitions",
                    "The ten partitions furthest behind.",
                    "short",
                    (
                        Query(
                            "topk(10, max by (group, topic, partition)"
                            " (teenpatti_consumer_lag_records))",
                            "{{group}} {{topic}}[{{partition}}]",
                        ),
                    ),
                ),
                Panel(
                    "Records by outcome",
                    "Records consumed per second, by group and outcome.",
                    "ops",
                    (rate("teenpatti_consumer_records_total", "group, outcome"),),
                    stacked=True,
                ),
                Panel(
                    "Events parked",
                    "Events parked for a person, by service and consumer group.",
                    "short",
                    (worst("teenpatti_parked_events", "service, group"),),
                ),
            ),
        ),
        Row(
            "Outbox",
            (
                Panel(
                    "Outbox backlog",
                    "Events committed and not yet published, by relay.",
                    "short",
                    (worst("teenpatti_outbox_backlog_events", "relay"),),
                ),
                Panel(
                    "Relay lag",
                    "How long ago the oldest event not yet published occurred, by relay.",
                    "s",
                    (worst("teenpatti_outbox_relay_lag_seconds", "relay"),),
                ),
                Panel(
                    "Events published",
                    "Events the relays published per second.",
                    "ops",
                    (rate("teenpatti_outbox_published_events_total", "relay"),),
                    stacked=True,
                ),
                Panel(
                    "Events set aside",
                    "Events too large for Kafka set aside per second, and those waiting.",
                    "short",
                    (
                        rate("teenpatti_outbox_set_aside_events_total", "relay"),
                        Query(
                            "max by (relay) (teenpatti_outbox_parked_events)", "waiting {{relay}}"
                        ),
                    ),
                ),
                Panel(
                    "Relay leaders",
                    "Instances holding each store's relay lock (1: one relay publishes).",
                    "short",
                    (Query("sum by (relay) (teenpatti_outbox_relay_leader)", "{{relay}}"),),
                    kind="stat",
                ),
                Panel(
                    "Postgres connections in use",
                    "Connections of each service's pools in use, and their ceiling.",
                    "short",
                    (
                        Query(
                            'sum by (service) (teenpatti_db_pool_connections{state="in_use"})',
                            "in use {{service}}",
                        ),
                        Query(
                            "sum by (service) (teenpatti_db_pool_max_connections)",
                            "max {{service}}",
                        ),
                    ),
                ),
            ),
        ),
    ),
)

DASHBOARDS = (TABLES_AND_CLOCKS, MONEY_PATH, OPERATORS_WALLETS, KAFKA_AND_OUTBOX)


# ------------------------------------------------------------------------------ rendering
def dashboard_json(dashboard: Dashboard) -> dict[str, Any]:
    """The dashboard in Grafana's JSON model (schemaVersion 39, Grafana 10.4 and later)."""
    panels: list[dict[str, Any]] = []
    y = 0
    for row in dashboard.rows:
        panels.append(
            {
                "id": len(panels) + 1,
                "type": "row",
                "title": row.title,
                "collapsed": False,
                "gridPos": {"h": 1, "w": WIDTH, "x": 0, "y": y},
                "panels": [],
            }
        )
        y += 1
        x, height = 0, 0
        for panel in row.panels:
            w, h = panel.size
            if x + w > WIDTH:
                x, y, height = 0, y + height, 0
            panels.append(_panel(panel, len(panels) + 1, {"h": h, "w": w, "x": x, "y": y}))
            x, height = x + w, max(height, h)
        y += height
    return {
        "annotations": {
            "list": [
                {
                    "builtIn": 1,
                    "datasource": {"type": "grafana", "uid": "-- Grafana --"},
                    "enable": True,
                    "hide": True,
                    "iconColor": "rgba(0, 211, 255, 1)",
                    "name": "Annotations & Alerts",
                    "type": "dashboard",
                }
            ]
        },
        "description": dashboard.description,
        "editable": True,
        "graphTooltip": 1,
        "id": None,
        "links": [],
        "panels": panels,
        "refresh": "30s",
        "schemaVersion": SCHEMA_VERSION,
        "tags": ["teenpatti"],
        "templating": {"list": [_datasource_variable(), *map(_variable, dashboard.variables)]},
        "time": {"from": "now-3h", "to": "now"},
        "timepicker": {},
        "timezone": "utc",
        "title": dashboard.title,
        "uid": dashboard.uid,
        "version": 1,
    }


def _panel(panel: Panel, panel_id: int, grid: dict[str, int]) -> dict[str, Any]:
    targets = [
        {
            "datasource": DATASOURCE,
            "editorMode": "code",
            "expr": query.expr,
            "legendFormat": query.legend or "__auto",
            "range": True,
            "refId": chr(ord("A") + index),
        }
        for index, query in enumerate(panel.queries)
    ]
    defaults: dict[str, Any] = {"unit": panel.unit, "min": 0}
    if panel.kind == "timeseries":
        defaults["custom"] = {
            "drawStyle": "line",
            "fillOpacity": 20 if panel.stacked else 0,
            "lineWidth": 1,
            "showPoints": "never",
            "spanNulls": False,
            "stacking": {"group": "A", "mode": "normal" if panel.stacked else "none"},
        }
        options: dict[str, Any] = {
            "legend": {"displayMode": "list", "placement": "bottom", "showLegend": True},
            "tooltip": {"mode": "multi", "sort": "desc"},
        }
    else:
        options = {
            "colorMode": "value",
            "graphMode": "area",
            "justifyMode": "auto",
            "orientation": "auto",
            "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
            "textMode": "auto",
        }
    return {
        "id": panel_id,
        "type": panel.kind,
        "title": panel.title,
        "description": panel.description,
        "datasource": DATASOURCE,
        "gridPos": grid,
        "fieldConfig": {"defaults": defaults, "overrides": []},
        "options": options,
        "targets": targets,
    }


def _datasource_variable() -> dict[str, Any]:
    return {
        "name": "datasource",
        "label": "Prometheus",
        "type": "datasource",
        "query": "prometheus",
        "current": {},
        "hide": 0,
        "includeAll": False,
        "multi": False,
        "options": [],
        "refresh": 1,
        "regex": "",
    }


def _variable(variable: Variable) -> dict[str, Any]:
    query = f"label_values({variable.metric}, {variable.name})"
    return {
        "name": variable.name,
        "label": variable.label,
        "type": "query",
        "datasource": DATASOURCE,
        "definition": query,
        "query": {"query": query, "refId": "PrometheusVariableQueryEditor-VariableQuery"},
        "current": {},
        "hide": 0,
        "includeAll": True,
        "allValue": ".*",
        "multi": True,
        "options": [],
        "refresh": 2,
        "regex": "",
        "sort": 1,
    }


def generated() -> dict[Path, str]:
    """Each dashboard's file and its text."""
    return {
        dashboard.path: json.dumps(dashboard_json(dashboard), indent=2) + "\n"
        for dashboard in DASHBOARDS
    }
