"""The roadmap: each round of a table as it ended, closed with its result, cancelled with
the cards dealt before the void, or voided after its result (the result it voided kept),
derived from the table's events alone. The same function gives the rows written with each
append and the rows a replay of the stream gives, so the `round_results` projection can
always be rebuilt identically (decision 0076)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from teenpatti.events import Event
from teenpatti.events.catalog import RoundCancelled, RoundClosed, RoundVoided

from .state import Round, RoundPhase, TableState, evolve, evolve_all, round_id_for

CLOSED, CANCELLED, VOIDED = "closed", "cancelled", "voided"


@dataclass(frozen=True)
class RoundRecord:
    """One line of the roadmap."""

    table_id: str
    round_id: str
    number: int
    status: str  # closed, cancelled, voided
    ended_at: datetime  # when its result or its cancellation was recorded
    cards: tuple[str, ...]  # in dealing order A1 B1 A2 B2 A3 B3; fewer when cancelled
    player_a_hand: str | None  # None when cancelled
    player_b_hand: str | None
    winner: str | None  # player_a, player_b, tie; None when cancelled
    six_card_bonus_hand: str | None
    stream_version: int  # of the event that ended the round, or voided it
    voided_at: datetime | None = None  # voided after its result: when, and why
    void_reason: str | None = None

    @property
    def player_a_cards(self) -> tuple[str, ...]:
        return self.cards[0::2]

    @property
    def player_b_cards(self) -> tuple[str, ...]:
        return self.cards[1::2]


def ended_rounds(state: TableState, events: Sequence[Event], at: datetime) -> list[RoundRecord]:
    """The rounds that `events`, appended after `state` and recorded at `at`, end or void:
    each as the table's state holds it right after its RoundClosed or RoundCancelled, or as
    its RoundVoided tells it."""
    records: list[RoundRecord] = []
    for index, event in enumerate(events):
        if isinstance(event, RoundVoided):
            records.append(voided_record(state.table_id, event, at, state.version + index + 1))
        elif isinstance(event, (RoundClosed, RoundCancelled)):
            after = evolve_all(state, events[: index + 1], at)
            ended = after.round
            if ended is not None and ended.round_id == event.round_id:
                records.append(record_of(after.table_id, ended, after.version))
    return records


def replay_results(table_id: str, events: Iterable[tuple[Event, datetime]]) -> list[RoundRecord]:
    """Every round a table's whole stream ended, oldest first, each as it is now (a voided
    round as its void left it): what the projection holds."""
    state = TableState(table_id=table_id)
    records: dict[str, RoundRecord] = {}
    for event, at in events:
        if isinstance(event, (RoundClosed, RoundCancelled, RoundVoided)):
            for record in ended_rounds(state, [event], at):
                records[record.round_id] = record
        state = evolve(state, event, at)
    return list(records.values())


def voided_record(table_id: str, event: RoundVoided, at: datetime, version: int) -> RoundRecord:
    """A round voided after its result, recorded at `at` as stream version `version`: its
    row keeps the result it voided and when that was recorded."""
    number = round_number_in(event.round_id, table_id)
    assert number is not None, f"{event.round_id} is not a round of {table_id}"
    return RoundRecord(
        table_id=table_id,
        round_id=event.round_id,
        number=number,
        status=VOIDED,
        ended_at=event.closed_at,
        cards=tuple(event.cards),
        player_a_hand=event.player_a_hand,
        player_b_hand=event.player_b_hand,
        winner=event.winner,
        six_card_bonus_hand=event.six_card_bonus_hand,
        stream_version=version,
        voided_at=at,
        void_reason=event.reason,
    )


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
