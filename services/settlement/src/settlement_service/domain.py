"""The settlement rule, pure: when a round can be settled, what settling it says, and what
reversing it says once the round is voided after its result.

A round settles once the service holds its result (or its cancellation), the sealed bet book
and every bet the book names (same count, same digest, same stakes). Each bet is then settled
by the rules engine with the round's own pay table, and the round's totals are summed per
currency. Anything that disagrees holds the round (`Held`): nothing is paid on data that does
not add up; a person looks at the recorded problem.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any, Literal, TypeVar
from uuid import UUID

from pydantic import BaseModel

from teenpatti import engine
from teenpatti.events import Event
from teenpatti.events.catalog import (
    SETTLEMENT_PART,
    BetSettled,
    BetsReversed,
    BetsSettled,
    CurrencyTotals,
    ReversalTotals,
    RoundClosed,
    RoundReversed,
    RoundSettled,
    book_digest,
)

# round: RoundOpened's table; published_fallback: RoundOpened never seen; none: cancelled
PaytableSource = Literal["round", "published_fallback", "none"]


@dataclass(frozen=True, slots=True)
class PlacedBet:
    bet_id: UUID
    round_id: str
    table_id: str
    operator_id: str
    player_id: str
    bet_type: str  # the engine's BetType value
    stake: int  # minor units of `currency`
    currency: str
    placed_at: datetime


@dataclass(frozen=True)
class SealedBook:
    bet_count: int
    digest: str
    total_stake: Mapping[str, int]


@dataclass(frozen=True)
class RoundFacts:
    """What the service knows about one round, from the table's and the wallet's events."""

    round_id: str
    table_id: str
    paytable: Mapping[str, Any] | None  # RoundOpened's, engine mapping form; None if unseen
    result: RoundClosed | None
    cancel_reason: str | None  # set when the round was cancelled
    book: SealedBook | None


@dataclass(frozen=True)
class Waiting:
    """Not everything is known yet; a later event will complete it."""

    reason: str


@dataclass(frozen=True)
class Held:
    """The inputs disagree; the round is not settled until a person resolves `kind`."""

    kind: str
    detail: str


@dataclass(frozen=True)
class Settle:
    """The round's settlement: its bets' lines in the round's order (by player, then as
    placed), appended in parts of `SETTLEMENT_PART`, then the round's summary. A part is
    built when it is first asked for, so that the first can be appended before the others
    are built: from lines already valid (`decide`), unless `check_every_line` has each
    validated again."""

    lines: Sequence[dict[str, Any]]  # each bet's BetSettled fields, in the round's order
    round: RoundSettled
    paytable_source: PaytableSource
    check_every_line: bool = False
    _parts: dict[int, BetsSettled] = field(default_factory=dict, compare=False, repr=False)

    @property
    def event_count(self) -> int:
        """The parts and the summary: the settlement stream's version once all are appended."""
        return -(-len(self.lines) // SETTLEMENT_PART) + 1

    def event(self, index: int) -> Event:
        """The `index`-th event to append (0-based): a part, or the summary last."""
        if not 0 <= index < self.event_count:
            raise IndexError(f"a settlement of {self.event_count} events has no event {index}")
        if index == self.event_count - 1:
            return self.round
        return self._part(index)

    def _part(self, index: int) -> BetsSettled:
        if index not in self._parts:
            start = index * SETTLEMENT_PART
            lines = self.lines[start : start + SETTLEMENT_PART]
            round_id, table_id = self.round.round_id, self.round.table_id
            if self.check_every_line:
                [self._parts[index]] = BetsSettled.parts(round_id, table_id, lines)
            else:
                self._parts[index] = built_part(round_id, table_id, lines)
        return self._parts[index]

    @property
    def parts(self) -> tuple[BetsSettled, ...]:
        return tuple(self._part(index) for index in range(self.event_count - 1))

    @property
    def bets(self) -> list[BetSettled]:
        return [line for part in self.parts for line in part.bets]

    @property
    def events(self) -> list[Event]:
        """What is appended: the bets' parts, then the round's summary."""
        return [*self.parts, self.round]


Decision = Waiting | Held | Settle


class ResultMismatchError(Exception):
    """RoundClosed says something the engine does not get from its cards."""


def stake_by_currency(bets: Iterable[PlacedBet]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for bet in bets:
        totals[bet.currency] = totals.get(bet.currency, 0) + bet.stake
    return totals


def currency_totals(lines: Iterable[tuple[str, int, int]]) -> dict[str, CurrencyTotals]:
    """Totals per currency of (currency, stake, returned) lines; house_result = stake - returned."""
    sums: dict[str, tuple[int, int]] = {}
    for currency, stake, returned in lines:
        staked, paid = sums.get(currency, (0, 0))
        sums[currency] = (staked + stake, paid + returned)
    return {
        currency: CurrencyTotals(stake=staked, returned=paid, house_result=staked - paid)
        for currency, (staked, paid) in sorted(sums.items())
    }


def format_fraction(value: Fraction) -> str:
    """A fraction as "p/q" (always both parts), "0" for nothing."""
    return "0" if value == 0 else f"{value.numerator}/{value.denominator}"


def verified_result(closed: RoundClosed) -> engine.RoundResult:
    """The engine's result from RoundClosed's cards, checked against what RoundClosed says.

    Raises RulesEngineError for cards the engine refuses, ResultMismatchError on disagreement.
    """
    result = engine.resolve_round(engine.parse_cards(closed.cards))
    mine = RoundClosed.of(closed.round_id, closed.table_id, closed.cards).outcome()
    theirs = closed.outcome()
    if mine != theirs:
        raise ResultMismatchError(
            "winner, player_a_hand, player_b_hand, six_card_bonus_hand: "
            f"the engine gets {mine} from {closed.cards}, RoundClosed says {theirs}"
        )
    return result


def readiness(
    facts: RoundFacts, bets: Sequence[PlacedBet], digest: str | None = None
) -> Waiting | Held | None:
    """Why the round cannot be settled yet (or must be held); None when it can be.

    Ready: result or cancellation known, book sealed, as many bets as the book counts, the
    same digest and the same stake per currency. Disagreements are reported as soon as they
    show, even before the result is known. `digest`: the bets' `book_digest`, if known.
    """
    book = facts.book
    if book is None:
        return Waiting("the bet book is not sealed yet")
    if len(bets) > book.bet_count:
        return Held(
            "bets_exceed_book",
            f"{len(bets)} bets received but the sealed book counts {book.bet_count}",
        )
    if len(bets) < book.bet_count:
        return Waiting(f"{len(bets)} of {book.bet_count} bets received")
    if digest is None:
        digest = book_digest(bet.bet_id for bet in bets)
    if digest != book.digest:
        return Held(
            "digest_mismatch",
            f"the {len(bets)} bets received hash to {digest}, the sealed book says {book.digest}",
        )
    staked = stake_by_currency(bets)
    if staked != {c: s for c, s in book.total_stake.items() if s}:
        return Held(
            "stake_mismatch",
            f"the bets stake {staked}, the sealed book says {dict(book.total_stake)}",
        )
    if facts.result is None and facts.cancel_reason is None:
        return Waiting("neither the result nor a cancellation is known yet")
    return None


def decide(
    facts: RoundFacts,
    bets: Sequence[PlacedBet],
    settled_at: datetime,
    digest: str | None = None,
    *,
    check_every_line: bool = False,
) -> Decision:
    """Settle the round if it is ready: each bet's `BetSettled` line, in `BetsSettled`
    parts, and the RoundSettled.
    `digest`: the bets' `book_digest`, if known; `check_every_line`: see `Settle`."""
    not_ready = readiness(facts, bets, digest)
    if not_ready is not None:
        return not_ready
    round_: engine.RoundResult | engine.CancelledRound
    pay_table = engine.PUBLISHED_PAY_TABLE
    source: PaytableSource = "round"
    if facts.cancel_reason is not None:
        # Rules README: a cancelled (void) round refunds every bet in full.
        round_ = engine.CancelledRound(facts.cancel_reason)
        source = "none"
    else:
        assert facts.result is not None  # readiness() checked it
        try:
            round_ = verified_result(facts.result)
        except ResultMismatchError as error:
            return Held("result_mismatch", str(error))
        except engine.RulesEngineError as error:
            return Held("invalid_result", f"the engine refuses RoundClosed's cards: {error}")
        if facts.paytable is None:
            source = "published_fallback"
        else:
            try:
                pay_table = engine.pay_table_from_mapping(dict(facts.paytable))
            except engine.InvalidPayTableError as error:
                return Held("invalid_paytable", str(error))
    # Each player's bets together, in the order placed: a player's returns of a round come in
    # one part (two at a part's edge), and so in one `BetsPaid`, not one per part its bets
    # fell in. A UUID orders as its canonical text does (its hex digits, in place).
    ordered = sorted(
        bets, key=lambda bet: (bet.operator_id, bet.player_id, bet.placed_at, bet.bet_id)
    )

    # A bet's settlement depends only on its type, stake and currency once the round and
    # the pay table are known: worked out once for all the bets of a kind alike, its first
    # line validated whole (`_check_kind`), and the round's totals summed per kind.
    def outcome(bet_type: str, stake: int, currency: str) -> _Outcome:
        settled = engine.settle_bet(
            engine.Bet(engine.BetType(bet_type), stake, currency), round_, pay_table
        )
        return (
            settled.outcome.value,
            settled.returned,
            format_fraction(settled.fraction_kept),
            None if settled.odds is None else format_fraction(settled.odds),
        )

    kinds: dict[tuple[str, int, str], _Outcome] = {}
    counted: dict[tuple[str, int, str], int] = {}
    lines: list[dict[str, Any]] = []
    for bet in ordered:
        kind = (bet.bet_type, bet.stake, bet.currency)
        settled = kinds.get(kind)
        if settled is None:
            settled = kinds[kind] = outcome(*kind)
            counted[kind] = 0
            lines.append(_line(bet, settled))
            _check_kind(lines[-1])
        else:
            lines.append(_line(bet, settled))
        counted[kind] += 1
    summary = RoundSettled(
        round_id=facts.round_id,
        table_id=facts.table_id,
        cancelled=isinstance(round_, engine.CancelledRound),
        bet_count=len(lines),
        totals=currency_totals(
            (currency, stake * count, kinds[bet_type, stake, currency][1] * count)
            for (bet_type, stake, currency), count in counted.items()
        ),
        settled_at=settled_at,
    )
    return Settle(lines, summary, source, check_every_line)


# outcome, returned, fraction kept, odds: what a bet's line says beyond the bet
_Outcome = tuple[str, int, str, str | None]


def _line(bet: PlacedBet, settled: _Outcome) -> dict[str, Any]:
    """The bet's line of `BetsSettled`, as the fields to validate."""
    outcome, returned, fraction_kept, odds = settled
    return {
        "bet_id": bet.bet_id,
        "operator_id": bet.operator_id,
        "player_id": bet.player_id,
        "bet_type": bet.bet_type,
        "stake": bet.stake,
        "currency": bet.currency,
        "outcome": outcome,
        "returned": returned,
        "fraction_kept": fraction_kept,
        "odds": odds,
    }


def _check_kind(line: Mapping[str, Any]) -> None:
    """Validate the first line of a kind (bet type, stake, currency: what the engine decides
    a line's outcome from) as a `BetSettled`, so that the engine's figures of every line are
    checked. A line's own fields (its bet's id, operator and player) are those of a
    `PlacedLine`, checked against the same types when its bet was received."""
    BetSettled.model_validate(line)


M = TypeVar("M", bound=BaseModel)


def built(model: type[M], fields: dict[str, Any]) -> M:
    """The frozen `model` of `fields` (every one of its fields, of the types it holds them
    as, valid), as its validation would build it but without validating them again: the
    tuning of docs/decisions/0103-settlement-parts-built-not-validated-again.md, held equal
    to the validated part by tests/unit/settlement/test_domain.py."""
    instance = model.__new__(model)
    object.__setattr__(instance, "__dict__", fields)
    object.__setattr__(instance, "__pydantic_fields_set__", set(fields))
    object.__setattr__(instance, "__pydantic_extra__", None)
    object.__setattr__(instance, "__pydantic_private__", None)
    return instance


def built_part(round_id: str, table_id: str, lines: Sequence[dict[str, Any]]) -> BetsSettled:
    """A `BetsSettled` part of `lines` already valid (`decide`'s), built, not validated: each
    line's dict is its model's (neither is changed once built)."""
    return built(
        BetsSettled,
        {
            "round_id": round_id,
            "table_id": table_id,
            "bets": [built(BetSettled, line) for line in lines],
        },
    )


@dataclass(frozen=True)
class Reverse:
    """A voided round's settlement reversed: its `BetsReversed` parts, then its summary."""

    parts: tuple[BetsReversed, ...]
    round: RoundReversed

    @property
    def events(self) -> list[Event]:
        """What is appended after the settlement: the parts, then the round's summary."""
        return [*self.parts, self.round]

    @property
    def bet_ids(self) -> list[UUID]:
        return [line.bet_id for part in self.parts for line in part.bets]


REASON_LENGTH = 1100  # RoundReversed.reason's bound


def void_reason(reason: str, requested_by: str, confirmed_by: str) -> str:
    """Why a round is voided and who voided it, as `RoundReversed` states it; a long reason
    is cut to leave room for both names."""
    people = f" (asked by {requested_by}, confirmed by {confirmed_by})"
    if len(reason) + len(people) > REASON_LENGTH:
        reason = reason[: REASON_LENGTH - len(people) - 1] + "…"
    return reason + people


def reverse(
    settled: Sequence[BetsSettled], summary: RoundSettled, reason: str, reversed_at: datetime
) -> Reverse:
    """The reversal of a round's settlement (its `BetsSettled` parts, in order, and its
    `RoundSettled`): each line as settled, its stake refunded and what it returned taken
    back, in the same order and parts. A round settled as cancelled refunded every bet
    already: nothing to reverse, a summary alone."""
    lines = (
        []
        if summary.cancelled
        else [
            {**line.model_dump(exclude={"fraction_kept", "odds"}), "refunded": line.stake}
            for part in settled
            for line in part.bets
        ]
    )
    sums: dict[str, tuple[int, int]] = {}
    for line in lines:
        refunded, taken = sums.get(line["currency"], (0, 0))
        sums[line["currency"]] = (refunded + line["stake"], taken + line["returned"])
    return Reverse(
        tuple(BetsReversed.parts(summary.round_id, summary.table_id, lines)),
        RoundReversed(
            round_id=summary.round_id,
            table_id=summary.table_id,
            bet_count=len(lines),
            totals={
                currency: ReversalTotals(refunded=refunded, reversed=taken)
                for currency, (refunded, taken) in sorted(sums.items())
            },
            reason=reason,
            reversed_at=reversed_at,
        ),
    )
