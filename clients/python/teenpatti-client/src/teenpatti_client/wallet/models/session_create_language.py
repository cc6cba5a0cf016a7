from enum import StrEnum


class SessionCreateLanguage(StrEnum):
    EN = "en"
    FA = "fa"
    JA = "ja"
    RU = "ru"
    TH = "th"

    def __str__(self) -> str:
        return str(self.value)
