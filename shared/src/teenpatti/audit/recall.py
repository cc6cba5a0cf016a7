"""The auditor's full game recall (`teenpatti recall ROUND_ID`): one round as it happened,
every event of it in the four stores, in order of time, each with its time, service, type,
a readable line and its facts (docs/audit.md, "Game recall").

A round is found by its `RoundOpened` in the table's store; its events are those whose
payload names it (`round_id`) in any store, from shortly before it opened, plus the reads of
its table that name no round (`CardScanned`, `ScanRejected`, `CardRefused`) while it was in
play. Nothing is written; each store is read in one read-only snapshot."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
from pydantic import ValidationError

from teenpatti.audit.runner import AuditUnavailableError, StoreSpec, connect_store
from teenpatti.events import Event
from teenpatti.events.catalog import (
    BetBookClosed,
    BetsCorrected,
    BetsPaid,
    BetsPlaced,
    BetsReversed,
    BetsSettled,
    BettingClosed,
    CardDealt,
    CardMarkedWrong,
    CardRefused,
    CardScanned,
    CardsWithdrawn,
    DeckReplaced,
    ResultVoidRejected,
    ResultVoidRequested,
    RoundCancelled,
    RoundClosed,
    RoundOpened,
    RoundPaused,
    RoundResumed,
    RoundReversed,
    RoundSettled,
    RoundVoided,
    ScanRejected,
    SettlementResolutionRequested,
    SettlementResolved,
    VoidRequested,
    registry,
)
from teenpatti.events.contracts import EventContractError

# the service that writes each store, as the recall names it
SERVICE_OF_STORE = {
    "table": "table",
    "scanner": "scanner-gateway",
    "wallet": "wallet",
    "settlement": "settlement",
}
# reads of the round's table that name no round: theirs while it is in play
UNSTAMPED_READS = ("CardScanned", "ScanRejected", "CardRefused")
# how long before its `RoundOpened` another service's clock may have stamped one of its
# events (the services' clocks are not one clock)
CLOCK_MARGIN = timedelta(minutes=10)
# the round's own fields, said once in the recall's heading rather than on every event
_ROUND_FIELDS = frozenset({"round_id", "table_id"})


class UnknownRoundError(Exception):
    """No round of that id was ever opened (the table's store holds no `RoundOpened`)."""


@dataclass(frozen=True, slots=True)
class RecalledEvent:
    occurred_at: datetime
    service: str
    event_type: str
    stream_id: str
    stream_version: int
    summary: str  # one line for people
    facts: dict[str, Any]  # the payload as JSON, less the round and table ids

    def to_mapping(self) -> dict[str, Any]:
        return {
            "at": self.occurred_at.isoformat(),
            "service": self.service,
            "event_type": self.event_type,
            "stream_id": self.stream_id,
            "stream_version": self.stream_version,
            "summary": self.summary,
            "facts": self.facts,
        }


@dataclass(slots=True)
class Recall:
    round_id: str
    table_id: str
    number: int
    opened_at: datetime
    ended_at: datetime | None
    status: str  # closed, cancelled, in_play, voided (closed, then voided after its result)
    events: list[RecalledEvent] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        counted = dict.fromkeys(SERVICE_OF_STORE.values(), 0)
        for event in self.events:
            counted[event.service] += 1
        return counted

    def to_mapping(self) -> dict[str, Any]:
        return {
            "round_id": self.round_id,
            "table_id": self.table_id,
            "number": self.number,
            "status": self.status,
            "opened_at": self.opened_at.isoformat(),
            "ended_at": None if self.ended_at is None else self.ended_at.isoformat(),
            "amounts": "minor units",
            "events": [event.to_mapping() for event in self.events],
            "counts": self.counts(),
        }

    def format(self) -> str:
        ended = "" if self.ended_at is None else f", ended {_time(self.ended_at)}"
        lines = [
            f"teenpatti recall {self.round_id}: table {self.table_id}, round {self.number}, "
            f"{_STATUS.get(self.status, self.status)}; opened {_time(self.opened_at)}{ended} (UTC)",
            "amounts in minor units",
        ]
        width = max((len(e.event_type) for e in self.events), default=0)
        for event in self.events:
            lines.append(
                f"  {_time(event.occurred_at)}  {event.service:<15} "
                f"{event.event_type:<{width}}  {event.summary}"
            )
        counts = ", ".join(f"{service} {n}" for service, n in self.counts().items())
        lines.append(f"{len(self.events)} events ({counts})")
        return "\n".join(lines) + "\n"


_STATUS = {"in_play": "in play", "voided": "closed, then voided after its result"}


def _time(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


async def recall_round(stores: Sequence[StoreSpec], round_id: str) -> Recall:
    """The round's events across the stores (`table` first: it says when the round was
    opened and ended), in order of time; UnknownRoundError when the table never opened it."""
    by_name = {spec.name: spec for spec in stores}
    table = by_name.get("table")
    if table is None:
        raise AuditUnavailableError("the recall needs the table store")
    recall = await _find_round(table, round_id)
    rows: list[tuple[datetime, int, int, int, str, _Row]] = []
    for order, name in enumerate(SERVICE_OF_STORE):
        spec = by_name.get(name)
        if spec is None:
            continue
        for row in await _read_round(spec, recall):
            rows.append((row.occurred_at, order, row.transaction_id, row.position, name, row))
    rows.sort(key=lambda item: item[:4])
    decoded = [(name, row, _decode(row)) for *_, name, row in rows]
    bet_types = {
        line.bet_id: line.bet_type
        for _, _, event in decoded
        if isinstance(event, BetsPlaced)
        for line in event.bets
    }
    for name, row, event in decoded:
        facts = {key: value for key, value in row.facts.items() if key not in _ROUND_FIELDS}
        if event is None:
            summary = "(not decodable by this version: the facts are the stored payload)"
        else:
            summary = _summary(event, bet_types)
        recall.events.append(
            RecalledEvent(
                occurred_at=row.occurred_at,
                service=SERVICE_OF_STORE[name],
                event_type=row.event_type,
                stream_id=row.stream_id,
                stream_version=row.stream_version,
                summary=summary,
                facts=facts,
            )
        )
    return recall


@dataclass(frozen=True, slots=True)
class _Row:
    transaction_id: int
    position: int
    stream_id: str
    stream_version: int
    event_type: str
    schema_version: int
    occurred_at: datetime
    payload: str

    @property
    def facts(self) -> dict[str, Any]:
        value = json.loads(self.payload)
        return value if isinstance(value, dict) else {"payload": value}


async def _find_round(spec: StoreSpec, round_id: str) -> Recall:
    connection = await connect_store(spec)
    try:
        async with connection.transaction(isolation="repeatable_read", readonly=True):
            opened = await connection.fetchrow(
                "SELECT stream_id, stream_version, occurred_at, table_id, payload::text"
                " FROM events WHERE event_type = 'RoundOpened' AND payload->>'round_id' = $1"
                " ORDER BY transaction_id, position LIMIT 1",
                round_id,
            )
            if opened is None:
                raise UnknownRoundError(f"no round {round_id} was ever opened")
            voided = await connection.fetchval(
                "SELECT true FROM events WHERE stream_id = $1 AND event_type = 'RoundVoided'"
                " AND payload->>'round_id' = $2 LIMIT 1",
                opened["stream_id"],
                round_id,
            )
            ended = await connection.fetchrow(
                "SELECT event_type, occurred_at FROM events"
                " WHERE stream_id = $1 AND stream_version > $2"
                " AND event_type IN ('RoundClosed', 'RoundCancelled')"
                " AND payload->>'round_id' = $3 ORDER BY stream_version LIMIT 1",
                opened["stream_id"],
                opened["stream_version"],
                round_id,
            )
    except (asyncpg.PostgresError, OSError) as error:
        raise _unreadable(spec, error) from None
    finally:
        await connection.close()
    payload = json.loads(opened["payload"])
    status = "in_play"
    if ended is not None:
        status = "closed" if ended["event_type"] == "RoundClosed" else "cancelled"
        if voided:
            status = "voided"
    return Recall(
        round_id=round_id,
        table_id=str(payload.get("table_id", opened["table_id"])),
        number=int(payload.get("number", 0)),
        opened_at=opened["occurred_at"],
        ended_at=None if ended is None else ended["occurred_at"],
        status=status,
    )


async def _read_round(spec: StoreSpec, recall: Recall) -> list[_Row]:
    connection = await connect_store(spec)
    try:
        async with connection.transaction(isolation="repeatable_read", readonly=True):
            records = await connection.fetch(
                "SELECT transaction_id, position, stream_id, stream_version, event_type,"
                " schema_version, occurred_at, payload::text AS payload FROM events"
                " WHERE occurred_at >= $1 AND (payload->>'round_id' = $2"
                " OR (event_type = ANY($3::text[]) AND payload->>'round_id' IS NULL"
                " AND payload->>'table_id' = $4 AND occurred_at >= $5"
                " AND ($6::timestamptz IS NULL OR occurred_at <= $6)))"
                " ORDER BY occurred_at, transaction_id, position",
                recall.opened_at - CLOCK_MARGIN,
                recall.round_id,
                list(UNSTAMPED_READS),
                recall.table_id,
                recall.opened_at,
                recall.ended_at,
            )
    except (asyncpg.PostgresError, OSError) as error:
        raise _unreadable(spec, error) from None
    finally:
        await connection.close()
    return [
        _Row(
            transaction_id=int(r["transaction_id"]),
            position=int(r["position"]),
            stream_id=r["stream_id"],
            stream_version=r["stream_version"],
            event_type=r["event_type"],
            schema_version=r["schema_version"],
            occurred_at=r["occurred_at"],
            payload=r["payload"],
        )
        for r in records
    ]


def _unreadable(spec: StoreSpec, error: Exception) -> AuditUnavailableError:
    return AuditUnavailableError(
        f"cannot read the {spec.name} store (database {spec.database!r}): {error}"
    )


def _decode(row: _Row) -> Event | None:
    try:
        return registry.decode_json(row.event_type, row.schema_version, row.payload)
    except (EventContractError, ValidationError, ValueError):
        return None


# ------------------------------------------------------------------------ readable lines
def _amount(minor: int) -> str:
    return f"{minor:,}"


def _short(identifier: object) -> str:
    return str(identifier)[:8]


def _round_opened(e: RoundOpened, _: Mapping[Any, str]) -> str:
    name = e.paytable.get("name", "custom")
    return (
        f"round {e.number} opened, pay table {name!r}; betting closes {_time(e.betting_closes_at)}"
    )


def _betting_closed(e: BettingClosed, _: Mapping[Any, str]) -> str:
    return f"betting closed at {_time(e.closed_at)}: no more bets"


def _card_dealt(e: CardDealt, _: Mapping[Any, str]) -> str:
    return f"{e.position} {e.card} dealt (scan {_short(e.scan_id)})"


def _card_refused(e: CardRefused, _: Mapping[Any, str]) -> str:
    card = "value sealed" if e.card is None else e.card
    return f"card refused, {e.reason} ({card}; scan {_short(e.scan_id)}): {e.detail}"


def _round_paused(e: RoundPaused, _: Mapping[Any, str]) -> str:
    return f"paused by {e.actor}: {e.reason}"


def _round_resumed(e: RoundResumed, _: Mapping[Any, str]) -> str:
    deadline = (
        "" if e.betting_closes_at is None else f"; betting closes {_time(e.betting_closes_at)}"
    )
    return f"resumed by {e.actor}{deadline}"


def _void_requested(e: VoidRequested, _: Mapping[Any, str]) -> str:
    return f"void asked by {e.actor} after {e.cards_dealt} cards: {e.reason}"


def _card_marked_wrong(e: CardMarkedWrong, _: Mapping[Any, str]) -> str:
    return f"card {e.position} marked wrong by {e.actor}: {e.reason}"


def _cards_withdrawn(e: CardsWithdrawn, _: Mapping[Any, str]) -> str:
    return (
        f"{' '.join(e.positions)} taken back by {e.actor} (marked wrong by {e.marked_by}):"
        f" {e.reason}; dealt again from {e.positions[0]}"
    )


def _deck_replaced(e: DeckReplaced, _: Mapping[Any, str]) -> str:
    return f"deck replaced by {e.actor}: {e.reason}"


def _round_cancelled(e: RoundCancelled, _: Mapping[Any, str]) -> str:
    return f"round void, every bet refunded; by {e.actor} after {e.cards_dealt} cards: {e.reason}"


def _round_closed(e: RoundClosed, _: Mapping[Any, str]) -> str:
    cards = e.cards
    bonus = e.six_card_bonus_hand or "none"
    return (
        f"result: A {' '.join(cards[0::2])} {e.player_a_hand}, "
        f"B {' '.join(cards[1::2])} {e.player_b_hand}; winner {e.winner}; 6 card bonus {bonus}"
    )


def _result_void_requested(e: ResultVoidRequested, _: Mapping[Any, str]) -> str:
    return f"void after the result asked by {e.actor}: {e.reason}"


def _result_void_rejected(e: ResultVoidRejected, _: Mapping[Any, str]) -> str:
    return f"void after the result asked by {e.requested_by} rejected by {e.actor}: {e.reason}"


def _round_voided(e: RoundVoided, _: Mapping[Any, str]) -> str:
    cards = e.cards
    return (
        f"voided after its result (A {' '.join(cards[0::2])} {e.player_a_hand},"
        f" B {' '.join(cards[1::2])} {e.player_b_hand}; winner {e.winner}): every stake"
        f" refunded, every return taken back; asked by {e.requested_by}, confirmed by"
        f" {e.actor}: {e.reason}"
    )


def _card_scanned(e: CardScanned, _: Mapping[Any, str]) -> str:
    stamped = "" if e.round_id is not None else ", no round stamped"
    return (
        f"read {e.card} (raw {e.raw!r}) by {e.device_id}, sequence {e.sequence}{stamped}; "
        f"scan {_short(e.scan_id)}"
    )


def _scan_rejected(e: ScanRejected, _: Mapping[Any, str]) -> str:
    return f"read rejected, {e.reason} (raw {e.raw!r}, device {e.device_id}): {e.detail}"


def _bets_placed(e: BetsPlaced, _: Mapping[Any, str]) -> str:
    bets = ", ".join(f"{b.bet_type} {_amount(b.stake)}" for b in e.bets)
    return (
        f"slip {_short(e.slip_id)} of {e.operator_id}/{e.player_id} ({e.wallet}): "
        f"{e.currency} {bets}"
    )


def _bet_book_closed(e: BetBookClosed, _: Mapping[Any, str]) -> str:
    staked = ", ".join(f"{c} {_amount(n)}" for c, n in sorted(e.total_stake.items())) or "nothing"
    return f"bet book sealed: {e.bet_count} bets, staked {staked}; digest {e.digest[:12]}"


def _bets_paid(e: BetsPaid, bet_types: Mapping[Any, str]) -> str:
    lines = "; ".join(
        f"{bet_types.get(b.bet_id, 'bet ' + _short(b.bet_id))} {b.outcome} "
        f"{b.currency} {_amount(b.amount)} (balance {_amount(b.balance_after)})"
        for b in e.bets
    )
    return f"paid {e.operator_id}/{e.player_id} ({e.wallet}): {lines}"


def _bets_settled(e: BetsSettled, _: Mapping[Any, str]) -> str:
    lines = "; ".join(
        f"{b.operator_id}/{b.player_id} {b.bet_type} {b.currency} {_amount(b.stake)} "
        f"{b.outcome} returns {_amount(b.returned)}" + ("" if b.odds is None else f" at {b.odds}:1")
        for b in e.bets
    )
    return f"settled: {lines}"


def _bets_reversed(e: BetsReversed, _: Mapping[Any, str]) -> str:
    lines = "; ".join(
        f"{b.operator_id}/{b.player_id} {b.bet_type} {b.currency} {_amount(b.stake)}"
        f" {b.outcome} returning {_amount(b.returned)} reversed, refunds {_amount(b.refunded)}"
        for b in e.bets
    )
    return f"reversed: {lines}"


def _round_reversed(e: RoundReversed, _: Mapping[Any, str]) -> str:
    totals = ", ".join(
        f"{c} refunded {_amount(t.refunded)} taken back {_amount(t.reversed)}"
        for c, t in sorted(e.totals.items())
    )
    return f"settlement reversed: {e.bet_count} bets" + (f"; {totals}" if totals else "")


def _bets_corrected(e: BetsCorrected, _: Mapping[Any, str]) -> str:
    if e.wallet == "seamless":
        moved = f"net {_amount(e.net)} listed for the operator"
    else:
        moved = f"net {_amount(e.net)}, applied {_amount(e.applied)}" + (
            f", shortfall {_amount(e.shortfall)}" if e.shortfall else ""
        )
        moved += f" (balance {_amount(e.balance_after)})"
    return f"corrected {e.operator_id}/{e.player_id} ({e.wallet}): {e.currency} {moved}"


def _round_settled(e: RoundSettled, _: Mapping[Any, str]) -> str:
    totals = ", ".join(
        f"{c} staked {_amount(t.stake)} returned {_amount(t.returned)} house "
        f"{_amount(t.house_result)}"
        for c, t in sorted(e.totals.items())
    )
    kind = "cancelled round refunded" if e.cancelled else "round settled"
    return f"{kind}: {e.bet_count} bets" + (f"; {totals}" if totals else "")


def _resolution_requested(e: SettlementResolutionRequested, _: Mapping[Any, str]) -> str:
    return f"{e.action} asked by {e.requested_by} ({', '.join(e.problems)}): {e.reason}"


def _resolved(e: SettlementResolved, _: Mapping[Any, str]) -> str:
    return f"{e.action} confirmed by {e.confirmed_by} (asked by {e.requested_by}): {e.reason}"


_SUMMARIES: dict[type[Event], Callable[[Any, Mapping[Any, str]], str]] = {
    RoundOpened: _round_opened,
    BettingClosed: _betting_closed,
    CardDealt: _card_dealt,
    CardRefused: _card_refused,
    RoundPaused: _round_paused,
    RoundResumed: _round_resumed,
    VoidRequested: _void_requested,
    CardMarkedWrong: _card_marked_wrong,
    CardsWithdrawn: _cards_withdrawn,
    DeckReplaced: _deck_replaced,
    RoundCancelled: _round_cancelled,
    RoundClosed: _round_closed,
    CardScanned: _card_scanned,
    ScanRejected: _scan_rejected,
    BetsPlaced: _bets_placed,
    BetBookClosed: _bet_book_closed,
    BetsPaid: _bets_paid,
    BetsSettled: _bets_settled,
    RoundSettled: _round_settled,
    SettlementResolutionRequested: _resolution_requested,
    SettlementResolved: _resolved,
    ResultVoidRequested: _result_void_requested,
    ResultVoidRejected: _result_void_rejected,
    RoundVoided: _round_voided,
    BetsReversed: _bets_reversed,
    RoundReversed: _round_reversed,
    BetsCorrected: _bets_corrected,
}


def _summary(event: Event, bet_types: Mapping[Any, str]) -> str:
    summarise = _SUMMARIES.get(type(event))
    return event.event_type if summarise is None else summarise(event, bet_types)
