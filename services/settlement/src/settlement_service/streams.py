"""The streams settlement appends to, and what an append is caused by.

A round's settlement (its `BetsSettled` parts, `RoundSettled`, and any reversal after them)
is one stream, `settlement-<round_id>`, whose versions count its parts; the requests and
confirmations that resolve a held round are another, so they never move those versions."""

from __future__ import annotations

from typing import Protocol
from uuid import UUID


def settlement_stream(round_id: str) -> str:
    return f"settlement-{round_id}"


def resolution_stream(round_id: str) -> str:
    """The requests and confirmations that resolve a held round: apart from its settlement
    stream, whose versions count its parts."""
    return f"resolution-{round_id}"


class Cause(Protocol):
    """What a settlement's events are appended as caused by: an input event, or the
    confirmation of a resolution."""

    @property
    def event_id(self) -> UUID: ...

    @property
    def correlation_id(self) -> UUID: ...
