from enum import StrEnum


class TransactionPublicKind(StrEnum):
    BET = "bet"
    CORRECTION = "correction"
    DEPOSIT = "deposit"
    REFUND = "refund"
    ROLLBACK = "rollback"
    SLIP = "slip"
    WIN = "win"
    WITHDRAWAL = "withdrawal"

    def __str__(self) -> str:
        return str(self.value)
