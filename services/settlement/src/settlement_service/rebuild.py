"""`teenpatti rebuild settlement`: what the settlement stated, rebuilt from its own stream into
fresh tables and compared row for row with its projection (docs/audit.md, "Rebuilding a
service's projections").

The settlement's stream holds its statements: each bet's result (`BetsSettled`) and each
round's summary (`RoundSettled`). So the settled bets and the settled rounds are rebuilt,
on what those events carry; a bet's slip and time, a round's cards, pay table and book come
from the table's and the wallet's events, which the settlement consumes but does not store.
Each round's totals are also checked against the sum of its bets' lines."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg

from teenpatti.events import Event
from teenpatti.events.catalog import BetsSettled, RoundSettled
from teenpatti.rebuild import Projection, RebuildReport, rebuild_into_fresh_tables, stored_events

PROJECTIONS = (
    Projection(
        "settled_bets",
        "bet_id uuid, round_id text, table_id text, operator_id text, player_id text,"
        " bet_type text, stake bigint, currency text, outcome text, returned bigint,"
        " fraction_kept text, odds text, settled_at timestamptz",
        "SELECT bet_id, round_id, table_id, operator_id, player_id, bet_type, stake, currency,"
        " outcome, returned, fraction_kept, odds, settled_at FROM public.bets"
        " WHERE outcome IS NOT NULL",
    ),
    Projection(
        "settled_rounds",
        "round_id text, table_id text, settled_at timestamptz, totals jsonb",
        "SELECT round_id, table_id, settled_at, totals FROM public.rounds WHERE settled",
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
    with its bets' lines. Pure."""
    lines: dict[UUID, list[Any]] = {}
    summaries: dict[str, RoundSettled] = {}
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
    settled_at: dict[str, datetime] = {r: s.settled_at for r, s in summaries.items()}
    bets = [(*row, settled_at.get(row[1])) for row in lines.values()]
    rounds = [
        (
            round_id,
            summary.table_id,
            summary.settled_at,
            json.dumps({c: t.model_dump() for c, t in summary.totals.items()}),
        )
        for round_id, summary in summaries.items()
    ]
    return bets, rounds, disagreements
