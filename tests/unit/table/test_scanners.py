"""The table's screening of scanned cards (domain/scanners.py): only the table's active
device, with a fresh sequence number, for the round in play; a refusal never carries the
card's value."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from uuid import uuid4

import pytest

from table_service.domain.scanners import Scanner, screen_scan
from table_service.domain.state import TableState, evolve_all
from teenpatti import engine
from teenpatti.events.catalog import (
    BettingClosed,
    CardScanned,
    RoundClosed,
    RoundOpened,
    StakeLimit,
    TableOpened,
)

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
BET_TYPES = ("player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus")
LIMITS = {"EUR": {bet: StakeLimit(min=100, max=10_000) for bet in BET_TYPES}}
PAYTABLE = engine.pay_table_to_mapping(engine.PUBLISHED_PAY_TABLE)
SCANNER = Scanner("scanner-T1", "T1", active=True, last_sequence=4)


def table(*, dealing: bool = True, round_number: int = 2) -> TableState:
    round_id = f"T1-{round_number:06d}"
    events = [
        TableOpened(
            table_id="T1",
            name="T1",
            betting_seconds=15,
            result_pause_seconds=5,
            limits=LIMITS,  # type: ignore[arg-type]
            paytable=PAYTABLE,
            actor="supervisor-1",
        ),
        RoundOpened(
            round_id=round_id,
            table_id="T1",
            number=round_number,
            opened_at=T0,
            betting_closes_at=T0 + timedelta(seconds=15),
            limits=LIMITS,  # type: ignore[arg-type]
            paytable=PAYTABLE,
        ),
    ]
    if dealing:
        events.append(BettingClosed(round_id=round_id, table_id="T1", closed_at=T0))
    return evolve_all(TableState("T1"), events, T0)


def scan(
    *,
    device_id: str = "scanner-T1",
    sequence: int = 5,
    round_id: str | None = "T1-000002",
    card: str = "AS",
) -> CardScanned:
    return CardScanned(
        scan_id=uuid4(),
        device_id=device_id,
        table_id="T1",
        round_id=round_id,
        sequence=sequence,
        card=card,
        raw=card,
        scanned_at=T0,
    )


def test_a_scan_from_the_tables_device_for_the_round_in_play_goes_on() -> None:
    screened = screen_scan(SCANNER, scan(sequence=9), table())
    assert screened.refusal is None
    assert screened.scanner == Scanner("scanner-T1", "T1", active=True, last_sequence=9)


@pytest.mark.parametrize(
    ("scanner", "reason", "words"),
    [
        (None, "unregistered_device", "never registered"),
        (Scanner("scanner-T1", "T2", True, 0), "foreign_device", "registered to table T2"),
        (Scanner("scanner-T1", "T1", False, 0), "unregistered_device", "no longer"),
    ],
)
def test_a_scan_from_a_device_the_table_does_not_trust_is_refused_without_its_card(
    scanner: Scanner | None, reason: str, words: str
) -> None:
    screened = screen_scan(scanner, scan(), table())
    assert screened.refusal is not None
    assert (screened.refusal.reason, screened.refusal.card) == (reason, None)
    assert screened.refusal.round_id == "T1-000002"
    assert words in screened.refusal.detail
    assert screened.scanner == scanner  # nothing learnt from an untrusted scan


@pytest.mark.parametrize("sequence", [4, 3, 1])
def test_a_replayed_or_reordered_sequence_is_refused(sequence: int) -> None:
    screened = screen_scan(SCANNER, scan(sequence=sequence), table())
    assert screened.refusal is not None
    assert (screened.refusal.reason, screened.refusal.card) == ("stale_sequence", None)
    assert screened.scanner == SCANNER


@pytest.mark.parametrize("round_id", ["T1-000001", None, "T2-000002"])
def test_a_scan_made_in_another_round_is_refused_but_uses_up_its_number(
    round_id: str | None,
) -> None:
    states = [table(dealing=True)]
    if round_id is not None:
        states.append(table(dealing=False))  # also while betting is open
    for state in states:
        screened = screen_scan(SCANNER, scan(round_id=round_id, sequence=6), state)
        assert screened.refusal is not None
        assert (screened.refusal.reason, screened.refusal.card) == ("wrong_round", None)
        assert "T1-000002" in screened.refusal.detail
        assert screened.scanner is not None and screened.scanner.last_sequence == 6


def test_while_betting_a_read_the_gateway_made_before_it_heard_of_the_round_goes_to_the_rules() -> (
    None
):
    # the rules seal it and pause the round: a card out of the shoe while bets are taken
    screened = screen_scan(SCANNER, scan(round_id=None, sequence=6), table(dealing=False))
    assert screened.refusal is None
    assert screened.scanner is not None and screened.scanner.last_sequence == 6


def test_with_no_round_in_play_the_rules_decide() -> None:
    state = table()
    closed = RoundClosed.of("T1-000002", "T1", ["2S", "3S", "4S", "5S", "6S", "7S"])
    state = evolve_all(state, [closed], T0)
    assert screen_scan(SCANNER, scan(round_id="T1-000001"), state).refusal is None
