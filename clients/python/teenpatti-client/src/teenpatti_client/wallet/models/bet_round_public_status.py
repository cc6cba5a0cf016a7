from enum import StrEnum


class BetRoundPublicStatus(StrEnum):
    CANCELLED = "cancelled"
    CLOSED = "closed"
    OPEN = "open"
    SEALED = "sealed"

    def __str__(self) -> str:
        return str(self.value)
