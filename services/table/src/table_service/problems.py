"""The table's problem source (`GET /problems`): what each table holds for a person
(`domain.attention`), for the tables the projection marks `needs_person`."""

from __future__ import annotations

from datetime import timedelta

import asyncpg

from teenpatti.kernel.problems import HeldProblem, ProblemSource

from .adapters.tables import tables_needing_person
from .domain.attention import held_for_people
from .handlers import TableService


def table_problems(service: TableService) -> ProblemSource:
    overdue_after = timedelta(minutes=service.settings.paused_round_alert_minutes)

    async def source(pool: asyncpg.Pool, limit: int) -> list[HeldProblem]:
        table_ids = await tables_needing_person(pool, limit)
        states = await service.repository.load_many(table_ids)
        now = service.clock()
        problems = [
            HeldProblem(
                kind=held.kind,
                detail=held.detail,
                since=held.since,
                table_id=state.table_id,
                round_id=held.round_id,
                facts=held.facts,
                actions=held.actions,
            )
            for state in states.values()
            for held in held_for_people(state, now, service.pause_timeout, overdue_after)
        ]
        problems.sort(key=lambda problem: problem.since, reverse=True)
        return problems[:limit]

    return source
