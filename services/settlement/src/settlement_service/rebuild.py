"""`teenpatti rebuild settlement`: what the settlement stated, rebuilt from its own stream into
fresh tables and compared row for row with its projection (docs/audit.md, "Rebuilding a
service's projections").

The settlement's stream holds its statements: each bet's result (`BetsSettled`), each
round's summary (`RoundSettled`) and, for a round voided after its result, their reversal
(`BetsReversed`, `RoundReversed`). So the settled bets and the settled rounds are rebuilt,
on what those events carry; a bet's slip and time, a round's cards, pay table and book and
the time its void was heard come from the table's and the wallet's events, which the
settlement consumes but does not store. Each round's totals are also checked against the
sum of its bets' lines, and a reversal's lines against the lines they reverse."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg

from teenpatti.events import Event
from teenpatti.events.catalog import BetsReversed, BetsSettled, RoundReversed, RoundSettled
from teenpatti.rebuild import Projection, RebuildReport, rebuild_into_fresh_tables, stored_events

PROJECTIONS = (
    Projection(
        "settled_bets",
        "bet_id uuid, round_id text, table_id text, operator_id text, player_id text,"
        " bet_type text, stake bigint, currency text, outcome text, returned bigint,"
        " fraction_kept text, odds text, settled_at timestamptz, reversed_at timestamptz",
        "SELECT bet_id, round_id, table_id, operator_id, player_id, bet_type, stake, currency,"
        " outcome, returned, fraction_kept, odds, settled_at, reversed_at FROM public.bets"
        " WHERE outcome IS NOT NULL",
    ),
    Projection(
        "settled_rounds",
        "round_id text, table_id text, settled_at timestamptz, totals jsonb, void_reason text,"
        " reversed_at timestamptz, reversal_totals jsonb",
        "SELECT round_id, table_id, settled_at, totals, void_reason, reversed_at,"
        " reversal_totals FROM public.rounds WHERE settled",
    ),
)


async def rebuild(connection: asyncpg.Connection, *, keep: bool = False) -> RebuildReport:
    events = [event async for event, _ in stored_events(connection)]
    bets, rounds, disagreements = fold(events)
    return await rebuild_into_fresh_tables(
        connection,
        "settlement",
        list(zip(PROJECTIONS, [bets, rounds], strict=True)),
        events=len(events),
        disagreements=disagreements,
        keep=keep,
    )


def fold(
    events: Iterable[Event],
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[str]]:
    """The settled bets and rounds the events state, and where a round's totals disagree
    with its bets' lines or a reversal with what it reverses. Pure."""
    lines: dict[UUID, list[Any]] = {}
    summaries: dict[str, RoundSettled] = {}
    reversals: dict[str, RoundReversed] = {}
    reversed_lines: dict[str, list[tuple[UUID, str, int, str, int, int]]] = defaultdict(list)
    # round -> currency -> [stake, returned] summed over its lines
    summed: defaultdict[str, defaultdict[str, list[int]]] = defaultdict(
        lambda: defaultdict(lambda: [0, 0])
    )
    for event in events:
        if isinstance(event, BetsSettled):
            for line in event.each():
                lines[line.bet_id] = [
                    line.bet_id,
                    line.round_id,
                    line.table_id,
                    line.operator_id,
                    line.player_id,
                    line.bet_type,
                    line.stake,
                    line.currency,
                    line.outcome,
                    line.returned,
                    line.fraction_kept,
                    line.odds,
                ]
        elif isinstance(event, RoundSettled):
            summaries[event.round_id] = event
        elif isinstance(event, BetsReversed):
            reversed_lines[event.round_id] += [
                (b.bet_id, b.currency, b.stake, b.outcome, b.returned, b.refunded)
                for b in event.bets
            ]
        elif isinstance(event, RoundReversed):
            reversals[event.round_id] = event
    for row in lines.values():
        total = summed[row[1]][row[7]]
        total[0] += row[6]
        total[1] += row[9]
    disagreements = []
    for round_id, summary in summaries.items():
        stated = {c: [t.stake, t.returned] for c, t in summary.totals.items()}
        if stated != dict(summed.get(round_id, {})):
            disagreements.append(
                f"round {round_id}: RoundSettled states {stated}, its bets' lines add up to"
                f" {dict(summed.get(round_id, {}))} (stake, returned per currency)"
            )
    for round_id, reversal in reversals.items():
        disagreements += _reversal_disagreements(
            round_id, reversal, reversed_lines.get(round_id, []), lines
        )
    settled_at: dict[str, datetime] = {r: s.settled_at for r, s in summaries.items()}
    bet_reversed_at: dict[UUID, datetime] = {
        bet_id: reversals[round_id].reversed_at
        for round_id, reversed_ in reversed_lines.items()
        if round_id in reversals
        for bet_id, *_ in reversed_
    }
    bets = [(*row, settled_at.get(row[1]), bet_reversed_at.get(row[0])) for row in lines.values()]
    rounds = [
        (
            round_id,
            summary.table_id,
            summary.settled_at,
            _totals(summary),
            *_reversed(reversals.get(round_id)),
        )
        for round_id, summary in summaries.items()
    ]
    return bets, rounds, disagreements


def _totals(summary: RoundSettled | RoundReversed) -> str:
    return json.dumps({c: t.model_dump() for c, t in summary.totals.items()})


def _reversed(reversal: RoundReversed | None) -> tuple[Any, ...]:
    """A round's void reason, reversal time and reversal totals; none if not reversed."""
    if reversal is None:
        return (None, None, None)
    return (reversal.reason, reversal.reversed_at, _totals(reversal))


def _reversal_disagreements(
    round_id: str,
    reversal: RoundReversed,
    reversed_: list[tuple[UUID, str, int, str, int, int]],
    settled: dict[UUID, list[Any]],
) -> list[str]:
    """Where a round's reversal disagrees with itself (its totals, its count) or with the
    settlement lines it reverses (each bet as settled, its stake refunded)."""
    found = []
    sums: defaultdict[str, list[int]] = defaultdict(lambda: [0, 0])
    for bet_id, currency, stake, outcome, returned, refunded in reversed_:
        sums[currency][0] += refunded
        sums[currency][1] += returned
        line = settled.get(bet_id)
        if line is None or (line[1], line[7], line[6], line[8], line[9]) != (
            round_id,
            currency,
            stake,
            outcome,
            returned,
        ):
            found.append(
                f"round {round_id}: BetsReversed reverses bet {bet_id} as"
                f" {outcome} returning {returned} {currency} on {stake}, which is not how"
                " it was settled"
            )
    stated = {c: [t.refunded, t.reversed] for c, t in reversal.totals.items()}
    if stated != dict(sums) or reversal.bet_count != len(reversed_):
        found.append(
            f"round {round_id}: RoundReversed states {reversal.bet_count} bets, {stated}; its"
            f" lines are {len(reversed_)}, adding up to {dict(sums)} (refunded, reversed per"
            " currency)"
        )
    return found
