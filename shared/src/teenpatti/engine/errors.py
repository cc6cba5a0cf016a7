"""Every error the rules engine raises: one base class, so callers can catch them all."""


class RulesEngineError(ValueError):
    """Input the rules cannot accept; the message says exactly what and why."""


class InvalidCardError(RulesEngineError):
    pass


class DuplicateCardError(RulesEngineError):
    pass


class CardCountError(RulesEngineError):
    pass


class InvalidPayTableError(RulesEngineError):
    pass


class InvalidBetError(RulesEngineError):
    pass


class InvalidRtpFloorError(RulesEngineError):
    pass
