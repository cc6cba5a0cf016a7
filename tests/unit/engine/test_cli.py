from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from teenpatti import cli
from teenpatti.engine import par as par_module
from teenpatti.engine import pay_table_to_mapping
from teenpatti.engine.par import DealCounts
from teenpatti.engine.paytable import PUBLISHED_PAY_TABLE


def run(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(argv, stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def evaluate(*lines: str, argv: tuple[str, ...] = ()) -> tuple[int, list[dict[str, object]]]:
    status, out, _ = run(["evaluate", *argv], "".join(line + "\n" for line in lines))
    return status, [json.loads(line) for line in out.splitlines()]


def deal(player_a: list[str], player_b: list[str]) -> str:
    return json.dumps({"player_a": player_a, "player_b": player_b})


def test_evaluate_answers_each_line() -> None:
    status, answers = evaluate(
        deal(["AS", "KS", "QS"], ["2D", "3C", "4H"]),
        deal(["K♠", "9h", "7D"], ["KH", "9C", "7S"]),
        deal(["10H", "TD", "10C"], ["10S", "9D", "9C"]),
    )
    assert status == 0
    assert answers == [
        {
            "winner": "player_a",
            "player_a_hand": "straight_flush",
            "player_b_hand": "straight",
            "six_card_bonus_hand": None,
            "returns": {
                "player_a": 195,
                "player_b": 0,
                "tie": 0,
                "pair_plus_a": 3_100,
                "pair_plus_b": 700,
                "six_card_bonus": 0,
            },
        },
        {
            "winner": "tie",
            "player_a_hand": "high_card",
            "player_b_hand": "high_card",
            "six_card_bonus_hand": None,
            "returns": {
                "player_a": 100,
                "player_b": 100,
                "tie": 5_100,
                "pair_plus_a": 0,
                "pair_plus_b": 0,
                "six_card_bonus": 0,
            },
        },
        {
            "winner": "player_a",
            "player_a_hand": "trail",
            "player_b_hand": "pair",
            "six_card_bonus_hand": "four_of_a_kind",
            "returns": {
                "player_a": 195,
                "player_b": 0,
                "tie": 0,
                "pair_plus_a": 4_100,
                "pair_plus_b": 200,
                "six_card_bonus": 10_100,
            },
        },
    ]


def test_trail_of_aces_and_the_royal_flush() -> None:
    _, answers = evaluate(
        deal(["AS", "AH", "AD"], ["2C", "3C", "5D"]),
        deal(["AS", "QS", "10S"], ["KS", "JS", "2D"]),
    )
    assert answers[0]["player_a_hand"] == "trail_of_aces"
    assert answers[0]["six_card_bonus_hand"] == "three_of_a_kind"  # A-A-A is in the six cards
    assert answers[0]["returns"] == {
        "player_a": 195,
        "player_b": 0,
        "tie": 0,
        "pair_plus_a": 5_100,
        "pair_plus_b": 0,
        "six_card_bonus": 800,
    }
    assert answers[1]["six_card_bonus_hand"] == "royal_flush"
    assert answers[1]["returns"]["six_card_bonus"] == 100_100  # type: ignore[index]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("", "blank line"),
        ("   ", "blank line"),
        ("not json", "not JSON"),
        ('{"player_a": ["AS", "KS", "QS"]', "not JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"player_a": ["AS", "KS", "QS"]}', "missing key 'player_b'"),
        ("{}", "missing key 'player_a' and 'player_b'"),
        (
            '{"player_a": ["AS","KS","QS"], "player_b": ["2D","3C","4H"], "id": 1}',
            "unexpected key 'id'",
        ),
        (
            '{"player_a": ["AS","KS"], "player_b": ["2D","3C","4H"]}',
            "player_a: expected 3 cards, got 2",
        ),
        (
            '{"player_a": ["AS","KS","QS","JS"], "player_b": ["2D","3C","4H"]}',
            "player_a: expected 3 cards, got 4",
        ),
        ('{"player_a": "AS KS QS", "player_b": ["2D","3C","4H"]}', "player_a: expected a list"),
        (
            '{"player_a": ["AS","KS","QS"], "player_b": ["2D","1C","4H"]}',
            "player_b: card 2: '1C' is not a card: unknown rank '1'",
        ),
        (
            '{"player_a": ["AS","KS","QS"], "player_b": ["2D","3X","4H"]}',
            "player_b: card 2: '3X' is not a card: unknown suit 'X'",
        ),
        (
            '{"player_a": ["AS","KS",7], "player_b": ["2D","3C","4H"]}',
            "player_a: card 3: a card must be a string",
        ),
        (
            '{"player_a": ["AS","KS","AS"], "player_b": ["2D","3C","4H"]}',
            r"card AS appears more than once \(player_a\)",
        ),
        (
            '{"player_a": ["AS","KS","QS"], "player_b": ["2D","qs","4H"]}',
            r"card QS appears more than once \(player_a and player_b\)",
        ),
    ],
)
def test_a_bad_line_gets_a_specific_error_and_the_others_are_still_answered(
    line: str, reason: str
) -> None:
    good = deal(["AS", "KS", "QS"], ["2D", "3C", "4H"])
    status, answers = evaluate(good, line, good)
    assert status == 1
    assert len(answers) == 3
    assert answers[0] == answers[2] and "winner" in answers[0]
    assert set(answers[1]) == {"error"}
    assert re.search(reason, str(answers[1]["error"])), answers[1]


def test_evaluate_with_an_operator_pay_table(tmp_path: Path) -> None:
    table = pay_table_to_mapping(PUBLISHED_PAY_TABLE)
    table["player_a"] = "0.955"
    table["tie"] = "60"
    path = tmp_path / "operator.json"
    path.write_text(json.dumps(table))
    status, answers = evaluate(
        deal(["AS", "KS", "QS"], ["2D", "3C", "4H"]),
        deal(["KS", "9H", "7D"], ["KH", "9C", "7S"]),
        argv=("--paytable", str(path)),
    )
    assert status == 0
    assert answers[0]["returns"]["player_a"] == 195  # type: ignore[index]  # 95.5 rounds down
    assert answers[1]["returns"]["tie"] == 6_100  # type: ignore[index]


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "cannot read pay table"),
        ("{", "not valid JSON"),
        ('{"player_a": "-1"}', "must be more than 0:1"),
        ("[]", "must be a JSON object"),
    ],
)
def test_a_bad_pay_table_is_a_clear_error(tmp_path: Path, content: str | None, reason: str) -> None:
    path = tmp_path / "table.json"
    if content is not None:
        path.write_text(content)
    for command in (["evaluate"], ["par-sheet"]):
        status, out, err = run([*command, "--paytable", str(path)], "")
        assert status == 2
        assert out == ""
        assert reason in err and "Traceback" not in err


def test_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert run([])[0] == 2
    assert run(["shuffle"])[0] == 2
    assert run(["par-sheet", "--rtp-floor", "97.5"])[0] == 2
    assert run(["par-sheet", "--frobnicate"])[0] == 2
    err = capsys.readouterr().err
    assert "above 1: write 0.975 or 97.5%" in err
    assert "Traceback" not in err


@pytest.fixture
def fast_counts(monkeypatch: pytest.MonkeyPatch, deal_counts: DealCounts) -> None:
    # `par-sheet` recomputes the enumeration; reuse the session's counts to keep tests fast.
    def counts(progress: par_module.Progress | None = None) -> DealCounts:
        if progress is not None:
            progress("six-card sets", 1, 2)
        return deal_counts

    monkeypatch.setattr(par_module, "count_deals", counts)


@pytest.mark.usefixtures("fast_counts")
def test_par_sheet_json() -> None:
    status, out, _ = run(["par-sheet", "--json", "--rtp-floor", "92%"])
    assert status == 0
    report = json.loads(out)
    assert report["deals"] == 407_170_400
    assert set(report["outcomes"]) == {"player_a", "player_b", "tie"}
    assert set(report["three_card_hands"]) == {
        "total",
        "trail_of_aces",
        "trail",
        "straight_flush",
        "straight",
        "flush",
        "pair",
        "high_card",
    }
    assert set(report["six_card_hands"]) == {
        "total",
        "none",
        "royal_flush",
        "straight_flush",
        "four_of_a_kind",
        "full_house",
        "flush",
        "straight",
        "three_of_a_kind",
    }
    assert set(report["bets"]) == {
        "player_a",
        "player_b",
        "tie",
        "pair_plus_a",
        "pair_plus_b",
        "six_card_bonus",
    }
    for bet in report["bets"].values():
        assert {"rtp", "rtp_fraction", "house_edge", "hit_frequency", "below_floor"} <= set(bet)
        numerator, denominator = map(int, bet["rtp_fraction"].split("/"))
        assert abs(numerator / denominator - float(bet["rtp"])) < 1e-9
    assert report["rtp_floor"] == "0.9200000000"
    assert report["bets"]["six_card_bonus"]["below_floor"] is True
    assert report["bets"]["pair_plus_a"]["below_floor"] is False


@pytest.mark.usefixtures("fast_counts")
def test_par_sheet_table_and_progress_only_on_a_terminal() -> None:
    status, out, err = run(["par-sheet"])
    assert status == 0
    assert "Where the rules' maximum RTP of 97.50% comes from" in out
    assert err == ""

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    cli.main(["par-sheet"], stdin=io.StringIO(), stdout=io.StringIO(), stderr=terminal)
    assert "par-sheet:" in terminal.getvalue()


def _command() -> list[str]:
    script = shutil.which("teenpatti", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "teenpatti.cli"]


def test_the_console_script_end_to_end() -> None:
    lines = (
        deal(["AS", "KS", "QS"], ["2D", "3C", "4H"]).encode()
        + b"\n\xff\xfe\n"
        + deal(["AS", "2S", "3S"], ["KD", "QD", "JD"]).encode()
        + b"\n"
    )
    done = subprocess.run([*_command(), "evaluate"], input=lines, capture_output=True, check=False)
    assert done.returncode == 1
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert answers[0]["winner"] == "player_a"
    assert answers[1] == {"error": "line is not valid UTF-8"}
    assert answers[2]["winner"] == "player_a"  # A-2-3 beats K-Q-J
    assert done.stderr == b""


def test_the_full_par_sheet_end_to_end() -> None:
    done = subprocess.run(
        [*_command(), "par-sheet", "--json"], capture_output=True, check=True, text=True
    )
    report = json.loads(done.stdout)
    assert report["outcomes"]["tie"] == 450_528
    assert report["six_card_hands"]["royal_flush"] == 188
    assert done.stderr == ""  # not a terminal: no progress
