"""`make run`'s system in small: the reference operator as its own process, the wallet of
one operator (operator-1) at it in seamless mode, another (operator-2) on the transfer
wallet, and the simulated studio playing rounds with both; then devrun's summary checks."""

from __future__ import annotations

import asyncio

from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.devrun import (
    SEAMLESS_OPERATOR,
    endpoints,
    free_base_port,
    isolated_system,
    seamless_check,
)
from teenpatti_tools.simulator import SeamlessOperator, Studio

ROUNDS = 3


async def test_a_seamless_and_a_transfer_operator_play_side_by_side_and_money_reconciles(
    infrastructure: InfrastructureSettings,
) -> None:
    async with isolated_system(
        infrastructure, label="e2e", base_port=free_base_port(), seamless=SEAMLESS_OPERATOR
    ) as system:
        operator = system.operator
        assert operator is not None
        wallet_dsn = system.settings.postgres_dsn(system.databases["wallet"])
        studio = Studio(
            endpoints(system.processes.services),
            tables=2,
            players=12,
            betting_seconds=1.5,
            seed=22,
            print_line=lambda _: None,
            seamless=SeamlessOperator(SEAMLESS_OPERATOR, operator.admin),
        )
        stop = asyncio.Event()
        tables: list[asyncio.Task[None]] = []
        try:
            await studio.open_tables()
            await studio.fund_players()
            assert len(studio.seamless_players) == len(studio.transfer_players) == 6
            tables = [asyncio.create_task(studio.run_table(t, stop)) for t in studio.table_ids]
            async with asyncio.timeout(120):
                while studio.ledger.rounds < ROUNDS:
                    done = [t for t in tables if t.done()]
                    assert not done, done[0].exception()
                    await asyncio.sleep(0.2)
            stop.set()
            await asyncio.gather(*tables)
            # the last rounds' payments reach the wallet a moment after their results: the
            # checks again until both wallets' money agrees, within a bound
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 60
            while True:
                problems, figures = await studio.conservation()
                seamless_problems, seamless = await seamless_check(
                    studio, operator, wallet_dsn, within_seconds=10
                )
                if (not problems and not seamless_problems) or loop.time() > deadline:
                    break
                await asyncio.sleep(0.5)
        finally:
            stop.set()
            for task in tables:
                task.cancel()
            await asyncio.gather(*tables, return_exceptions=True)
            await studio.close()

    assert problems == []
    assert seamless_problems == []
    # both kinds of players bet, and the seamless side's calls reached the operator
    assert studio.ledger.seamless_stakes > 0 and studio.ledger.stakes > 0
    assert figures["stakes"] == studio.ledger.stakes
    assert seamless["stakes"] == studio.ledger.seamless_stakes
    assert seamless["transactions"] > 0
    assert seamless["balances"] == (
        studio.ledger.seamless_deposits - seamless["stakes"] + seamless["returns"]
    )
