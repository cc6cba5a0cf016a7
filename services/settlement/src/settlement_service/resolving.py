"""Two supervisors' resolution of a held round
(docs/decisions/0060-two-supervisors-resolve-a-held-settlement.md).

A round held by conflicting inputs (`holding.py`) stays unsettled until one supervisor asks to
release it (settle it on the facts on record) or to void it (refund every stake), and another
confirms: `request_resolution`, then `confirm_resolution`, each in the route's transaction
under the round's row lock. The request and the confirmation are appended to the round's
resolution stream (`resolution-<round_id>`), and the confirmation is carried out at once in
its transaction, settling the round through `Settling` (`settling.py`) with the
confirmation as the settlement's cause.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID, uuid4

import asyncpg

from teenpatti.events.catalog import SettlementResolutionRequested, SettlementResolved
from teenpatti.eventsourcing import AsyncpgEventStore

from .adapters.postgres import Resolution, SettlementProjection
from .domain import Decision, Held, Settle, Waiting
from .settling import Settling
from .streams import resolution_stream

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Appended:
    event_id: UUID
    correlation_id: UUID


class ResolutionRefusedError(Exception):
    """A resolution of a held round that is not recorded or not carried out: its problem's
    status and code."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail


class Resolving:
    """The requests and confirmations of resolutions, over one event store (the service's own
    database), settling what they release or void through one `Settling`."""

    def __init__(
        self, store: AsyncpgEventStore, settling: Settling, clock: Callable[[], datetime]
    ) -> None:
        self._store = store
        self._settling = settling
        self._clock = clock

    async def request_resolution(
        self,
        connection: asyncpg.Connection,
        round_id: str,
        action: str,
        reason: str,
        requested_by: str,
    ) -> Resolution:
        """A supervisor asks to release a held round (settle it on the facts on record once
        they agree) or to void it (refund every stake); recorded, carried out only once
        another supervisor confirms it. A newer request supersedes a pending one."""
        projection = SettlementProjection(connection)
        round_ = await projection.find_round_for_update(round_id)
        if round_ is None:
            raise ResolutionRefusedError(404, "unknown_round", f"no round {round_id!r} is known")
        if round_.decided:
            raise ResolutionRefusedError(
                409, "round_not_held", f"round {round_id} is settled already"
            )
        problems = await projection.open_problems(round_id)
        if not problems:
            raise ResolutionRefusedError(
                409, "round_not_held", f"no open problem holds round {round_id}"
            )
        resolution = Resolution(
            resolution_id=uuid4(),
            round_id=round_id,
            action=action,
            reason=reason,
            problems=tuple(problems),
            requested_by=requested_by,
            requested_at=self._clock(),
        )
        await projection.add_resolution(resolution)
        await self._append_resolution(
            projection,
            round_.table_id,
            SettlementResolutionRequested(
                resolution_id=resolution.resolution_id,
                round_id=round_id,
                table_id=round_.table_id,
                action=resolution.action,
                reason=reason,
                problems=list(problems),
                requested_by=requested_by,
            ),
        )
        log.warning(
            "round %s: %s requested by %s (%s), held by %s",
            round_id,
            action,
            requested_by,
            resolution.resolution_id,
            ", ".join(problems),
        )
        return resolution

    async def confirm_resolution(
        self,
        connection: asyncpg.Connection,
        round_id: str,
        resolution_id: UUID,
        confirmed_by: str,
    ) -> Resolution:
        """A second supervisor confirms a pending request, which is then carried out in this
        transaction. `release`: the round's open problems are closed and the round is
        settled if its facts on record now agree (else it stays waiting, or held again).
        `void`: the round is settled as cancelled, every bet refunded, as soon as its book
        is whole; `SettlementResolved` comes before the settlement, so the wallet learns of
        the void before it pays the refunds."""
        projection = SettlementProjection(connection)
        round_ = await projection.find_round_for_update(round_id)
        resolution = await projection.resolution_for_update(resolution_id)
        if round_ is None or resolution is None or resolution.round_id != round_id:
            raise ResolutionRefusedError(
                404, "unknown_resolution", f"no resolution {resolution_id} of round {round_id}"
            )
        if resolution.status != "pending":
            raise ResolutionRefusedError(
                409, "resolution_not_pending", f"resolution {resolution_id} is {resolution.status}"
            )
        if confirmed_by == resolution.requested_by:
            raise ResolutionRefusedError(
                403,
                "same_supervisor",
                f"{confirmed_by} asked for this {resolution.action}: another supervisor confirms",
            )
        if round_.decided:
            raise ResolutionRefusedError(
                409, "round_not_held", f"round {round_id} is settled already"
            )
        both = f"{resolution.requested_by}, {confirmed_by}"
        decision: Decision | None
        if resolution.action == "void":
            voided = dataclasses.replace(
                round_.facts(), result=None, cancel_reason=f"voided: {resolution.reason}"
            )
            decision = await self._settling.evaluate(
                projection, round_, facts=voided, despite_conflicts=True
            )
            if not isinstance(decision, Settle):
                why = (
                    decision.detail
                    if isinstance(decision, Held)
                    else decision.reason
                    if isinstance(decision, Waiting)
                    else "it is decided already"
                )
                raise ResolutionRefusedError(
                    409, "cannot_void", f"round {round_id} cannot be voided yet: {why}"
                )
            await projection.set_cancelled(round_id, f"voided: {resolution.reason}")
            await projection.resolve_problems(round_id, both)
        else:
            await projection.resolve_problems(round_id, both)
            decision = await self._settling.evaluate(projection, round_)
        outcome = (
            "settled"
            if isinstance(decision, Settle)
            else "held"
            if isinstance(decision, Held)
            else "waiting"
        )
        confirmed_at = self._clock()
        await projection.confirm_resolution(resolution_id, confirmed_by, confirmed_at, outcome)
        cause = await self._append_resolution(
            projection,
            round_.table_id,
            SettlementResolved(
                resolution_id=resolution_id,
                round_id=round_id,
                table_id=round_.table_id,
                action=resolution.action,
                reason=resolution.reason,
                problems=list(resolution.problems),
                requested_by=resolution.requested_by,
                confirmed_by=confirmed_by,
            ),
        )
        log.warning(
            "round %s: %s confirmed by %s (asked by %s): %s",
            round_id,
            resolution.action,
            confirmed_by,
            resolution.requested_by,
            outcome,
        )
        await self._settling.act(projection, round_, decision, cause)
        return dataclasses.replace(
            resolution,
            status="confirmed",
            confirmed_by=confirmed_by,
            confirmed_at=confirmed_at,
            outcome=outcome,
        )

    async def _append_resolution(
        self,
        projection: SettlementProjection,
        table_id: str,
        event: SettlementResolutionRequested | SettlementResolved,
    ) -> _Appended:
        stream_id = resolution_stream(event.round_id)
        version = await self._store.stream_version(stream_id, connection=projection.connection)
        appended = await self._store.append(
            stream_id, version, [event], table_id=table_id, connection=projection.connection
        )
        (event_id,) = appended.event_ids
        return _Appended(event_id=event_id, correlation_id=event_id)
