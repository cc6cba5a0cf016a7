"""Each bet type's exact RTP for a pay table, from the rules engine's PAR sheet.

The deal counts behind it (every one of the 407,170,400 deals) take a couple of seconds to
count, once per process: `warm` counts them off the event loop, and then an RTP costs a sum.
Only this module imports the PAR analysis (and numpy), when a table is first opened or changed,
so that an instance starts without it (tests/unit/test_imports.py)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING

from teenpatti import engine

if TYPE_CHECKING:
    from teenpatti.engine.par import DealCounts


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
