"""The roadmap: each round of a table as it ended, closed with its result or cancelled with
the cards dealt before the void, derived from the table's events alone. The same function
gives the rows written with each append and the rows a replay of the stream gives, so the
`round_results` projection can always be rebuilt identically (decision 0076)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from teenpatti.events import Event
from teenpatti.events.catalog import RoundCancelled, RoundClosed

from .state import Round, RoundPhase, TableState, evolve, evolve_all, round_id_for

CLOSED, CANCELLED = "closed", "cancelled"


@dataclass(frozen=True)
class RoundRecord:
    """One line of the roadmap."""

    table_id: str
    round_id: str
    number: int
    status: str  # closed, cancelled
    ended_at: datetime
    cards: tuple[str, ...]  # in dealing order A1 B1 A2 B2 A3 B3; fewer when cancelled
    player_a_hand: str | None  # None when cancelled
    player_b_hand: str | None
    winner: str | None  # player_a, player_b, tie; None when cancelled
    six_card_bonus_hand: str | None
    stream_version: int  # of the event that ended the round

    @property
    def player_a_cards(self) -> tuple[str, ...]:
        return self.cards[0::2]

    @property
    def player_b_cards(self) -> tuple[str, ...]:
        return self.cards[1::2]


def ended_rounds(state: TableState, events: Sequence[Event], at: datetime) -> list[RoundRecord]:
    """The rounds that `events`, appended after `state` and recorded at `at`, end: each as
    the table's state holds it right after its RoundClosed or RoundCancelled."""
    records: list[RoundRecord] = []
    for index, event in enumerate(events):
        if isinstance(event, (RoundClosed, RoundCancelled)):
            after = evolve_all(state, events[: index + 1], at)
            ended = after.round
            if ended is not None and ended.round_id == event.round_id:
                records.append(record_of(after.table_id, ended, after.version))
    return records


def replay_results(table_id: str, events: Iterable[tuple[Event, datetime]]) -> list[RoundRecord]:
    """Every round a table's whole stream ended, oldest first: what the projection holds."""
    state = TableState(table_id=table_id)
    records: list[RoundRecord] = []
    for event, at in events:
        if isinstance(event, (RoundClosed, RoundCancelled)):
            records += ended_rounds(state, [event], at)
        state = evolve(state, event, at)
    return records


def record_of(table_id: str, ended: Round, stream_version: int) -> RoundRecord:
    assert ended.ended_at is not None, "only an ended round has a record"
    result = ended.result
    if ended.phase is RoundPhase.CLOSED and result is not None:
        return RoundRecord(
            table_id=table_id,
            round_id=ended.round_id,
            number=ended.number,
            status=CLOSED,
            ended_at=ended.ended_at,
            cards=result.cards,
            player_a_hand=result.player_a_hand,
            player_b_hand=result.player_b_hand,
            winner=result.winner,
            six_card_bonus_hand=result.six_card_bonus_hand,
            stream_version=stream_version,
        )
    return RoundRecord(
        table_id=table_id,
        round_id=ended.round_id,
        number=ended.number,
        status=CANCELLED,
        ended_at=ended.ended_at,
        cards=ended.dealt_cards,
        player_a_hand=None,
        player_b_hand=None,
        winner=None,
        six_card_bonus_hand=None,
        stream_version=stream_version,
    )


def round_number_in(cursor: str, table_id: str) -> int | None:
    """The round number of a results cursor (a round id of this table, `<table_id>-000042`),
    or None when it is not one."""
    prefix, _, digits = cursor.rpartition("-")
    if prefix != table_id or not (digits.isascii() and digits.isdigit()) or len(digits) > 10:
        return None
    number = int(digits)
    return number if 0 < number < 2**31 and round_id_for(table_id, number) == cursor else None
