"""A wallet transaction refused for commit order runs again, a few times at most."""

from __future__ import annotations

from typing import Any

import pytest

from teenpatti.eventsourcing import CommitOrderError, ConcurrencyError
from wallet_service.adapters.postgres import COMMIT_ORDER_ATTEMPTS
from wallet_service.adapters.postgres import in_commit_order as _in_commit_order


class Transaction:
    def __init__(self, refusals: int, error: type[Exception] = CommitOrderError) -> None:
        self.refusals = refusals
        self.error = error
        self.runs = 0

    async def __call__(self) -> dict[str, Any]:
        self.runs += 1
        if self.runs <= self.refusals:
            raise self.error("refused")
        return {"run": self.runs}


async def test_a_refused_transaction_runs_again_until_it_goes_through() -> None:
    transaction = Transaction(refusals=2)
    assert await _in_commit_order(transaction) == {"run": 3}


async def test_it_gives_up_after_the_last_attempt() -> None:
    transaction = Transaction(refusals=COMMIT_ORDER_ATTEMPTS)
    with pytest.raises(CommitOrderError):
        await _in_commit_order(transaction)
    assert transaction.runs == COMMIT_ORDER_ATTEMPTS


async def test_other_conflicts_are_not_run_again() -> None:
    transaction = Transaction(refusals=1, error=ConcurrencyError)
    with pytest.raises(ConcurrencyError):
        await _in_commit_order(transaction)
    assert transaction.runs == 1
