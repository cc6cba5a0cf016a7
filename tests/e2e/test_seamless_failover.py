"""Owed calls outlive the wallet instance that claimed them (issue 32, item 5): the reference
operator holds every win's answer, the round's wins are in flight when every wallet instance
is SIGKILLed, and the instance started again sends them once their lease (the operator's
timeout plus 1.5 s) runs out, with the same transaction_uuid: each win applied once."""

from __future__ import annotations

import asyncio
import time

import asyncpg

from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.devrun import (
    SEAMLESS_OPERATOR,
    endpoints,
    free_base_port,
    isolated_system,
    seamless_check,
)
from teenpatti_tools.operator.faults import FaultKind, FaultPlan, FaultSwitch
from teenpatti_tools.simulator import SeamlessOperator, Studio

HELD = 2.0  # seconds the operator holds a win's answer: under the wallet's 3 s timeout


async def test_wins_in_flight_when_the_wallet_dies_are_sent_again_and_applied_once(
    infrastructure: InfrastructureSettings,
) -> None:
    async with isolated_system(
        infrastructure,
        label="e2e",
        base_port=free_base_port(2),
        instances=2,
        seamless=SEAMLESS_OPERATOR,
    ) as system:
        operator = system.operator
        assert operator is not None
        wallet_dsn = system.settings.postgres_dsn(system.databases["wallet"])
        studio = Studio(
            endpoints(system.processes.services),
            tables=1,
            players=6,
            betting_seconds=1.5,
            seed=5,
            print_line=lambda _: None,
            seamless=SeamlessOperator(SEAMLESS_OPERATOR, operator.admin),
        )
        stop = asyncio.Event()
        table: asyncio.Task[None] | None = None
        connection = await asyncpg.connect(wallet_dsn)
        try:
            await operator.admin.set_faults(
                FaultPlan(
                    seed=1,
                    switches=(
                        FaultSwitch(
                            kind=FaultKind.LATENCY,
                            calls=frozenset({"win"}),
                            probability=1.0,
                            seconds=HELD,
                        ),
                    ),
                )
            )
            await studio.open_tables()
            await studio.fund_players()
            table = asyncio.create_task(studio.run_table(studio.table_ids[0], stop))

            async def wins_in_flight() -> int:
                return int(
                    await connection.fetchval(
                        "SELECT count(*) FROM operator_calls WHERE kind = 'win'"
                        " AND status = 'pending' AND attempts >= 1"
                    )
                )

            async with asyncio.timeout(120):
                while await wins_in_flight() == 0:
                    assert not table.done(), table.exception()
                    await asyncio.sleep(0.05)
            stop.set()
            # every instance dies with the wins in flight; one is started again
            wallets = [s for s in system.processes.services if s.kind == "wallet"]
            for wallet in wallets:
                system.processes.kill(wallet.name)
            killed_at = time.monotonic()
            in_flight = await wins_in_flight()
            await operator.admin.clear_faults()  # the calls sent again are answered at once
            await system.processes.start(wallets[0])
            started_in = time.monotonic() - killed_at

            async def wins_left() -> int:
                return int(
                    await connection.fetchval(
                        "SELECT count(*) FROM operator_calls WHERE kind = 'win' AND status <> 'ok'"
                    )
                )

            async with asyncio.timeout(60):
                while await wins_left() > 0:
                    await asyncio.sleep(0.1)
            # what a run shows, not a bound tested: this machine's timing varies
            print(
                f"{in_flight} win(s) in flight at the kill; the wallet started again in"
                f" {started_in:.1f} s; all RS_OK {time.monotonic() - killed_at:.1f} s after"
                " the kill"
            )
            resent = int(
                await connection.fetchval(
                    "SELECT count(*) FROM operator_calls WHERE kind = 'win' AND attempts >= 2"
                )
            )
            await asyncio.gather(table, return_exceptions=True)
            problems, _ = await seamless_check(studio, operator, wallet_dsn, within_seconds=30)
        finally:
            stop.set()
            if table is not None:
                table.cancel()
                await asyncio.gather(table, return_exceptions=True)
            await connection.close()
            await studio.close()

    assert in_flight >= 1
    assert resent >= 1  # sent again after the kill, with the same transaction_uuid
    # each win applied once at the operator, every bet ended once, money on both sides
    assert problems == []
