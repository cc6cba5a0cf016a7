"""The settlement service's settings: the shared infrastructure plus its own database."""

from teenpatti.settings import InfrastructureSettings


class SettlementSettings(InfrastructureSettings):
    # TP_SETTLEMENT_DATABASE
    settlement_database: str = "tp_settlement"
