"""Which records a consumer that names the event types it handles may pass over: by the
event's type and schema version (an envelope's, or a record's headers')."""

from __future__ import annotations

from teenpatti.kernel.subscriptions import passed_over


def test_an_event_of_another_type_that_this_build_reads_is_passed_over() -> None:
    assert passed_over(frozenset({"RoundOpened"}))("TableClosed", 1)


def test_an_event_of_a_handled_type_is_not() -> None:
    assert not passed_over(frozenset({"TableClosed"}))("TableClosed", 1)


def test_an_event_this_build_cannot_read_goes_on_to_be_parked() -> None:
    ignored = passed_over(frozenset({"RoundOpened"}))
    assert not ignored("TableShredded", 1)
    assert not ignored("TableClosed", 99)
    assert not ignored("TableClosed", 0)
