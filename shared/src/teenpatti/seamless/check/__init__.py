"""An operator's wallet server checked against the seamless wallet protocol, case by case,
before it goes live (`teenpatti operator-check`; docs/operators.md, "Checking your wallet
before going live"; docs/decisions/0091-an-operator-checks-its-wallet.md).

The requests are the game side's own: our calls written by the Hub88 adapter and signed with
our key, as the wallet sends them. The verdicts are not the client's outcome classes: each
case reads the operator's answers itself, strictly, against the protocol text. Each case
judges one thing, relative to the balance the operator reported just before it, so that one
fault fails one case; whether the answers are signed and echo their request is judged over
every answer of the run by the two last cases. A bet a case leaves open (a failure, or no
answer) is rolled back before the next case, so a run leaves nothing owed behind.
"""

from teenpatti.seamless.check.cases import CASES, STAKES_NEEDED, Case
from teenpatti.seamless.check.exchanges import (
    Exchange,
    HttpTransport,
    NoAnswerError,
    Received,
    Sent,
    Transport,
    UnreachableError,
    exchange_view,
    redact,
)
from teenpatti.seamless.check.probe import Answer, CaseFailedError, Probe, Session, money
from teenpatti.seamless.check.runner import CaseResult, OperatorCheck, Report

__all__ = [
    "CASES",
    "STAKES_NEEDED",
    "Answer",
    "Case",
    "CaseFailedError",
    "CaseResult",
    "Exchange",
    "HttpTransport",
    "NoAnswerError",
    "OperatorCheck",
    "Probe",
    "Received",
    "Report",
    "Sent",
    "Session",
    "Transport",
    "UnreachableError",
    "exchange_view",
    "money",
    "redact",
]
