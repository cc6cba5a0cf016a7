"""`python -m teenpatti_tools.operator`: run the reference operator under uvicorn."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import uvicorn
from fastapi import FastAPI

from teenpatti.seamless.signing import load_private_key, load_public_key
from teenpatti.settings import ADMIN, InfrastructureSettings
from teenpatti_tools.operator.app import OperatorServerConfig, create_app
from teenpatti_tools.operator.faults import FaultPlan

DATABASE = "tp_operator"


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m teenpatti_tools.operator",
        description="The reference operator wallet server (docs/operators.md).",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8201)
    parser.add_argument(
        "--database",
        default=DATABASE,
        help="its Postgres database: a name on the stack TP_* names, as the admin principal"
        " (TP_CREDENTIALS_DIR), or a whole DSN; default: tp_operator",
    )
    parser.add_argument(
        "--private-key", type=Path, required=True, help="PEM file: the key it signs answers with"
    )
    parser.add_argument(
        "--game-public-key",
        type=Path,
        action="append",
        required=True,
        help="PEM file: a key of the game side's requests (repeat during a rollover)",
    )
    parser.add_argument(
        "--admin-token-file",
        type=Path,
        required=True,
        help="a file holding the admin API's token (the X-Admin-Token header)",
    )
    parser.add_argument(
        "--faults",
        default="",
        help="fault switches at start: JSON or @file, as PUT /admin/faults takes"
        ' ({"seed": 7, "switches": [{"kind": "latency", "seconds": 0.005, "probability": 1}]})',
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="server processes sharing the port (each signs on its own core); each keeps its"
        " own fault switches: set them with --faults, as the admin API reaches one process",
    )
    parser.add_argument("--log-level", default="warning")
    return parser.parse_args(argv)


class UsageError(Exception):
    """The command line cannot start a server."""


def config_of(args: argparse.Namespace) -> OperatorServerConfig:
    token = args.admin_token_file.read_text().strip()
    if not token:
        raise UsageError(f"{args.admin_token_file} is empty: the admin API needs a token")
    faults = args.faults
    if faults.startswith("@"):
        faults = Path(faults[1:]).read_text()
    dsn = args.database
    if "://" not in dsn:
        # a name: no password on the command line, the admin's from its credentials file
        dsn = InfrastructureSettings().as_principal(ADMIN).postgres_dsn(dsn)
    return OperatorServerConfig(
        dsn=dsn,
        private_key=load_private_key(args.private_key.read_bytes()),
        game_public_keys=[load_public_key(path.read_bytes()) for path in args.game_public_key],
        admin_token=token,
        faults=FaultPlan.model_validate(json.loads(faults)) if faults else FaultPlan(),
    )


def from_command_line() -> FastAPI:
    """The app of one worker process: uvicorn starts each with the parent's command line."""
    return create_app(config_of(parse(sys.argv[1:])))


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    try:
        config = config_of(args)
    except UsageError as error:
        print(error, file=sys.stderr)
        return 2
    if args.workers > 1:
        uvicorn.run(
            "teenpatti_tools.operator.__main__:from_command_line",
            factory=True,
            workers=args.workers,
            host=args.host,
            port=args.port,
            log_level=args.log_level,
        )
    else:
        uvicorn.run(create_app(config), host=args.host, port=args.port, log_level=args.log_level)
    return 0


if __name__ == "__main__":
    sys.exit(main())
