"""docs/life-of-a-round.md's table of consumer groups is the services' subscriptions: a row per
group and handler, naming every type each service's `wire` subscribes to, and a handler that
does not say what it commits stops the generator."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import pytest

from teenpatti.events.catalog import TABLE_EVENTS, RoundOpened, RoundPaused
from teenpatti.kernel import EVERY_EVENT, Received
from teenpatti.kernel.subscriptions import Subscriptions
from teenpatti.migrations import declared_services
from teenpatti_tools import contracts
from teenpatti_tools.subscriptions_doc import (
    END,
    START,
    SubscriptionsDocError,
    life_of_a_round,
    subscriptions_table,
    wiring_of,
)


@pytest.fixture(scope="module")
def services() -> list[contracts.DeclaredService]:
    return contracts.declared()


@pytest.fixture(scope="module")
def subscriptions(services: list[contracts.DeclaredService]) -> dict[str, Subscriptions]:
    loaded = declared_services()
    return {s.name: asyncio.run(wiring_of(loaded[s.name]())) for s in services}


def _rows(lines: list[str]) -> list[list[str]]:
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines[2:]]


def test_each_group_lists_exactly_the_types_its_service_receives(
    services: list[contracts.DeclaredService], subscriptions: dict[str, Subscriptions]
) -> None:
    rows = _rows(subscriptions_table(services, subscriptions))
    listed: dict[tuple[str, str], set[str]] = {}
    for group, topic, types, _, commits in rows:
        assert commits, group
        names = {name.strip("` ") for name in types.split(",")}
        listed.setdefault((group.strip("`"), topic.strip("`")), set()).update(names)
    expected = {
        (service.group(topic), topic): ({"every event"} if types is None else set(types))
        for service in services
        for topic, types in service.receives.items()
    }
    assert listed == expected
    # a handler that takes several types is one row
    assert any(row[3] == "`consumers.RecordScanners`" and row[2].count("`") == 6 for row in rows)


async def _quiet(connection: asyncpg.Connection, received: list[Received[Any]]) -> None:
    return None


async def _opened(connection: asyncpg.Connection, received: list[Received[Any]]) -> None:
    """Each round opened: a row."""


def test_a_handler_without_a_docstring_stops_the_generator() -> None:
    class Named:
        name = "table"

        def group(self, topic: str) -> str:
            return f"table-{topic.split('.')[0]}"

    wired: Subscriptions = {TABLE_EVENTS: {RoundOpened: _opened, RoundPaused: _quiet}}
    with pytest.raises(SubscriptionsDocError, match=r"table's handler .*_quiet has no docstring"):
        subscriptions_table([Named()], {"table": wired})
    lines = subscriptions_table(
        [Named()], {"table": {TABLE_EVENTS: {RoundOpened: _opened, EVERY_EVENT: _opened}}}
    )
    assert _rows(lines) == [
        [
            "`table-table`",
            "`table.events`",
            "`RoundOpened`, every event",
            "`unit.test_subscriptions_doc._opened`",
            "Each round opened: a row.",
        ]
    ]


def test_the_table_is_written_between_its_markers_and_nowhere_else(
    services: list[contracts.DeclaredService],
) -> None:
    page = f"# A page\n\nbefore\n\n{START}\n| old | table |\n{END}\n\nafter\n"
    written = life_of_a_round(services, page)
    assert written.startswith(f"# A page\n\nbefore\n\n{START}\n| group | topic |")
    assert written.endswith(f"{END}\n\nafter\n")
    assert "| old | table |" not in written
    with pytest.raises(SubscriptionsDocError, match="must hold the table between"):
        life_of_a_round(services, "# A page without markers\n")
