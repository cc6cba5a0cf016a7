"""The `table_changed` notifications the table clocks listen to."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from table_service.adapters.tables import parse_table_changed


def test_a_change_carries_the_table_its_version_and_its_next_deadline() -> None:
    assert parse_table_changed("T1:42:1764400000123") == (
        "T1",
        42,
        datetime(2025, 11, 29, 7, 6, 40, 123000, tzinfo=UTC),
    )
    assert parse_table_changed("live-7:3:") == ("live-7", 3, None)  # nothing timed
    # "at once" (a new table's first round) is stored as -infinity and sent as the epoch
    assert parse_table_changed("T1:1:0") == ("T1", 1, datetime(1970, 1, 1, tzinfo=UTC))


@pytest.mark.parametrize("payload", ["", "T1", "T1:", "T1:x:1", "T1:2:soon", "T1:2:1e99"])
def test_anything_else_is_ignored(payload: str) -> None:
    assert parse_table_changed(payload) is None
