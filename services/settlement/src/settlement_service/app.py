"""The settlement service, declared: it hears each round's facts on `table.events` and its
bets and sealed book on `wallet.events`, settles each round once they agree, and publishes
the settlement on `settlement.events`, and its reversal once the round is voided after its
result; operators read their bets' settlements over HTTP."""

from __future__ import annotations

from typing import cast

from teenpatti.events.catalog import (
    SETTLEMENT_EVENTS,
    TABLE_EVENTS,
    WALLET_EVENTS,
    BetBookClosed,
    BetsPlaced,
    RoundCancelled,
    RoundClosed,
    RoundOpened,
    RoundVoided,
)
from teenpatti.kernel import Consumption, Kernel, Refusal, Service, Wiring
from teenpatti.migrations import MigrationSet
from teenpatti.observability.metrics import SETTLEMENT_HELD_ROUNDS

from .adapters.postgres import held_rounds, held_settlement_problems
from .config import SettlementSettings
from .entrypoints import router
from .handlers import Settlement
from .rebuild import rebuild
from .resolving import ResolutionRefusedError
from .settler import Settler


async def wire(kernel: Kernel[SettlementSettings]) -> Wiring:
    # the parts of a large round after its first, a transaction each (settler.py)
    check_every_line = kernel.settings.check_every_settled_line
    settler = Settler(kernel.pool, kernel.store, check_every_line=check_every_line)
    settlement = Settlement(
        kernel.store, on_decided=settler.take, check_every_line=check_every_line
    )
    return Wiring(
        subscriptions={
            TABLE_EVENTS: {
                RoundOpened: settlement.round_opened,
                RoundClosed: settlement.round_closed,
                RoundCancelled: settlement.round_cancelled,
                RoundVoided: settlement.round_voided,
            },
            # not the BetsPaid the wallet emits as it pays
            WALLET_EVENTS: {
                BetsPlaced: settlement.bets_placed,
                BetBookClosed: settlement.book_closed,
            },
        },
        consumption={
            WALLET_EVENTS: Consumption(gather_ms=kernel.settings.wallet_gather_ms),
        },
        tasks={"settler": settler.run},
        components=settlement,
        gauges={SETTLEMENT_HELD_ROUNDS: lambda: held_rounds(kernel.pool)},
        problems={"settlement": held_settlement_problems},
    )


SERVICE = Service(
    name="settlement",
    settings=SettlementSettings,
    database=lambda settings: settings.settlement_database,
    migrations=MigrationSet.from_package("settlement", "settlement_service.migrations"),
    emits=SETTLEMENT_EVENTS,
    routers=[router],
    wire=wire,
    errors={
        ResolutionRefusedError: Refusal(
            status=lambda error: cast(ResolutionRefusedError, error).status
        )
    },
    rebuild=rebuild,
)


create_app = SERVICE.create_app

# `app` (uvicorn's `<package>.app:app`) is built when first asked for: importing this module
# for SERVICE sets up no service's logging in the importing process
__getattr__ = SERVICE.app_on_demand()
