from enum import StrEnum


class RoundStakesPublicStatus(StrEnum):
    CANCELLED = "cancelled"
    CLOSED = "closed"
    OPEN = "open"
    SEALED = "sealed"

    def __str__(self) -> str:
        return str(self.value)
