"""Each bet type's exact RTP for a pay table, and its whole PAR sheet, from the rules engine.

The deal counts behind them (every one of the 407,170,400 deals) take a couple of seconds to
count, once per process: `warm` counts them off the event loop, and then an RTP costs a sum.
Only this module imports the PAR analysis (and numpy), when a table is first opened or changed
or its PAR sheet is first asked for, so that an instance starts without it
(tests/unit/test_imports.py)."""

from __future__ import annotations

import asyncio
import functools
import json
from collections import OrderedDict
from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, with_config

# pydantic reads a TypedDict's fields only from typing_extensions' before Python 3.12
from typing_extensions import TypedDict

from teenpatti import engine
from teenpatti.engine.paytable import format_odds

if TYPE_CHECKING:
    from teenpatti.engine.par import DealCounts

# pay tables whose sheets are kept (a table has one at a time; a studio has a few)
MAX_SHEETS = 64


@functools.cache
def _deal_counts() -> DealCounts:
    from teenpatti.engine.par import count_deals

    return count_deals()


def exact_rtp(pay_table: engine.PayTable) -> Mapping[str, Fraction]:
    """Bet type -> expected return per unit staked, exactly (`ConfigPolicy.rtp_of`)."""
    from teenpatti.engine.par import par_sheet

    sheet = par_sheet(pay_table, _deal_counts())
    return {bet.bet_type.value: bet.rtp for bet in sheet.bets}


async def warm() -> None:
    """Count the deals in a thread, so the first check does not stall the event loop."""
    await asyncio.to_thread(_deal_counts)


@with_config(ConfigDict(use_attribute_docstrings=True))
class ParOutcomeView(TypedDict):
    """One way a bet returns money: what it pays to one ("0" for a push: the stake back)
    and how likely it is, exactly ("p/q") and in per cent (4 decimals)."""

    outcome: str
    """`win`, `push`, or the hand that pays (`pair`, `straight`, `royal_flush`...)."""
    pays: str
    """What it pays to one, as a fraction (`"0"` for a push: the stake back)."""
    probability: str
    """Its exact probability, as a fraction `p/q`."""
    probability_percent: str
    """Its probability in per cent, to 4 decimals."""


@with_config(ConfigDict(use_attribute_docstrings=True))
class BetParView(TypedDict):
    bet_type: str
    rtp: str
    """The exact return to player, `p/q`: the expected return per unit staked, a push returning the
    stake."""
    rtp_percent: str
    """The return to player in per cent, to 4 decimals, e.g. `"97.2973"`."""
    outcomes: list[ParOutcomeView]
    """Every way the bet returns money."""


class ParSheetView(TypedDict):
    paytable: dict[str, Any]
    bets: list[BetParView]


def _fraction(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def percent_string(value: Fraction, places: int = 4) -> str:
    """`value` in per cent, rounded half-even to `places` decimals, from the exact fraction
    (never through a float): 36/37 -> "97.2973"."""
    scaled = round(value * 100 * 10**places)
    whole, part = divmod(abs(scaled), 10**places)
    return f"{'-' if scaled < 0 else ''}{whole}.{part:0{places}d}"


def _sheet_view(paytable: Mapping[str, Any]) -> ParSheetView:
    from teenpatti.engine.par import par_sheet

    sheet = par_sheet(engine.pay_table_from_mapping(paytable), _deal_counts())
    return {
        "paytable": dict(paytable),
        "bets": [
            {
                "bet_type": bet.bet_type.value,
                "rtp": _fraction(bet.rtp),
                "rtp_percent": percent_string(bet.rtp),
                "outcomes": [
                    {
                        "outcome": line.event,
                        "pays": "0" if line.odds is None else format_odds(line.odds),
                        "probability": _fraction(line.probability),
                        "probability_percent": percent_string(line.probability),
                    }
                    for line in bet.lines
                ],
            }
            for bet in sheet.bets
        ],
    }


class ParSheets:
    """The PAR sheet of each pay table asked for, computed once (in a thread: the first one
    counts every deal) and kept, the least recently used dropped beyond `MAX_SHEETS`."""

    def __init__(self, max_sheets: int = MAX_SHEETS) -> None:
        self._sheets: OrderedDict[str, ParSheetView] = OrderedDict()
        self._max_sheets = max_sheets
        self._computing = asyncio.Lock()

    async def of(self, paytable: Mapping[str, Any]) -> ParSheetView:
        key = json.dumps(paytable, sort_keys=True, separators=(",", ":"))
        if key not in self._sheets:
            async with self._computing:  # one computation at a time, each once
                if key not in self._sheets:
                    self._sheets[key] = await asyncio.to_thread(_sheet_view, paytable)
                    while len(self._sheets) > self._max_sheets:
                        self._sheets.popitem(last=False)
        self._sheets.move_to_end(key)
        return self._sheets[key]
