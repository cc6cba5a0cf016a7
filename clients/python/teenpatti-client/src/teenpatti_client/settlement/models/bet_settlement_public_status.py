from enum import StrEnum


class BetSettlementPublicStatus(StrEnum):
    PENDING = "pending"
    SETTLED = "settled"

    def __str__(self) -> str:
        return str(self.value)
