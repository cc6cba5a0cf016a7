"""The wallet's declaration: what it subscribes to and how its refusals answer (no servers)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

from teenpatti.events.catalog import SETTLEMENT_EVENTS, TABLE_EVENTS
from teenpatti.kernel import Kernel, Refusal
from teenpatti.kernel.subscriptions import handled_types
from wallet_service.app import SERVICE, create_app, wire
from wallet_service.config import WalletSettings
from wallet_service.domain.betting import (
    BettingClosedError,
    InsufficientFundsError,
    UnknownRoundError,
    WalletError,
)
from wallet_service.handlers import Wallet


async def test_it_subscribes_to_the_rounds_and_their_settlement() -> None:
    settings = WalletSettings(settlement_poll_records=1_234)
    kernel = cast(Kernel[WalletSettings], SimpleNamespace(pool=None, store=None, settings=settings))

    wiring = await wire(kernel)

    assert {topic: handled_types(handlers) for topic, handlers in wiring.subscriptions.items()} == {
        TABLE_EVENTS: frozenset(
            {
                "RoundOpened",
                "BettingClosed",
                "RoundCancelled",
                "RoundClosed",
                "RoundPaused",
                "RoundResumed",
                "CardDealt",
                "CardsWithdrawn",
                "RoundVoided",
            }
        ),
        SETTLEMENT_EVENTS: frozenset({"BetsSettled", "SettlementResolved", "BetsReversed"}),
    }
    assert wiring.consumption[SETTLEMENT_EVENTS].max_records == 1_234
    assert isinstance(wiring.components, Wallet)


def test_each_refusal_answers_with_its_status() -> None:
    refusal = SERVICE.errors[WalletError]
    assert isinstance(refusal, Refusal) and callable(refusal.status)
    statuses = {
        error.code: refusal.status(error("no"))
        for error in (UnknownRoundError, BettingClosedError, InsufficientFundsError, WalletError)
    }
    assert statuses == {
        "unknown_round": 404,
        "betting_closed": 409,
        "insufficient_funds": 409,
        "wallet_error": 422,
    }


def test_every_route_documents_its_answer() -> None:
    schema = create_app(WalletSettings()).openapi()
    answers = {
        f"{method.upper()} {path}": next(
            (status, response["content"]["application/json"]["schema"])
            for status, response in operation["responses"].items()
            if status.startswith("2")
        )
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        if path not in ("/health", "/ready")  # the kernel's
    }
    assert answers == {
        "POST /players/{player_id}/deposits": ("200", ref("TransferPublic")),
        "POST /players/{player_id}/withdrawals": ("200", ref("TransferPublic")),
        "GET /players/{player_id}/balances": ("200", ref("BalancesPublic")),
        "GET /players/{player_id}/bets": ("200", ref("BetPagePublic")),
        "POST /bets": ("201", ref("SlipPublic")),
        "GET /bets/{bet_id}": ("200", ref("BetPublic")),
        "GET /rounds/{round_id}/book": ("200", ref("RoundBookPublic")),
        "GET /problems": ("200", ref("ProblemsPublic")),
        # player sessions (session_entrypoints.py)
        "POST /sessions": ("201", ref("SessionOpenedPublic")),
        "GET /sessions/{session_id}": ("200", ref("SessionPublic")),
        "DELETE /sessions/{session_id}": ("200", ref("SessionPublic")),
        "POST /sessions/launch": ("200", ref("SessionLaunchedPublic")),
        "GET /me": ("200", ref("PlayerPublic")),
        "GET /me/balance": ("200", ref("PlayerBalancePublic")),
        "GET /me/bets": ("200", ref("BetPagePublic")),
        "GET /me/bets/{bet_id}": ("200", ref("BetPublic")),
        # the transactions API and the daily report (transaction_entrypoints.py)
        "GET /transactions": ("200", ref("TransactionPagePublic")),
        "GET /reports/daily": ("200", ref("DailyReportPublic")),
        # the last games and a round's stakes (game_entrypoints.py)
        "GET /me/games": ("200", ref("GamesPublic")),
        "GET /players/{player_id}/games": ("200", ref("GamesPublic")),
        "GET /rounds/{round_id}/stakes": ("200", ref("RoundStakesPublic")),
    }


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}
