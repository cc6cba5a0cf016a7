from enum import StrEnum


class RoundSummaryPublicStatus(StrEnum):
    PENDING = "pending"
    SETTLED = "settled"

    def __str__(self) -> str:
        return str(self.value)
