"""The image (deploy/docker/Dockerfile), its build context (.dockerignore) and
docker-compose.yml, read as text and YAML: the machines that run the tests have no Docker
engine. deploy/README.md says how to build and run them."""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from wallet_service.config import unreachable_player_view

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "deploy" / "docker" / "Dockerfile"
COMPOSE = ROOT / "docker-compose.yml"
ENV_EXAMPLE = ROOT / "deploy" / "docker" / ".env.example"
APPS = {
    "table": "table_service.app:app",
    "scanner-gateway": "scanner_gateway.app:app",
    "wallet": "wallet_service.app:app",
    "settlement": "settlement_service.app:app",
}
SECRET_SETTINGS = (
    "TP_PG_PASSWORD",
    "TP_API_KEYS",
    "POSTGRES_PASSWORD",
    "TP_KAFKA_PASSWORD",
    "TP_TABLE_PASSWORD",
    "TP_SCANNER_GATEWAY_PASSWORD",
    "TP_SETTLEMENT_PASSWORD",
    "TP_WALLET_PASSWORD",
    "TP_WEB_API_KEY",
)
# the web front (docs/web.md): no database, broker or cache, so no principal of its own
WEB_APP = "web_service.app:app"
# each service's own principal: its role, its Kafka and Redis users, its password variable
# (docs/decisions/0050-a-principal-per-service.md)
PRINCIPALS = {name: "TP_" + name.upper().replace("-", "_") + "_PASSWORD" for name in APPS}
USES_REDIS = ("table", "scanner-gateway")
ONE_SHOT = ("migrate", "kafka-acls")
# uvicorn's wait for requests in flight, from the Dockerfile's CMD
GRACEFUL_SHUTDOWN = re.compile(r"--timeout-graceful-shutdown (\d+)")
# the Compose Specification's service keys that this file may use
SERVICE_KEYS = {
    "build", "cap_drop", "command", "depends_on", "entrypoint", "environment", "healthcheck",
    "image", "init", "ports", "profiles", "read_only", "restart", "security_opt",
    "stop_grace_period", "tmpfs", "volumes",
}  # fmt: skip


@dataclass
class Stage:
    name: str
    base: str
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def all(self, keyword: str) -> list[str]:
        return [args for word, args in self.instructions if word == keyword]


@cache
def dockerfile() -> tuple[dict[str, str], list[Stage]]:
    """The global ARGs' defaults and the stages, from logical lines (continuations joined)."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    args: dict[str, str] = {}
    stages: list[Stage] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        word, rest = word.upper(), " ".join(rest.split())
        if word == "FROM":
            base, _, name = rest.partition(" AS ")
            stages.append(Stage(name or str(len(stages)), base))
        elif word == "ARG" and not stages:
            key, _, default = rest.partition("=")
            args[key] = default
        else:
            stages[-1].instructions.append((word, rest))
    return args, stages


def stage(name: str) -> Stage:
    return next(s for s in dockerfile()[1] if s.name == name)


@cache
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return loaded


def services() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = compose()["services"]
    return found


def apps() -> dict[str, dict[str, Any]]:
    """The four services' containers (SERVICE_APP picks each one's app), not the web front's."""
    return {
        n: s
        for n, s in services().items()
        if s.get("environment", {}).get("SERVICE_APP", WEB_APP) != WEB_APP
    }


def seconds(duration: str) -> float:
    parts = re.fullmatch(r"(?:(\d+)m)?(?:(\d+)s)?", duration)
    assert parts is not None and duration, duration
    return 60 * int(parts[1] or 0) + int(parts[2] or 0)


# ---------------------------------------------------------------- the image


def test_the_base_image_and_uv_are_pinned() -> None:
    args, stages = dockerfile()
    assert re.fullmatch(
        r"python:3\.11\.\d+-slim-bookworm@sha256:[0-9a-f]{64}", args["PYTHON_IMAGE"]
    ), args["PYTHON_IMAGE"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", args["UV_VERSION"]), args["UV_VERSION"]
    assert stages[0].base == "ghcr.io/astral-sh/uv:${UV_VERSION}"
    # every other stage starts from the pinned Python image or from another stage
    names = {s.name for s in stages}
    assert all(s.base == "${PYTHON_IMAGE}" or s.base in names for s in stages[1:])


def test_the_default_target_runs_the_runtime_as_a_non_root_user() -> None:
    runtime = dockerfile()[1][-1]
    assert runtime.name == "runtime"
    (user,) = runtime.all("USER")
    uid, _, gid = user.partition(":")
    # numeric, so that Kubernetes can check runAsNonRoot
    assert uid.isdigit() and int(uid) != 0 and gid.isdigit() and int(gid) != 0, user
    assert runtime.all("COPY") == ["--from=build /opt/venv /opt/venv"]
    assert runtime.all("EXPOSE") == ["8000"]


def test_the_image_checks_its_health_with_the_standard_library() -> None:
    (check,) = dockerfile()[1][-1].all("HEALTHCHECK")
    assert "http://127.0.0.1:8000/health" in check
    assert '"python", "-c", "import urllib.request;' in check  # no curl in a slim image


def test_the_default_command_serves_the_service_that_service_app_names() -> None:
    (command,) = dockerfile()[1][-1].all("CMD")
    assert 'exec uvicorn \\"${SERVICE_APP:?' in command
    assert "--host 0.0.0.0 --port 8000" in command
    assert GRACEFUL_SHUTDOWN.search(command)


def test_the_runtime_is_built_without_the_dev_group_and_the_tools() -> None:
    build = stage("build")
    syncs = [args for args in build.all("RUN") if "uv sync" in args]
    assert len(syncs) == 2
    for sync in syncs:
        assert "--frozen" in sync and "--no-dev" in sync, sync
        assert "--package" not in sync and "--all-groups" not in sync, sync
    # the locked dependencies first, from the two files alone, then the sources
    assert "--no-install-workspace" in syncs[0]
    mounts = re.findall(r"--mount=type=bind,source=([^,]+),target=\1", syncs[0])
    assert sorted(mounts) == ["pyproject.toml", "uv.lock"]
    assert "--no-editable" in syncs[1]
    copied = [args.split()[0] for args in build.all("COPY") if not args.startswith("--from")]
    assert copied == ["pyproject.toml", "shared", "services"]


def test_the_studio_target_adds_the_tools() -> None:
    (sync,) = [args for args in stage("build-studio").all("RUN") if "uv sync" in args]
    assert "--package teenpatti-tools" in sync and "--no-dev" in sync
    copied = [args.split()[0] for args in stage("build-studio").all("COPY")]
    assert "clients/python/teenpatti-client" in copied  # teenpatti-tools depends on it
    studio = stage("studio")
    assert studio.all("COPY") == ["--from=build-studio /opt/venv /opt/venv"]
    assert studio.all("ENTRYPOINT") == ['["python", "-m", "teenpatti_tools.devrun"]']
    assert studio.all("USER") == dockerfile()[1][-1].all("USER")


def test_the_build_context_leaves_out_what_the_image_does_not_need() -> None:
    ignored = {
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    for path in (".git", ".venv", ".local", ".env", "**/.env", "tests", "docs", "benchmarks"):
        assert path in ignored, path
    # of tools/, only what the studio target copies
    assert {"tools/*", "!tools/pyproject.toml", "!tools/src"} <= ignored
    # of the operator client, only its package (the studio's tools call through it)
    assert {
        "clients/python/teenpatti-client/*",
        "!clients/python/teenpatti-client/pyproject.toml",
        "!clients/python/teenpatti-client/src",
    } <= ignored


# ---------------------------------------------------------------- docker-compose.yml


def test_compose_uses_only_known_keys() -> None:
    assert {k for k in compose() if not k.startswith("x-")} == {"name", "services", "volumes"}
    for name, service in services().items():
        assert set(service) <= SERVICE_KEYS, (name, set(service) - SERVICE_KEYS)


def test_every_container_has_a_healthcheck() -> None:
    for name, service in services().items():
        check = service.get("healthcheck", {})
        if name in ONE_SHOT:  # a one-shot job
            assert check == {"disable": True} and service["restart"] == "no"
            continue
        assert check.get("test", [None])[0] in ("CMD", "CMD-SHELL"), name
        assert {"interval", "timeout", "retries"} <= set(check), name


def test_the_services_are_healthy_once_ready() -> None:
    assert set(apps()) == set(APPS)
    for name, service in apps().items():
        assert service["environment"]["SERVICE_APP"] == APPS[name]
        assert importlib.util.find_spec(APPS[name].partition(":")[0]) is not None
        assert "http://127.0.0.1:8000/ready" in " ".join(service["healthcheck"]["test"]), name


def test_a_stopping_service_has_time_to_drain() -> None:
    (command,) = dockerfile()[1][-1].all("CMD")
    in_flight = int(GRACEFUL_SHUTDOWN.findall(command)[-1])
    for name, service in apps().items():
        drain = float(service["environment"].get("TP_DRAIN_SECONDS", 15))
        assert seconds(service["stop_grace_period"]) > in_flight + drain + 5, name


def test_postgres_is_healthy_only_once_its_real_server_listens() -> None:
    # the entrypoint's temporary server, running the init scripts, has no TCP listener
    test = services()["postgres"]["healthcheck"]["test"]
    assert test[:2] == ["CMD", "pg_isready"] and test[test.index("-h") + 1] == "127.0.0.1"


def test_postgres_and_kafka_keep_their_data_on_named_volumes() -> None:
    volumes = compose()["volumes"]
    postgres, kafka = services()["postgres"], services()["kafka"]
    assert "postgres-data:/var/lib/postgresql/data" in postgres["volumes"]
    log_dirs = kafka["environment"]["KAFKA_LOG_DIRS"]
    assert not log_dirs.startswith("/tmp")
    assert f"kafka-data:{log_dirs}" in kafka["volumes"]
    assert {"postgres-data", "kafka-data"} <= set(volumes)


def test_the_services_start_after_the_migrate_job() -> None:
    assert services()["migrate"]["command"] == ["teenpatti", "migrate"]
    for name, service in [*apps().items(), ("studio", services()["studio"])]:
        assert service["depends_on"]["migrate"] == {
            "condition": "service_completed_successfully"
        }, name
        for infrastructure in ("postgres", "kafka", "redis"):
            assert service["depends_on"][infrastructure] == {"condition": "service_healthy"}


def test_no_secret_is_written_in_compose() -> None:
    example = ENV_EXAMPLE.read_text()
    for name, service in services().items():
        for variable, value in service.get("environment", {}).items():
            if variable in SECRET_SETTINGS:
                # a reference to a variable of the env file, which must set it
                source = re.fullmatch(r"\$\{(\w+):\?.*\}", str(value))
                assert source is not None, (name, variable)
                assert source[1] in SECRET_SETTINGS, (name, variable, source[1])
                assert re.search(rf"^{source[1]}=", example, re.MULTILINE), source[1]
    assert ".env" in (ROOT / ".gitignore").read_text().splitlines()


def test_only_the_studio_runs_in_development() -> None:
    """Outside development a container refuses public development secrets
    (docs/decisions/0049-no-default-secret-outside-development.md)."""
    for name, service in [*apps().items(), ("migrate", services()["migrate"])]:
        assert service["environment"]["TP_ENV"] == "production", name
        assert {"TP_PG_PASSWORD", "TP_API_KEYS"} <= set(service["environment"]), name
    assert services()["studio"]["environment"]["TP_ENV"] == "dev"
    assert "TP_ENV=dev" in stage("studio").all("ENV")[0].split()


def test_our_containers_run_on_a_read_only_file_system() -> None:
    for name, service in [*apps().items(), ("migrate", services()["migrate"])]:
        assert service["read_only"] is True and service["tmpfs"] == ["/tmp"], name
        assert service["cap_drop"] == ["ALL"], name


def test_published_ports_listen_on_loopback_only() -> None:
    for name, service in services().items():
        for port in service.get("ports", []):
            assert port.startswith("127.0.0.1:"), (name, port)


def test_the_studio_profile_builds_the_studio_target() -> None:
    studio = services()["studio"]
    assert studio["profiles"] == ["studio"]
    assert studio["build"]["target"] == "studio"
    assert "TP_API_KEYS" not in studio["environment"]  # its players use the development keys
    assert all(s["build"]["target"] == "runtime" for s in [*apps().values(), services()["migrate"]])


def test_prometheus_scrapes_metrics_on_every_instance_of_each_service() -> None:
    prometheus = services()["prometheus"]
    mount = next(
        v for v in prometheus["volumes"] if v.endswith("/etc/prometheus/prometheus.yml:ro")
    )
    config = yaml.safe_load((ROOT / mount.split(":")[0]).read_text())
    (job,) = (j for j in config["scrape_configs"] if j["job_name"] == "teenpatti")
    assert job["metrics_path"] == "/metrics"
    (discovery,) = job["dns_sd_configs"]
    assert discovery["port"] == 8000 and discovery["type"] == "A"
    assert sorted(discovery["names"]) == sorted(APPS)


@pytest.mark.parametrize("name", ["postgres", "kafka", "redis", "prometheus"])
def test_third_party_images_are_pinned(name: str) -> None:
    image = services()[name]["image"]
    # a release, not a moving major tag (Postgres numbers its releases major.minor)
    assert re.fullmatch(r"[\w./-]+:v?\d+\.\d+(\.\d+)?(-\w+)?", image), image


def test_each_service_runs_as_its_own_principal() -> None:
    """Each service logs in to Postgres, Kafka and (if it uses it) Redis as itself, with its
    own password; no service holds the admin's."""
    for name, service in apps().items():
        env = service["environment"]
        own = f"${{{PRINCIPALS[name]}:?"
        assert env["TP_PG_USER"] == "teenpatti_" + name.replace("-", "_"), name
        assert env["TP_KAFKA_USERNAME"] == name, name
        assert env["TP_PG_PASSWORD"].startswith(own), name
        assert env["TP_KAFKA_PASSWORD"].startswith(own), name
        if name in USES_REDIS:
            assert (env["TP_REDIS_USERNAME"], env["TP_REDIS_PASSWORD"][: len(own)]) == (name, own)
        else:
            assert env["TP_REDIS_PASSWORD"] == "", name
        assert "TP_PG_PASSWORD:?" not in " ".join(map(str, env.values())), name
        assert env["TP_KAFKA_SECURITY_PROTOCOL"] == "SASL_PLAINTEXT", name
        after = service["depends_on"]["kafka-acls"]
        assert after == {"condition": "service_completed_successfully"}, name


def test_the_web_front_runs_after_the_services_with_its_viewer_key_only() -> None:
    web = services()["web"]
    env = web["environment"]
    assert env["SERVICE_APP"] == WEB_APP
    assert importlib.util.find_spec(WEB_APP.partition(":")[0]) is not None
    assert env["TP_ENV"] == "production"
    assert env["TP_WEB_API_KEY"].startswith("${TP_WEB_API_KEY:?")
    # no infrastructure credentials, nor anyone else's keys
    for variable in env:
        assert not variable.startswith(("TP_PG_", "TP_KAFKA_", "TP_REDIS_")), variable
    assert "TP_API_KEYS" not in env
    assert {env[f"TP_WEB_{name}_URL"] for name in ("TABLE", "SCANNER", "WALLET", "SETTLEMENT")} == {
        f"http://{name}:8000" for name in APPS
    }
    assert web["depends_on"] == {name: {"condition": "service_healthy"} for name in APPS}
    assert "http://127.0.0.1:8000/ready" in " ".join(web["healthcheck"]["test"])
    assert web["read_only"] is True and web["cap_drop"] == ["ALL"]
    assert web["build"]["target"] == "runtime"
    # launch URLs: from the env file, whose placeholder the wallet refuses outside development
    view = services()["wallet"]["environment"]["TP_PLAYER_VIEW_URL"]
    assert view.startswith("${TP_PLAYER_VIEW_URL:?"), view
    # its key is one of TP_API_KEYS's, with the role viewer
    example = dict(
        line.split("=", 1) for line in ENV_EXAMPLE.read_text().splitlines() if "=" in line
    )
    assert f"web:viewer:{example['TP_WEB_API_KEY']}" in example["TP_API_KEYS"].split(",")
    assert "placeholder" in str(unreachable_player_view(example["TP_PLAYER_VIEW_URL"]))


def test_kafka_and_redis_ask_for_credentials() -> None:
    kafka = services()["kafka"]["environment"]
    assert set(kafka["KAFKA_LISTENER_SECURITY_PROTOCOL_MAP"].split(",")) == {
        "INTERNAL:SASL_PLAINTEXT",
        "HOST:SASL_PLAINTEXT",
        "CONTROLLER:SASL_PLAINTEXT",
    }
    assert kafka["KAFKA_AUTHORIZER_CLASS_NAME"].endswith("StandardAuthorizer")
    assert kafka["KAFKA_ALLOW_EVERYONE_IF_NO_ACL_FOUND"] == "false"
    assert kafka["KAFKA_SUPER_USERS"] == "User:admin"
    for name in APPS:
        assert (
            f'user_{name}="${{{PRINCIPALS[name]}:?'
            in kafka["KAFKA_LISTENER_NAME_INTERNAL_PLAIN_SASL_JAAS_CONFIG"]
        )
    redis = " ".join(services()["redis"]["command"])
    assert "user default off" in redis and "--aclfile" in redis
    job = services()["kafka-acls"]
    assert "./deploy/kafka/acls.txt:/acls.txt:ro" in job["volumes"]
    granted = {
        line.split()[0]
        for line in (ROOT / "deploy/kafka/acls.txt").read_text().splitlines()
        if line and not line.startswith("#")
    }
    assert granted == set(APPS)
