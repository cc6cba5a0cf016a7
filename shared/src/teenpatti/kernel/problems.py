"""What a service holds for a person: one list per service, one shape everywhere.

Every service answers `GET /problems` (a supervisor's key) with what it will not decide on its
own: the events its consumers parked, the events of its own its relay set aside as too large
for Kafka, and what its `Wiring.problems` sources report (a held
settlement, a round stuck without its next card, an exposed card...). Each problem says what
it is about, since when, and which calls of the API a person may make about it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Annotated

import asyncpg
from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict

from teenpatti.eventsourcing.consumer import parked_events
from teenpatti.eventsourcing.relay import parked_outbox_events
from teenpatti.http import ProblemError
from teenpatti.kernel.dependencies import Supervisor

Fact = str | int | bool | None


class HeldProblem(BaseModel):
    """One thing held for a person."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    kind: str
    """What kind of problem it is, e.g. `parked_event`, `held_settlement`, `stuck_round`,
    `exposed_card`."""
    detail: str
    """What is wrong, in a sentence a supervisor can act on."""
    since: datetime
    """When it was first seen (ISO 8601, UTC)."""
    table_id: str | None = None
    round_id: str | None = None
    # what identifies it further (an event's id, a consumer, an offset...)
    facts: dict[str, Fact] = {}
    """What identifies it further: an event's id, a consumer, an offset..."""
    # the calls that resolve it, e.g. `POST /rounds/{round_id}/settlement/release`
    actions: list[str] = []
    """The calls of the API that resolve it, e.g. `POST /rounds/{round_id}/settlement/resolutions`.
    """


class ProblemsPublic(BaseModel):
    """The newest problems first."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    service: str
    items: list[HeldProblem]
    """The problems the service holds, newest first."""


# reads the service's own database: every problem of one kind, at most `limit` of them
ProblemSource = Callable[[asyncpg.Pool, int], Awaitable[list[HeldProblem]]]


async def parked_event_problems(pool: asyncpg.Pool, limit: int) -> list[HeldProblem]:
    """The records the service's consumers parked: nothing of them was applied."""
    return [
        HeldProblem(
            kind="parked_event",
            detail=parked.error,
            since=parked.parked_at,
            facts={
                "consumer": parked.consumer,
                "topic": parked.topic,
                "partition": parked.partition,
                "offset": parked.offset,
                "event_type": parked.event_type,
                "event_id": str(parked.event_id) if parked.event_id else None,
            },
        )
        for parked in await parked_events(pool, limit=limit)
    ]


async def unpublished_event_problems(pool: asyncpg.Pool, limit: int) -> list[HeldProblem]:
    """The service's own events its relay set aside: stored, never published, so the
    services that consume them lack them."""
    return [
        HeldProblem(
            kind="unpublished_event",
            detail=f"{parked.event_type} of {parked.stream_id} (version"
            f" {parked.stream_version}, {parked.size_bytes} bytes) was not published to Kafka:"
            f" {parked.error}",
            since=parked.parked_at,
            table_id=parked.table_id,
            facts={
                "relay": parked.relay,
                "event_id": str(parked.event_id),
                "event_type": parked.event_type,
                "stream_id": parked.stream_id,
                "stream_version": parked.stream_version,
                "size_bytes": parked.size_bytes,
            },
        )
        for parked in await parked_outbox_events(pool, limit=limit)
    ]


def problems_router(name: str) -> APIRouter:
    router = APIRouter(tags=["problems"])

    @router.get("/problems")
    async def problems(
        request: Request,
        supervisor: Supervisor,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    ) -> ProblemsPublic:
        """What this service holds for a person, newest first: parked events and its own
        kinds of problem (docs/runbook.md)."""
        kernel = request.app.state.kernel
        if kernel is None:
            raise ProblemError(503, "service_unavailable", "the service is starting or stopping")
        sources: dict[str, ProblemSource] = request.app.state.problem_sources
        found: list[HeldProblem] = await parked_event_problems(kernel.pool, limit)
        found.extend(await unpublished_event_problems(kernel.pool, limit))
        for source in sources.values():
            found.extend(await source(kernel.pool, limit))
        found.sort(key=lambda problem: problem.since, reverse=True)
        # a key limited to some tables sees theirs, and what no table is known for
        found = [p for p in found if p.table_id is None or supervisor.may_act_on(p.table_id)]
        return ProblemsPublic(service=name, items=found[:limit])

    return router
