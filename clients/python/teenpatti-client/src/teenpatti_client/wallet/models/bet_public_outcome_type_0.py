from enum import StrEnum


class BetPublicOutcomeType0(StrEnum):
    LOST = "lost"
    PUSH = "push"
    REFUNDED = "refunded"
    WON = "won"

    def __str__(self) -> str:
        return str(self.value)
