"""Which scanned cards the table trusts enough to decide on (decision 0055): a card comes
from the device the gateway registered to this table and still active, with a credential
older than the round's first card (decision 0085), with a sequence number above the device's
last, read in the round in play. Anything else is refused before
the round's rules see it, and the refusal never carries the card's value (it may be a card
of a round still open for bets; the value stays in the gateway's store).

Pure: the device as the table last heard of it and the table's state are passed in."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from teenpatti.events.catalog import CardRefused, CardScanned

from .state import RoundPhase, TableState

ScreenReason = Literal["unregistered_device", "foreign_device", "wrong_round", "stale_sequence"]


@dataclass(frozen=True)
class Scanner:
    """A device as the table heard of it on `scanner.events`."""

    device_id: str
    table_id: str
    active: bool
    last_sequence: int  # the highest sequence number seen since its credential was issued


@dataclass(frozen=True)
class Screened:
    refusal: CardRefused | None  # None: the scan goes on to the round's rules
    scanner: Scanner | None  # the device after this scan (its sequence raised)


def screen_scan(scanner: Scanner | None, scan: CardScanned, state: TableState) -> Screened:
    """The scan passed on, or its refusal, for a table that exists (`state`)."""
    r = state.round_in_play
    last = state.round.round_id if state.round is not None else None
    round_id = r.round_id if r is not None else last

    def refused(reason: ScreenReason, detail: str) -> Screened:
        refusal = CardRefused(
            table_id=state.table_id,
            round_id=round_id,
            scan_id=scan.scan_id,
            card=None,
            reason=reason,
            detail=detail,
        )
        return Screened(refusal, scanner)

    device = scan.device_id
    if scanner is None:
        return refused("unregistered_device", f"device {device} was never registered to a table")
    if scanner.table_id != state.table_id:
        return refused(
            "foreign_device", f"device {device} is registered to table {scanner.table_id}"
        )
    if not scanner.active:
        return refused(
            "unregistered_device", f"device {device} is no longer table {state.table_id}'s"
        )
    if r is not None and r.started and scanner.last_sequence == 0:
        # its credential came after the round's first card: one round, one device and one
        # credential (decision 0085); refused whatever its number, which stays unused
        return refused(
            "unregistered_device",
            f"device {device}'s credential was issued after round {r.round_id}'s first card;"
            " it deals from the next round",
        )
    if scan.sequence <= scanner.last_sequence:
        return refused(
            "stale_sequence",
            f"sequence {scan.sequence} is not above device {device}'s last,"
            f" {scanner.last_sequence}",
        )
    after = replace(scanner, last_sequence=scan.sequence)
    # While bets are taken, a read the gateway made before it heard of the round (no round) is
    # a card out of the shoe all the same: the rules seal it and pause the round (0058).
    lagging = r is not None and r.phase is RoundPhase.BETTING and scan.round_id is None
    if r is not None and scan.round_id != r.round_id and not lagging:
        made_in = scan.round_id or "no round"
        detail = f"read in {made_in}; the round in play is {r.round_id}"
        return Screened(refused("wrong_round", detail).refusal, after)
    return Screened(None, after)
