"""Which records a consumer that names the event types it handles may pass over."""

from __future__ import annotations

from teenpatti.events import new_envelope
from teenpatti.events.catalog import TableClosed
from teenpatti.runtime import _ignored_by

ENVELOPE = new_envelope(
    TableClosed(table_id="T1", actor="supervisor-1", reason="end of the shift"),
    stream_id="table-T1",
    stream_version=1,
    table_id="T1",
    producer="tests",
)


def test_an_event_of_another_type_that_this_build_reads_is_passed_over() -> None:
    assert _ignored_by(frozenset({"RoundOpened"}))(ENVELOPE)


def test_an_event_of_a_handled_type_is_not() -> None:
    assert not _ignored_by(frozenset({"TableClosed"}))(ENVELOPE)


def test_an_event_this_build_cannot_read_goes_on_to_be_parked() -> None:
    ignored = _ignored_by(frozenset({"RoundOpened"}))
    assert not ignored(ENVELOPE.model_copy(update={"event_type": "TableShredded"}))
    assert not ignored(ENVELOPE.model_copy(update={"schema_version": 99}))
