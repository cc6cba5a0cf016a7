"""The wallet's own settings, read once from `TP_*` environment variables."""

from pydantic import Field

from teenpatti.settings import InfrastructureSettings


class WalletSettings(InfrastructureSettings):
    # TP_WALLET_DATABASE
    wallet_database: str = "tp_wallet"
    # TP_BETTING_GRACE_MS: how long after `betting_closes_at` a slip is still taken (server
    # clock). 0 by default: the deadline the table announced is the deadline.
    betting_grace_ms: int = Field(default=0, ge=0, le=5_000)
    # TP_MAX_BETS_PER_SLIP: a slip holds each bet type at most once, so at most six
    max_bets_per_slip: int = Field(default=6, ge=1, le=6)
    # TP_SETTLEMENT_POLL_RECORDS: the most settlement parts one batch pays
    # a round's settlements come in bursts: a bigger batch pays more bets per player lock and append
    settlement_poll_records: int = Field(default=5_000, ge=1, le=100_000)
