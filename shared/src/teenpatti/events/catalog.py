"""Every event of the game, by the service that emits it and the topic it travels on.

One event per fact. Bets travel in events of lines, one line per bet: a slip (`BetsPlaced`)
carries a `SlipBet` line for each bet placed, a payment (`BetsPaid`) a `BetPaid` line for
each bet paid, and a settlement part (`BetsSettled`) a `BetSettled` line for each bet,
stating its result. A line holds only what differs from bet to bet; `each()` gives every
line whole (`PlacedLine`, `PaidLine`, `SettledLine`), with what its event says of all of them.

All topics are keyed by `table_id`. Money is integer minor units of `currency` (ISO 4217).
Cards are in the engine's canonical form (`AS`, `TD`, `9C`). Bet types, hands and
outcomes use the engine's names (`player_a`, `pair_plus_b`, `trail_of_aces`, `won`...).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any, ClassVar, Literal, TypeVar
from uuid import UUID

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from teenpatti import engine
from teenpatti.events.contracts import Event, EventRegistry

TABLE_EVENTS = "table.events"
SCANNER_EVENTS = "scanner.events"
WALLET_EVENTS = "wallet.events"
SETTLEMENT_EVENTS = "settlement.events"
ALL_TOPICS = (TABLE_EVENTS, SCANNER_EVENTS, WALLET_EVENTS, SETTLEMENT_EVENTS)

registry = EventRegistry()

BetTypeName = Literal["player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus"]
Position = Literal["A1", "B1", "A2", "B2", "A3", "B3"]
DEALING_ORDER: tuple[Position, ...] = ("A1", "B1", "A2", "B2", "A3", "B3")
Winner = Literal["player_a", "player_b", "tie"]
ThreeCardHandName = Literal[
    "trail_of_aces", "trail", "straight_flush", "straight", "flush", "pair", "high_card"
]
SixCardHandName = Literal[
    "royal_flush",
    "straight_flush",
    "four_of_a_kind",
    "full_house",
    "flush",
    "straight",
    "three_of_a_kind",
]
Outcome = Literal["won", "lost", "push", "refunded"]
Currency = Annotated[str, Field(pattern=r"^[A-Z]{3}$")]
MinorUnits = Annotated[int, Field(ge=0)]
Card = Annotated[str, Field(pattern=r"^(10|[2-9JQKA])[SHDC]$")]
Actor = Annotated[str, Field(min_length=1, max_length=100)]


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class StakeLimit(_Value):
    """The smallest and largest stake accepted on one bet type, in minor units."""

    min: Annotated[int, Field(gt=0)]
    max: Annotated[int, Field(gt=0)]


# currency -> bet type -> limit; every bet type of every currency is priced
Limits = dict[Currency, dict[BetTypeName, StakeLimit]]


class CurrencyTotals(_Value):
    stake: MinorUnits
    returned: MinorUnits
    house_result: int  # stake - returned: positive when the house won


Whole = TypeVar("Whole", bound=_Value)


def _each_line(event: Event, lines: Sequence[_Value], whole: type[Whole]) -> list[Whole]:
    """An event of lines (`BetsPlaced`, `BetsPaid`, `BetsSettled`) as its lines whole: each
    line with the fields the event holds for all of them."""
    shared = {name: value for name, value in event if name != "bets"}
    return [whole(**shared, **dict(line)) for line in lines]


# ------------------------------------------------------------------ table -> table.events
@registry.register
class TableOpened(Event):
    """A supervisor opened (or reconfigured) a table; rounds start by themselves."""

    event_type: ClassVar[str] = "TableOpened"
    table_id: str
    name: str
    betting_seconds: Annotated[float, Field(gt=0, le=600)]
    result_pause_seconds: Annotated[float, Field(ge=0, le=600)]
    limits: Limits
    paytable: dict[str, Any]  # engine.pay_table_to_mapping form
    actor: Actor


@registry.register
class TableClosed(Event):
    event_type: ClassVar[str] = "TableClosed"
    table_id: str
    actor: Actor
    reason: str


@registry.register
class RoundOpened(Event):
    event_type: ClassVar[str] = "RoundOpened"
    round_id: str
    table_id: str
    number: Annotated[int, Field(ge=1)]
    opened_at: AwareDatetime
    betting_closes_at: AwareDatetime
    limits: Limits
    paytable: dict[str, Any]


@registry.register
class BettingClosed(Event):
    event_type: ClassVar[str] = "BettingClosed"
    round_id: str
    table_id: str
    closed_at: AwareDatetime


@registry.register
class CardDealt(Event):
    event_type: ClassVar[str] = "CardDealt"
    round_id: str
    table_id: str
    position: Position
    card: Card
    scan_id: UUID


@registry.register
class CardRefused(Event):
    """The table did not accept a scanned card; the reason is for the dealer and the audit."""

    event_type: ClassVar[str] = "CardRefused"
    table_id: str
    round_id: str | None
    scan_id: UUID
    card: Card
    reason: Literal[
        "betting_open",
        "round_paused",
        "duplicate_card",
        "no_round_dealing",
        "table_closed",
        "unknown_table",
    ]
    detail: str


@registry.register
class RoundPaused(Event):
    event_type: ClassVar[str] = "RoundPaused"
    round_id: str
    table_id: str
    actor: Actor
    reason: str


@registry.register
class RoundResumed(Event):
    event_type: ClassVar[str] = "RoundResumed"
    round_id: str
    table_id: str
    actor: Actor
    betting_closes_at: AwareDatetime | None  # a new deadline when paused during betting


@registry.register
class RoundCancelled(Event):
    """The round is void: every bet is refunded in full."""

    event_type: ClassVar[str] = "RoundCancelled"
    round_id: str
    table_id: str
    actor: Actor
    reason: str
    cards_dealt: Annotated[int, Field(ge=0, le=6)]


@registry.register
class RoundClosed(Event):
    event_type: ClassVar[str] = "RoundClosed"
    round_id: str
    table_id: str
    cards: Annotated[list[Card], Field(min_length=6, max_length=6)]  # A1 B1 A2 B2 A3 B3
    player_a_hand: ThreeCardHandName
    player_b_hand: ThreeCardHandName
    winner: Winner
    six_card_bonus_hand: SixCardHandName | None

    @classmethod
    def of(cls, round_id: str, table_id: str, cards: Sequence[str]) -> RoundClosed:
        """The round's close with the engine's result of its six cards (A1 B1 A2 B2 A3 B3);
        what the table appends, and what settlement and the audit check it against."""
        result = engine.resolve_round(engine.parse_cards(cards))
        bonus = result.six_card_bonus
        return cls(
            round_id=round_id,
            table_id=table_id,
            cards=[str(card) for card in result.dealt],
            player_a_hand=result.player_a.category.value,
            player_b_hand=result.player_b.category.value,
            winner=result.winner.value,
            six_card_bonus_hand=None if bonus is None else bonus.category.value,
        )

    def outcome(self) -> tuple[str, str, str, str | None]:
        """winner, player_a_hand, player_b_hand, six_card_bonus_hand."""
        return (self.winner, self.player_a_hand, self.player_b_hand, self.six_card_bonus_hand)


# ------------------------------------------------------ scanner-gateway -> scanner.events
@registry.register
class DeviceRegistered(Event):
    event_type: ClassVar[str] = "DeviceRegistered"
    device_id: str
    table_id: str
    actor: Actor


@registry.register
class CardScanned(Event):
    """A read the gateway understood, from a known device for its own table."""

    event_type: ClassVar[str] = "CardScanned"
    scan_id: UUID
    device_id: str
    table_id: str
    card: Card
    raw: str
    scanned_at: AwareDatetime


@registry.register
class ScanRejected(Event):
    """A read the gateway kept but did not pass on, and why."""

    event_type: ClassVar[str] = "ScanRejected"
    scan_id: UUID
    device_id: str
    table_id: str
    raw: str
    reason: Literal[
        "unreadable", "duplicate_read", "unknown_device", "wrong_table", "bad_credential"
    ]
    detail: str
    scanned_at: AwareDatetime


# ------------------------------------------------------------------ wallet -> wallet.events
@registry.register
class FundsDeposited(Event):
    event_type: ClassVar[str] = "FundsDeposited"
    transfer_id: str
    operator_id: str
    player_id: str
    currency: Currency
    amount: Annotated[int, Field(gt=0)]
    balance_after: MinorUnits


@registry.register
class FundsWithdrawn(Event):
    event_type: ClassVar[str] = "FundsWithdrawn"
    transfer_id: str
    operator_id: str
    player_id: str
    currency: Currency
    amount: Annotated[int, Field(gt=0)]
    balance_after: MinorUnits


SLIP_BETS = 6  # the most bets a slip holds: each of the six bet types at most once


class SlipBet(_Value):
    """One bet's line in `BetsPlaced`: what differs between the slip's bets."""

    bet_id: UUID
    bet_type: BetTypeName
    stake: Annotated[int, Field(gt=0)]


class PlacedLine(_Value):
    """A `SlipBet` line whole: the bet placed, with what its slip says of all its bets."""

    bet_id: UUID
    slip_id: UUID
    round_id: str
    table_id: str
    operator_id: str
    player_id: str
    bet_type: BetTypeName
    stake: Annotated[int, Field(gt=0)]
    currency: Currency
    placed_at: AwareDatetime


@registry.register
class BetsPlaced(Event):
    """A slip the wallet took: one event for the slip, a `SlipBet` line per bet placed, in
    the slip's order."""

    event_type: ClassVar[str] = "BetsPlaced"
    slip_id: UUID
    round_id: str
    table_id: str
    operator_id: str
    player_id: str
    currency: Currency
    placed_at: AwareDatetime
    bets: Annotated[list[SlipBet], Field(min_length=1, max_length=SLIP_BETS)]

    def each(self) -> list[PlacedLine]:
        """Each bet placed, whole."""
        return _each_line(self, self.bets, PlacedLine)


@registry.register
class BetBookClosed(Event):
    """The round's bet book is sealed: no bet for it can commit after this."""

    event_type: ClassVar[str] = "BetBookClosed"
    round_id: str
    table_id: str
    bet_count: Annotated[int, Field(ge=0)]
    total_stake: dict[Currency, MinorUnits]
    digest: str  # sha256 of the sorted bet ids, hex


def book_digest(bet_ids: Iterable[UUID | str]) -> str:
    """`BetBookClosed.digest`: sha256 (hex) of the bet ids in canonical form (lower-case,
    hyphenated), sorted as strings and joined by ","; the empty book hashes the empty string."""
    joined = ",".join(
        sorted(str(bet_id if isinstance(bet_id, UUID) else UUID(bet_id)) for bet_id in bet_ids)
    )
    return hashlib.sha256(joined.encode("ascii")).hexdigest()


# bets per BetsSettled, so that a part of the longest lines stays far below Kafka's message
# limit: docs/decisions/0038-settlement-parts-of-1000-bets.md
SETTLEMENT_PART = 1_000


class BetPaid(_Value):
    """One bet's line in `BetsPaid`: the bet's payment, without the round, table and player
    its payment shares."""

    bet_id: UUID
    currency: Currency
    amount: MinorUnits
    outcome: Outcome
    balance_after: MinorUnits


class PaidLine(_Value):
    """A `BetPaid` line whole: the bet's payment, with the round, table and player."""

    bet_id: UUID
    round_id: str
    table_id: str
    operator_id: str
    player_id: str
    currency: Currency
    amount: MinorUnits
    outcome: Outcome
    balance_after: MinorUnits


@registry.register
class BetsPaid(Event):
    """The payment of one player's bets that one settlement part (`BetsSettled`) settles: a
    `BetPaid` line per bet, in the part's order, `balance_after` running over the lines. What
    the wallet emits, one per player and part, so that a round is paid with about one event
    per slip rather than one per bet."""

    event_type: ClassVar[str] = "BetsPaid"
    round_id: str
    table_id: str
    operator_id: str
    player_id: str
    bets: Annotated[list[BetPaid], Field(min_length=1, max_length=SETTLEMENT_PART)]

    def each(self) -> list[PaidLine]:
        """Each bet's payment, whole."""
        return _each_line(self, self.bets, PaidLine)


# ---------------------------------------------------------- settlement -> settlement.events
class BetSettled(_Value):
    """One bet's line in `BetsSettled`: the bet settled, stating its result, without the
    round and table its part shares."""

    bet_id: UUID
    operator_id: str
    player_id: str
    bet_type: BetTypeName
    stake: Annotated[int, Field(gt=0)]
    currency: Currency
    outcome: Outcome
    returned: MinorUnits
    fraction_kept: str  # "p/q" of a minor unit, "0" when nothing was rounded away
    odds: str | None  # the pay line applied, "p/q", when won


class SettledLine(_Value):
    """A `BetSettled` line whole: the bet settled, with its round and table."""

    bet_id: UUID
    round_id: str
    table_id: str
    operator_id: str
    player_id: str
    bet_type: BetTypeName
    stake: Annotated[int, Field(gt=0)]
    currency: Currency
    outcome: Outcome
    returned: MinorUnits
    fraction_kept: str
    odds: str | None


@registry.register
class BetsSettled(Event):
    """A settlement part: the settlement of a run of a round's bets, in the round's order
    (each player's bets together, as placed). A settlement part carries many `BetSettled`
    lines, one per bet, stating each bet's result. What the settlement service emits, a part
    of up to `SETTLEMENT_PART` bets per event, so that a round of 100,000 bets travels as
    100 records and is paid a part per transaction."""

    event_type: ClassVar[str] = "BetsSettled"
    round_id: str
    table_id: str
    bets: Annotated[list[BetSettled], Field(min_length=1, max_length=SETTLEMENT_PART)]

    @classmethod
    def parts(
        cls, round_id: str, table_id: str, lines: Sequence[BetSettled | Mapping[str, Any]]
    ) -> list[BetsSettled]:
        """The round's `lines` (lines, or their fields to validate a part at once),
        in their order, as parts of up to `SETTLEMENT_PART`."""
        return [
            cls.model_validate(
                {
                    "round_id": round_id,
                    "table_id": table_id,
                    "bets": lines[start : start + SETTLEMENT_PART],
                }
            )
            for start in range(0, len(lines), SETTLEMENT_PART)
        ]

    def each(self) -> list[SettledLine]:
        """Each bet settled, whole."""
        return _each_line(self, self.bets, SettledLine)


@registry.register
class RoundSettled(Event):
    event_type: ClassVar[str] = "RoundSettled"
    round_id: str
    table_id: str
    cancelled: bool
    bet_count: Annotated[int, Field(ge=0)]
    totals: dict[Currency, CurrencyTotals]
    settled_at: AwareDatetime


__all__ = [
    "ALL_TOPICS",
    "DEALING_ORDER",
    "SCANNER_EVENTS",
    "SETTLEMENT_EVENTS",
    "SETTLEMENT_PART",
    "SLIP_BETS",
    "TABLE_EVENTS",
    "WALLET_EVENTS",
    "BetBookClosed",
    "BetPaid",
    "BetSettled",
    "BetsPaid",
    "BetsPlaced",
    "BetsSettled",
    "BettingClosed",
    "CardDealt",
    "CardRefused",
    "CardScanned",
    "CurrencyTotals",
    "DeviceRegistered",
    "FundsDeposited",
    "FundsWithdrawn",
    "Limits",
    "PaidLine",
    "PlacedLine",
    "RoundCancelled",
    "RoundClosed",
    "RoundOpened",
    "RoundPaused",
    "RoundResumed",
    "RoundSettled",
    "ScanRejected",
    "SettledLine",
    "SlipBet",
    "StakeLimit",
    "TableClosed",
    "TableOpened",
    "book_digest",
    "registry",
]
