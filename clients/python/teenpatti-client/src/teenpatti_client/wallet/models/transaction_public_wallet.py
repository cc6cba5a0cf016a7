from enum import StrEnum


class TransactionPublicWallet(StrEnum):
    SEAMLESS = "seamless"
    TRANSFER = "transfer"

    def __str__(self) -> str:
        return str(self.value)
