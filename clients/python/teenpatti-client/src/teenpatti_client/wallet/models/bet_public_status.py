from enum import StrEnum


class BetPublicStatus(StrEnum):
    PAID = "paid"
    PLACED = "placed"

    def __str__(self) -> str:
        return str(self.value)
