from enum import StrEnum


class GamePublicWinnerType0(StrEnum):
    PLAYER_A = "player_a"
    PLAYER_B = "player_b"
    TIE = "tie"

    def __str__(self) -> str:
        return str(self.value)
