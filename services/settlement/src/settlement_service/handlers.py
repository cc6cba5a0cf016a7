"""The settlement use cases, composed over one event store (the service's own database):
the facts it receives (`receiving.py`) and two supervisors' resolutions of a held round
(`resolving.py`), both settling rounds through one `Settling` (`settling.py`), which holds
a round on conflicting inputs (`holding.py`) and reverses a voided one (`reversing.py`).
`app.py`'s subscriptions name the facts' handlers; the routes, the resolutions."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from teenpatti.eventsourcing import AsyncpgEventStore

from .domain import Settle
from .receiving import Receiving
from .resolving import Resolving
from .settling import Settling


def _utc_now() -> datetime:
    return datetime.now(UTC)


class Settlement:
    """The settlement use cases: a handler per fact received, and the resolutions."""

    def __init__(
        self,
        store: AsyncpgEventStore,
        clock: Callable[[], datetime] = _utc_now,
        *,
        on_decided: Callable[[Settle], None] | None = None,
        check_every_line: bool = False,
    ) -> None:
        """`on_decided` hears of each settlement decided with events left to append (the
        `Settler`'s `take`), once they are in the consumer's transaction;
        `check_every_line`: see `Settle`."""
        settling = Settling(store, clock, on_decided=on_decided, check_every_line=check_every_line)
        receiving = Receiving(settling)
        resolving = Resolving(store, settling, clock)
        self.round_opened = receiving.round_opened
        self.round_closed = receiving.round_closed
        self.round_cancelled = receiving.round_cancelled
        self.round_voided = receiving.round_voided
        self.bets_placed = receiving.bets_placed
        self.book_closed = receiving.book_closed
        self.request_resolution = resolving.request_resolution
        self.confirm_resolution = resolving.confirm_resolution
