"""`teenpatti --help` describes every command, and `teenpatti --version` names the version:
each command and subcommand has a line of help in its parent's list and a description of
its own, and each of its arguments a line of help, found by walking the parser's tree."""

from __future__ import annotations

import argparse
import io
from collections.abc import Iterator
from importlib.metadata import version

import pytest

from teenpatti.cli import build_parser, main


def commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ("teenpatti",)
) -> Iterator[tuple[tuple[str, ...], str | None, argparse.ArgumentParser]]:
    """Every command under `parser`: its path, its line of help and its parser."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, child in action.choices.items():
                yield (*path, name), helps.get(name), child
                yield from commands(child, (*path, name))


def test_every_command_has_a_line_of_help_and_a_description() -> None:
    found = list(commands(build_parser()))
    assert len(found) > 10  # the walk reaches the nested commands (keys issue, ...)
    missing = [
        " ".join(path)
        for path, line, parser in found
        if not (line or "").strip() or not (parser.description or "").strip()
    ]
    assert missing == []


def test_every_argument_and_option_says_what_it_is() -> None:
    root = build_parser()
    every = [(("teenpatti",), root), *[(path, parser) for path, _, parser in commands(root)]]
    missing = [
        f"{' '.join(path)} {'/'.join(action.option_strings) or action.dest}"
        for path, parser in every
        for action in parser._actions
        if not isinstance(action, argparse._SubParsersAction) and not (action.help or "").strip()
    ]
    assert missing == []


def test_the_top_level_help_lists_every_command_with_its_line() -> None:
    parser = build_parser()
    text = parser.format_help()
    for path, line, _ in commands(parser):
        if len(path) == 2:
            assert path[1] in text
            assert (line or "").split()[0] in text


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(["--version"], stdout=out, stderr=err)
    assert code == 0
    assert capsys.readouterr().out == f"teenpatti {version('teenpatti')}\n"
