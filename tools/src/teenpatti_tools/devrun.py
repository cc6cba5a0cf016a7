"""`make run`: the four services and the web front beside the local stack, driven by a simulated
studio.

    make run                                  # 3 tables, 12 players, until Ctrl-C
    make run ARGS="--tables 5 --players 40"   # or: uv run python -m teenpatti_tools.devrun --help

Each service runs under uvicorn on its own port (its log goes to .local/logs/<service>.log,
one line for people per record: `TP_LOG_FORMAT=text`). The local stack's Prometheus scrapes
each one's /metrics: `make run` lists their addresses in the targets file it reads
(`PrometheusTargets`) and prints Prometheus's address. The reference operator
(`teenpatti_tools.operator`) runs as its own process, the wallet server of `operator-1`, a
seamless operator; `operator-2` stays on the transfer wallet. A simulated supervisor opens
the tables, dealers scan shuffled decks, and players of both operators bet (operator-2's
through the operator API, operator-1's with player sessions); every finished round is
printed. The web front (`web_service`, port base+4) serves the studio console and the player
view over the services; `make run` prints their addresses (in development, a demo player's
view at `/demo/play`). Ctrl-C (or `--rounds N`) stops the simulation, prints a summary with
the money checks of both wallets, and stops the services.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import uuid4

import asyncpg
from aiokafka.admin import AIOKafkaAdminClient

from teenpatti.events.catalog import ALL_TOPICS
from teenpatti.kernel.migrate import migrate_service
from teenpatti.migrations import declared_services
from teenpatti.seamless.hub88 import to_protocol
from teenpatti.seamless.signing import write_key_pair
from teenpatti.settings import ADMIN, DEVELOPMENT, DEVELOPMENT_API_KEYS, InfrastructureSettings
from teenpatti_tools.databases import create_database, drop_database
from teenpatti_tools.operator.control import LaunchedOperator, launched
from teenpatti_tools.simulator import (
    CURRENCY,
    DEPOSIT,
    SECOND_SUPERVISOR_KEY,
    Endpoints,
    SeamlessOperator,
    Studio,
    money,
)
from teenpatti_tools.terminal import tool_logging

# make run's seamless operator, whose wallet server is the reference operator; operator-2
# stays on the transfer wallet (decision 0070)
SEAMLESS_OPERATOR = "operator-1"
OPERATOR_DATABASE = "tp_operator"


@dataclass(frozen=True)
class Service:
    name: str  # the instance: "wallet", or "wallet-2" when there are several
    app: str
    port: int
    kind: str  # the service: "table", "scanner-gateway", "wallet", "settlement"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


APPS = {
    "table": "table_service.app:app",
    "scanner-gateway": "scanner_gateway.app:app",
    "wallet": "wallet_service.app:app",
    "settlement": "settlement_service.app:app",
}


def services(base_port: int = 8101, instances: int = 1) -> tuple[Service, ...]:
    """Every instance of every service: ports base..base+3, then base+10.., base+20.."""
    return tuple(
        Service(kind if instances == 1 else f"{kind}-{n + 1}", app, base_port + 10 * n + k, kind)
        for n in range(instances)
        for k, (kind, app) in enumerate(APPS.items())
    )


# the web front (services/web): the pages and the one address their scripts talk to; it holds
# no state, so it starts once the services run, on the port after theirs
WEB_APP = "web_service.app:app"
# what make run prints for the console: the development supervisor's key (public anyway)
DEVELOPMENT_SUPERVISOR_KEY = "dev-supervisor-key"


def web_front(base_port: int = 8101) -> Service:
    """The web front's process: port base+4 (8105 in `make run`)."""
    return Service("web", WEB_APP, base_port + 4, "web")


def web_env(running: tuple[Service, ...], web: Service) -> dict[str, str]:
    """What the web front and the wallet need to know of each other: the services' base URLs
    (an instance of each) for the web front, the player view's base URL for the wallet's
    launch URLs."""
    first: dict[str, str] = {}
    for service in running:
        first.setdefault(service.kind, service.url)
    return {
        "TP_WEB_TABLE_URL": first["table"],
        "TP_WEB_SCANNER_URL": first["scanner-gateway"],
        "TP_WEB_WALLET_URL": first["wallet"],
        "TP_WEB_SETTLEMENT_URL": first["settlement"],
        "TP_PLAYER_VIEW_URL": web.url,
    }


def table_env(running: tuple[Service, ...]) -> dict[str, str]:
    """What the tables need of a development stack (docs/decisions/0086): a second
    supervisor's key beside the development keys, as opening a table takes two (unless
    TP_API_KEYS is set), and the services a round needs, asked before each round opens
    (every instance of the wallet and of settlement)."""
    gate = ",".join(
        f"{service.kind}={service.url}"
        for service in running
        if service.kind in ("wallet", "settlement")
    )
    keys = f"{DEVELOPMENT_API_KEYS},supervisor-2:supervisor:{SECOND_SUPERVISOR_KEY}"
    return {
        "TP_API_KEYS": os.environ.get("TP_API_KEYS", keys),
        "TP_ROUND_GATE_URLS": gate,
    }


def endpoints(running: tuple[Service, ...]) -> Endpoints:
    urls: dict[str, list[str]] = {}
    for service in running:
        urls.setdefault(service.kind, []).append(service.url)
    return Endpoints(urls)


def _healthy(service: Service) -> bool:
    try:
        with urllib.request.urlopen(f"{service.url}/health", timeout=1) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def _last_lines(log: Path, count: int = 12, width: int = 2_000) -> str:
    """The last lines of a service's log, each cut to `width` characters: why it failed to
    start, in the error that says so (a CI run keeps no logs)."""
    try:
        lines = log.read_text(errors="replace").splitlines()[-count:]
    except OSError as error:
        return f"(unreadable: {error})"
    return "\n".join(line[:width] for line in lines)


class ServiceProcesses:
    """The four services as child processes; `async with` starts them and stops them."""

    def __init__(
        self,
        running: tuple[Service, ...],
        *,
        env: Mapping[str, str] | None = None,
        log_dir: Path,
    ) -> None:
        self.services = running
        self._env = {**os.environ, **(env or {})}
        self.log_dir = log_dir  # each instance's stdout and stderr: <log_dir>/<name>.log
        self.processes: dict[str, asyncio.subprocess.Process] = {}

    async def start(self, service: Service) -> None:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        log = (self.log_dir / f"{service.name}.log").open("ab")
        self.processes[service.name] = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "uvicorn",
            service.app,
            "--host",
            "127.0.0.1",
            "--port",
            str(service.port),
            "--no-access-log",
            env=self._env,
            start_new_session=True,  # Ctrl-C reaches the simulation, which stops them in order
            stdout=log,
            stderr=log,
        )
        log.close()
        await self.wait_healthy(service)

    async def wait_healthy(self, service: Service, seconds: float = 60) -> None:
        process = self.processes[service.name]
        deadline = time.monotonic() + seconds
        while not await asyncio.to_thread(_healthy, service):
            log = self.log_dir / f"{service.name}.log"
            if process.returncode is not None:
                raise RuntimeError(
                    f"{service.name} exited with status {process.returncode}; the end of"
                    f" {log}:\n{_last_lines(log)}"
                )
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"{service.name} did not answer {service.url}/health; the end of"
                    f" {log}:\n{_last_lines(log)}"
                )
            await asyncio.sleep(0.2)

    def kill(self, name: str) -> None:
        """SIGKILL one service (fault tests)."""
        self.processes[name].kill()

    async def stop(self, name: str | None = None) -> None:
        chosen = [name] if name else list(self.processes)
        for key in chosen:
            process = self.processes[key]
            if process.returncode is None:
                process.terminate()
        for key in chosen:
            process = self.processes[key]
            try:
                await asyncio.wait_for(process.wait(), timeout=20)
            except TimeoutError:
                process.kill()
                await process.wait()

    async def __aenter__(self) -> ServiceProcesses:
        try:
            await asyncio.gather(*(self.start(service) for service in self.services))
        except BaseException:
            await self.stop()
            raise
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.stop()


DATABASES = ("table", "scanner", "wallet", "settlement")
SERVICE_OF_DATABASE = {
    "table": "table",
    "scanner": "scanner-gateway",
    "wallet": "wallet",
    "settlement": "settlement",
}


def free_base_port(instances: int = 1) -> int:
    """A base port whose service ports are all free (`port_range`)."""
    ports = port_range()
    while True:
        base = random.randrange(ports.start, ports.stop - 10 * instances)
        if all(_port_free(s.port) for s in (*services(base, instances), web_front(base))):
            return base


def free_port() -> int:
    """A free port (`port_range`)."""
    while True:
        port = random.choice(port_range())
        if _port_free(port):
            return port


def port_range() -> range:
    """Where the processes started here take their ports: below the kernel's ephemeral range
    (32768-60999), where no outgoing connection can take one before the process starts.
    Tests run in parallel workers (pytest-xdist, which names each in PYTEST_XDIST_WORKER:
    gw0, gw1...) each take their own share, so two never start processes on the same ports."""
    low, high = 20_000, 32_000
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)
    if worker.startswith("gw") and count > 1:
        share = (high - low) // count
        low += int(worker[2:]) * share
        high = low + share
    return range(low, high)


def _port_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


@dataclass(frozen=True)
class IsolatedSystem:
    processes: ServiceProcesses
    settings: InfrastructureSettings  # with the system's own topic prefix
    databases: Mapping[str, str]  # "table", "scanner", "wallet", "settlement" -> database
    operator: LaunchedOperator | None = None  # the seamless operator's wallet server
    web: Service | None = None  # the web front, when asked for


@dataclass(frozen=True)
class GameKeys:
    """Our signing key pair (TP_SEAMLESS_SIGNING_KEY_FILE and what operators are given)."""

    private: Path
    public: Path


def game_keys(folder: Path) -> GameKeys:
    """A fresh key pair in `folder`, for a run: never a production key."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("signing.pem", "signing.pub.pem"):
        (folder / name).unlink(missing_ok=True)
    private, public = write_key_pair(folder)
    return GameKeys(private.resolve(), public.resolve())


async def register_seamless(
    operator_id: str,
    base_url: str,
    public_key: Path,
    *,
    wallet_database: str | None = None,
    win_per: str | None = None,
) -> None:
    """`teenpatti operators set OPERATOR --mode seamless ...` on the wallet database (the
    default one, or `wallet_database`), as the admin, like a person would; `win_per` when
    given, else the default (`round`)."""
    env = {**os.environ, "TP_ENV": os.environ.get("TP_ENV", "dev")}
    if wallet_database is not None:
        env["TP_WALLET_DATABASE"] = wallet_database
    process = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "teenpatti.cli", "operators", "set", operator_id),
        *("--mode", "seamless", "--base-url", base_url, "--public-key", str(public_key)),
        *("--by", "devrun"),
        *(("--win-per", win_per) if win_per else ()),
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"teenpatti operators set {operator_id}: {err.decode().strip()}")


@asynccontextmanager
async def seamless_operator(
    folder: Path,
    *,
    port: int,
    database: str,
    wallet_database: str | None = None,
    operator_id: str = SEAMLESS_OPERATOR,
) -> AsyncIterator[tuple[LaunchedOperator, GameKeys]]:
    """The reference operator on `port` and `database` (its key pair, admin token and log in
    `folder`), beside our key pair, registered in the wallet database as `operator_id`'s
    seamless wallet server; stopped on leaving."""
    keys = await asyncio.to_thread(game_keys, folder)
    async with launched(
        keys.public.read_bytes(), port=port, folder=folder, database=database
    ) as operator:
        await register_seamless(
            operator_id,
            operator.url,
            folder / "operator.pub.pem",
            wallet_database=wallet_database,
        )
        yield operator, keys


@asynccontextmanager
async def isolated_system(
    infrastructure: InfrastructureSettings,
    *,
    label: str,
    base_port: int,
    instances: int = 1,
    extra_env: Mapping[str, str] | None = None,
    keep: Callable[[], bool] = lambda: False,
    seamless: str | None = None,
    web: bool = False,
) -> AsyncIterator[IsolatedSystem]:
    """`instances` of each service as processes, on databases and Kafka topics of their own
    (named `<label>_<service>_<suffix>` and `<label><suffix>.`), removed afterwards unless
    `keep()` says otherwise (to audit a failed run). With `seamless` (an operator id), the
    reference operator runs too, on a database of its own (`<label>_operator_<suffix>`), as
    that operator's wallet server. With `web`, the web front runs too, once the services
    answer (port base+4), and the wallet's launch URLs point to it."""
    infrastructure = infrastructure.as_principal(ADMIN)
    suffix = uuid4().hex[:8]
    names = {db: f"{label}_{db}_{suffix}" for db in DATABASES}
    prefix = f"{label}{suffix}."
    declared = declared_services()
    for db, name in names.items():
        # owned by the service's role, which applies its migrations and runs on it
        principal = SERVICE_OF_DATABASE[db]
        owner = infrastructure.as_principal(principal).pg_user
        await create_database(infrastructure, name, owner=owner)
        service = declared[principal]()
        await migrate_service(service, infrastructure, dsn=infrastructure.postgres_dsn(name))
    # credentials: the processes' own, from TP_CREDENTIALS_DIR (inherited) where it is set
    env = {
        "TP_PG_HOST": infrastructure.pg_host,
        "TP_PG_PORT": str(infrastructure.pg_port),
        "TP_KAFKA_BOOTSTRAP": infrastructure.kafka_servers,
        "TP_REDIS_HOST": infrastructure.redis_host,
        "TP_REDIS_PORT": str(infrastructure.redis_port),
        "TP_TOPIC_PREFIX": prefix,
        **{f"TP_{db.upper()}_DATABASE": name for db, name in names.items()},
    }
    running = services(base_port, instances)
    env.update(table_env(running))
    front = web_front(base_port) if web else None
    if front is not None:
        env.update(web_env(running, front))
    env.update(extra_env or {})
    log_dir = Path(os.environ.get("TP_HOME", ".local")) / "logs" / f"{label}-{suffix}"
    dropped = list(names.values())
    async with contextlib.AsyncExitStack() as stack:
        operator = None
        if seamless is not None:
            operator_database = f"{label}_operator_{suffix}"
            await create_database(infrastructure, operator_database)
            dropped.append(operator_database)
            # a port no service instance takes (theirs are base + 10n + 0..3)
            operator, keys = await stack.enter_async_context(
                seamless_operator(
                    log_dir / "operator",
                    port=base_port + 9,
                    database=operator_database,
                    wallet_database=names["wallet"],
                    operator_id=seamless,
                )
            )
            env["TP_SEAMLESS_SIGNING_KEY_FILE"] = str(keys.private)
        processes = await stack.enter_async_context(
            ServiceProcesses(running, env=env, log_dir=log_dir)
        )
        if front is not None:
            await processes.start(front)  # stopped with the services
        yield IsolatedSystem(
            processes,
            infrastructure.model_copy(update={"topic_prefix": prefix}),
            names,
            operator,
            front,
        )
    if keep():
        return
    # a new connection: the system's run may have restarted Postgres since the first one
    admin = await asyncpg.connect(infrastructure.postgres_dsn("postgres"))
    try:
        for name in dropped:
            await drop_database(admin, name)
    finally:
        await admin.close()
    await delete_topics(infrastructure, prefix)


async def delete_topics(settings: InfrastructureSettings, prefix: str) -> None:
    """Delete every topic of the run `prefix` names (`InfrastructureSettings.topic`)."""
    run = settings.model_copy(update={"topic_prefix": prefix})
    ours = {run.topic(topic) for topic in ALL_TOPICS}
    kafka = AIOKafkaAdminClient(**settings.kafka_options())
    await kafka.start()
    try:
        doomed = [t for t in await kafka.list_topics() if t in ours]
        if doomed:
            await kafka.delete_topics(doomed)
    finally:
        await kafka.close()


class PrometheusTargets:
    """The file the local stack's Prometheus reads its scrape targets from (file_sd, under
    the stack's data folder: deploy/prometheus/local.yml): every running service instance,
    labelled with its service; emptied when they stop, so that Prometheus drops them rather
    than report them down."""

    def __init__(self, home: Path | None = None) -> None:
        home = home if home is not None else Path(os.environ.get("TP_HOME", ".local"))
        self.path = home / "data" / "prometheus" / "targets" / "teenpatti.json"
        self.port = int(os.environ.get("TP_PROMETHEUS_PORT", "19090"))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def write(self, running: tuple[Service, ...]) -> None:
        targets = [
            {"targets": [f"127.0.0.1:{service.port}"], "labels": {"service": service.kind}}
            for service in running
        ]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # written whole, then renamed: Prometheus never reads half a file
        partial = self.path.with_suffix(".tmp")
        partial.write_text(json.dumps(targets, indent=2) + "\n")
        partial.replace(self.path)

    def clear(self) -> None:
        self.write(())


@asynccontextmanager
async def _scraped(targets: PrometheusTargets, running: tuple[Service, ...]) -> AsyncIterator[None]:
    """Prometheus scrapes `running` while they run."""
    targets.write(running)
    try:
        yield
    finally:
        targets.clear()


# the Grafana dashboards, one JSON file each, over the metrics Prometheus scrapes
DASHBOARDS = Path("deploy/grafana/dashboards")


def where_to_look(
    running: tuple[Service, ...],
    *,
    prometheus: str,
    log_dir: Path,
    dashboards: Path = DASHBOARDS,
) -> list[str]:
    """What `make run` prints once the services answer: each instance's address, metrics and
    API docs, the Prometheus that scrapes them, the dashboards' files and the logs."""
    lines = [
        f"  {service.name:>15}: {service.url}  (metrics {service.url}/metrics,"
        f" API docs {service.url}/docs)"
        for service in running
    ]
    return [
        *lines,
        f"  {'prometheus':>15}: {prometheus}  (scrapes every /metrics above; alerts"
        f" {prometheus}/classic/alerts, targets {prometheus}/classic/targets)",
        f"  {'dashboards':>15}: {dashboards}/*.json  (Grafana's JSON: import them into a Grafana"
        f" with {prometheus} as its Prometheus data source)",
        f"  {'logs':>15}: {log_dir}/<service>.log  (one per instance; the stack's beside them:"
        " postgres.log, kafka.log, redis.log, prometheus.log)",
    ]


_CALLS = (
    "SELECT kind, transaction_uuid, reference_transaction_uuid, amount, status, player_id,"
    " round_id, round_closed, win_per"
    " FROM operator_calls WHERE operator_id = $1 AND player_id = ANY($2::text[])"
)
# the slips whose every bet is paid (their round settled or cancelled): each bet call must be
# ended by one win or one rollback
_PAID_SLIPS = (
    "SELECT slip_id::text FROM wallet_bets WHERE operator_id = $1"
    " AND player_id = ANY($2::text[]) GROUP BY slip_id HAVING bool_and(status = 'paid')"
)


async def seamless_check(
    studio: Studio, operator: LaunchedOperator, wallet_dsn: str, *, within_seconds: float = 30
) -> tuple[list[str], dict[str, int]]:
    """Money on both sides of the seamless wallet, for the studio's seamless players: the
    operator's balances equal its deposits - bets + wins + rollbacks (its own check); every
    transaction it applied is one of our calls (`operator_calls`, read as the admin) with the
    same transaction_uuid, kind and amount, and every call it answered RS_OK is one of its
    transactions; every bet of a slip paid on our side is ended by exactly one win or one
    rollback (a win naming it, or for a bet taken as 'round' the win closing its player's
    round); each player's balance there is the deposit - stakes + returns of the bets our
    wallet holds. Owed wins and rollbacks still pending are waited for first."""
    assert studio.seamless is not None
    operator_id = studio.seamless.operator_id
    users = [player.player_id for player in studio.seamless_players]
    problems: list[str] = []
    wallet = await asyncpg.connect(wallet_dsn)
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within_seconds
        while True:
            ours = await wallet.fetch(_CALLS, operator_id, users)
            pending = [c for c in ours if c["status"] == "pending"]
            if not pending or loop.time() > deadline:
                break
            await asyncio.sleep(0.2)
        paid = {row[0] for row in await wallet.fetch(_PAID_SLIPS, operator_id, users)}
    finally:
        await wallet.close()
    problems += [
        f"{c['kind']} {c['transaction_uuid']} of {c['player_id']}: still pending after"
        f" {within_seconds:g} s"
        for c in pending
    ]
    problems += [
        f"{c['kind']} {c['transaction_uuid']} of {c['player_id']}: failed (GET /problems)"
        for c in ours
        if c["status"] == "failed" and c["kind"] != "bet"
    ]
    endings = Counter(
        c["reference_transaction_uuid"] for c in ours if c["kind"] != "bet" and c["status"] == "ok"
    )
    # a bet with no answer (or a bad one) is failed and ended by its owed rollback
    problems += [
        f"bet {c['transaction_uuid']} of {c['player_id']}: failed, and"
        f" {endings[c['transaction_uuid']]} rollbacks end it, not one"
        for c in ours
        if c["kind"] == "bet" and c["status"] == "failed" and endings[c["transaction_uuid"]] != 1
    ]
    # a bet taken as 'round' that no win or rollback names is ended by the win closing its
    # player's round
    closing = {
        (c["player_id"], c["round_id"])
        for c in ours
        if c["kind"] == "win" and c["status"] == "ok" and c["round_closed"]
    }

    def ended(bet: asyncpg.Record) -> int:
        named = endings[bet["transaction_uuid"]]
        if named or bet["win_per"] != "round":
            return named
        return int((bet["player_id"], bet["round_id"]) in closing)

    problems += [
        f"bet {c['transaction_uuid']} of {c['player_id']}: its slip is paid, and"
        f" {ended(c)} wins or rollbacks end it, not one"
        for c in ours
        if c["kind"] == "bet"
        and c["status"] == "ok"
        and c["transaction_uuid"] in paid
        and ended(c) != 1
    ]
    theirs: dict[str, dict[str, Any]] = {}
    for user in users:
        for transaction in await operator.admin.transactions(user=user):
            theirs[transaction["transaction_uuid"]] = transaction
    by_uuid = {c["transaction_uuid"]: c for c in ours}
    for uuid, transaction in theirs.items():
        call, kind = by_uuid.get(uuid), transaction["kind"]
        if call is None or call["kind"] != kind:
            problems.append(f"the operator applied {kind} {uuid}, which we never sent")
        elif call["status"] != "ok" and not (kind == "bet" and transaction["rolled_back_by"]):
            problems.append(f"the operator applied {kind} {uuid}; we record it {call['status']}")
        elif kind == "rollback":
            bet = theirs.get(str(transaction["reference_transaction_uuid"]))
            expected = 0 if transaction["tombstone"] or bet is None else int(bet["amount"])
            if int(transaction["amount"]) != expected:
                problems.append(f"rollback {uuid}: {transaction['amount']} units, not {expected}")
        elif int(transaction["amount"]) != to_protocol(int(call["amount"]), CURRENCY):
            problems.append(
                f"{kind} {uuid}: the operator applied {transaction['amount']} units, we sent"
                f" {to_protocol(int(call['amount']), CURRENCY)}"
            )
    problems += [
        f"{c['kind']} {c['transaction_uuid']}: answered RS_OK, unknown to the operator"
        for c in ours
        if c["status"] == "ok" and c["transaction_uuid"] not in theirs
    ]
    check = await operator.admin.check()
    balances = {
        row["user"]: int(row["balance"])
        for row in check["balances"]
        if row["user"] in users and row["currency"] == CURRENCY
    }
    problems += [
        f"the operator's {row['user']}: balance {row['balance']:,}, deposits - bets + wins"
        f" + rollbacks {row['expected']:,}"
        for row in check["balances"]
        if row["user"] in users and not row["ok"]
    ]
    stakes = returns = 0
    for player in studio.seamless_players:
        bets = await studio.player_bets(player)
        staked = sum(bet.stake for bet in bets)
        returned = sum(bet.returned or 0 for bet in bets)
        stakes, returns = stakes + staked, returns + returned
        expected = to_protocol(DEPOSIT - staked + returned, CURRENCY)
        if balances.get(player.player_id) != expected:
            problems.append(
                f"{player.player_id} holds {balances.get(player.player_id)} units at the"
                f" operator; deposit - stakes + returns of our bets is {expected}"
            )
    if stakes != studio.ledger.seamless_stakes:
        problems.append(
            f"the wallet holds {stakes:,} of seamless stakes, players placed"
            f" {studio.ledger.seamless_stakes:,}"
        )
    figures = {
        "calls": len(ours),
        "transactions": len(theirs),
        "stakes": stakes,
        "returns": returns,
        "balances": sum(balances.values()) // to_protocol(1, CURRENCY),
    }
    return problems, figures


async def simulate(args: argparse.Namespace, stop: asyncio.Event) -> int:
    tool_logging("devrun")  # the services' logs are in files (where_to_look)
    settings = InfrastructureSettings()
    running = services(args.base_port, args.instances)
    front = web_front(args.base_port)
    log_dir = Path(os.environ.get("TP_HOME", ".local")) / "logs"
    print(f"starting the services (logs in {log_dir}/<service>.log)", flush=True)
    # lines for people, `HH:MM:SS level service message key=value...` (TP_LOG_FORMAT=json: as
    # deployed, a JSON object per line)
    text = {"TP_LOG_FORMAT": os.environ.get("TP_LOG_FORMAT", "text")}
    prometheus = PrometheusTargets()
    # the reference operator's key pair, admin token and log; ours beside them
    folder = Path(os.environ.get("TP_HOME", ".local")) / "devrun"
    wallet = declared_services()["wallet"]()
    wallet_settings = wallet.settings().as_principal(ADMIN)  # read as the admin
    wallet_dsn = wallet_settings.postgres_dsn(str(wallet.database(wallet_settings)))
    async with (
        seamless_operator(folder, port=args.base_port + 100, database=OPERATOR_DATABASE) as (
            operator,
            keys,
        ),
        ServiceProcesses(
            running,
            env={
                **text,
                "TP_SEAMLESS_SIGNING_KEY_FILE": str(keys.private),
                **web_env(running, front),
                **table_env(running),
            },
            log_dir=log_dir,
        ) as processes,
        _scraped(prometheus, running),
    ):
        await processes.start(front)  # stopped with the services
        print("\n".join(where_to_look(running, prometheus=prometheus.url, log_dir=log_dir)))
        print(f"  {'web front':>15}: {front.url}  (the pages; rules {front.url}/rules/en)")
        login = (
            f"; log in with the development supervisor key {DEVELOPMENT_SUPERVISOR_KEY}"
            if settings.env == DEVELOPMENT
            else ""
        )
        print(f"  {'studio console':>15}: {front.url}/console  (a supervisor's own key{login})")
        if settings.env == DEVELOPMENT:
            print(
                f"  {'player view':>15}: {front.url}/demo/play  (a demo player of operator-2"
                f" at the first open table; ?table=T02&lang=th for another)"
            )
        print(
            f"  reference operator: {operator.url}  ({SEAMLESS_OPERATOR}'s seamless wallet"
            f" server; admin API {operator.url}/admin, X-Admin-Token in {folder}/admin-token;"
            f" log {folder}/operator.log)"
        )
        print(
            f"  stack: Postgres :{settings.pg_port}, Kafka {settings.kafka_servers},"
            f" Redis :{settings.redis_port}\n",
            flush=True,
        )
        studio = Studio(
            endpoints(running),
            tables=args.tables,
            players=args.players,
            betting_seconds=args.betting_seconds,
            seed=args.seed,
            print_line=lambda line: print(line, flush=True),
            seamless=SeamlessOperator(SEAMLESS_OPERATOR, operator.admin),
        )
        try:
            await studio.open_tables()
            await studio.fund_players()
            print(
                f"{args.tables} tables open, {args.players} players funded with"
                f" {money(DEPOSIT)} INR each ({len(studio.seamless_players)} of"
                f" {SEAMLESS_OPERATOR} at the reference operator, {len(studio.transfer_players)}"
                " on the transfer wallet); Ctrl-C stops\n",
                flush=True,
            )
            tasks = [
                asyncio.create_task(studio.run_table(table_id, stop))
                for table_id in studio.table_ids
            ]
            while not stop.is_set():
                if args.rounds and studio.ledger.rounds >= args.rounds:
                    stop.set()
                for task in tasks:
                    if task.done() and task.exception() is not None:
                        raise task.exception()  # type: ignore[misc]
                await asyncio.sleep(0.2)
            await asyncio.gather(*tasks, return_exceptions=True)
            await asyncio.sleep(2.0)  # let the last settlements be paid
            problems, figures = await studio.conservation()
            seamless_problems, seamless = await seamless_check(studio, operator, wallet_dsn)
        finally:
            await studio.close()
    ledger = studio.ledger
    print("\nsummary")
    print(f"  rounds closed {ledger.rounds}, cancelled {ledger.cancelled}")
    print(f"  bets placed {ledger.bets}, slips refused {ledger.refused_slips}")
    if ledger.refusals:
        print("  refusals " + ", ".join(f"{c} {n}" for c, n in sorted(ledger.refusals.items())))
    print(
        f"  misreads re-scanned {ledger.misreads},"
        f" duplicate reads absorbed {ledger.duplicate_reads}"
    )
    print("  transfer wallet (operator-2)")
    print(
        f"    deposits {money(ledger.deposits)}  stakes {money(figures['stakes'])}"
        f"  returns {money(figures['returns'])}  player balances {money(figures['balances'])}"
    )
    print(f"    house result {money(figures['stakes'] - figures['returns'])}")
    if problems:
        print("    money conservation: VIOLATED")
        print("".join(f"      {problem}\n" for problem in problems), end="")
    else:
        print("    money conservation: ok (balances = deposits - stakes + returns, to the unit)")
    print(f"  seamless wallet ({SEAMLESS_OPERATOR}, at the reference operator {operator.url})")
    print(
        f"    deposits {money(ledger.seamless_deposits)}  stakes {money(seamless['stakes'])}"
        f"  returns {money(seamless['returns'])}  balances at the operator"
        f" {money(seamless['balances'])}"
    )
    print(f"    house result {money(seamless['stakes'] - seamless['returns'])}")
    print(
        f"    calls: ours {seamless['calls']}, the operator's transactions"
        f" {seamless['transactions']}"
    )
    if seamless_problems:
        print("    money on both sides: VIOLATED")
        print("".join(f"      {problem}\n" for problem in seamless_problems), end="")
        return 1
    print(
        "    money on both sides: ok (the operator's balances = deposits - bets + wins +"
        " rollbacks = deposits - stakes + returns of our bets; its transactions match our"
        " calls one to one)"
    )
    return 1 if problems else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=3, help="tables to open (default 3)")
    parser.add_argument("--players", type=int, default=12, help="players (default 12)")
    parser.add_argument(
        "--rounds",
        type=int,
        default=0,
        help="stop once N rounds have closed over all tables; the rounds in play on the"
        " others still finish, so the summary may count more (default: Ctrl-C)",
    )
    parser.add_argument("--betting-seconds", type=float, default=5.0, help="betting window (5)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the simulation")
    parser.add_argument("--base-port", type=int, default=8101, help="first service port (8101)")
    parser.add_argument(
        "--instances", type=int, default=1, help="instances of each service (default 1)"
    )
    args = parser.parse_args()
    if min(args.tables, args.players, args.instances) < 1 or args.betting_seconds <= 0:
        parser.error("--tables, --players, --instances and --betting-seconds must be positive")

    async def _main() -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        try:
            return await simulate(args, stop)
        except RuntimeError as error:
            print(f"run: {error}", file=sys.stderr)
            return 1

    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(asyncio.run(_main()))


if __name__ == "__main__":
    main()
