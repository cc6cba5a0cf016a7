"""The wallet service, declared: operators move their players' money and place their slips
over HTTP; the wallet seals each round's bet book when `table.events` closes betting, pays
what `settlement.events` settles, and emits every movement on `wallet.events`."""

from __future__ import annotations

from typing import cast

from teenpatti.events.catalog import (
    SETTLEMENT_EVENTS,
    TABLE_EVENTS,
    WALLET_EVENTS,
    BetsReversed,
    BetsSettled,
    BettingClosed,
    CardDealt,
    CardsWithdrawn,
    RoundCancelled,
    RoundClosed,
    RoundOpened,
    RoundPaused,
    RoundResumed,
    RoundVoided,
    SettlementResolved,
)
from teenpatti.kernel import Consumption, Kernel, Refusal, Service, Wiring
from teenpatti.migrations import MigrationSet
from teenpatti.observability.metrics import OPERATOR_OWED_CALL_AGE, OPERATOR_OWED_CALLS

from .adapters.corrections import correction_problems
from .config import WalletSettings
from .corrections import ReversalCorrector
from .domain.betting import WalletError
from .entrypoints import router
from .errors import status_of
from .game_entrypoints import router as game_router
from .handlers import Wallet
from .payment import SettlementPayer
from .rebuild import rebuild
from .rounds import RoundRecorder
from .sender import owed_call_age_gauges, owed_call_gauges
from .session_entrypoints import router as session_router
from .transaction_entrypoints import router as transaction_router


async def wire(kernel: Kernel[WalletSettings]) -> Wiring:
    settings = kernel.settings
    rounds = RoundRecorder(kernel.store)
    wallet = Wallet(kernel.pool, kernel.store, settings)
    # a payment that owes operators wins or rollbacks wakes this instance's sender
    payer = SettlementPayer(kernel.store, on_owed=wallet.sender.wake)
    corrector = ReversalCorrector(kernel.store)
    return Wiring(
        subscriptions={
            TABLE_EVENTS: {
                RoundOpened: rounds.round_opened,
                BettingClosed: rounds.betting_closed,
                RoundCancelled: rounds.round_cancelled,
                RoundClosed: rounds.round_closed,
                RoundPaused: rounds.round_paused,
                RoundResumed: rounds.round_resumed,
                # the cards of a round cancelled mid-deal, for the players' last games
                CardDealt: rounds.card_dealt,
                CardsWithdrawn: rounds.cards_withdrawn,
                # a round voided after its result: settlement's reversal of it is checked
                # against it
                RoundVoided: rounds.round_voided,
            },
            SETTLEMENT_EVENTS: {
                BetsSettled: payer.bets_settled,
                # a held round voided by two supervisors: its refunds follow
                SettlementResolved: rounds.settlement_resolved,
                # a round voided after its result: its bets put right
                BetsReversed: corrector.bets_reversed,
            },
        },
        consumption={
            SETTLEMENT_EVENTS: Consumption(max_records=settings.settlement_poll_records),
        },
        components=wallet,
        # the wins and rollbacks owed to seamless operators, and abandoned slips' recovery
        tasks={"seamless-sender": wallet.sender.run},
        problems={
            "operator_calls": wallet.sender.owed_call_problems,
            "corrections": correction_problems,
        },
        gauges={
            OPERATOR_OWED_CALLS: lambda: owed_call_gauges(kernel.pool),
            OPERATOR_OWED_CALL_AGE: lambda: owed_call_age_gauges(kernel.pool),
        },
        on_stop=[wallet.operators.close],
    )


SERVICE = Service(
    name="wallet",
    settings=WalletSettings,
    database=lambda settings: settings.wallet_database,
    migrations=MigrationSet.from_package("wallet", "wallet_service.migrations"),
    emits=WALLET_EVENTS,
    routers=[router, session_router, transaction_router, game_router],
    wire=wire,
    # each refusal with its code and its status, declared in errors.py
    errors={WalletError: Refusal(status=lambda error: status_of(cast(WalletError, error)))},
    rebuild=rebuild,
)


create_app = SERVICE.create_app

# `app` (uvicorn's `<package>.app:app`) is built when first asked for: importing this module
# for SERVICE sets up no service's logging in the importing process
__getattr__ = SERVICE.app_on_demand()
