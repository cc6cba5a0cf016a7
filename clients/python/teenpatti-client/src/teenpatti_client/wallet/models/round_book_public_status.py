from enum import StrEnum


class RoundBookPublicStatus(StrEnum):
    CANCELLED = "cancelled"
    CLOSED = "closed"
    OPEN = "open"
    SEALED = "sealed"

    def __str__(self) -> str:
        return str(self.value)
