"""Every refusal code a service can answer is listed in docs/services.md ("Refusal codes"),
and every code listed there is asserted by at least one test: a code nobody triggers is a
refusal nobody has seen work.

The codes are read from the source as the services raise them: a `ProblemError` (or a
`problem_response`) with its status and code, a `WalletError`'s `code`, a table command's
refusal (`TableCommandError` and its kinds) with its code first. A test "asserts" a code when
its text holds it quoted, as `assert body["code"] == "betting_closed"` does."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "services.md"
SOURCES = [
    *sorted((ROOT / "services").glob("*/src/**/*.py")),
    *sorted((ROOT / "shared" / "src").rglob("*.py")),
]

# `ProblemError(409, "code"`, `problem_response(400, "code"`, `Error(status, "code"`
_CALL = re.compile(
    r"(?:ProblemError|problem_response|ProblemError\.__init__|RefusedError|Refusal)\(\s*(?:self,\s*)?"
    r"(?:\d{3}|[a-z_.]+),\s*\"([a-z][a-z0-9_]+)\"",
    re.S,
)
_ATTRIBUTE = re.compile(r"^\s+code\s*=\s*\"([a-z][a-z0-9_]+)\"", re.M)  # WalletError kinds
_STATUS_MAP = re.compile(r"\{\s*(\d{3}:\s*\"[a-z_]+\"(?:,\s*\d{3}:\s*\"[a-z_]+\")*),?\s*\}")
# a round in play refused a supervisor's action: `nothing_to_<action>`
_IN_PLAY = re.compile(r"_in_play\(state, \"(\w+)\"\)")
# a failure of ours, not a refusal: never asked to be triggered
NOT_REFUSALS = frozenset({"internal_error", "http_error"})
# the documented table's rows: | `code` | status | services |
_ROW = re.compile(r"^\| `([a-z][a-z0-9_]+)` \|", re.M)


# an exception class that takes its code first (`TableCommandError`, the gateway's
# `DeviceChangeError`), and the classes built on it in the same module
_CODE_FIRST = re.compile(
    r"^class (\w+)\(\w*\):\n(?:(?!^class ).*\n)*?\s+def __init__\(self, code: str", re.M
)
_SUBCLASS = re.compile(r"^class (\w+)\((\w+)\):", re.M)
_SUPER_CODE = re.compile(r"super\(\).__init__\(\s*\"([a-z][a-z0-9_]+)\"", re.S)


def _code_first_classes(text: str) -> set[str]:
    names = set(_CODE_FIRST.findall(text))
    grew = bool(names)
    while grew:
        more = {name for name, base in _SUBCLASS.findall(text) if base in names} - names
        names |= more
        grew = bool(more)
    return names


def raised_codes() -> set[str]:
    codes: set[str] = set()
    for text in (path.read_text() for path in SOURCES):
        codes |= set(_CALL.findall(text)) | set(_ATTRIBUTE.findall(text))
        classes = _code_first_classes(text)
        if classes:
            command = re.compile(
                rf"(?:{'|'.join(sorted(classes))})\(\s*\"([a-z][a-z0-9_]+)\",", re.S
            )
            codes |= set(command.findall(text)) | set(_SUPER_CODE.findall(text))
        codes |= {f"nothing_to_{action}" for action in _IN_PLAY.findall(text)}
        for entries in _STATUS_MAP.findall(text):
            codes |= set(re.findall(r"\"([a-z_]+)\"", entries))
    return codes - NOT_REFUSALS


def documented_codes() -> set[str]:
    text = DOCS.read_text()
    section = text.split("## Refusal codes", 1)
    assert len(section) == 2, "docs/services.md has no 'Refusal codes' section"
    return set(_ROW.findall(section[1].split("\n## ", 1)[0]))


def test_every_refusal_a_service_can_answer_is_listed_and_nothing_else() -> None:
    raised, documented = raised_codes(), documented_codes()
    assert sorted(raised - documented) == [], "raised, but not in docs/services.md"
    assert sorted(documented - raised) == [], "in docs/services.md, but raised nowhere"


def test_every_listed_refusal_is_asserted_by_a_test() -> None:
    here = Path(__file__).resolve()
    tests = "\n".join(
        path.read_text() for path in (ROOT / "tests").rglob("*.py") if path.resolve() != here
    )
    untested = sorted(
        code for code in documented_codes() if f'"{code}"' not in tests and f"'{code}'" not in tests
    )
    assert untested == [], "no test asserts these refusals"
