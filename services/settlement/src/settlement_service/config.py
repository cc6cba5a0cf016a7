"""The settlement service's settings: the shared infrastructure plus its own database."""

from pydantic import Field

from teenpatti.settings import InfrastructureSettings


class SettlementSettings(InfrastructureSettings):
    settlement_database: str = Field(
        default="tp_settlement",
        description="The settlement service's database; also read by `teenpatti migrate"
        " settlement` and `teenpatti audit` (unless given `--settlement-db`).",
    )
    wallet_gather_ms: int = Field(
        default=50,
        ge=0,
        le=1000,
        description="How long the broker may hold a fetch of `wallet.events` to gather more"
        " bets into one poll, as the bets of an open round can wait a little; `0`: take what is"
        " there (docs/decisions/0020-gathered-polls.md).",
    )
    check_every_settled_line: bool = Field(
        default=False,
        description="Validate every `BetSettled` line of the parts the service builds, as a"
        " consumer decodes them; by default one line of each kind (bet type, stake, currency)"
        " is, the others built from fields already checked"
        " (docs/decisions/0103-settlement-parts-built-not-validated-again.md).",
    )
