"""A seamless player's balance (`GET /me/balance`): at most one operator call per session per
`TP_SESSION_BALANCE_CACHE_SECONDS`, never two at once, the answers in between the last one
(`wallet_service.sessions.SessionBalances`)."""

from __future__ import annotations

import asyncio
from uuid import uuid4

from teenpatti.seamless import CallOutcome, NoAnswer
from wallet_service.sessions import SessionBalances


class Operator:
    def __init__(self) -> None:
        self.calls = 0
        self.release = asyncio.Event()

    async def balance(self) -> CallOutcome:
        self.calls += 1
        await self.release.wait()
        return NoAnswer("timeout", f"call {self.calls}")


def detail(outcome: CallOutcome) -> str:
    assert isinstance(outcome, NoAnswer)
    return outcome.detail


async def test_one_call_per_session_however_often_and_however_many_at_once() -> None:
    clock = [100.0]
    balances = SessionBalances(2.0, monotonic=lambda: clock[0])
    operator, session, other = Operator(), uuid4(), uuid4()
    asking = [asyncio.create_task(balances.of(session, operator.balance)) for _ in range(50)]
    await asyncio.sleep(0)
    operator.release.set()
    answers = await asyncio.gather(*asking)
    assert operator.calls == 1
    assert {detail(answer) for answer in answers} == {"call 1"}
    clock[0] += 1.9
    await balances.of(session, operator.balance)
    assert operator.calls == 1  # the last answer, within the bound
    clock[0] += 0.1
    assert detail(await balances.of(session, operator.balance)) == "call 2"
    await balances.of(other, operator.balance)  # another session: its own call
    assert operator.calls == 3


async def test_a_call_slower_than_the_bound_is_never_doubled() -> None:
    clock = [100.0]
    balances = SessionBalances(1.0, monotonic=lambda: clock[0])
    operator, session = Operator(), uuid4()
    first = asyncio.create_task(balances.of(session, operator.balance))
    await asyncio.sleep(0)
    clock[0] += 30  # still waiting for the operator
    second = asyncio.create_task(balances.of(session, operator.balance))
    await asyncio.sleep(0)
    operator.release.set()
    await asyncio.gather(first, second)
    assert operator.calls == 1


async def test_memory_stays_bounded_under_many_sessions() -> None:
    balances = SessionBalances(5.0, max_sessions=10)
    operator = Operator()
    operator.release.set()
    for _ in range(100):
        await balances.of(uuid4(), operator.balance)
    assert len(balances._asked) == 10
