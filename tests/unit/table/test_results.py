"""The roadmap's pure part: the record of each round an append ends, the same from a replay,
and the results cursor; and the PAR sheet's percentages, from fractions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from fractions import Fraction
from uuid import uuid4

import pytest

from table_service.domain.results import (
    CANCELLED,
    CLOSED,
    VOIDED,
    RoundRecord,
    ended_rounds,
    replay_results,
    round_number_in,
)
from table_service.domain.state import TableState, evolve_all
from table_service.rtp import percent_string
from teenpatti.engine import PUBLISHED_PAY_TABLE, pay_table_to_mapping
from teenpatti.events import Event
from teenpatti.events.catalog import (
    DEALING_ORDER,
    BettingClosed,
    CardDealt,
    ResultVoidRequested,
    RoundCancelled,
    RoundClosed,
    RoundOpened,
    RoundVoided,
    StakeLimit,
    TableOpened,
)

T0 = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)
LIMITS = {"EUR": {"player_a": StakeLimit(min=100, max=1_000)}}
CARDS = ["KS", "KH", "9H", "9D", "7D", "7C"]  # a tie


def opened(number: int) -> list[Event]:
    paytable = pay_table_to_mapping(PUBLISHED_PAY_TABLE)
    return [
        RoundOpened(
            round_id=f"T1-{number:06d}",
            table_id="T1",
            number=number,
            opened_at=T0,
            betting_closes_at=T0 + timedelta(seconds=10),
            limits=LIMITS,
            paytable=paytable,
        ),
        BettingClosed(round_id=f"T1-{number:06d}", table_id="T1", closed_at=T0),
    ]


def dealt(number: int, cards: list[str]) -> list[Event]:
    return [
        CardDealt(
            round_id=f"T1-{number:06d}",
            table_id="T1",
            position=position,
            card=card,
            scan_id=uuid4(),
        )
        for position, card in zip(DEALING_ORDER, cards, strict=False)
    ]


def table_events() -> list[Event]:
    return [
        TableOpened(
            table_id="T1",
            name="T",
            betting_seconds=10,
            result_pause_seconds=1,
            limits=LIMITS,
            paytable=pay_table_to_mapping(PUBLISHED_PAY_TABLE),
            actor="supervisor-1",
        )
    ]


def table() -> TableState:
    return evolve_all(TableState(table_id="T1"), table_events(), T0)


def test_an_append_that_ends_rounds_records_each_as_it_ended() -> None:
    state = evolve_all(table(), [*opened(1), *dealt(1, CARDS[:5])], T0)
    at = T0 + timedelta(seconds=30)
    last = [*dealt(1, CARDS)[5:], RoundClosed.of("T1-000001", "T1", CARDS)]
    assert ended_rounds(state, last, at) == [
        RoundRecord(
            table_id="T1",
            round_id="T1-000001",
            number=1,
            status=CLOSED,
            ended_at=at,
            cards=tuple(CARDS),
            player_a_hand="high_card",
            player_b_hand="high_card",
            winner="tie",
            six_card_bonus_hand=None,
            stream_version=state.version + 2,
        )
    ]
    assert ended_rounds(state, last[:1], at) == []  # a card that ends nothing

    state = evolve_all(state, [*last, *opened(2), *dealt(2, ["AS", "AH"])], at)
    void = RoundCancelled(
        round_id="T1-000002", table_id="T1", actor="supervisor-2", reason="x", cards_dealt=2
    )
    [record] = ended_rounds(state, [void], at)
    assert (record.status, record.cards, record.winner, record.player_a_hand) == (
        CANCELLED,
        ("AS", "AH"),
        None,
        None,
    )
    assert (record.player_a_cards, record.player_b_cards) == (("AS",), ("AH",))


def test_a_replay_gives_the_records_the_appends_gave() -> None:
    """The same stream appended in runs (each run at one time, as the service appends) and
    replayed event by event with those times: the same records, stream versions included;
    a round voided after its result is its void's record, in its place."""
    closed = RoundClosed.of("T1-000001", "T1", CARDS)
    runs: list[list[Event]] = [
        opened(1),
        dealt(1, CARDS)[:5],
        [*dealt(1, CARDS)[5:], closed],
        opened(2),
        [RoundCancelled(round_id="T1-000002", table_id="T1", actor="s", reason="x", cards_dealt=0)],
        [ResultVoidRequested(round_id="T1-000001", table_id="T1", actor="s", reason="misread")],
        opened(3),
        [
            RoundVoided(
                round_id="T1-000001",
                table_id="T1",
                requested_by="s",
                actor="t",
                reason="misread (confirmed: seen)",
                closed_at=T0 + timedelta(seconds=3),
                cards=closed.cards,
                player_a_hand=closed.player_a_hand,
                player_b_hand=closed.player_b_hand,
                winner=closed.winner,
                six_card_bonus_hand=closed.six_card_bonus_hand,
            )
        ],
    ]
    state = table()
    stream: list[tuple[Event, datetime]] = [(event, T0) for event in [*table_events()]]
    appended: dict[str, RoundRecord] = {}  # a row per round, as the projection's upsert
    for seconds, run in enumerate(runs, start=1):
        at = T0 + timedelta(seconds=seconds)
        appended |= {r.round_id: r for r in ended_rounds(state, run, at)}
        state = evolve_all(state, run, at)
        stream += [(event, at) for event in run]
    rows = list(appended.values())
    assert [(r.number, r.status) for r in rows] == [(1, VOIDED), (2, CANCELLED)]
    voided = rows[0]
    assert (voided.ended_at, voided.voided_at) == (
        T0 + timedelta(seconds=3),
        T0 + timedelta(seconds=8),
    )
    assert (voided.cards, voided.winner, voided.stream_version) == (
        tuple(CARDS),
        "tie",
        state.version,
    )
    assert replay_results("T1", stream) == rows
    assert replay_results("T1", stream[:-1])[0].status == CLOSED


@pytest.mark.parametrize(
    ("cursor", "number"),
    [
        ("T1-000042", 42),
        ("T1-1234567", 1_234_567),
        ("T1-42", None),  # not how the table writes it
        ("T2-000042", None),
        ("T1-000000", None),
        ("T1-", None),
        ("garbage", None),
        ("T1-00004٢", None),  # a digit, but not an ASCII one
        ("T1-99999999999", None),
    ],
)
def test_a_cursor_is_a_round_id_of_the_table(cursor: str, number: int | None) -> None:
    assert round_number_in(cursor, "T1") == number


def test_percentages_are_the_fractions_rounded_to_four_places() -> None:
    assert percent_string(Fraction(36, 37)) == "97.2973"
    assert percent_string(Fraction(1, 3)) == "33.3333"
    assert percent_string(Fraction(1)) == "100.0000"
    assert percent_string(Fraction(1, 2_000_000)) == "0.0000"
    assert percent_string(Fraction(1, 1_000_000) * 150) == "0.0150"
