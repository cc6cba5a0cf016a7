"""The game side's CPU per call to an operator's wallet server: `OperatorWalletClient.win`
against the reference operator, with calls in flight as the wallet's sender keeps them,
through each HTTP client in turn, in the same run.

    uv run python benchmarks/bench_seamless_client.py [--transport all|http11|httpx|aiohttp]
        [--calls 1500] [--in-flight 64] [--rounds 3] [--per-pool 8] [--loop uvloop|asyncio]
        [--profile] [--record]

The reference operator (`--workers 2`, its own database, its own processes) answers each
win of a bet it never saw with a signed refusal: the client signs, sends, reads and verifies
as for any answer. For each client: the calls per second and this process's CPU per call
(`time.process_time`: this process only, not the operator's), which is what the wallet
spends on a call outside its database, and the CPU of the HTTP client alone (one signed
request, built once, posted as many times); the clients take turns, `--rounds` times, and
each one's median is kept. Also measured alone: signing a request (RSA PKCS#1 v1.5 SHA-256 with
our 2048-bit key), verifying an answer, and the whole call without its HTTP (the request
built and encoded, signed, the answer verified and read, the attempt counted), the floor
no HTTP client goes below. The wallet runs under uvicorn, which takes uvloop: so does this,
unless `--loop asyncio`. `--profile` prints the cProfile of each client's measured calls;
`--record` keeps the run in docs/performance/runs/
(docs/decisions/0099-a-lean-http-client-for-operator-calls.md).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import platform
import pstats
import statistics
import sys
import time
import uuid
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from teenpatti.seamless import OperatorConfig, OperatorWalletClient, WalletMode, WinCall
from teenpatti.seamless.calls import Answered, Expected
from teenpatti.seamless.client import ADAPTERS, record_attempt
from teenpatti.seamless.http11 import Http11Transport
from teenpatti.seamless.signing import (
    PrivateKey,
    generate_private_key,
    load_private_key,
    public_key_pem,
    sign,
    verify,
)
from teenpatti.seamless.transports import (
    ERROR_EXCERPT_BYTES,
    MAX_ANSWER_BYTES,
    AnswerLostError,
    HttpxTransport,
    NotSentError,
    OperatorTransport,
    Posted,
    describe,
)
from teenpatti.settings import ADMIN, InfrastructureSettings
from teenpatti_tools.bench import Figure, happened
from teenpatti_tools.databases import create_database, drop_database
from teenpatti_tools.devrun import free_base_port, game_keys
from teenpatti_tools.operator.control import launched

BENCHMARK = "operator calls"
WARM_UP = 200
TRANSPORTS = ("httpx", "aiohttp", "http11")
ALONE = 2_000  # signatures, verifications and calls without HTTP measured alone
RUNS = Path("docs/performance/runs")
GOAL_MS = 0.5
ADOPTED = "http11"  # the wallet's client (TP_SEAMLESS_HTTP_CLIENT's default)


class AiohttpTransport:
    """aiohttp's client with one `TCPConnector` pool, read as strictly as the others: no
    redirect, no retry, the body cut at the cap, TLS verified (its default)."""

    def __init__(self, max_connections: int) -> None:
        import aiohttp

        self._aiohttp = aiohttp
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0, limit_per_host=max_connections),
            timeout=aiohttp.ClientTimeout(total=None),  # the caller's deadline bounds it
        )

    async def aclose(self) -> None:
        await self._session.close()

    async def post(
        self, url: str, body: bytes, headers: Mapping[str, str], signature_header: str
    ) -> Posted:
        aiohttp = self._aiohttp
        try:
            async with self._session.post(
                url, data=body, headers=dict(headers), allow_redirects=False
            ) as response:
                limit = MAX_ANSWER_BYTES if response.status == 200 else ERROR_EXCERPT_BYTES
                received = bytearray()
                async for chunk in response.content.iter_any():
                    received += chunk
                    if len(received) > limit:
                        excerpt = None if response.status == 200 else bytes(received[:limit])
                        return Posted(response.status, excerpt, None)
                return Posted(
                    response.status, bytes(received), response.headers.get(signature_header)
                )
        except aiohttp.ClientConnectorError as error:
            raise NotSentError(describe(error)) from error
        except aiohttp.ClientError as error:
            raise AnswerLostError(describe(error)) from error


def open_transport(name: str, per_pool: int) -> OperatorTransport:
    match name:
        case "httpx":
            return HttpxTransport(max_connections=200, connections_per_pool=per_pool)
        case "aiohttp":
            return AiohttpTransport(max_connections=200)
        case "http11":
            return Http11Transport(max_connections=200)
    raise ValueError(f"no transport {name!r}")


@dataclass
class Measured:
    transport: str
    cpu_ms: list[float]  # per call, each round
    calls_per_second: list[float]
    http_ms: list[float]  # per POST of the HTTP client alone, each round

    @property
    def cpu(self) -> float:
        return statistics.median(self.cpu_ms)

    @property
    def http(self) -> float:
        return statistics.median(self.http_ms)

    @property
    def rate(self) -> float:
        return statistics.median(self.calls_per_second)


@dataclass
class Alone:
    sign_ms: float
    verify_ms: float
    without_http_ms: float


def measure_alone(signing_key: PrivateKey) -> Alone:
    """Signing, verifying and the whole call without its HTTP, CPU per call."""
    operator_key = generate_private_key()
    config = OperatorConfig(
        operator_id="bench-alone",
        mode=WalletMode.SEAMLESS,
        base_url="http://operator.invalid",
        public_keys=(public_key_pem(operator_key).decode(),),
    )
    adapter = ADAPTERS[config.adapter]
    call = _win(0)
    _, request = adapter.request(call, config.game_code, str(uuid.uuid4()))
    body = request.model_dump_json().encode()
    answer = (
        b'{"user":"player-0","status":"RS_ERROR_TRANSACTION_DOES_NOT_EXIST","request_uuid":'
        b'"00000000-0000-0000-0000-000000000000","currency":"INR","balance":100000000}'
    )
    signature = sign(operator_key, answer)
    keys = config.loaded_public_keys

    def timed(step: Callable[[], object]) -> float:
        started = time.process_time()
        for _ in range(ALONE):
            step()
        return (time.process_time() - started) * 1000 / ALONE

    def without_http() -> None:
        request_uuid = "00000000-0000-0000-0000-000000000000"
        _, request = adapter.request(call, config.game_code, request_uuid)
        encoded = request.model_dump_json().encode()
        signed = sign(signing_key, encoded)
        _ = {"Content-Type": "application/json", adapter.signature_header: signed}
        outcome = adapter.read_answer(
            answer, signature, keys, Expected(request_uuid, call.user, call.currency)
        )
        assert isinstance(outcome, Answered), outcome
        record_attempt(config.operator_id, call, outcome, 0.001)

    return Alone(
        sign_ms=timed(lambda: sign(signing_key, body)),
        verify_ms=timed(lambda: verify(keys, answer, signature)),
        without_http_ms=timed(without_http),
    )


def _win(n: int) -> WinCall:
    return WinCall(
        user=f"player-{n % 600}",
        token="unknown",
        transaction_uuid=str(uuid.uuid4()),
        reference_transaction_uuid=str(uuid.uuid4()),
        round="BENCH-1",
        amount=100,
        currency="INR",
    )


async def _calls(
    transport: OperatorTransport,
    signing_key: PrivateKey,
    config: OperatorConfig,
    calls: int,
    in_flight: int,
    profiler: cProfile.Profile | None,
    warm_up_calls: int = WARM_UP,
) -> tuple[float, float]:
    """The CPU per call (ms) and calls per second of `calls` wins through `transport`."""
    async with OperatorWalletClient(signing_key, http=transport) as client:
        room = asyncio.Semaphore(in_flight)
        outcomes: list[object] = []

        async def win(call: WinCall) -> None:
            async with room:
                outcomes.append(await client.win(config, call))

        # the calls are made before: their ids are the sender's to find, not the client's
        warm_up, measured = [_win(n) for n in range(warm_up_calls)], [_win(n) for n in range(calls)]
        await asyncio.gather(*(win(call) for call in warm_up))
        outcomes.clear()
        cpu, wall = time.process_time(), time.perf_counter()
        if profiler is not None:
            profiler.enable()
        await asyncio.gather(*(win(call) for call in measured))
        if profiler is not None:
            profiler.disable()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    answered = sum(isinstance(outcome, Answered) for outcome in outcomes)
    if answered != calls:  # a comparison of clients that did not all answer measures nothing
        strays = [outcome for outcome in outcomes if not isinstance(outcome, Answered)][:3]
        raise RuntimeError(f"{calls - answered} of {calls} calls not answered: {strays}")
    return cpu * 1000 / calls, calls / wall


async def _posts(
    transport: OperatorTransport,
    signing_key: PrivateKey,
    config: OperatorConfig,
    calls: int,
    in_flight: int,
    warm_up_calls: int = WARM_UP,
) -> float:
    """The CPU per POST (ms) of the HTTP client alone: one signed request, built once, sent
    `calls` times, each answer's status and body taken and nothing more."""
    assert config.base_url is not None
    adapter = ADAPTERS[config.adapter]
    path, request = adapter.request(_win(0), config.game_code, str(uuid.uuid4()))
    body = request.model_dump_json().encode()
    headers = {
        "Content-Type": "application/json",
        adapter.signature_header: sign(signing_key, body),
    }
    url = config.base_url + path
    room = asyncio.Semaphore(in_flight)
    statuses: list[int] = []

    async def post() -> None:
        async with room, asyncio.timeout(config.timeout_seconds):
            posted = await transport.post(url, body, headers, adapter.signature_header)
            statuses.append(posted.status)

    try:
        await asyncio.gather(*(post() for _ in range(warm_up_calls)))
        cpu = time.process_time()
        await asyncio.gather(*(post() for _ in range(calls)))
        cpu = time.process_time() - cpu
    finally:
        await transport.aclose()
    if statuses != [200] * (warm_up_calls + calls):
        raise RuntimeError(f"HTTP statuses other than 200: {set(statuses)}")
    return cpu * 1000 / calls


async def compare(
    transports: tuple[str, ...],
    *,
    calls: int,
    in_flight: int,
    rounds: int,
    per_pool: int,
    profile: bool,
    warm_up: int = WARM_UP,
    workers: int = 2,
) -> tuple[list[Measured], Alone]:
    folder = Path(".local/bench") / f"seamless-client-{uuid.uuid4().hex[:8]}"
    keys = await asyncio.to_thread(game_keys, folder)
    signing_key = load_private_key(keys.private.read_bytes())
    admin = InfrastructureSettings().as_principal(ADMIN)
    database = f"bench_operator_{uuid.uuid4().hex[:8]}"
    await create_database(admin, database)
    measured = {name: Measured(name, [], [], []) for name in transports}
    # CPU time, not wall time: on a shared machine the process waits for a core
    profilers = (
        {name: cProfile.Profile(time.process_time) for name in transports} if profile else {}
    )
    try:
        async with launched(
            keys.public.read_bytes(),
            port=free_base_port() + 9,
            folder=folder,
            database=database,
            workers=workers,
        ) as operator:
            config = OperatorConfig(
                operator_id="bench",
                mode=WalletMode.SEAMLESS,
                base_url=operator.url,
                public_keys=(operator.public_key_pem.decode(),),
            )
            for _ in range(rounds):
                for name in transports:
                    cpu_ms, rate = await _calls(
                        open_transport(name, per_pool),
                        signing_key,
                        config,
                        calls,
                        in_flight,
                        profilers.get(name),
                        warm_up,
                    )
                    measured[name].cpu_ms.append(cpu_ms)
                    measured[name].calls_per_second.append(rate)
                    measured[name].http_ms.append(
                        await _posts(
                            open_transport(name, per_pool),
                            signing_key,
                            config,
                            calls,
                            in_flight,
                            warm_up,
                        )
                    )
    finally:
        connection = await asyncpg.connect(admin.postgres_dsn("postgres"))
        try:
            await drop_database(connection, database)
        finally:
            await connection.close()
    for m in measured.values():
        happened(f"operator calls answered through {m.transport}", m.rate)
    alone = measure_alone(signing_key)
    for name, profiler in profilers.items():
        print(f"\n== {name}: the {calls * rounds} measured calls under cProfile (CPU time)")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
    return list(measured.values()), alone


def figures(measured: list[Measured], alone: Alone, in_flight: int) -> list[Figure]:
    """One figure per client, the same run: its CPU per call beside the raw limit, the call
    without its HTTP (which no client goes below). The goal's figure is the adopted client's,
    `http11`."""
    return [
        Figure(
            benchmark=BENCHMARK,
            measure=f"game-side CPU per call to an operator's wallet, signing included"
            f" ({m.transport}, {in_flight} in flight; {m.rate:,.0f} calls/s)",
            value=m.cpu,
            unit="ms",
            baseline="the call without its HTTP (encode, sign, verify, read, count), same run",
            baseline_value=alone.without_http_ms,
            goal=f"≤ {GOAL_MS} ms",
            met=m.cpu <= GOAL_MS,
            bound_by=f"RSA-2048 signing alone {alone.sign_ms:.3f} ms a call, verifying the"
            f" answer {alone.verify_ms:.3f} ms; the HTTP client alone (a POST sent and its"
            f" answer read, the event loop's part included) {m.http:.3f} ms",
            goal_key="operator-call" if m.transport == ADOPTED else "",
        )
        for m in measured
    ]


async def measure(quick: bool, smoke: bool = False) -> list[Figure]:
    """For `make bench` (benchmarks/bench_all.py): the comparison at its usual size; the
    goal's figure is the adopted client's."""
    calls, rounds = (60, 1) if smoke else (300, 1) if quick else (1_500, 3)
    measured, alone = await compare(
        TRANSPORTS,
        calls=calls,
        in_flight=64,
        rounds=rounds,
        per_pool=8,
        profile=False,
        warm_up=20 if smoke else WARM_UP,
        workers=1 if smoke else 2,
    )
    return figures(measured, alone, 64)


def report(measured: list[Measured], alone: Alone, args: argparse.Namespace) -> str:
    lines = [
        f"{args.calls} wins a round, {args.rounds} round(s), {args.in_flight} in flight,"
        f" {args.loop} loop" + (" (profiled)" if args.profile else ""),
        "| client | CPU per call (median) | each round | calls/s (median) | the HTTP alone |",
        "|---|---:|---|---:|---:|",
    ]
    for m in measured:
        rounds = ", ".join(f"{value:.3f}" for value in m.cpu_ms)
        lines.append(
            f"| {m.transport} | {m.cpu:.3f} ms | {rounds} | {m.rate:,.0f} | {m.http:.3f} ms |"
        )
    lines += [
        f"RSA-2048 signing alone: {alone.sign_ms:.3f} ms; verifying an answer:"
        f" {alone.verify_ms:.3f} ms; the call without its HTTP: {alone.without_http_ms:.3f} ms"
    ]
    return "\n".join(lines)


def record(
    measured: list[Measured], alone: Alone, args: argparse.Namespace, started: datetime
) -> Path:
    """The run as a file in docs/performance/runs/ (its fields: docs/performance.md)."""
    name = started.strftime("%Y-%m-%dT%H%MZ") + "-seamless-client"
    iso = "%Y-%m-%dT%H:%MZ"
    each_round = "; ".join(
        f"{m.transport} "
        + ", ".join(f"{value:.3f}" for value in m.cpu_ms)
        + " (the HTTP alone "
        + ", ".join(f"{value:.3f}" for value in m.http_ms)
        + ")"
        for m in measured
    )
    body: dict[str, Any] = {
        "run": name,
        "when": f"{started.strftime(iso)}/{datetime.now(UTC).strftime(iso)}",
        "command": " ".join(["uv run python benchmarks/bench_seamless_client.py", *sys.argv[1:]]),
        "quick": False,
        "python": platform.python_version(),
        "machine": f"{os.cpu_count()} cores, shared with other work",
        "raw_limits": [
            {
                "measure": "RSA-2048 signing of a request",
                "value": round(alone.sign_ms, 4),
                "unit": "ms",
            },
            {
                "measure": "verifying an answer alone",
                "value": round(alone.verify_ms, 4),
                "unit": "ms",
            },
            {
                "measure": "the call without its HTTP (encode, sign, verify, read, count)",
                "value": round(alone.without_http_ms, 4),
                "unit": "ms",
            },
        ],
        "figures": [
            {
                key: round(value, 4) if isinstance(value, float) else value
                for key, value in figure.as_dict().items()
            }
            for figure in figures(measured, alone, args.in_flight)
        ],
        "notes": f"{args.calls} wins a round through each client in turn, {args.rounds} rounds,"
        f" the median kept; {args.loop} event loop; the reference operator with 2 workers on"
        f" the same machine. CPU per call (ms) each round: {each_round}.",
    }
    RUNS.mkdir(parents=True, exist_ok=True)
    path = RUNS / f"{name}.json"
    path.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n")
    return path


def run_on(loop: str, main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    if loop == "uvloop":
        import uvloop

        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            runner.run(main())
    else:
        asyncio.run(main())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transport", choices=(*TRANSPORTS, "all"), default="all")
    parser.add_argument("--calls", type=int, default=1_500)
    parser.add_argument("--in-flight", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3, help="turns each client takes")
    parser.add_argument("--per-pool", type=int, default=8, help="connections per httpx pool")
    parser.add_argument("--loop", choices=("uvloop", "asyncio"), default="uvloop")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--record", action="store_true", help="keep the run in " + str(RUNS))
    args = parser.parse_args()
    transports = TRANSPORTS if args.transport == "all" else (args.transport,)
    started = datetime.now(UTC)

    async def run() -> None:
        measured, alone = await compare(
            transports,
            calls=args.calls,
            in_flight=args.in_flight,
            rounds=args.rounds,
            per_pool=args.per_pool,
            profile=args.profile,
        )
        print(report(measured, alone, args))
        if args.record:
            print(f"written: {record(measured, alone, args, started)}")

    run_on(args.loop, run)


if __name__ == "__main__":
    main()
