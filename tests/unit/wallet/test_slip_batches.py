"""The group commit's bookkeeping (`SlipBatches`), with the statement replaced: slips that
wait go together, at most `batch_size` a batch and `in_flight` batches at once; a batch
that fails is placed again slip by slip; no slip is left waiting."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import uuid4

import pytest

from wallet_service import slip_batches
from wallet_service.adapters import postgres as db
from wallet_service.slip_batches import SlipBatches


def _slip(player: str, stake: int) -> db.SlipToPlace:
    record = db.SlipRecord(
        slip_id=uuid4(),
        operator_id="operator-1",
        player_id=player,
        round_id="T1-000001",
        table_id="T1",
        currency="INR",
        placed_at=datetime.now(UTC),
        bets=[db.NewBet(uuid4(), "tie", stake)],
        ledger=[],
        idempotency_key=str(uuid4()),
        answer={},
    )
    return db.SlipToPlace(
        record, "hash", [10_000], (datetime.now(UTC), uuid4(), "", "", 1, "", None)
    )


class FakeStatement:
    """`db.place_slips`: records each batch's stakes; a stake of 13 fails its statement; a
    stake of 7 is refused by a guard (None)."""

    def __init__(self) -> None:
        self.batches: list[list[int]] = []
        self.in_flight = 0
        self.most_in_flight = 0

    async def __call__(
        self, pool: Any, slips: Sequence[db.SlipToPlace], grace: timedelta
    ) -> list[int | None]:
        stakes = [slip.record.bets[0].stake for slip in slips]
        self.batches.append(stakes)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(0.01)
            if 13 in stakes:
                raise RuntimeError("the statement failed")
            return [None if stake == 7 else 1_000 - stake for stake in stakes]
        finally:
            self.in_flight -= 1


@pytest.fixture
def statement(monkeypatch: pytest.MonkeyPatch) -> FakeStatement:
    fake = FakeStatement()
    monkeypatch.setattr(slip_batches.db, "place_slips", fake)
    return fake


async def test_slips_that_wait_go_together(statement: FakeStatement) -> None:
    batches = SlipBatches(None, grace=timedelta(0), batch_size=4, in_flight=2)  # type: ignore[arg-type]
    answers = await asyncio.gather(*(batches.place(_slip(f"p{n}", 100 + n)) for n in range(10)))
    assert answers == [1_000 - (100 + n) for n in range(10)]
    assert sorted(len(batch) for batch in statement.batches) == [2, 4, 4]
    assert statement.most_in_flight == 2
    # later, alone: at once, in a batch of its own
    assert await batches.place(_slip("p1", 200)) == 800
    assert statement.batches[-1] == [200]


async def test_a_failing_batch_is_placed_again_slip_by_slip(statement: FakeStatement) -> None:
    batches = SlipBatches(None, grace=timedelta(0), batch_size=8, in_flight=1)  # type: ignore[arg-type]
    answers = await asyncio.gather(
        *(batches.place(_slip(f"p{n}", stake)) for n, stake in enumerate((100, 13, 7, 200))),
        return_exceptions=True,
    )
    assert answers[0] == 900
    assert isinstance(answers[1], RuntimeError)
    assert answers[2] is None
    assert answers[3] == 800
    assert statement.batches == [[100, 13, 7, 200], [100], [13], [7], [200]]


async def test_no_slip_is_left_waiting_when_the_flushers_finish(statement: FakeStatement) -> None:
    batches = SlipBatches(None, grace=timedelta(0), batch_size=2, in_flight=1)  # type: ignore[arg-type]
    for round_ in range(20):
        first = asyncio.ensure_future(batches.place(_slip("p1", 100)))
        await asyncio.sleep(0.011)  # about when the flusher finds nothing more waiting
        async with asyncio.timeout(5):
            assert await batches.place(_slip("p2", 100 + round_)) == 900 - round_
            assert await first == 900
