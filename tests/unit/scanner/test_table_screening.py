"""The table's side of a device change (decision 0085): a credential given after a round's
first card deals nothing in that round, whatever the gateway knew; it deals from the next."""

from __future__ import annotations

from datetime import timedelta
from uuid import uuid4

from table_service.domain.scanners import Scanner, screen_scan
from table_service.domain.state import TableState, evolve_all
from teenpatti.events.catalog import CardDealt
from tests.unit.table.test_scanners import SCANNER, T0, scan, table

# the table's device as the table hears it after a registration or a rotation
RENEWED = Scanner("scanner-T1", "T1", active=True, last_sequence=0)


def started(state: TableState) -> TableState:
    round_id = "T1-000002"
    dealt = CardDealt(round_id=round_id, table_id="T1", position="A1", card="KD", scan_id=uuid4())
    return evolve_all(state, [dealt], T0 + timedelta(seconds=20))


def test_a_credential_given_after_the_rounds_first_card_is_refused_in_that_round() -> None:
    screened = screen_scan(RENEWED, scan(sequence=1), started(table()))
    assert screened.refusal is not None
    assert (screened.refusal.reason, screened.refusal.card) == ("unregistered_device", None)
    assert "after round T1-000002's first card" in screened.refusal.detail
    assert screened.scanner == RENEWED  # its sequence number stays unused


def test_a_credential_given_before_the_first_card_deals_the_round() -> None:
    for state in (table(), table(dealing=False)):
        screened = screen_scan(RENEWED, scan(sequence=1), state)
        assert screened.refusal is None
        assert screened.scanner == Scanner("scanner-T1", "T1", active=True, last_sequence=1)


def test_the_device_that_dealt_the_first_card_deals_the_rest() -> None:
    screened = screen_scan(SCANNER, scan(sequence=9), started(table()))
    assert screened.refusal is None
