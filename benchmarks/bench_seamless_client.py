"""The game side's CPU per call to an operator's wallet server: `OperatorWalletClient.win`
against the reference operator, with calls in flight as the wallet's sender keeps them.

    uv run python benchmarks/bench_seamless_client.py [--calls 1500] [--in-flight 64]
        [--per-pool 8] [--profile]

The reference operator (`--workers 2`, its own database) answers each win of a bet it never
saw with a signed refusal: the client signs, sends, reads and verifies as for any answer.
Prints the calls per second and this process's CPU per call (`time.process_time`), which is
what the wallet spends on a call outside its database; `--profile` prints the cProfile of
the measured calls (docs/decisions/0078-seamless-sender-pipeline.md). `make bench` reports
the CPU per call against its goal (0.5 ms), from 1,500 calls (`--quick`: 500).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import sys
import time
import uuid
from pathlib import Path

import asyncpg

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from teenpatti.seamless import OperatorConfig, OperatorWalletClient, WalletMode, WinCall
from teenpatti.seamless.signing import load_private_key
from teenpatti.settings import ADMIN, InfrastructureSettings
from teenpatti_tools.bench import Figure, happened
from teenpatti_tools.databases import create_database, drop_database
from teenpatti_tools.devrun import free_base_port, game_keys
from teenpatti_tools.operator.control import launched

BENCHMARK = "operator calls"
WARM_UP = 200
GOAL_CPU_MS = 0.5


async def run_calls(
    calls: int,
    in_flight: int,
    per_pool: int,
    profile: bool,
    warm_up: int = WARM_UP,
    workers: int = 2,
) -> tuple[float, float]:
    """(calls per second, the client's CPU per call in ms) of `calls` wins after a warm-up."""
    folder = Path(".local/bench") / f"seamless-client-{uuid.uuid4().hex[:8]}"
    keys = await asyncio.to_thread(game_keys, folder)
    admin = InfrastructureSettings().as_principal(ADMIN)
    database = f"bench_operator_{uuid.uuid4().hex[:8]}"
    await create_database(admin, database)
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
            async with OperatorWalletClient(
                load_private_key(keys.private.read_bytes()), connections_per_pool=per_pool
            ) as client:
                room = asyncio.Semaphore(in_flight)

                async def win(n: int) -> None:
                    async with room:
                        await client.win(
                            config,
                            WinCall(
                                user=f"player-{n % 600}",
                                token="unknown",
                                transaction_uuid=str(uuid.uuid4()),
                                reference_transaction_uuid=str(uuid.uuid4()),
                                round="BENCH-1",
                                amount=100,
                                currency="INR",
                            ),
                        )

                await asyncio.gather(*(win(n) for n in range(warm_up)))
                profiler = cProfile.Profile()
                cpu, wall = time.process_time(), time.perf_counter()
                if profile:
                    profiler.enable()
                await asyncio.gather(*(win(n) for n in range(calls)))
                if profile:
                    profiler.disable()
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            print(
                f"{calls} wins, {in_flight} in flight, pools of {per_pool}: {calls / wall:,.0f}"
                f" calls/s, the client's CPU {cpu * 1000 / calls:.2f} ms per call"
                + (" (profiled)" if profile else "")
            )
            if profile:
                pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
    finally:
        connection = await asyncpg.connect(admin.postgres_dsn("postgres"))
        try:
            await drop_database(connection, database)
        finally:
            await connection.close()
    happened("operator calls answered", calls / wall)
    return calls / wall, cpu * 1000 / calls


async def measure(quick: bool, smoke: bool = False) -> list[Figure]:
    """The goal's figure: the client's CPU per call, 64 calls in flight, pools of 8."""
    calls = 60 if smoke else 500 if quick else 1_500
    rate, cpu_ms = await run_calls(
        calls, 64, 8, profile=False, warm_up=20 if smoke else WARM_UP, workers=1 if smoke else 2
    )
    return [
        Figure(
            BENCHMARK,
            f"game-side CPU per call to an operator's wallet (OperatorWalletClient.win against"
            f" the reference operator, signing and verifying included), {calls:,} calls,"
            f" 64 in flight: {rate:,.0f} calls/s",
            cpu_ms,
            "ms",
            "-",
            0.0,
            "<= 0.5 ms",
            cpu_ms <= GOAL_CPU_MS,
            "the HTTP client's request path (httpx), RSA-2048 signing of each request and"
            " verifying of each answer, in the wallet's one process"
            " (docs/decisions/0078-seamless-sender-pipeline.md)",
            goal_key="operator-call",
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1_500)
    parser.add_argument("--in-flight", type=int, default=64)
    parser.add_argument("--per-pool", type=int, default=8, help="connections per HTTP pool")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    asyncio.run(run_calls(args.calls, args.in_flight, args.per_pool, args.profile))


if __name__ == "__main__":
    main()
