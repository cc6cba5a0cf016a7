from enum import StrEnum


class SessionPublicLanguage(StrEnum):
    EN = "en"
    FA = "fa"
    JA = "ja"
    RU = "ru"
    TH = "th"

    def __str__(self) -> str:
        return str(self.value)
