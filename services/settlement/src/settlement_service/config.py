"""The settlement service's settings: the shared infrastructure plus its own database."""

from pydantic import Field

from teenpatti.settings import InfrastructureSettings


class SettlementSettings(InfrastructureSettings):
    # TP_SETTLEMENT_DATABASE
    settlement_database: str = "tp_settlement"
    # the bets of an open round can wait a little, so polls of wallet.events bring many bets
    wallet_gather_ms: int = Field(default=50, ge=0, le=1000)
