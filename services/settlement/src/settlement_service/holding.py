"""A round held unsettled: what holds it, recorded as an open problem for a person.

A second, different version of a fact (another book, result, pay table or bet under the same
id) is recorded as a `conflicting_*` problem: the first version stays on record and the round
is held, unsettled, until two supervisors release it or void it (`resolving.py`). A voided
round that such a hold keeps unsettled shows as `voided_waits_for_settlement` too, for the
hold is what keeps its reversal from being appended (`reversing.py`)."""

from __future__ import annotations

import logging

from .adapters.postgres import SettlementProjection

log = logging.getLogger(__name__)

VOIDED_WAITS = "voided_waits_for_settlement"
VOIDED_OTHER_RESULT = "voided_other_result"


async def hold(projection: SettlementProjection, round_id: str, kind: str, detail: str) -> None:
    log.error("round %s held (%s): %s", round_id, kind, detail)
    await projection.record_problem(round_id, kind, detail)
    await show_voided_waits(projection, round_id)


async def show_voided_waits(projection: SettlementProjection, round_id: str) -> None:
    """A voided round that open problems hold unsettled: shown as such, for the hold is what
    keeps its reversal from being appended."""
    round_ = await projection.find_round_for_update(round_id)  # locked already: a fresh read
    if round_ is None or not round_.voided or round_.decided:
        return
    holding = [
        kind
        for kind in await projection.open_problems(round_id)
        if kind not in (VOIDED_WAITS, VOIDED_OTHER_RESULT)
    ]
    if holding:
        await projection.record_problem(
            round_id,
            VOIDED_WAITS,
            f"voided after its result ({round_.void_reason}) but not settled: held by"
            f" {', '.join(holding)}; once two supervisors resolve the hold and the round is"
            " settled, its settlement is reversed",
        )
