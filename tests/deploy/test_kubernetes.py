"""The Kubernetes manifests (deploy/kubernetes): the base and each overlay render with
`kubectl kustomize`, every resource is valid against the Kubernetes API's schemas (offline:
kubernetes-validate ships them), and the services keep the rules deploy/README.md gives."""

from __future__ import annotations

import base64
import copy
import importlib.util
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs
import kubernetes_validate
import pytest
import yaml

from teenpatti.kernel.proxies import TrustedProxies
from teenpatti.migrations import declared_services
from teenpatti.settings import DevelopmentSettingError
from teenpatti_tools import prometheus_rule
from wallet_service.config import WalletSettings

from .monitoring_crds import SCHEMAS as CUSTOM_RESOURCES

ROOT = Path(__file__).resolve().parents[2]
KUBERNETES = ROOT / "deploy" / "kubernetes"
TARGETS = ("base", "overlays/local", "overlays/prod")
# the oldest Kubernetes release the manifests are for, and the newest the schemas know
KUBERNETES_VERSIONS = ("1.30.0", "1.37.0")
SERVICE_APPS = {
    "table": "table_service.app:app",
    "scanner-gateway": "scanner_gateway.app:app",
    "wallet": "wallet_service.app:app",
    "settlement": "settlement_service.app:app",
}
REPLICAS = {
    "base": dict.fromkeys(SERVICE_APPS, 1),
    "overlays/local": dict.fromkeys(SERVICE_APPS, 1),
    "overlays/prod": {"table": 2, "scanner-gateway": 2, "wallet": 3, "settlement": 2},
}
# created outside git everywhere but in the local overlay, which generates development ones
CREDENTIALS = {"pg-username", "pg-password", "kafka-username", "kafka-password"}
REDIS_CREDENTIALS = {"redis-username", "redis-password"}
SECRET_KEYS = {
    "teenpatti-postgres": {"username", "password"},  # the admin role: the migrate Job
    "teenpatti-api-keys": {"api-keys"},
    # each service's own principal (docs/decisions/0050-a-principal-per-service.md)
    "teenpatti-table-credentials": CREDENTIALS | REDIS_CREDENTIALS,
    "teenpatti-scanner-gateway-credentials": CREDENTIALS | REDIS_CREDENTIALS,
    "teenpatti-settlement-credentials": CREDENTIALS,
    "teenpatti-wallet-credentials": CREDENTIALS,
    # the web front's viewer key (docs/web.md)
    "teenpatti-web-credentials": {"api-key"},
}
SECRET_SETTINGS = (
    "TP_PG_PASSWORD",
    "TP_API_KEYS",
    "TP_KAFKA_PASSWORD",
    "TP_REDIS_PASSWORD",
    "TP_WEB_API_KEY",
)
# the web front: no database, broker or cache, so no migration and no principal
WEB_APP = "web_service.app:app"
WEB_REPLICAS = {"base": 1, "overlays/local": 1, "overlays/prod": 2}
# what a service's containers must be given: its own Postgres and Kafka credentials, and for
# those that use Redis its Redis credentials
GIVEN = {"TP_PG_USER", "TP_PG_PASSWORD", "TP_API_KEYS", "TP_KAFKA_USERNAME", "TP_KAFKA_PASSWORD"}
REDIS_GIVEN = {"TP_REDIS_USERNAME", "TP_REDIS_PASSWORD"}
USES_REDIS = ("table", "scanner-gateway")
# uvicorn's wait for requests in flight (deploy/docker/Dockerfile's CMD)
GRACEFUL_SHUTDOWN = re.compile(r"--timeout-graceful-shutdown (\d+)")

Resource = dict[str, Any]


@cache
def rendered(target: str) -> tuple[Resource, ...]:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.fail(
            "kubectl is not installed; `make install` installs it"
            " (as root: apt-get install -y kubernetes-client)"
        )
    done = subprocess.run(
        [kubectl, "kustomize", str(KUBERNETES / target)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"kubectl kustomize {target} failed:\n{done.stderr}")
    return tuple(doc for doc in yaml.safe_load_all(done.stdout) if doc)


def of_kind(target: str, kind: str) -> list[Resource]:
    return [r for r in rendered(target) if r["kind"] == kind]


def deployments(target: str) -> dict[str, Resource]:
    """The four services' Deployments by name (the local overlay's Redis is one too)."""
    found = {d["metadata"]["name"]: d for d in of_kind(target, "Deployment")}
    return {name: found[name] for name in SERVICE_APPS if name in found}


def main_container(deployment: Resource) -> Resource:
    name = deployment["metadata"]["name"]
    containers = deployment["spec"]["template"]["spec"]["containers"]
    return next(c for c in containers if c["name"] == name)


def every_container(pod: Resource) -> Iterator[Resource]:
    yield from pod.get("initContainers", [])
    yield from pod["containers"]


def pod_specs(target: str) -> Iterator[tuple[str, Resource]]:
    for resource in rendered(target):
        if resource["kind"] in ("Deployment", "StatefulSet", "Job"):
            name = f"{resource['kind']}/{resource['metadata']['name']}"
            yield name, resource["spec"]["template"]["spec"]


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return selector.items() <= labels.items()


def settings(target: str) -> dict[str, str]:
    (config_map,) = (
        c
        for c in of_kind(target, "ConfigMap")
        if c["metadata"]["name"].startswith("teenpatti-settings")
    )
    data: dict[str, str] = config_map["data"]
    return data


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("target", TARGETS)
def test_every_resource_is_valid_kubernetes(target: str, version: str) -> None:
    errors = []
    for resource in rendered(target):
        where = f"{resource['kind']}/{resource['metadata']['name']}"
        if resource["kind"] in CUSTOM_RESOURCES:
            # not Kubernetes's own: the operator's schema (tests/deploy/monitoring_crds.py)
            validator = jsonschema_rs.Draft7Validator(CUSTOM_RESOURCES[resource["kind"]])
            errors.extend(f"{where}: {error.message}" for error in validator.iter_errors(resource))
            continue
        try:
            kubernetes_validate.validate(resource, version, strict=True)
        except kubernetes_validate.ValidationError as error:
            path = ".".join(str(p) for p in error.path)
            errors.append(f"{where}: {path}: {error.message}")
        except kubernetes_validate.SchemaNotFoundError as error:
            errors.append(f"{where}: {error.message}")
    assert not errors, "\n".join(errors)


@pytest.mark.parametrize("target", TARGETS)
def test_each_service_has_a_deployment_a_service_and_a_disruption_budget(target: str) -> None:
    found = deployments(target)
    assert set(found) == set(SERVICE_APPS)
    for name, deployment in found.items():
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        assert selects(deployment["spec"]["selector"]["matchLabels"], labels)
        services = [s for s in of_kind(target, "Service") if selects(s["spec"]["selector"], labels)]
        assert [s["metadata"]["name"] for s in services] == [name]
        assert services[0]["spec"]["ports"][0]["targetPort"] == "http"
        budgets = [
            b
            for b in of_kind(target, "PodDisruptionBudget")
            if selects(b["spec"]["selector"]["matchLabels"], labels)
        ]
        assert len(budgets) == 1, f"{name}: {len(budgets)} PodDisruptionBudgets"
        # not minAvailable: with one replica it would block every node drain
        assert budgets[0]["spec"]["maxUnavailable"] == 1, name
        assert "minAvailable" not in budgets[0]["spec"], name


@pytest.mark.parametrize("target", TARGETS)
def test_liveness_on_health_readiness_on_ready(target: str) -> None:
    for name, deployment in deployments(target).items():
        container = main_container(deployment)
        assert {"name": "http", "containerPort": 8000} in container["ports"], name
        for probe, path in (
            ("startupProbe", "/health"),
            ("livenessProbe", "/health"),
            ("readinessProbe", "/ready"),
        ):
            assert container[probe]["httpGet"] == {"path": path, "port": "http"}, (name, probe)


@pytest.mark.parametrize("target", TARGETS)
def test_every_container_has_requests_and_limits(target: str) -> None:
    for where, pod in pod_specs(target):
        for container in every_container(pod):
            resources = container.get("resources", {})
            assert {"cpu", "memory"} <= set(resources.get("requests", {})), where
            assert "memory" in resources.get("limits", {}), where


@pytest.mark.parametrize("target", TARGETS)
def test_our_image_runs_as_non_root_on_a_read_only_file_system(target: str) -> None:
    for where, pod in pod_specs(target):
        ours = [c for c in every_container(pod) if c["image"].split(":")[0].endswith("teenpatti")]
        if not ours:
            continue  # the local overlay's Postgres, Kafka and Redis: their images' own users
        assert pod["securityContext"]["runAsNonRoot"] is True, where
        assert pod["securityContext"]["runAsUser"] != 0, where
        assert pod["automountServiceAccountToken"] is False, where
        for container in ours:
            context = container["securityContext"]
            assert context["readOnlyRootFilesystem"] is True, where
            assert context["allowPrivilegeEscalation"] is False, where
            assert context["capabilities"]["drop"] == ["ALL"], where


@pytest.mark.parametrize("target", TARGETS)
def test_a_stopping_pod_has_time_to_drain(target: str) -> None:
    dockerfile = (ROOT / "deploy" / "docker" / "Dockerfile").read_text()
    in_flight = int(GRACEFUL_SHUTDOWN.findall(dockerfile)[-1])
    drain = float(settings(target)["TP_DRAIN_SECONDS"])
    for name, deployment in deployments(target).items():
        pod = deployment["spec"]["template"]["spec"]
        pre_stop = main_container(deployment)["lifecycle"]["preStop"]["exec"]["command"]
        assert pre_stop[0] == "sleep", name
        needed = int(pre_stop[1]) + in_flight + drain
        assert pod["terminationGracePeriodSeconds"] > needed + 5, name


@pytest.mark.parametrize("target", TARGETS)
def test_each_service_runs_its_app_after_migrating_its_database(target: str) -> None:
    declared = declared_services()
    for name, deployment in deployments(target).items():
        env = {e["name"]: e for e in main_container(deployment)["env"]}
        app = env["SERVICE_APP"]["value"]
        assert app == SERVICE_APPS[name]
        assert importlib.util.find_spec(app.partition(":")[0]) is not None, app
        (migrate,) = deployment["spec"]["template"]["spec"]["initContainers"]
        assert migrate["command"] == ["teenpatti", "migrate", name]
        assert name in declared
        assert migrate["image"] == main_container(deployment)["image"]
    (job,) = of_kind(target, "Job")
    (container,) = job["spec"]["template"]["spec"]["containers"]
    # the admin migrates the access database; each service's own role its own database
    assert container["command"] == ["teenpatti", "migrate", "access"]


@pytest.mark.parametrize("target", ["base", "overlays/prod"])
def test_each_service_runs_as_its_own_principal_over_tls(target: str) -> None:
    """Each service's containers (its migrate init container too) take their credentials from
    the service's own Secret, none from another's; the connections are authenticated and
    encrypted (docs/decisions/0050-a-principal-per-service.md)."""
    for name, deployment in deployments(target).items():
        for container in every_container(deployment["spec"]["template"]["spec"]):
            env = {e["name"]: e for e in container.get("env", [])}
            wanted = GIVEN | (REDIS_GIVEN if name in USES_REDIS else set())
            assert wanted <= set(env), (name, container["name"], wanted - set(env))
            for setting in wanted - {"TP_API_KEYS"}:
                reference = env[setting]["valueFrom"]["secretKeyRef"]
                assert generated_from(reference["name"]) == f"teenpatti-{name}-credentials"
    config = settings(target)
    assert config["TP_KAFKA_SECURITY_PROTOCOL"] == "SASL_SSL"
    assert config["TP_KAFKA_SASL_MECHANISM"] == "SCRAM-SHA-512"
    assert config["TP_REDIS_TLS"] == "true"
    assert config["TP_PG_SSLMODE"] == "verify-full"


@pytest.mark.parametrize("target", TARGETS)
def test_secrets_are_referenced_by_name_only(target: str) -> None:
    for where, pod in pod_specs(target):
        for container in every_container(pod):
            for entry in container.get("env", []):
                assert not (entry["name"] in SECRET_SETTINGS and "value" in entry), where
                reference = entry.get("valueFrom", {}).get("secretKeyRef")
                if reference is not None:
                    name = generated_from(reference["name"])
                    assert reference["key"] in SECRET_KEYS[name], (where, reference)
    assert not set(SECRET_SETTINGS) & set(settings(target)), "a secret in the ConfigMap"


@pytest.mark.parametrize("target", TARGETS)
def test_only_the_local_overlay_runs_in_development(target: str) -> None:
    """Outside development our containers refuse public development secrets, so each one is
    given both Secrets, the migrate containers too
    (docs/decisions/0049-no-default-secret-outside-development.md)."""
    assert settings(target)["TP_ENV"] == ("dev" if target == "overlays/local" else "production")
    for where, pod in pod_specs(target):
        for container in every_container(pod):
            if container["image"].split(":")[0].endswith("teenpatti"):
                given = {entry["name"] for entry in container.get("env", [])}
                # the web front's one secret is its key; it connects to no database
                needed = (
                    {"TP_WEB_API_KEY"}
                    if where == "Deployment/web"
                    else {
                        "TP_PG_PASSWORD",
                        "TP_API_KEYS",
                    }
                )
                assert needed <= given, (where, container["name"])


@pytest.mark.parametrize("target", ["base", "overlays/prod"])
def test_no_secret_is_inlined(target: str) -> None:
    assert of_kind(target, "Secret") == []


def test_the_local_overlay_generates_development_secrets_that_resolve() -> None:
    secrets = {s["metadata"]["name"]: s for s in of_kind("overlays/local", "Secret")}
    assert {generated_from(name) for name in secrets} == set(SECRET_KEYS)
    for where, pod in pod_specs("overlays/local"):
        for container in every_container(pod):
            for entry in container.get("env", []):
                reference = entry.get("valueFrom", {}).get("secretKeyRef")
                if reference is not None:
                    assert reference["name"] in secrets, (where, reference)
                    assert reference["key"] in secrets[reference["name"]]["data"], where
    (api_keys,) = (s for name, s in secrets.items() if name.startswith("teenpatti-api-keys"))
    keys = base64.b64decode(api_keys["data"]["api-keys"]).decode()
    assert all(entry.count(":") >= 2 for entry in keys.split(","))


@pytest.mark.parametrize("target", TARGETS)
def test_replicas(target: str) -> None:
    counts = {name: d["spec"]["replicas"] for name, d in deployments(target).items()}
    assert counts == REPLICAS[target]


@pytest.mark.parametrize("target", TARGETS)
def test_prometheus_scrapes_metrics_on_the_service_port(target: str) -> None:
    for name, deployment in deployments(target).items():
        annotations = deployment["spec"]["template"]["metadata"]["annotations"]
        assert annotations == {
            "prometheus.io/scrape": "true",
            "prometheus.io/port": "8000",
            "prometheus.io/path": "/metrics",
        }, name


@pytest.mark.parametrize("target", ["overlays/local", "overlays/prod"])
def test_overlays_pin_the_image_and_the_namespace(target: str) -> None:
    for where, pod in pod_specs(target):
        for container in every_container(pod):
            image = container["image"]
            assert re.fullmatch(r"[^:@]+(:[\w.-]+)", image), (where, image)
            assert not image.endswith(":latest"), (where, image)
    for resource in rendered(target):
        if resource["kind"] != "Namespace":
            assert resource["metadata"]["namespace"] == "teenpatti", resource["metadata"]


def test_the_production_overlay_replicates_kafka_topics() -> None:
    assert settings("overlays/prod")["TP_KAFKA_REPLICATION_FACTOR"] == "3"


def test_the_local_postgres_creates_the_same_databases_as_compose() -> None:
    (init,) = (
        c
        for c in of_kind("overlays/local", "ConfigMap")
        if c["metadata"]["name"] == "postgres-init"
    )
    compose_init = (ROOT / "deploy" / "docker" / "postgres-init.sql").read_text()
    assert init["data"]["databases.sql"] == compose_init


@pytest.mark.parametrize("target", TARGETS)
def test_the_web_front_runs_stateless_with_its_viewer_key_only(target: str) -> None:
    (web,) = (d for d in of_kind(target, "Deployment") if d["metadata"]["name"] == "web")
    pod = web["spec"]["template"]["spec"]
    assert "initContainers" not in pod  # nothing to migrate
    container = main_container(web)
    env = {e["name"]: e for e in container["env"]}
    assert env["SERVICE_APP"]["value"] == WEB_APP
    assert importlib.util.find_spec(WEB_APP.partition(":")[0]) is not None
    reference = env["TP_WEB_API_KEY"]["valueFrom"]["secretKeyRef"]
    assert (generated_from(reference["name"]), reference["key"]) == (
        "teenpatti-web-credentials",
        "api-key",
    )
    # no one else's credentials: no infrastructure, no TP_API_KEYS
    secrets = {e["valueFrom"]["secretKeyRef"]["name"] for e in container["env"] if "valueFrom" in e}
    assert {generated_from(name) for name in secrets} == {"teenpatti-web-credentials"}
    urls = {env[f"TP_WEB_{name}_URL"]["value"] for name in ("TABLE", "SCANNER", "WALLET")}
    urls.add(env["TP_WEB_SETTLEMENT_URL"]["value"])
    assert urls == {f"http://{name}:8000" for name in SERVICE_APPS}
    assert {"name": "http", "containerPort": 8000} in container["ports"]
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        assert container[probe]["httpGet"] == {"path": "/health", "port": "http"}, probe
    labels = web["spec"]["template"]["metadata"]["labels"]
    services = [s for s in of_kind(target, "Service") if selects(s["spec"]["selector"], labels)]
    assert [s["metadata"]["name"] for s in services] == ["web"]
    budgets = [
        b
        for b in of_kind(target, "PodDisruptionBudget")
        if selects(b["spec"]["selector"]["matchLabels"], labels)
    ]
    assert [b["spec"] for b in budgets] == [
        {"maxUnavailable": 1, "selector": web["spec"]["selector"]}
    ]
    assert web["spec"]["replicas"] == WEB_REPLICAS[target]


def test_the_local_overlay_gives_the_web_front_a_viewer_key_the_services_know() -> None:
    secrets = {
        generated_from(s["metadata"]["name"]): s for s in of_kind("overlays/local", "Secret")
    }
    key = base64.b64decode(secrets["teenpatti-web-credentials"]["data"]["api-key"]).decode()
    keys = base64.b64decode(secrets["teenpatti-api-keys"]["data"]["api-keys"]).decode()
    assert f"web:viewer:{key}" in keys.split(",")


def generated_from(name: str) -> str:
    """A Secret's name without the hash suffix kustomize's secretGenerator appends."""
    base = re.sub(r"-[a-z0-9]{10}$", "", name)
    return base if base in SECRET_KEYS else name


# ------------------------------------------------------------------------------ the seamless wallet
SIGNING_KEY_SECRET = "teenpatti-seamless-signing-key"
SIGNING_KEY_ITEM = "signing-key.pem"
PRODUCTION_TARGETS = ("base", "overlays/prod")


def wallet_pod(target: str) -> Resource:
    pod: Resource = deployments(target)["wallet"]["spec"]["template"]["spec"]
    return pod


def signing_key_file(target: str) -> str:
    env = {e["name"]: e for e in main_container(deployments(target)["wallet"])["env"]}
    path: str = env["TP_SEAMLESS_SIGNING_KEY_FILE"]["value"]
    return path


@pytest.mark.parametrize("target", PRODUCTION_TARGETS)
def test_the_wallet_reads_its_signing_key_from_a_mounted_secret(target: str) -> None:
    """The key is a file of a Secret mounted read-only, readable by the container's group
    only, never an environment value; the Secret is created outside git."""
    pod = wallet_pod(target)
    path = Path(signing_key_file(target))
    (mount,) = (
        m
        for m in main_container(deployments(target)["wallet"])["volumeMounts"]
        if path.parent == Path(m["mountPath"])
    )
    assert mount.get("readOnly") is True
    (volume,) = (v for v in pod["volumes"] if v["name"] == mount["name"])
    secret = volume["secret"]
    assert secret["secretName"] == SIGNING_KEY_SECRET
    assert secret.get("optional", False) is False  # no key, no start: not a silent fallback
    assert {"key": SIGNING_KEY_ITEM, "path": path.name} in secret["items"]
    assert secret["defaultMode"] & 0o007 == 0, oct(secret["defaultMode"])  # not world-readable
    assert pod["securityContext"]["fsGroup"] == pod["securityContext"]["runAsGroup"]
    for container in every_container(pod):
        for entry in container.get("env", []):
            reference = entry.get("valueFrom", {}).get("secretKeyRef", {})
            assert reference.get("name") != SIGNING_KEY_SECRET, container["name"]
    assert SIGNING_KEY_SECRET not in {s["metadata"]["name"] for s in of_kind(target, "Secret")}


def test_only_the_wallet_mounts_the_signing_key() -> None:
    for where, pod in pod_specs("overlays/prod"):
        names = {v.get("secret", {}).get("secretName") for v in pod.get("volumes", [])}
        assert (SIGNING_KEY_SECRET in names) == (where == "Deployment/wallet"), where


def test_the_development_cluster_runs_the_wallet_without_a_signing_key() -> None:
    """No Secret to create on a development cluster: the wallet serves transfer operators."""
    assert signing_key_file("overlays/local") == ""
    (volume,) = (v for v in wallet_pod("overlays/local")["volumes"] if "secret" in v)
    assert volume["secret"]["optional"] is True


def wallet_settings(target: str, monkeypatch: pytest.MonkeyPatch) -> WalletSettings:
    """The wallet's settings as its container reads them: the ConfigMap's values alone."""
    for name in list(os.environ):
        if name.upper().startswith("TP_"):
            monkeypatch.delenv(name)
    for name, value in settings(target).items():
        monkeypatch.setenv(name, value)
    return WalletSettings()


@pytest.mark.parametrize("target", ["overlays/local", "overlays/prod"])
def test_each_overlay_gives_a_player_view_url_its_wallet_starts_with(
    target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    wallet = wallet_settings(target, monkeypatch)
    assert "player_view_url" in wallet.model_fields_set
    wallet.refuse_development_settings()  # the wallet's own check at start
    if wallet.env != "dev":
        assert wallet.player_view_url.startswith("https://")


def test_the_base_leaves_the_player_view_url_to_the_overlays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert "TP_PLAYER_VIEW_URL" not in settings("base")
    with pytest.raises(DevelopmentSettingError, match="TP_PLAYER_VIEW_URL"):
        wallet_settings("base", monkeypatch).refuse_development_settings()


@pytest.mark.parametrize("target", TARGETS)
def test_the_services_and_the_web_front_believe_the_cluster_s_proxies(target: str) -> None:
    """Each names the pod network the web front and the ingress controller run in, so that a
    limit per address counts the players behind them (docs/decisions/0087)."""
    for name in ("TP_TRUSTED_PROXIES", "TP_WEB_TRUSTED_PROXIES"):
        assert TrustedProxies.parse(settings(target)[name]), name
    for deployment in of_kind(target, "Deployment"):
        if deployment["metadata"]["name"] in (*SERVICE_APPS, "web"):
            sources = main_container(deployment)["envFrom"]
            assert {"configMapRef": {"name": settings_name(target)}} in sources


def settings_name(target: str) -> str:
    (config_map,) = (
        c["metadata"]["name"]
        for c in of_kind(target, "ConfigMap")
        if c["metadata"]["name"].startswith("teenpatti-settings")
    )
    return str(config_map)


# ------------------------------------------------------------------------------ monitoring
ALERTS = ROOT / "deploy" / "prometheus" / "alerts.yml"


def test_the_prometheus_rule_holds_the_alert_rules() -> None:
    (rule,) = of_kind("overlays/prod", "PrometheusRule")
    alerts = yaml.safe_load(ALERTS.read_text())
    assert rule["spec"]["groups"] == alerts["groups"]
    for path, text in prometheus_rule.generated(ROOT).items():
        assert (ROOT / path).read_text() == text, f"{path} is out of date: run `make contracts`"


def matches(selector: Resource, labels: dict[str, str]) -> bool:
    """A label selector (matchLabels and matchExpressions) against a pod's labels."""
    if not selects(selector.get("matchLabels", {}), labels):
        return False
    for expression in selector.get("matchExpressions", []):
        present, value = expression["key"] in labels, labels.get(expression["key"])
        held = {
            "In": present and value in expression.get("values", []),
            "NotIn": not present or value not in expression.get("values", []),
            "Exists": present,
            "DoesNotExist": not present,
        }[expression["operator"]]
        if not held:
            return False
    return True


def test_the_pod_monitor_scrapes_every_service_as_the_rules_expect() -> None:
    (monitor,) = of_kind("overlays/prod", "PodMonitor")
    spec = monitor["spec"]
    scraped = {
        d["metadata"]["name"]: d
        for d in of_kind("overlays/prod", "Deployment")
        if matches(spec["selector"], d["spec"]["template"]["metadata"]["labels"])
    }
    assert set(scraped) == set(SERVICE_APPS)  # not the web front: it has no /metrics
    (endpoint,) = spec["podMetricsEndpoints"]
    assert endpoint["path"] == "/metrics"
    for deployment in scraped.values():
        ports = {p["name"]: p for p in main_container(deployment)["ports"]}
        annotations = deployment["spec"]["template"]["metadata"]["annotations"]
        assert str(ports[endpoint["port"]]["containerPort"]) == annotations["prometheus.io/port"]
    # the labels the alert rules and the dashboards read: job="teenpatti", service=<name>
    job = {"action": "replace", "targetLabel": "job", "replacement": "teenpatti"}
    service = {
        "action": "replace",
        "sourceLabels": ["__meta_kubernetes_pod_label_app_kubernetes_io_name"],
        "targetLabel": "service",
    }
    assert job in endpoint["relabelings"] and service in endpoint["relabelings"]
    assert 'job="teenpatti"' in ALERTS.read_text()


def test_the_development_cluster_needs_no_prometheus_operator() -> None:
    kinds = {r["kind"] for r in rendered("overlays/local")} | {r["kind"] for r in rendered("base")}
    assert not kinds & set(CUSTOM_RESOURCES)


@pytest.mark.parametrize(
    ("kind", "spoil"),
    [
        ("PodMonitor", lambda r: r["spec"]["podMetricsEndpoints"][0].update(paht="/metrics")),
        ("PodMonitor", lambda r: r["spec"]["podMetricsEndpoints"][0].update(interval="15 s")),
        ("PodMonitor", lambda r: r["spec"].pop("selector")),
        (
            "PodMonitor",
            lambda r: r["spec"]["podMetricsEndpoints"][0]["relabelings"][0].update(action="rename"),
        ),
        ("PrometheusRule", lambda r: r["spec"]["groups"][0]["rules"][0].pop("expr")),
        ("PrometheusRule", lambda r: r["spec"]["groups"][0]["rules"][0].update(record="x")),
        ("PrometheusRule", lambda r: r["spec"]["groups"][0].update(rule=[])),
    ],
)
def test_the_custom_resources_check_finds_a_spoilt_field(kind: str, spoil: Any) -> None:
    (resource,) = of_kind("overlays/prod", kind)
    spoilt = copy.deepcopy(resource)
    spoil(spoilt)
    validator = jsonschema_rs.Draft7Validator(CUSTOM_RESOURCES[kind])
    assert validator.is_valid(resource)
    assert not validator.is_valid(spoilt)
