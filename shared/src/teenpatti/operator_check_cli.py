"""`teenpatti operator-check`: an operator points it at its own staging wallet server and
gets PASS or FAIL per protocol case, with what was sent and received for each failure
(docs/operators.md, "Checking your wallet before going live"; the cases are
`teenpatti.seamless.check`).

Exit status: 0 every case passed; 1 a case failed; 2 bad arguments, or a server that cannot
be connected to. The session token and our private key are never printed.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import os
import ssl
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

from teenpatti.seamless.check import (
    HttpTransport,
    OperatorCheck,
    Report,
    Session,
    UnreachableError,
    exchange_view,
    money,
)
from teenpatti.seamless.config import GAME_CODE
from teenpatti.seamless.hub88 import AmountError, currency_decimals, to_protocol
from teenpatti.seamless.signing import SigningKeyError, load_private_key, load_public_key

EXIT_PASSED, EXIT_FAILED = 0, 1
SIGNING_KEY_VARIABLE = "TP_SEAMLESS_SIGNING_KEY_FILE"
_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain"})


class OperatorCheckUsageError(Exception):
    """A bad argument, or an operator server that cannot be reached: exit status 2."""


def add_operator_check_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "operator-check",
        help="check an operator's seamless wallet server, case by case, before it goes live",
        description=(
            "Calls the operator's wallet server (its staging one) as the game side does, with"
            " a test player's session token, and prints PASS or FAIL for each case of the"
            " protocol: balance, bet, replay, duplicate, win, zero win, round close, rollback,"
            " rollback of an unknown bet, bad signature, wrong currency, not enough money,"
            " signed and echoed answers; for each failure, what was sent and received. The"
            " test player needs at least two stakes; a run that passes leaves its balance as"
            " it found it. See docs/operators.md."
        ),
    )
    parser.add_argument("--base-url", required=True, metavar="URL", help="its wallet base URL")
    parser.add_argument(
        "--operator-public-key",
        required=True,
        action="append",
        type=Path,
        metavar="PEM_FILE",
        help="the key its answers are signed with; twice during a rollover",
    )
    parser.add_argument("--user", required=True, help="the test player's user id")
    token = parser.add_mutually_exclusive_group(required=True)
    token.add_argument(
        "--token-file",
        type=Path,
        metavar="FILE",
        help="a file holding the session token the operator issued for the test player",
    )
    token.add_argument(
        "--token", help="the session token itself (visible to other local users: prefer a file)"
    )
    parser.add_argument(
        "--currency", required=True, help="the currency the token is bound to, e.g. INR"
    )
    parser.add_argument(
        "--game-code", default=GAME_CODE, help=f"the game code sent (default: {GAME_CODE})"
    )
    parser.add_argument(
        "--private-key",
        type=Path,
        metavar="PEM_FILE",
        help="our signing key, whose public half the operator trusts"
        f" (default: ${SIGNING_KEY_VARIABLE})",
    )
    parser.add_argument(
        "--stake",
        default="1",
        metavar="AMOUNT",
        help="each bet's amount in the currency, exact in its minor unit (default: 1)",
    )
    parser.add_argument(
        "--timeout", type=float, default=10.0, metavar="SECONDS", help="one call's deadline"
    )
    parser.add_argument(
        "--ca-file", type=Path, metavar="PEM_FILE", help="trust this CA for the server's TLS"
    )
    parser.add_argument(
        "--allow-http",
        action="store_true",
        help="allow an http:// URL to another host than this one (the token travels in clear)",
    )
    parser.add_argument("--json", action="store_true", help="write a JSON object")


def run_operator_check(args: argparse.Namespace, out: TextIO) -> int:
    base_url = _base_url(args.base_url, allow_http=args.allow_http)
    currency = args.currency
    try:
        stake = _stake(args.stake, currency)
    except AmountError as error:
        raise OperatorCheckUsageError(f"--stake/--currency: {error}") from None
    if not 0 < args.timeout <= 120:
        raise OperatorCheckUsageError("--timeout: between 0 and 120 seconds")
    token = _token(args)
    session = Session(args.user, token, currency, stake, args.game_code)
    key_file = args.private_key or (
        Path(os.environ[SIGNING_KEY_VARIABLE]) if os.environ.get(SIGNING_KEY_VARIABLE) else None
    )
    if key_file is None:
        raise OperatorCheckUsageError(
            f"no signing key: give --private-key or {SIGNING_KEY_VARIABLE}"
        )
    try:
        signing_key = load_private_key(_read(key_file, "--private-key"))
        operator_keys = [
            load_public_key(_read(path, "--operator-public-key"))
            for path in args.operator_public_key
        ]
    except SigningKeyError as error:
        raise OperatorCheckUsageError(str(error)) from None
    verify_tls: Any = True
    if args.ca_file is not None:
        try:
            verify_tls = ssl.create_default_context(cafile=str(args.ca_file))
        except (OSError, ssl.SSLError) as error:
            raise OperatorCheckUsageError(f"--ca-file {args.ca_file}: {error}") from None

    async def run() -> Report:
        async with HttpTransport(
            base_url, timeout_seconds=args.timeout, verify_tls=verify_tls
        ) as transport:
            check = OperatorCheck(transport, signing_key, operator_keys, session)
            return await check.run()

    try:
        report = asyncio.run(run())
    except UnreachableError as error:
        raise OperatorCheckUsageError(f"cannot connect to {base_url}: {error}") from None
    if args.json:
        json.dump(report_json(report, base_url), out, indent=2)
        out.write("\n")
    else:
        write_report(report, base_url, out)
    return EXIT_PASSED if report.passed else EXIT_FAILED


def _base_url(url: str, *, allow_http: bool) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise OperatorCheckUsageError(f"--base-url {url!r}: an https:// URL with a host")
    if parts.username or parts.password:
        raise OperatorCheckUsageError("--base-url: no credentials in a URL")
    if parts.query or parts.fragment:
        raise OperatorCheckUsageError("--base-url: no query or fragment; the paths follow it")
    if parts.scheme == "http" and not allow_http and not _loopback(parts.hostname):
        raise OperatorCheckUsageError(
            f"--base-url {url!r}: http:// sends the session token and balances in clear; use"
            " https://, or --allow-http for a test server on a private network"
        )
    return url.rstrip("/")


def _loopback(host: str) -> bool:
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _stake(text: str, currency: str) -> int:
    """The stake in minor units: exact, above zero."""
    decimals = currency_decimals(currency)
    try:
        amount = Decimal(text)
    except InvalidOperation:
        raise AmountError(f"{text!r} is not an amount") from None
    minor = amount.scaleb(decimals)
    if not amount.is_finite() or minor != minor.to_integral_value() or minor <= 0:
        raise AmountError(
            f"{text} is not a positive amount in whole {currency} minor units ({decimals} decimals)"
        )
    to_protocol(int(minor), currency)  # refuses one beyond int64
    return int(minor)


def _token(args: argparse.Namespace) -> str:
    token: str = (
        args.token
        if args.token is not None
        else _read(args.token_file, "--token-file").decode("utf-8", "replace").strip()
    )
    if not token:
        raise OperatorCheckUsageError("the session token is empty")
    return token


def _read(path: Path, option: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise OperatorCheckUsageError(f"{option} {path}: {error.strerror or error}") from None


def report_json(report: Report, base_url: str) -> dict[str, Any]:
    session = report.session
    secrets = [session.token]
    return {
        "base_url": base_url,
        "user": session.user,
        "currency": session.currency,
        "game_code": session.game_code,
        "stake": session.stake,
        "passed": report.passed,
        "cases": [
            {
                "name": result.name,
                "title": result.title,
                "passed": result.passed,
                "detail": result.detail,
                "exchanges": [exchange_view(e, secrets) for e in result.exchanges],
            }
            for result in report.results
        ],
    }


def write_report(report: Report, base_url: str, out: TextIO) -> None:
    session = report.session
    stake = money(to_protocol(session.stake, session.currency), session.currency)
    print(
        f"operator-check {base_url}: player {session.user}, {session.currency},"
        f" game {session.game_code}, stake {stake}",
        file=out,
    )
    width = max(len(result.name) for result in report.results)
    for result in report.results:
        verdict = "PASS" if result.passed else "FAIL"
        print(f"{verdict}  {result.name:<{width}}  {result.detail}", file=out)
        for exchange in result.exchanges:
            _write_exchange(exchange_view(exchange, [session.token]), out)
    failed = sum(not result.passed for result in report.results)
    print(
        f"{len(report.results) - failed} passed, {failed} failed"
        + ("" if failed else ": ready to go live on these cases"),
        file=out,
    )


def _write_exchange(view: dict[str, Any], out: TextIO) -> None:
    indent = " " * 6
    sent = view["sent"]
    print(f"{indent}{view['what']}:", file=out)
    print(f"{indent}  sent      POST {sent['path']}", file=out)
    for name, value in sent["headers"].items():
        print(f"{indent}            {name}: {value}", file=out)
    print(f"{indent}            {sent['body']}", file=out)
    received = view["received"]
    if received is None:
        print(f"{indent}  received  nothing: {view['problem']}", file=out)
        return
    print(f"{indent}  received  HTTP {received['status']}", file=out)
    for name, value in received["headers"].items():
        print(f"{indent}            {name}: {value}", file=out)
    print(f"{indent}            {received['body'][:2000]}", file=out)
