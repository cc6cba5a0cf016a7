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

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator

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
# where a player's money is: in the wallet's accounts (`transfer`), or with the operator, which
# the wallet calls for every bet, win and rollback (`seamless`, docs/operators.md)
WalletMode = Literal["transfer", "seamless"]
Currency = Annotated[str, Field(pattern=r"^[A-Z]{3}$")]
# Money bounds every consumer checks as it decodes (an event beyond them is parked): one stake
# at most MAX_STAKE; one amount at most what the largest stake returns at the largest odds
# (10,000:1), so that a part's 1,000 of them still sum within a bigint; a sum (a balance, a
# round's totals) what a Postgres bigint holds; docs/decisions/0061-money-bounds-and-exposure.md
MAX_STAKE = 10**11
MAX_MINOR_UNITS = MAX_STAKE * 10_001
MAX_TOTAL = 2**63 - 1
MAX_CURRENCIES = 200  # of a round's limits, a book, a round's totals
# an id of the money events (round, table, operator, player, transfer): far above any in use
Identifier = Annotated[str, Field(min_length=1, max_length=200)]
FractionText = Annotated[str, Field(min_length=1, max_length=50)]  # "p/q", or "0"
MinorUnits = Annotated[int, Field(ge=0, le=MAX_MINOR_UNITS)]
Stake = Annotated[int, Field(gt=0, le=MAX_STAKE)]
Total = Annotated[int, Field(ge=0, le=MAX_TOTAL)]
Card = Annotated[str, Field(pattern=r"^(10|[2-9JQKA])[SHDC]$")]
Actor = Annotated[str, Field(min_length=1, max_length=100)]


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class StakeLimit(_Value):
    """The smallest and largest stake accepted on one bet type, in minor units."""

    min: Stake
    max: Stake


# currency -> bet type -> limit; every bet type of every currency is priced
Limits = Annotated[dict[Currency, dict[BetTypeName, StakeLimit]], Field(max_length=MAX_CURRENCIES)]


class CurrencyTotals(_Value):
    model_config = ConfigDict(use_attribute_docstrings=True)

    stake: Total
    """The stakes, in integer minor units of the currency."""
    returned: Total
    """What was returned to players, stakes included, in integer minor units."""
    house_result: int
    """`stake` - `returned`: positive when the house won."""


Whole = TypeVar("Whole", bound=_Value)


Part = TypeVar("Part", bound=Event)


def _parts(cls: type[Part], round_id: str, table_id: str, lines: Sequence[Any]) -> list[Part]:
    """A round's `lines`, in their order, as events of up to `SETTLEMENT_PART` lines."""
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
    # the second supervisor who approved this configuration (`ConfigChangeProposed` by
    # `actor`); None when one sufficed (docs/decisions/0057-game-configuration-four-eyes.md)
    approved_by: Actor | None = None


@registry.register
class ConfigChangeProposed(Event):
    """A supervisor proposed a pay table or limits (of an open table, or a pay table other
    than the published one): it applies once another supervisor approves it (`TableOpened`
    with `approved_by`), from the next round."""

    event_type: ClassVar[str] = "ConfigChangeProposed"
    table_id: str
    change_id: UUID
    name: str
    betting_seconds: Annotated[float, Field(gt=0, le=600)]
    result_pause_seconds: Annotated[float, Field(ge=0, le=600)]
    limits: Limits
    paytable: dict[str, Any]  # engine.pay_table_to_mapping form
    rtp: dict[BetTypeName, str]  # each bet type's exact RTP, "p/q", as the engine computes it
    actor: Actor


@registry.register
class ConfigChangeRejected(Event):
    """The proposed change will not apply: rejected by a supervisor (its proposer withdrawing
    it included)."""

    event_type: ClassVar[str] = "ConfigChangeRejected"
    table_id: str
    change_id: UUID
    actor: Actor
    reason: Annotated[str, Field(max_length=500)]


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
    # None when the scan itself is not trusted (a device not registered to the table, another
    # round's or a stale sequence): its value is kept only in the gateway's store; or when it
    # was read before betting closed: its value is kept only in the table's store
    # (docs/decisions/0058-a-card-read-during-betting-is-sealed.md)
    card: Card | None
    reason: Literal[
        "betting_open",
        "round_paused",
        "duplicate_card",
        "no_round_dealing",
        "table_closed",
        "unknown_table",
        "unregistered_device",
        "foreign_device",
        "wrong_round",
        "stale_sequence",
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
class VoidRequested(Event):
    """A supervisor asked to void a started round: another supervisor's cancel confirms it."""

    event_type: ClassVar[str] = "VoidRequested"
    round_id: str
    table_id: str
    actor: Actor
    reason: Annotated[str, Field(max_length=500)]
    cards_dealt: Annotated[int, Field(ge=1, le=5)]


@registry.register
class CardMarkedWrong(Event):
    """A supervisor marked a dealt card wrong (a misread that is still a card, a card on the
    wrong spot): the round is paused at once; it goes on only once another supervisor resumes
    it (the card stands) or two void it."""

    event_type: ClassVar[str] = "CardMarkedWrong"
    round_id: str
    table_id: str
    actor: Actor
    position: Annotated[str, Field(pattern=r"^[AB][123]$")]
    reason: Annotated[str, Field(max_length=500)]


@registry.register
class CardsWithdrawn(Event):
    """A second supervisor took back the card marked wrong and every card dealt after it: the
    dealer deals again from that position (the round resumes with it)."""

    event_type: ClassVar[str] = "CardsWithdrawn"
    round_id: str
    table_id: str
    actor: Actor
    marked_by: Actor
    positions: Annotated[
        list[Annotated[str, Field(pattern=r"^[AB][123]$")]], Field(min_length=1, max_length=5)
    ]
    reason: Annotated[str, Field(max_length=500)]


@registry.register
class DeckReplaced(Event):
    """After a card was exposed during betting, a supervisor replaced the deck (or the card):
    the round may resume."""

    event_type: ClassVar[str] = "DeckReplaced"
    round_id: str
    table_id: str
    actor: Actor
    reason: Annotated[str, Field(max_length=500)]


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


@registry.register
class ResultVoidRequested(Event):
    """A supervisor asks to void a round after its result (a misread that was still a card, a
    card on the wrong spot, found once the round closed): nothing changes until another
    supervisor confirms it (`RoundVoided`) or any supervisor rejects it."""

    event_type: ClassVar[str] = "ResultVoidRequested"
    round_id: str
    table_id: str
    actor: Actor
    reason: Annotated[str, Field(min_length=1, max_length=500)]


@registry.register
class ResultVoidRejected(Event):
    """A request to void a round after its result, withdrawn or turned down: the result
    stands."""

    event_type: ClassVar[str] = "ResultVoidRejected"
    round_id: str
    table_id: str
    actor: Actor
    requested_by: Actor
    reason: Annotated[str, Field(min_length=1, max_length=500)]


@registry.register
class RoundVoided(Event):
    """Two supervisors voided a round after its result: every bet of it is refunded in full
    and what it returned is taken back (settlement states it bet by bet, `BetsReversed`). It
    carries the result it voids, so that every reader shows both: the result as dealt and
    the void."""

    event_type: ClassVar[str] = "RoundVoided"
    round_id: str
    table_id: str
    requested_by: Actor
    actor: Actor  # the second supervisor, who confirmed it
    reason: Annotated[str, Field(min_length=1, max_length=1100)]
    closed_at: AwareDatetime  # when the voided result was recorded
    cards: Annotated[list[Card], Field(min_length=6, max_length=6)]  # the voided result
    player_a_hand: ThreeCardHandName
    player_b_hand: ThreeCardHandName
    winner: Winner
    six_card_bonus_hand: SixCardHandName | None

    @model_validator(mode="after")
    def _two_people(self) -> RoundVoided:
        if self.actor == self.requested_by:
            raise ValueError("a void after the result is confirmed by another supervisor")
        return self


@registry.register
class VideoLost(Event):
    """The studio reports the table's video or stream lost: a round that has not started is
    cancelled (rules, error handling), a started one plays to its result, and no new round
    opens until `VideoRestored`."""

    event_type: ClassVar[str] = "VideoLost"
    table_id: str
    actor: Actor
    reason: Annotated[str, Field(min_length=1, max_length=500)]


@registry.register
class VideoRestored(Event):
    """The studio reports the table's video back: rounds open again."""

    event_type: ClassVar[str] = "VideoRestored"
    table_id: str
    actor: Actor
    reason: Annotated[str, Field(max_length=500)] = ""


@registry.register
class RoundsHeld(Event):
    """The table opens no new round: a service a round needs (the wallet, settlement) cannot
    take one now; `reasons` says which and why."""

    event_type: ClassVar[str] = "RoundsHeld"
    table_id: str
    reasons: Annotated[
        list[Annotated[str, Field(max_length=500)]], Field(min_length=1, max_length=20)
    ]


@registry.register
class RoundsReleased(Event):
    """Every service a round needs is ready again: the table opens rounds."""

    event_type: ClassVar[str] = "RoundsReleased"
    table_id: str


# ------------------------------------------------------ scanner-gateway -> scanner.events
# A device's events are one stream (`device-<device_id>`): a consumer applies one only if
# its stream version is above the last it applied for the device (they travel keyed by
# table, so a device moved between tables may be heard out of order).
DeviceChangeKind = Literal["register", "rotate"]
# the first 64 bits of the SHA-256 of a device's credential, as the device shows it
Fingerprint = Annotated[str, Field(pattern=r"^[0-9a-f]{4}(-[0-9a-f]{4}){3}$")]


@registry.register
class DeviceChangeProposed(Event):
    """A supervisor proposed a device for a table (`register`) or a new credential for it
    (`rotate`): nothing changes until another supervisor approves it, having read the same
    fingerprint off the device (docs/decisions/0085-a-scanner-needs-two-supervisors.md). The
    credential is made on the device; the gateway keeps only its SHA-256, never in an event."""

    event_type: ClassVar[str] = "DeviceChangeProposed"
    change_id: UUID
    device_id: str
    table_id: str
    kind: DeviceChangeKind
    fingerprint: Fingerprint
    actor: Actor


@registry.register
class DeviceChangeRejected(Event):
    """The proposed device change will not apply: rejected by a supervisor (its proposer
    withdrawing it included)."""

    event_type: ClassVar[str] = "DeviceChangeRejected"
    change_id: UUID
    device_id: str
    table_id: str
    actor: Actor
    reason: Annotated[str, Field(max_length=500)]


@registry.register
class DeviceRegistered(Event):
    """The table's one active scanner from now on, with a new credential; its scans'
    sequence starts again."""

    event_type: ClassVar[str] = "DeviceRegistered"
    device_id: str
    table_id: str
    actor: Actor  # who proposed it
    # the `DeviceChangeProposed` it applies and the other supervisor who approved it; None:
    # registered by one supervisor alone (the audit reports its cards: device_not_approved)
    change_id: UUID | None = None
    approved_by: Actor | None = None


@registry.register
class DeviceCredentialRotated(Event):
    """The device's credential was replaced; the old one no longer works, the sequence
    starts again."""

    event_type: ClassVar[str] = "DeviceCredentialRotated"
    device_id: str
    table_id: str
    actor: Actor  # who proposed it
    # as for `DeviceRegistered`
    change_id: UUID | None = None
    approved_by: Actor | None = None


@registry.register
class DeviceRevoked(Event):
    """The device may no longer scan for `table_id`: revoked by a supervisor, replaced by
    another device registered to the table, or moved to another table."""

    event_type: ClassVar[str] = "DeviceRevoked"
    device_id: str
    table_id: str
    actor: Actor
    reason: Literal["revoked", "replaced", "moved"]
    detail: Annotated[str, Field(max_length=500)]


ScanSequence = Annotated[int, Field(ge=1, le=2**63 - 1)]


@registry.register
class CardScanned(Event):
    """A read the gateway understood, from the table's active device, with the device's
    sequence number and the round the gateway believed in play (None: none)."""

    event_type: ClassVar[str] = "CardScanned"
    scan_id: UUID
    device_id: str
    table_id: str
    round_id: str | None
    sequence: ScanSequence
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
    sequence: ScanSequence | None  # None: the read carried none (or it was not read)
    reason: Literal[
        "unreadable",
        "duplicate_read",
        "unknown_device",
        "wrong_table",
        "bad_credential",
        "revoked_device",
        "stale_sequence",
    ]
    detail: str
    scanned_at: AwareDatetime


# ------------------------------------------------------------------ wallet -> wallet.events
@registry.register
class FundsDeposited(Event):
    event_type: ClassVar[str] = "FundsDeposited"
    transfer_id: Identifier
    operator_id: Identifier
    player_id: Identifier
    currency: Currency
    amount: Annotated[int, Field(gt=0)]
    balance_after: Total


@registry.register
class FundsWithdrawn(Event):
    event_type: ClassVar[str] = "FundsWithdrawn"
    transfer_id: Identifier
    operator_id: Identifier
    player_id: Identifier
    currency: Currency
    amount: Annotated[int, Field(gt=0)]
    balance_after: Total


SLIP_BETS = 6  # the most bets a slip holds: each of the six bet types at most once
# the most bets of one round a consumer takes (0061)
MAX_ROUND_BETS = 10_000_000


class SlipBet(_Value):
    """One bet's line in `BetsPlaced`: what differs between the slip's bets."""

    bet_id: UUID
    bet_type: BetTypeName
    stake: Stake


class PlacedLine(_Value):
    """A `SlipBet` line whole: the bet placed, with what its slip says of all its bets."""

    bet_id: UUID
    slip_id: UUID
    round_id: Identifier
    table_id: Identifier
    operator_id: Identifier
    player_id: Identifier
    bet_type: BetTypeName
    stake: Stake
    currency: Currency
    placed_at: AwareDatetime
    wallet: WalletMode = "transfer"


@registry.register
class BetsPlaced(Event):
    """A slip the wallet took: one event for the slip, a `SlipBet` line per bet placed, in
    the slip's order."""

    event_type: ClassVar[str] = "BetsPlaced"
    slip_id: UUID
    round_id: Identifier
    table_id: Identifier
    operator_id: Identifier
    player_id: Identifier
    currency: Currency
    placed_at: AwareDatetime
    # `seamless`: the stake was debited by the operator's wallet, not from an account here
    wallet: WalletMode = "transfer"
    bets: Annotated[list[SlipBet], Field(min_length=1, max_length=SLIP_BETS)]

    def each(self) -> list[PlacedLine]:
        """Each bet placed, whole."""
        return _each_line(self, self.bets, PlacedLine)


@registry.register
class BetBookClosed(Event):
    """The round's bet book is sealed: no bet for it can commit after this."""

    event_type: ClassVar[str] = "BetBookClosed"
    round_id: Identifier
    table_id: Identifier
    bet_count: Annotated[int, Field(ge=0, le=MAX_ROUND_BETS)]
    total_stake: Annotated[dict[Currency, Total], Field(max_length=MAX_CURRENCIES)]
    digest: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]  # sha256 of the sorted bet ids


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
    balance_after: Total


class PaidLine(_Value):
    """A `BetPaid` line whole: the bet's payment, with the round, table and player."""

    bet_id: UUID
    round_id: Identifier
    table_id: Identifier
    operator_id: Identifier
    player_id: Identifier
    currency: Currency
    amount: MinorUnits
    outcome: Outcome
    balance_after: Total
    wallet: WalletMode = "transfer"


@registry.register
class BetsPaid(Event):
    """The payment of one player's bets that one settlement part (`BetsSettled`) settles: a
    `BetPaid` line per bet, in the part's order, `balance_after` running over the lines. What
    the wallet emits, one per player and part, so that a round is paid with about one event
    per slip rather than one per bet."""

    event_type: ClassVar[str] = "BetsPaid"
    round_id: Identifier
    table_id: Identifier
    operator_id: Identifier
    player_id: Identifier
    # `seamless`: paid by a win owed to the operator's wallet; each `balance_after` is 0
    wallet: WalletMode = "transfer"
    bets: Annotated[list[BetPaid], Field(min_length=1, max_length=SETTLEMENT_PART)]

    def each(self) -> list[PaidLine]:
        """Each bet's payment, whole."""
        return _each_line(self, self.bets, PaidLine)


class BetCorrected(_Value):
    """One bet's line in `BetsCorrected`."""

    bet_id: UUID
    refunded: Stake  # its stake, back to the player
    reversed: MinorUnits  # what it returned, taken back


@registry.register
class BetsCorrected(Event):
    """A player's bets of one reversal part (`BetsReversed`) put right, in one currency: what
    the wallet verified and moved. At a `transfer` wallet, `applied` is the movement of the
    balance (the refunds less the returns taken back, never below a zero balance) and
    `shortfall` what the balance could not cover, owed and listed, never lost. At a
    `seamless` wallet nothing moves here: the protocol has no call to reverse an ended bet, so
    the whole `net` is listed for the operator and `applied` is 0."""

    event_type: ClassVar[str] = "BetsCorrected"
    round_id: Identifier
    table_id: Identifier
    operator_id: Identifier
    player_id: Identifier
    currency: Currency
    wallet: WalletMode = "transfer"
    net: Annotated[int, Field(ge=-MAX_TOTAL, le=MAX_TOTAL)]  # refunded - reversed
    applied: Annotated[int, Field(ge=-MAX_TOTAL, le=MAX_TOTAL)]
    shortfall: Total
    balance_after: Total  # 0 at a seamless wallet
    bets: Annotated[list[BetCorrected], Field(min_length=1, max_length=SETTLEMENT_PART)]

    @model_validator(mode="after")
    def _adds_up(self) -> BetsCorrected:
        if self.net != sum(b.refunded - b.reversed for b in self.bets):
            raise ValueError("net is the lines' refunds less what they returned")
        if self.wallet == "seamless":
            if self.applied != 0 or self.shortfall != 0 or self.balance_after != 0:
                raise ValueError("a seamless correction moves nothing here: it is listed")
        elif self.applied + (-self.shortfall) != self.net or (
            self.shortfall and self.balance_after != 0
        ):
            raise ValueError("applied less the shortfall is the net; a shortfall empties")
        return self


# ---------------------------------------------------------- settlement -> settlement.events
class BetSettled(_Value):
    """One bet's line in `BetsSettled`: the bet settled, stating its result, without the
    round and table its part shares."""

    bet_id: UUID
    operator_id: Identifier
    player_id: Identifier
    bet_type: BetTypeName
    stake: Stake
    currency: Currency
    outcome: Outcome
    returned: MinorUnits
    fraction_kept: FractionText  # "p/q" of a minor unit, "0" when nothing was rounded away
    odds: FractionText | None  # the pay line applied, "p/q", when won


class SettledLine(_Value):
    """A `BetSettled` line whole: the bet settled, with its round and table."""

    bet_id: UUID
    round_id: Identifier
    table_id: Identifier
    operator_id: Identifier
    player_id: Identifier
    bet_type: BetTypeName
    stake: Stake
    currency: Currency
    outcome: Outcome
    returned: MinorUnits
    fraction_kept: FractionText
    odds: FractionText | None


@registry.register
class BetsSettled(Event):
    """A settlement part: the settlement of a run of a round's bets, in the round's order
    (each player's bets together, as placed). A settlement part carries many `BetSettled`
    lines, one per bet, stating each bet's result. What the settlement service emits, a part
    of up to `SETTLEMENT_PART` bets per event, so that a round of 100,000 bets travels as
    100 records and is paid a part per transaction."""

    event_type: ClassVar[str] = "BetsSettled"
    round_id: Identifier
    table_id: Identifier
    bets: Annotated[list[BetSettled], Field(min_length=1, max_length=SETTLEMENT_PART)]

    @classmethod
    def parts(
        cls, round_id: str, table_id: str, lines: Sequence[BetSettled | Mapping[str, Any]]
    ) -> list[BetsSettled]:
        """The round's `lines` (lines, or their fields to validate a part at once),
        in their order, as parts of up to `SETTLEMENT_PART`."""
        return _parts(cls, round_id, table_id, lines)

    def each(self) -> list[SettledLine]:
        """Each bet settled, whole."""
        return _each_line(self, self.bets, SettledLine)


@registry.register
class RoundSettled(Event):
    event_type: ClassVar[str] = "RoundSettled"
    round_id: Identifier
    table_id: Identifier
    cancelled: bool
    bet_count: Annotated[int, Field(ge=0, le=MAX_ROUND_BETS)]
    totals: Annotated[dict[Currency, CurrencyTotals], Field(max_length=MAX_CURRENCIES)]
    settled_at: AwareDatetime


class BetReversed(_Value):
    """One bet's line in `BetsReversed`: its settlement as stated, now reversed, and its
    stake refunded in full."""

    bet_id: UUID
    operator_id: Identifier
    player_id: Identifier
    bet_type: BetTypeName
    stake: Stake
    currency: Currency
    outcome: Outcome  # as settled before the void
    returned: MinorUnits  # as settled before the void: what is taken back
    refunded: Stake  # the stake, refunded in full (Rules README: a void refunds every bet)

    @model_validator(mode="after")
    def _refunds_the_stake(self) -> BetReversed:
        if self.refunded != self.stake:
            raise ValueError("a voided bet's stake is refunded in full")
        return self


class ReversedLine(_Value):
    """A `BetReversed` line whole, with its round and table."""

    bet_id: UUID
    round_id: Identifier
    table_id: Identifier
    operator_id: Identifier
    player_id: Identifier
    bet_type: BetTypeName
    stake: Stake
    currency: Currency
    outcome: Outcome
    returned: MinorUnits
    refunded: Stake


@registry.register
class BetsReversed(Event):
    """A reversal part: the settlement of a run of a round voided after its result
    (`RoundVoided`), reversed bet by bet, in the order it was settled; parts of up to
    `SETTLEMENT_PART` bets, as `BetsSettled`."""

    event_type: ClassVar[str] = "BetsReversed"
    round_id: Identifier
    table_id: Identifier
    bets: Annotated[list[BetReversed], Field(min_length=1, max_length=SETTLEMENT_PART)]

    @classmethod
    def parts(
        cls, round_id: str, table_id: str, lines: Sequence[BetReversed | Mapping[str, Any]]
    ) -> list[BetsReversed]:
        return _parts(cls, round_id, table_id, lines)

    def each(self) -> list[ReversedLine]:
        return _each_line(self, self.bets, ReversedLine)


class ReversalTotals(_Value):
    model_config = ConfigDict(use_attribute_docstrings=True)

    refunded: Total
    """The stakes refunded, in integer minor units of the currency."""
    reversed: Total
    """The returns taken back, in integer minor units of the currency."""


@registry.register
class RoundReversed(Event):
    """A round's settlement reversed whole: the last event of its reversal, after its
    `BetsReversed` parts, with the totals they add up to."""

    event_type: ClassVar[str] = "RoundReversed"
    round_id: Identifier
    table_id: Identifier
    bet_count: Annotated[int, Field(ge=0, le=MAX_ROUND_BETS)]
    totals: Annotated[dict[Currency, ReversalTotals], Field(max_length=MAX_CURRENCIES)]
    reason: Annotated[str, Field(min_length=1, max_length=1100)]
    reversed_at: AwareDatetime


# what two supervisors may do with a round the settlement holds: `release` it (settle it on
# the facts on record, once they agree) or `void` it (refund every stake)
ResolutionAction = Literal["release", "void"]


@registry.register
class SettlementResolutionRequested(Event):
    """A supervisor asks to resolve a round the settlement holds; nothing changes until a
    second, different supervisor confirms it (`SettlementResolved`)."""

    event_type: ClassVar[str] = "SettlementResolutionRequested"
    resolution_id: UUID
    round_id: str
    table_id: str
    action: ResolutionAction
    reason: Annotated[str, Field(min_length=1, max_length=500)]
    problems: Annotated[list[str], Field(max_length=100)]  # the kinds that held the round
    requested_by: Actor


@registry.register
class SettlementResolved(Event):
    """A second supervisor confirmed a resolution. For `void`, it comes before the round's
    settlement, every bet refunded, which the wallet pays as for a cancelled round."""

    event_type: ClassVar[str] = "SettlementResolved"
    resolution_id: UUID
    round_id: str
    table_id: str
    action: ResolutionAction
    reason: Annotated[str, Field(min_length=1, max_length=500)]
    problems: Annotated[list[str], Field(max_length=100)]
    requested_by: Actor
    confirmed_by: Actor

    @model_validator(mode="after")
    def _two_people(self) -> SettlementResolved:
        if self.confirmed_by == self.requested_by:
            raise ValueError("a resolution is confirmed by a supervisor other than its maker")
        return self


# the types a replay and the money path decode most, by compiled decoders as well, where
# they pay (docs/decisions/0102-compiled-event-decoders.md): a table's configuration and
# rounds, and settlement parts; a round's stake limits repeat round after round
registry.compile(
    TableOpened, RoundOpened, CardDealt, RoundClosed, BetsSettled, interned=(StakeLimit,)
)

__all__ = [
    "ALL_TOPICS",
    "DEALING_ORDER",
    "MAX_CURRENCIES",
    "MAX_MINOR_UNITS",
    "MAX_ROUND_BETS",
    "MAX_STAKE",
    "MAX_TOTAL",
    "SCANNER_EVENTS",
    "SETTLEMENT_EVENTS",
    "SETTLEMENT_PART",
    "SLIP_BETS",
    "TABLE_EVENTS",
    "WALLET_EVENTS",
    "BetBookClosed",
    "BetCorrected",
    "BetPaid",
    "BetReversed",
    "BetSettled",
    "BetsCorrected",
    "BetsPaid",
    "BetsPlaced",
    "BetsReversed",
    "BetsSettled",
    "BettingClosed",
    "CardDealt",
    "CardMarkedWrong",
    "CardRefused",
    "CardScanned",
    "CardsWithdrawn",
    "ConfigChangeProposed",
    "ConfigChangeRejected",
    "CurrencyTotals",
    "DeckReplaced",
    "DeviceChangeProposed",
    "DeviceChangeRejected",
    "DeviceCredentialRotated",
    "DeviceRegistered",
    "DeviceRevoked",
    "FundsDeposited",
    "FundsWithdrawn",
    "Limits",
    "PaidLine",
    "PlacedLine",
    "ResultVoidRejected",
    "ResultVoidRequested",
    "ReversalTotals",
    "ReversedLine",
    "RoundCancelled",
    "RoundClosed",
    "RoundOpened",
    "RoundPaused",
    "RoundResumed",
    "RoundReversed",
    "RoundSettled",
    "RoundVoided",
    "RoundsHeld",
    "RoundsReleased",
    "ScanRejected",
    "SettledLine",
    "SettlementResolutionRequested",
    "SettlementResolved",
    "SlipBet",
    "StakeLimit",
    "TableClosed",
    "TableOpened",
    "VideoLost",
    "VideoRestored",
    "VoidRequested",
    "book_digest",
    "registry",
]
