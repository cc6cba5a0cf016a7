"""The wallet's own settings, read once from `TP_*` environment variables."""

from pydantic import Field

from teenpatti.settings import InfrastructureSettings


class WalletSettings(InfrastructureSettings):
    wallet_database: str = Field(
        default="tp_wallet",
        description="The wallet's database; also read by `teenpatti migrate wallet` and"
        " `teenpatti audit` (unless given `--wallet-db`).",
    )
    betting_grace_ms: int = Field(
        default=0,
        ge=0,
        le=5_000,
        description="How long after the table's `betting_closes_at` (on the wallet's clock) a"
        " slip is still taken, to absorb a known clock skew; `0`: the deadline the table"
        " announced is the deadline.",
    )
    max_bets_per_slip: int = Field(
        default=6,
        ge=1,
        le=6,
        description="The most bets in one slip: a slip holds each bet type at most once, so at"
        " most six.",
    )
    settlement_poll_records: int = Field(
        default=5_000,
        ge=1,
        le=100_000,
        description="The most settlement parts (`BetsSettled`) one poll of `settlement.events`"
        " brings, so one payment transaction pays; in place of `TP_CONSUMER_MAX_RECORDS` for"
        " that topic. A round's settlements come in bursts: a bigger batch pays more bets per"
        " player lock and append.",
    )
