from enum import StrEnum


class SessionPublicStatus(StrEnum):
    ACTIVE = "active"
    ENDED = "ended"
    EXPIRED = "expired"
    NOT_LAUNCHED = "not_launched"

    def __str__(self) -> str:
        return str(self.value)
