from enum import StrEnum


class TransactionPublicStatus(StrEnum):
    ACCEPTED = "accepted"
    FAILED = "failed"
    LISTED = "listed"
    OK = "ok"
    PENDING = "pending"
    REFUSED = "refused"
    SHORTFALL = "shortfall"

    def __str__(self) -> str:
        return str(self.value)
