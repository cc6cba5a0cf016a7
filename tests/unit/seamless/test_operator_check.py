"""`teenpatti operator-check` against operators it did not write: the independent counterpart
(tests/counterparts/hub88_operator.py), where every case passes, and a deliberately broken one
(tests/counterparts/broken_operator.py), where each break fails its own case and no other;
and the command line's exit codes, with no secret in what it prints."""

from __future__ import annotations

import asyncio
import io
import json
import re
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from teenpatti.cli import main
from teenpatti.seamless.check import (
    CASES,
    Answer,
    CaseFailedError,
    Exchange,
    HttpTransport,
    OperatorCheck,
    Received,
    Report,
    Sent,
    Session,
    UnreachableError,
)
from teenpatti.seamless.check.probe import read_answer
from teenpatti.seamless.signing import (
    generate_private_key,
    load_public_key,
    private_key_pem,
    public_key_pem,
)
from tests.counterparts.broken_operator import BREAKS, BrokenOperator
from tests.counterparts.hub88_operator import Hub88Operator, hub88_operator

GAME_KEY, OPERATOR_KEY = generate_private_key(), generate_private_key()
FUNDS = 1_000 * 100_000  # 1,000.00 INR in protocol units
STAKE = 100  # 1.00 INR in minor units

# the case each break must fail, and only that one
CASE_OF = {
    "balance_in_other_currency": "balance",
    "bet_debits_twice": "bet",
    "replay_applied_again": "replay",
    "replay_refused_as_duplicate": "replay",
    "duplicate_accepted": "duplicate",
    "win_paid_only_on_round_close": "win",
    "zero_win_refused": "zero-win",
    "closing_win_refused_with_open_bets": "round-close",
    "rollback_credits_nothing": "rollback",
    "no_tombstone": "unknown-rollback",
    "unknown_rollback_refused": "unknown-rollback",
    "signature_not_checked": "bad-signature",
    "currency_not_checked": "wrong-currency",
    "overdraft_allowed": "not-enough-money",
    "answers_signed_badly": "signed-answers",
    "refusals_unsigned": "signed-answers",
    "wrong_request_uuid": "echoed-answers",
}


async def check_broken(breaks: frozenset[str]) -> tuple[Report, BrokenOperator, str]:
    operator = BrokenOperator(public_key_pem(GAME_KEY), breaks, OPERATOR_KEY)
    token = operator.add_player("alice", "INR", FUNDS)
    transport = httpx.ASGITransport(app=operator)
    async with HttpTransport("http://operator", transport=transport) as http:
        check = OperatorCheck(
            http,
            GAME_KEY,
            [load_public_key(operator.public_key_pem)],
            Session("alice", token, "INR", STAKE),
        )
        return await check.run(), operator, token


def failed(report: Report) -> set[str]:
    return {result.name for result in report.results if not result.passed}


def test_every_case_is_failed_by_some_break() -> None:
    assert set(CASE_OF) == set(BREAKS)
    assert {case.name for case in CASES} == set(CASE_OF.values())


async def test_a_correct_operator_passes_every_case_and_keeps_its_balance() -> None:
    report, operator, _ = await check_broken(frozenset())
    assert [(r.name, r.passed) for r in report.results] == [(c.name, True) for c in CASES]
    assert all(result.exchanges == () for result in report.results)
    assert operator.balance("alice", "INR") == FUNDS


@pytest.mark.parametrize("broken", sorted(CASE_OF))
async def test_each_break_fails_its_case_and_shows_what_was_sent_and_received(
    broken: str,
) -> None:
    report, _, token = await check_broken(frozenset({broken}))
    assert failed(report) == {CASE_OF[broken]}
    result = report.result(CASE_OF[broken])
    assert result.detail
    assert result.exchanges, "a failure shows its exchanges"
    for exchange in result.exchanges:
        assert exchange.sent.path.startswith("/")
        assert exchange.sent.body
        assert exchange.received is not None
        assert exchange.received.status == 200
        assert exchange.received.body
    # what is shown of a failure never carries the token
    shown = json.dumps([result.detail, *(exchange.sent.headers for exchange in result.exchanges)])
    assert token not in shown


# --------------------------------------------------------------- the independent counterpart
# what the check provokes on purpose, which the counterpart records as the game side's faults
PROVOKED = (
    r"^bet \S+ sent again: a bet is never retried",
    r"^transaction_uuid \S+ reused with other data",
    r"^unsigned request: /transaction/bet had no X-Hub88-Signature header$",
    r"^bad signature: /transaction/bet body does not verify with any game key$",
    r"^/transaction/bet \S+: currency (EUR|USD), the token is bound to INR$",
)


@pytest.fixture
async def counterpart() -> AsyncIterator[Hub88Operator]:
    async with hub88_operator([public_key_pem(GAME_KEY).decode()]) as running:
        yield running


async def test_the_independent_operator_passes_every_case(counterpart: Hub88Operator) -> None:
    token = counterpart.add_player("bob", "INR", FUNDS)
    async with HttpTransport(counterpart.base_url) as http:
        check = OperatorCheck(
            http,
            GAME_KEY,
            [load_public_key(counterpart.public_key_pem.encode())],
            Session("bob", token, "INR", STAKE),
        )
        report = await check.run()
    assert [(r.name, r.passed, r.detail) for r in report.results if not r.passed] == []
    assert counterpart.balance("bob", "INR") == FUNDS
    # every bet ended, every round closed, money adds up; only what was provoked is reported
    problems = counterpart.check()
    assert [p for p in problems if not any(re.search(rx, p) for rx in PROVOKED)] == []
    assert all(any(re.search(rx, p) for p in problems) for rx in PROVOKED)


async def test_a_server_that_cannot_be_connected_to_is_unreachable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with HttpTransport(f"http://127.0.0.1:{port}", timeout_seconds=5) as http:
        check = OperatorCheck(http, GAME_KEY, [GAME_KEY.public_key()], Session("x", "t", "INR", 1))
        with pytest.raises(UnreachableError):
            await check.run()


# ------------------------------------------------------------------------- the command line
@dataclass
class Files:
    private_key: Path
    operator_key: Path
    token_file: Path
    token: str


@pytest.fixture
def files(tmp_path: Path, counterpart: Hub88Operator) -> Files:
    token = counterpart.add_player("carol", "INR", FUNDS)
    private_key = tmp_path / "signing.pem"
    private_key.write_bytes(private_key_pem(GAME_KEY))
    operator_key = tmp_path / "operator.pub.pem"
    operator_key.write_text(counterpart.public_key_pem)
    token_file = tmp_path / "token"
    token_file.write_text(token + "\n")
    return Files(private_key, operator_key, token_file, token)


async def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    # main() runs its own event loop: off this one
    code = await asyncio.to_thread(main, ["operator-check", *argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def arguments(files: Files, base_url: str, *more: str) -> list[str]:
    return [
        "--base-url",
        base_url,
        "--operator-public-key",
        str(files.operator_key),
        "--user",
        "carol",
        "--token-file",
        str(files.token_file),
        "--currency",
        "INR",
        "--private-key",
        str(files.private_key),
        *more,
    ]


def assert_no_secret(files: Files, *outputs: str) -> None:
    pem = private_key_pem(GAME_KEY).decode()
    key_lines = [line for line in pem.splitlines() if "PRIVATE KEY" not in line]
    for output in outputs:
        assert files.token not in output
        assert "PRIVATE KEY" not in output
        assert not any(line in output for line in key_lines)


async def test_the_command_passes_with_exit_0(counterpart: Hub88Operator, files: Files) -> None:
    code, out, err = await run_cli(*arguments(files, counterpart.base_url, "--stake", "2.50"))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith(f"operator-check {counterpart.base_url}: player carol, INR")
    assert "250000 (2.50 INR)" in lines[0]
    assert [line.split()[:2] for line in lines[1:-1]] == [["PASS", c.name] for c in CASES]
    assert lines[-1] == f"{len(CASES)} passed, 0 failed: ready to go live on these cases"
    assert_no_secret(files, out, err)


async def test_a_failing_case_exits_1_and_shows_the_exchange_without_the_token(
    counterpart: Hub88Operator, files: Files
) -> None:
    counterpart.fail_next("/transaction/bet")  # the bet case's bet: HTTP 503
    code, out, err = await run_cli(*arguments(files, counterpart.base_url))
    assert (code, err) == (1, "")
    [failure] = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert failure.split()[1] == "bet"
    assert "got HTTP 503, not 200: no answer" in failure
    assert "sent      POST /transaction/bet" in out
    assert "received  HTTP 503" in out
    assert '"token":"<token>"' in out
    assert_no_secret(files, out, err)
    # the bet without an answer was rolled back: the player's money is whole
    assert counterpart.balance("carol", "INR") == FUNDS


async def test_json_output_for_a_pipeline(counterpart: Hub88Operator, files: Files) -> None:
    counterpart.refuse_next("/user/balance", "RS_ERROR_UNKNOWN")
    argv = arguments(files, counterpart.base_url, "--json")
    argv[argv.index("--token-file") : argv.index("--token-file") + 2] = ["--token", files.token]
    code, out, err = await run_cli(*argv)
    assert (code, err) == (1, "")
    report = json.loads(out)
    assert report["passed"] is False
    verdicts = {case["name"]: case["passed"] for case in report["cases"]}
    assert verdicts == {case.name: case.name != "balance" for case in CASES}
    [balance] = [case for case in report["cases"] if case["name"] == "balance"]
    [exchange] = balance["exchanges"]
    assert exchange["sent"]["path"] == "/user/balance"
    assert json.loads(exchange["sent"]["body"])["token"] == "<token>"
    assert json.loads(exchange["received"]["body"])["status"] == "RS_ERROR_UNKNOWN"
    assert_no_secret(files, out)


@pytest.mark.parametrize(
    ("more", "says"),
    [
        (["--base-url", "http://wallet.example.com"], "http:// sends the session token"),
        (["--base-url", "https://user:pw@wallet.example.com"], "no credentials in a URL"),
        (["--base-url", "ftp://wallet.example.com"], "an https:// URL with a host"),
        (["--stake", "0.001"], "not a positive amount in whole INR minor units"),
        (["--stake", "-1"], "not a positive amount"),
        (["--currency", "ABC"], "'ABC' is not a currency the platform accepts"),
        (["--private-key", "/nonexistent/signing.pem"], "--private-key /nonexistent/signing.pem"),
    ],
)
async def test_bad_arguments_exit_2(
    counterpart: Hub88Operator, files: Files, more: list[str], says: str
) -> None:
    code, out, err = await run_cli(*arguments(files, counterpart.base_url), *more)
    assert (code, out) == (2, "")
    assert says in err
    assert_no_secret(files, err)


async def test_a_server_that_cannot_be_reached_exits_2(files: Files) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code, out, err = await run_cli(*arguments(files, f"http://127.0.0.1:{port}"))
    assert (code, out) == (2, "")
    assert f"cannot connect to http://127.0.0.1:{port}" in err


async def test_the_signing_key_defaults_to_the_wallet_s_setting(
    counterpart: Hub88Operator, files: Files, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TP_SEAMLESS_SIGNING_KEY_FILE", str(files.private_key))
    argv = arguments(files, counterpart.base_url)
    index = argv.index("--private-key")
    del argv[index : index + 2]
    code, out, _ = await run_cli(*argv)
    assert code == 0, out
    monkeypatch.delenv("TP_SEAMLESS_SIGNING_KEY_FILE")
    code, _, err = await run_cli(*argv)
    assert code == 2
    assert "no signing key" in err


def test_the_operators_page_lists_every_case_in_order() -> None:
    page = (Path(__file__).parents[3] / "docs" / "operators.md").read_text()
    section = page.split("## Checking your wallet before going live", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([a-z-]+)` \|", section, flags=re.MULTILINE)
    assert listed == [case.name for case in CASES]


async def test_a_call_without_an_answer_fails_its_case_and_its_bet_is_rolled_back(
    counterpart: Hub88Operator,
) -> None:
    token = counterpart.add_player("erin", "INR", FUNDS)
    counterpart.hold_next("/transaction/bet", seconds=2)  # the bet case's bet: applied, late
    async with HttpTransport(counterpart.base_url, timeout_seconds=0.3) as http:
        check = OperatorCheck(
            http,
            GAME_KEY,
            [load_public_key(counterpart.public_key_pem.encode())],
            Session("erin", token, "INR", STAKE),
        )
        report = await check.run()
    assert failed(report) == {"bet"}
    assert report.result("bet").detail == "the bet got no answer: no answer within 0.3 s"
    assert counterpart.balance("erin", "INR") == FUNDS  # the rollback gave the stake back


def exchange_of(body: bytes, status: int = 200) -> Exchange:
    sent = Sent("/user/balance", {}, b"{}")
    return Exchange(
        "balance", "balance request", "r-1", "u", None, sent, Received(status, {}, body)
    )


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"not json", "is not JSON"),
        (b"[]", "is not a JSON object"),
        (b'{"user":"u","status":"RS_OK","request_uuid":"r-1","currency":"INR"}', "balance"),
        (
            b'{"user":"u","status":"RS_OK","request_uuid":"r-1","currency":"INR","balance":1.0}',
            "balance 1.0",
        ),
        (
            b'{"user":"u","status":"RS_OK","request_uuid":"r-1","currency":"INR","balance":"1"}',
            "balance '1'",
        ),
        (
            b'{"user":"u","status":"RS_OK","request_uuid":"r-1","currency":"inr","balance":1}',
            "currency 'inr'",
        ),
        (
            b'{"user":"u","status":"RS_OK","request_uuid":"r-1","currency":"INR","balance":-5}',
            "a negative balance, -5",
        ),
        (
            b'{"user":"u","status":"OK","request_uuid":"r-1","currency":"INR","balance":5}',
            "status 'OK', which the protocol does not define",
        ),
    ],
)
def test_an_answer_the_wallet_could_not_read_fails_the_case(body: bytes, says: str) -> None:
    with pytest.raises(CaseFailedError) as failure:
        read_answer(exchange_of(body))
    assert says in failure.value.reason
    assert read_answer(
        exchange_of(
            b'{"user":"u","status":"RS_OK","request_uuid":"r-1","currency":"INR","balance":5}'
        )
    ) == Answer("u", "RS_OK", "r-1", "INR", 5)
    with pytest.raises(CaseFailedError, match="got HTTP 503, not 200"):
        read_answer(exchange_of(body, 503))
