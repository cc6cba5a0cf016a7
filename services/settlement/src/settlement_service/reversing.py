"""A round voided after its result (`RoundVoided`): its settlement reversed.

The reversal is appended in the transaction where both are known: the void's, when the round
is settled already, else the one that appends its `RoundSettled` (`settling.py`'s, or the
`Settler`'s). It is built from the statements the round's stream holds (its `BetsSettled`
parts and `RoundSettled`), every line as settled with its stake refunded, and appended after
them at the stream's version: once, whichever transaction gets there first; the others adopt
it and emit nothing. A voided round held unsettled shows as `voided_waits_for_settlement`
until two supervisors resolve the hold (`holding.py`)."""

from __future__ import annotations

import logging
from datetime import datetime
from uuid import UUID

from teenpatti.events.catalog import (
    BetsReversed,
    BetsSettled,
    RoundReversed,
    RoundSettled,
    registry,
)
from teenpatti.eventsourcing import AsyncpgEventStore, ConcurrencyError, StoredEvent

from .adapters.postgres import SettlementProjection
from .domain import reverse
from .streams import settlement_stream

log = logging.getLogger(__name__)


async def reverse_if_voided(
    store: AsyncpgEventStore,
    projection: SettlementProjection,
    round_id: str,
    *,
    now: datetime,
    correlation_id: UUID | None,
    causation_id: UUID | None,
) -> None:
    """If the locked round is voided, settled and not yet reversed: its settlement reversed,
    from the statements its stream holds (its `BetsSettled` parts and `RoundSettled`), the
    reversal appended after them at the stream's version, the projection marked. A reversal
    in the stream already (a `ConcurrencyError`, or found there) is adopted: nothing is
    emitted."""
    round_ = await projection.find_round_for_update(round_id)
    if round_ is None or round_.void_reason is None or not round_.settled:
        return
    if round_.reversed_at is not None:
        return
    stream_id = settlement_stream(round_id)
    stored = await store.read_stream(stream_id, connection=projection.connection)
    settled, summary, reversal = _statements(stored)
    if reversal is not None:
        log.warning("round %s: its reversal is in %s already; adopting it", round_id, stream_id)
        await projection.mark_reversed(*reversal)
        return
    if summary is None:
        log.error("round %s: settled, but %s holds no RoundSettled", round_id, stream_id)
        return
    reversed_ = reverse(settled, summary, round_.void_reason, now)
    version = stored[-1].stream_version if stored else 0
    try:
        async with projection.connection.transaction():  # a savepoint, as in `Settling.settle`
            await store.append(
                stream_id,
                version,
                reversed_.events,
                table_id=round_.table_id,
                correlation_id=correlation_id,
                causation_id=causation_id,
                connection=projection.connection,
            )
    except ConcurrencyError:
        log.warning("round %s: %s moved on meanwhile; adopting what it holds", round_id, stream_id)
        stored = await store.read_stream(stream_id, connection=projection.connection)
        _, _, reversal = _statements(stored)
        if reversal is not None:
            await projection.mark_reversed(*reversal)
        return
    await projection.mark_reversed(reversed_.round, reversed_.bet_ids)
    log.warning(
        "round %s reversed: %d bets, %s",
        round_id,
        reversed_.round.bet_count,
        {c: t.model_dump() for c, t in reversed_.round.totals.items()},
    )


def _statements(
    stored: list[StoredEvent],
) -> tuple[list[BetsSettled], RoundSettled | None, tuple[RoundReversed, list[UUID]] | None]:
    """A settlement stream's parts, its summary, and its reversal (summary and bet ids) if
    it holds one."""
    settled: list[BetsSettled] = []
    summary: RoundSettled | None = None
    reversed_: list[UUID] = []
    reversal: RoundReversed | None = None
    for one in stored:
        event = registry.decode_json(one.event_type, one.schema_version, one.payload_json)
        if isinstance(event, BetsSettled):
            settled.append(event)
        elif isinstance(event, RoundSettled):
            summary = event
        elif isinstance(event, BetsReversed):
            reversed_ += [line.bet_id for line in event.bets]
        elif isinstance(event, RoundReversed):
            reversal = event
    return settled, summary, None if reversal is None else (reversal, reversed_)
