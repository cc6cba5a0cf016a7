"""`make chaos` / `python -m teenpatti_tools.chaos`: a seeded fault run; exit 1 on any violation."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.chaos.faults import FaultError, restore_stack
from teenpatti_tools.chaos.run import ChaosConfig, run_chaos, write_json
from teenpatti_tools.terminal import tool_logging


def main() -> None:
    defaults = ChaosConfig()
    parser = argparse.ArgumentParser(
        prog="python -m teenpatti_tools.chaos",
        description="Tables and players under load while service instances, Kafka, Postgres,"
        " Redis and the reference operator (a seamless operator's wallet server, answering"
        " with faults) are SIGKILLed and restarted on a seeded schedule; then money, bets,"
        " rounds, stores, topics, consumers and the seamless operator's records are checked."
        " Exit 1 on any violation.",
    )
    parser.add_argument("--seed", type=int, default=defaults.seed, help="schedule and load seed")
    parser.add_argument("--duration", type=float, default=defaults.duration, help="seconds (120)")
    parser.add_argument("--tables", type=int, default=defaults.tables, help="tables (3)")
    parser.add_argument("--players", type=int, default=defaults.players, help="players (12)")
    parser.add_argument(
        "--instances", type=int, default=defaults.instances, help="instances of each service (2)"
    )
    parser.add_argument(
        "--betting-seconds", type=float, default=defaults.betting_seconds, help="window (3)"
    )
    parser.add_argument(
        "--base-port", type=int, default=defaults.base_port, help="first service port (8201)"
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    args = parser.parse_args()
    if min(args.tables, args.players, args.instances) < 1 or args.betting_seconds <= 0:
        parser.error("--tables, --players, --instances and --betting-seconds must be positive")
    if args.duration <= 0:
        parser.error("--duration must be positive")
    tool_logging("chaos")  # the services' logs are in files: run_chaos says where
    config = ChaosConfig(
        seed=args.seed,
        duration=args.duration,
        tables=args.tables,
        players=args.players,
        instances=args.instances,
        betting_seconds=args.betting_seconds,
        base_port=args.base_port,
    )
    try:
        report = asyncio.run(
            run_chaos(config, InfrastructureSettings(), print_line=lambda x: print(x, flush=True))
        )
    except (FaultError, RuntimeError, TimeoutError) as error:
        print(f"chaos: the run could not finish: {error or type(error).__name__}", file=sys.stderr)
        print(f"chaos: reproduce with {config.reproduce()}", file=sys.stderr)
        sys.exit(2)
    finally:
        # whatever happened (an error, Ctrl-C), no part of the stack is left killed
        restore_stack()
    print(report.format(), end="")
    if args.json is not None:
        write_json(report, args.json)
    sys.exit(0 if report.ok else 1)


if __name__ == "__main__":
    main()
