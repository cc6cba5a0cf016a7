from enum import StrEnum


class GamePublicStatus(StrEnum):
    CANCELLED = "cancelled"
    CLOSED = "closed"
    OPEN = "open"
    VOIDED = "voided"

    def __str__(self) -> str:
        return str(self.value)
