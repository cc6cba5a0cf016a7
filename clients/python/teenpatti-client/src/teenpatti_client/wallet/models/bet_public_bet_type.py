from enum import StrEnum


class BetPublicBetType(StrEnum):
    PAIR_PLUS_A = "pair_plus_a"
    PAIR_PLUS_B = "pair_plus_b"
    PLAYER_A = "player_a"
    PLAYER_B = "player_b"
    SIX_CARD_BONUS = "six_card_bonus"
    TIE = "tie"

    def __str__(self) -> str:
        return str(self.value)
