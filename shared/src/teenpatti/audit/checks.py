"""The replay checks, pure: rounds, bets, books and balances recomputed from stored events.

`History` collects the decoded events of the four stores; `check_history` recomputes every
round result with the engine, every bet's settlement from its line of a slip (`BetsPlaced`),
the round's result (or cancellation) and the pay table in its `RoundOpened`, and checks that
every bet was settled and paid exactly once, with the settled amount, and that every round
was played under a pay table an approved configuration of its table names (`TableOpened`:
the published pay table, one a second supervisor approved, or one approved there before),
and that every `TableOpened` applied limits and a pay table a second supervisor approved for
its table (`unapproved_config`).
`check_balances` replays the wallet's player streams and compares them with its account and
ledger tables.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any
from uuid import UUID

from teenpatti.audit.chain import Finding, Row
from teenpatti.audit.devices import DeviceHistory, check_devices
from teenpatti.engine import (
    PUBLISHED_PAY_TABLE,
    Bet,
    BetType,
    CancelledRound,
    PayTable,
    RoundResult,
    RulesEngineError,
    parse_cards,
    pay_table_from_mapping,
    pay_table_to_mapping,
    resolve_round,
    settle_bet,
)
from teenpatti.events.catalog import (
    DEALING_ORDER,
    BetBookClosed,
    BetsCorrected,
    BetsPaid,
    BetsPlaced,
    BetsReversed,
    BetsSettled,
    CardDealt,
    CardMarkedWrong,
    CardRefused,
    CardsWithdrawn,
    DeckReplaced,
    FundsDeposited,
    FundsWithdrawn,
    PaidLine,
    PlacedLine,
    ReversedLine,
    RoundCancelled,
    RoundClosed,
    RoundOpened,
    RoundResumed,
    RoundSettled,
    RoundVoided,
    SettledLine,
    SettlementResolved,
    TableOpened,
    VoidRequested,
    book_digest,
    registry,
)
from teenpatti.events.contracts import EventContractError

# What the audit decodes; everything else is only chain-checked.
AUDITED_TYPES = frozenset(
    {
        "TableOpened",
        "CardRefused",
        "DeckReplaced",
        "VoidRequested",
        "CardMarkedWrong",
        "CardsWithdrawn",
        "RoundResumed",
        "RoundOpened",
        "CardDealt",
        "RoundClosed",
        "RoundCancelled",
        "BetsPlaced",
        "BetBookClosed",
        "BetsPaid",
        "FundsDeposited",
        "FundsWithdrawn",
        "BetsSettled",
        "RoundSettled",
        "SettlementResolved",
        "RoundVoided",
        "BetsReversed",
        "BetsCorrected",
        # for the device checks (teenpatti.audit.devices), with CardDealt above
        "BettingClosed",
        "CardScanned",
        "DeviceRegistered",
        "DeviceCredentialRotated",
    }
)

# what changes a player's balance, from the wallet's player streams: a bet placed or paid is
# its line of `BetsPlaced` or `BetsPaid`, whole
WalletFact = FundsDeposited | FundsWithdrawn | PlacedLine | PaidLine | BetsCorrected


@dataclass(slots=True)
class Round:
    round_id: str
    table_id: str = ""
    opened: RoundOpened | None = None
    opened_at: datetime | None = None  # the RoundOpened event's occurred_at
    opened_ref: str = ""
    # its pay table was named by an approved configuration of its table when it opened
    paytable_approved: bool = True
    # a card read during betting and its deck not replaced yet (docs/decisions/0058), and
    # the first card dealt meanwhile (its ref)
    exposed: bool = False
    dealt_while_exposed: str = ""
    void_requested_by: str | None = None  # the first of a started round's two voiders
    marked_wrong: str | None = None  # a dealt card marked wrong, the round not resumed since
    dealt_while_held: str = ""  # a card dealt under a void request or a card marked wrong
    single_supervisor_rescan: str = ""  # cards taken back by the one who marked them wrong
    dealt: dict[str, tuple[str, str]] = field(default_factory=dict)  # position -> (card, ref)
    closed: RoundClosed | None = None
    cancelled: RoundCancelled | None = None
    # two supervisors voided it at the settlement (docs/decisions/0060): its bets refunded
    voided: SettlementResolved | None = None
    ended_at: datetime | None = None  # occurred_at of RoundClosed / RoundCancelled
    ended_ref: str = ""
    # two supervisors voided it after its result (RoundVoided): every bet reversed
    voided_after: RoundVoided | None = None
    voided_after_at: datetime | None = None
    voided_after_ref: str = ""


@dataclass(slots=True)
class Amounts:
    """Totals in minor units of one currency."""

    staked: int = 0
    returned: int = 0  # settled
    paid: int = 0
    deposited: int = 0
    withdrawn: int = 0
    # rounds voided after their result: the stakes refunded, the returns taken back
    refunded_after_void: int = 0
    taken_back: int = 0


@dataclass(slots=True)
class History:
    """The decoded events the audit checks, indexed by round and bet."""

    rounds: dict[str, Round] = field(default_factory=dict)
    placed: dict[UUID, list[tuple[PlacedLine, str]]] = field(default_factory=dict)
    settled: dict[UUID, list[tuple[SettledLine, str]]] = field(default_factory=dict)
    paid: dict[UUID, list[tuple[PaidLine, str]]] = field(default_factory=dict)
    reversed: dict[UUID, list[tuple[ReversedLine, str]]] = field(default_factory=dict)
    # bet -> (its line's refunded, reversed; the ref) of each BetsCorrected naming it
    corrected: dict[UUID, list[tuple[int, int, str]]] = field(default_factory=dict)
    books: dict[str, list[tuple[BetBookClosed, str]]] = field(default_factory=dict)
    round_totals: dict[str, list[tuple[RoundSettled, str]]] = field(default_factory=dict)
    # wallet player streams in version order: (event, ref)
    wallet: dict[str, list[tuple[WalletFact, str]]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    # when the bet events were stored, by ref (for events that may be newer than another
    # store's snapshot)
    stored_at: dict[str, datetime] = field(default_factory=dict)
    # table -> the pay tables (canonical JSON) its approved configurations named so far
    approved_paytables: dict[str, set[str]] = field(default_factory=dict)
    # which device credential read each card dealt (teenpatti.audit.devices)
    devices: DeviceHistory = field(default_factory=DeviceHistory)
    # table -> the limits and pay tables (canonical JSON) a second supervisor approved for it
    approved_terms: dict[str, set[str]] = field(default_factory=dict)

    def is_recent(self, ref: str, cutoff: datetime) -> bool:
        stored = self.stored_at.get(ref)
        return stored is not None and stored > cutoff

    def round(self, round_id: str) -> Round:
        found = self.rounds.get(round_id)
        if found is None:
            found = self.rounds[round_id] = Round(round_id)
        return found

    def add(self, row: Row) -> None:
        """Decode and index one stored event (rows of a stream in version order)."""
        if row.event_type not in AUDITED_TYPES:
            return
        try:
            event = registry.decode_json(row.event_type, row.schema_version, row.payload_text)
        except (EventContractError, ValueError) as error:
            self.findings.append(Finding("decode", "undecodable", row.ref, str(error)))
            return
        ref = row.ref
        self.devices.add(event, row)
        match event:
            case TableOpened():
                self._approve(event, ref)
            case RoundOpened():
                round_ = self.round(event.round_id)
                round_.table_id, round_.opened = event.table_id, event
                round_.opened_at, round_.opened_ref = row.occurred_at, ref
                paytable = _canonical(event.paytable)
                approved = self.approved_paytables.get(event.table_id, set())
                round_.paytable_approved = paytable == _PUBLISHED_PAYTABLE or paytable in approved
            case CardDealt():
                round_ = self.round(event.round_id)
                round_.dealt[event.position] = (event.card, ref)
                if round_.exposed and not round_.dealt_while_exposed:
                    round_.dealt_while_exposed = ref
                held = round_.void_requested_by is not None or round_.marked_wrong is not None
                if held and not round_.dealt_while_held:
                    round_.dealt_while_held = ref
            case CardRefused() if event.reason == "betting_open" and event.round_id is not None:
                self.round(event.round_id).exposed = True
            case DeckReplaced():
                self.round(event.round_id).exposed = False
            case VoidRequested():
                self.round(event.round_id).void_requested_by = event.actor
            case CardMarkedWrong():
                self.round(event.round_id).marked_wrong = event.position
            case CardsWithdrawn():
                round_ = self.round(event.round_id)
                for position in event.positions:
                    round_.dealt.pop(position, None)
                if event.actor == event.marked_by:
                    round_.single_supervisor_rescan = event.positions[0]
            case RoundResumed():
                # a resume withdraws a void request and lets a card marked wrong stand
                round_ = self.round(event.round_id)
                round_.void_requested_by = None
                round_.marked_wrong = None
            case RoundClosed() | RoundCancelled():
                round_ = self.round(event.round_id)
                round_.table_id = round_.table_id or event.table_id
                if isinstance(event, RoundClosed):
                    round_.closed = event
                else:
                    round_.cancelled = event
                round_.ended_at, round_.ended_ref = row.occurred_at, ref
            case BetsPlaced():
                self.stored_at[ref] = row.occurred_at
                for placed in event.each():
                    self.placed.setdefault(placed.bet_id, []).append((placed, ref))
                    self.wallet.setdefault(row.stream_id, []).append((placed, ref))
            case BetsPaid():
                self.stored_at[ref] = row.occurred_at
                for paid in event.each():
                    self.paid.setdefault(paid.bet_id, []).append((paid, ref))
                    self.wallet.setdefault(row.stream_id, []).append((paid, ref))
            case FundsDeposited() | FundsWithdrawn():
                self.wallet.setdefault(row.stream_id, []).append((event, ref))
            case BetBookClosed():
                self.books.setdefault(event.round_id, []).append((event, ref))
            case BetsSettled():
                self.stored_at[ref] = row.occurred_at
                for bet in event.each():
                    self.settled.setdefault(bet.bet_id, []).append((bet, ref))
            case RoundSettled():
                self.round_totals.setdefault(event.round_id, []).append((event, ref))
            case SettlementResolved() if event.action == "void":
                self.round(event.round_id).voided = event
            case RoundVoided():
                round_ = self.round(event.round_id)
                round_.voided_after, round_.voided_after_ref = event, ref
                round_.voided_after_at = row.occurred_at
            case BetsReversed():
                self.stored_at[ref] = row.occurred_at
                for line in event.each():
                    self.reversed.setdefault(line.bet_id, []).append((line, ref))
            case BetsCorrected():
                self.stored_at[ref] = row.occurred_at
                for corrected in event.bets:
                    self.corrected.setdefault(corrected.bet_id, []).append(
                        (corrected.refunded, corrected.reversed, ref)
                    )
                self.wallet.setdefault(row.stream_id, []).append((event, ref))

    def _approve(self, opened: TableOpened, ref: str) -> None:
        """Docs/decisions/0057: a configuration is approved on the published pay table, with
        a second supervisor's approval, or on a pay table its table was approved for before."""
        paytable = _canonical(opened.paytable)
        approved = self.approved_paytables.setdefault(opened.table_id, set())
        if opened.approved_by is not None and opened.approved_by == opened.actor:
            self.findings.append(
                Finding(
                    "config",
                    "self_approved",
                    f"table {opened.table_id} ({ref})",
                    f"{opened.actor} approved their own change",
                )
            )
        elif (
            opened.approved_by is not None
            or paytable == _PUBLISHED_PAYTABLE
            or paytable in approved
        ):
            approved.add(paytable)
        # docs/decisions/0086: its limits and pay table approved for the table by another
        # supervisor, in this event or before it
        terms = json.dumps({"limits": _limits(opened), "paytable": paytable}, sort_keys=True)
        approved_terms = self.approved_terms.setdefault(opened.table_id, set())
        if opened.approved_by is not None and opened.approved_by != opened.actor:
            approved_terms.add(terms)
        elif terms not in approved_terms:
            self.findings.append(
                Finding(
                    "config",
                    "unapproved_config",
                    f"table {opened.table_id} ({ref})",
                    f"{opened.actor} applied limits and a pay table no second supervisor"
                    " approved for this table",
                )
            )


def _table_control(round_: Round) -> list[Finding]:
    """Docs/decisions/0057, 0058: no card dealt after one was exposed during betting until
    the deck was replaced; a started round voided by two different supervisors."""
    findings: list[Finding] = []
    if round_.dealt_while_exposed:
        findings.append(
            Finding(
                "result",
                "dealt_after_exposure",
                f"round {round_.round_id} ({round_.dealt_while_exposed})",
                "a card was dealt after one was exposed during betting, the deck not replaced",
            )
        )
    if round_.dealt_while_held:
        findings.append(
            Finding(
                "result",
                "dealt_while_held",
                f"round {round_.round_id} ({round_.dealt_while_held})",
                "a card was dealt while a void was requested or a card was marked wrong",
            )
        )
    if round_.single_supervisor_rescan:
        findings.append(
            Finding(
                "result",
                "single_supervisor_rescan",
                f"round {round_.round_id}",
                f"the cards from {round_.single_supervisor_rescan} were taken back by the"
                " supervisor who marked them wrong, without a second one",
            )
        )
    cancelled = round_.cancelled
    if cancelled is not None and cancelled.cards_dealt > 0:
        first = round_.void_requested_by
        if first is None or first == cancelled.actor:
            findings.append(
                Finding(
                    "result",
                    "single_supervisor_void",
                    f"round {round_.round_id} ({round_.ended_ref})",
                    f"voided after {cancelled.cards_dealt} card(s) by {cancelled.actor}"
                    f" without another supervisor's request (requested by {first})",
                )
            )
    return findings


def _check_void_after_result(round_: Round) -> list[Finding]:
    """A round voided after its result voids the result it closed with."""
    voided, closed = round_.voided_after, round_.closed
    assert voided is not None
    subject = f"round {round_.round_id} ({round_.voided_after_ref})"
    if closed is None:
        return [Finding("result", "voided_without_result", subject, "RoundVoided, no RoundClosed")]
    mine: tuple[Any, ...] = (list(closed.cards), *closed.outcome())
    theirs: tuple[Any, ...] = (
        list(voided.cards),
        voided.winner,
        voided.player_a_hand,
        voided.player_b_hand,
        voided.six_card_bonus_hand,
    )
    if mine != theirs:
        return [
            Finding(
                "result",
                "void_result_mismatch",
                subject,
                f"RoundVoided voids {theirs}, the round closed with {mine}",
            )
        ]
    return []


def _canonical(paytable: Mapping[str, Any]) -> str:
    try:
        normalised: Any = pay_table_to_mapping(pay_table_from_mapping(paytable))
    except RulesEngineError:
        normalised = paytable  # reported as invalid_paytable by the round that uses it
    return json.dumps(normalised, sort_keys=True)


_PUBLISHED_PAYTABLE = json.dumps(pay_table_to_mapping(PUBLISHED_PAY_TABLE), sort_keys=True)


def _limits(opened: TableOpened) -> dict[str, dict[str, list[int]]]:
    return {
        currency: {bet: [limit.min, limit.max] for bet, limit in per_bet.items()}
        for currency, per_bet in opened.limits.items()
    }


@dataclass(frozen=True, slots=True)
class Scope:
    """Which rounds are audited: one table and/or rounds opened in [since, until)."""

    table_id: str | None = None
    since: datetime | None = None
    until: datetime | None = None

    @property
    def complete(self) -> bool:
        return self.table_id is None and self.since is None and self.until is None

    def covers(self, round_: Round) -> bool:
        if self.table_id is not None and round_.table_id != self.table_id:
            return False
        if self.since is None and self.until is None:
            return True
        if round_.opened_at is None:
            return False
        if self.since is not None and round_.opened_at < self.since:
            return False
        return self.until is None or round_.opened_at < self.until


@dataclass(slots=True)
class Outcome:
    """What `check_history` found and counted."""

    findings: list[Finding] = field(default_factory=list)
    rounds: int = 0
    rounds_closed: int = 0
    rounds_cancelled: int = 0
    rounds_in_progress: int = 0
    rounds_voided_after_result: int = 0
    bets: int = 0
    bets_settled: int = 0
    bets_paid: int = 0
    bets_in_progress: int = 0
    bets_reversed: int = 0
    amounts: dict[str, Amounts] = field(default_factory=lambda: defaultdict(Amounts))


# ---------------------------------------------------------------------------- rounds
def engine_result(round_: Round) -> tuple[RoundResult | None, list[Finding]]:
    """The engine's result from RoundClosed's cards, checked against what it says and
    against the CardDealt events of the round."""
    closed = round_.closed
    if closed is None:
        return None, []
    findings: list[Finding] = []
    subject = f"round {round_.round_id} ({round_.ended_ref})"
    dealt = [round_.dealt.get(position) for position in DEALING_ORDER]
    if all(item is not None for item in dealt):
        cards = [item[0] for item in dealt if item is not None]
        if cards != list(closed.cards):
            findings.append(
                Finding(
                    "result",
                    "cards_mismatch",
                    subject,
                    f"dealt {cards} (CardDealt A1..B3), RoundClosed says {closed.cards}",
                )
            )
    else:
        missing = [p for p, item in zip(DEALING_ORDER, dealt, strict=True) if item is None]
        findings.append(
            Finding("result", "cards_missing", subject, f"no CardDealt at {', '.join(missing)}")
        )
    try:
        result = resolve_round(parse_cards(closed.cards))
    except RulesEngineError as error:
        findings.append(Finding("result", "invalid_cards", subject, str(error)))
        return None, findings
    mine = RoundClosed.of(closed.round_id, closed.table_id, closed.cards).outcome()
    theirs = closed.outcome()
    if mine != theirs:
        findings.append(
            Finding(
                "result",
                "result_mismatch",
                subject,
                "winner, player_a_hand, player_b_hand, six_card_bonus_hand: the engine gets "
                f"{mine} from {closed.cards}, RoundClosed says {theirs}",
            )
        )
    return result, findings


def round_pay_table(round_: Round) -> tuple[PayTable | None, list[Finding]]:
    if round_.opened is None:
        return None, [
            Finding("result", "round_not_opened", f"round {round_.round_id}", "no RoundOpened")
        ]
    try:
        return pay_table_from_mapping(round_.opened.paytable), []
    except RulesEngineError as error:
        return None, [Finding("result", "invalid_paytable", f"round {round_.round_id}", str(error))]


def format_fraction(value: Fraction) -> str:
    return "0" if value == 0 else f"{value.numerator}/{value.denominator}"


# ------------------------------------------------------------------------------ bets
def check_settlement(
    placed: PlacedLine,
    settled: SettledLine,
    outcome: RoundResult | CancelledRound,
    table: PayTable,
) -> str | None:
    """Why the stored settlement differs from the engine's, or None when it agrees."""
    told = (
        settled.operator_id,
        settled.player_id,
        settled.round_id,
        settled.table_id,
        settled.bet_type,
        settled.stake,
        settled.currency,
    )
    expected = (
        placed.operator_id,
        placed.player_id,
        placed.round_id,
        placed.table_id,
        placed.bet_type,
        placed.stake,
        placed.currency,
    )
    if told != expected:
        return f"BetsSettled says {told}, BetsPlaced says {expected}"
    mine = settle_bet(Bet(BetType(placed.bet_type), placed.stake, placed.currency), outcome, table)
    recomputed: tuple[Any, ...] = (
        mine.outcome.value,
        mine.returned,
        format_fraction(mine.fraction_kept),
        None if mine.odds is None else format_fraction(mine.odds),
    )
    stored = (settled.outcome, settled.returned, settled.fraction_kept, settled.odds)
    if recomputed != stored:
        return f"outcome, returned, fraction_kept, odds: recomputed {recomputed}, stored {stored}"
    return None


def check_history(history: History, scope: Scope, settled_before: datetime) -> Outcome:
    """Every round in scope and its bets. A round that ended at or before `settled_before`
    must be fully settled and paid; a later or unfinished one is "in progress": what exists
    of it is checked, what is missing is only counted."""
    out = Outcome(findings=list(history.findings))
    rounds_in_scope = {rid for rid, r in history.rounds.items() if scope.covers(r)}
    bets_by_round: dict[str, list[UUID]] = defaultdict(list)
    for bet_id, placements in history.placed.items():
        bets_by_round[placements[0][0].round_id].append(bet_id)
    results: dict[str, RoundResult | CancelledRound | None] = {}
    tables: dict[str, PayTable | None] = {}
    due: dict[str, bool] = {}
    for round_id in sorted(rounds_in_scope):
        round_ = history.rounds[round_id]
        out.rounds += 1
        ended = round_.closed is not None or round_.cancelled is not None
        due[round_id] = ended and round_.ended_at is not None and round_.ended_at <= settled_before
        if round_.closed is not None and round_.cancelled is not None:
            out.findings.append(
                Finding("result", "closed_and_cancelled", f"round {round_id}", "both in the store")
            )
        if round_.voided is not None:
            out.rounds_cancelled += 1
            results[round_id] = CancelledRound(f"voided: {round_.voided.reason}")
        elif round_.cancelled is not None:
            out.rounds_cancelled += 1
            results[round_id] = CancelledRound(round_.cancelled.reason)
        elif round_.closed is not None:
            out.rounds_closed += 1
            result, findings = engine_result(round_)
            out.findings.extend(findings)
            results[round_id] = result
        else:
            out.rounds_in_progress += 1
            results[round_id] = None
        table, findings = round_pay_table(round_)
        out.findings.extend(findings)
        out.findings.extend(_table_control(round_))
        out.findings.extend(check_devices(round_, history.devices))
        if round_.opened is not None and not round_.paytable_approved:
            out.findings.append(
                Finding(
                    "config",
                    "unapproved_paytable",
                    f"round {round_id} ({round_.opened_ref})",
                    f"played under a pay table no approved configuration of table"
                    f" {round_.table_id} names",
                )
            )
        tables[round_id] = table
        if round_.voided_after is not None:
            out.rounds_voided_after_result += 1
            out.findings.extend(_check_void_after_result(round_))
        _check_book(history, round_id, bets_by_round.get(round_id, []), due[round_id], out)
        _check_round_totals(history, round_id, bets_by_round.get(round_id, []), out)

    for bet_id, placements in history.placed.items():
        placed, placed_ref = placements[0]
        round_id = placed.round_id
        if round_id not in history.rounds:
            if history.is_recent(placed_ref, settled_before):
                out.bets_in_progress += 1  # its round may be newer than the table read
            elif scope.complete:
                out.findings.append(
                    Finding(
                        "settlement",
                        "unknown_round",
                        f"bet {bet_id} ({placed_ref})",
                        f"round {round_id} is not in the table store",
                    )
                )
            continue
        if round_id not in rounds_in_scope:
            continue
        _check_bet(
            history, bet_id, placements, results[round_id], tables[round_id], due[round_id], out
        )
    for bet_id, placements in history.placed.items():
        round_id = placements[0][0].round_id
        if round_id in rounds_in_scope:
            _check_reversal(history, bet_id, history.rounds[round_id], settled_before, out)
    # settlements and payments of bets the wallet never placed
    for kind, index in (("settled", history.settled), ("paid", history.paid)):
        for bet_id, items in index.items():
            if bet_id in history.placed:
                continue
            event, ref = items[0]
            known = event.round_id in history.rounds
            if not known and not scope.complete:
                continue
            if known and event.round_id not in rounds_in_scope:
                continue
            if (known and not due[event.round_id]) or history.is_recent(ref, settled_before):
                continue  # its bet may have been stored after the wallet was read
            out.findings.append(
                Finding(
                    "settlement" if kind == "settled" else "payment",
                    f"{kind}_without_bet",
                    f"bet {bet_id} ({ref})",
                    f"Bets{kind.capitalize()} for a bet with no BetsPlaced",
                )
            )
    return out


def _check_bet(
    history: History,
    bet_id: UUID,
    placements: list[tuple[PlacedLine, str]],
    result: RoundResult | CancelledRound | None,
    table: PayTable | None,
    due: bool,
    out: Outcome,
) -> None:
    placed, placed_ref = placements[0]
    subject = f"bet {bet_id}"
    out.bets += 1
    amounts = out.amounts[placed.currency]
    amounts.staked += placed.stake
    if len(placements) > 1:
        out.findings.append(
            Finding(
                "settlement",
                "placed_twice",
                subject,
                "BetsPlaced at " + ", ".join(ref for _, ref in placements),
            )
        )
    settlements = history.settled.get(bet_id, [])
    payments = history.paid.get(bet_id, [])
    if len(settlements) > 1:
        out.findings.append(
            Finding(
                "settlement",
                "settled_twice",
                subject,
                "BetsSettled at " + ", ".join(ref for _, ref in settlements),
            )
        )
    if len(payments) > 1:
        out.findings.append(
            Finding(
                "payment",
                "paid_twice",
                subject,
                "BetsPaid at " + ", ".join(ref for _, ref in payments),
            )
        )
    if not settlements:
        if due:
            out.findings.append(
                Finding(
                    "settlement",
                    "not_settled",
                    f"{subject} ({placed_ref})",
                    f"round {placed.round_id} ended but the bet has no BetSettled line",
                )
            )
        else:
            out.bets_in_progress += 1
        if payments:
            out.findings.append(
                Finding(
                    "payment",
                    "paid_unsettled",
                    f"{subject} ({payments[0][1]})",
                    "a BetPaid line without a BetSettled line",
                )
            )
        return
    out.bets_settled += 1
    settled, settled_ref = settlements[0]
    amounts.returned += settled.returned
    if result is None:
        if history.rounds[placed.round_id].closed is None:
            out.findings.append(
                Finding(
                    "settlement",
                    "settled_before_result",
                    f"{subject} ({settled_ref})",
                    f"round {placed.round_id} has neither RoundClosed nor RoundCancelled",
                )
            )
    elif table is not None or isinstance(result, CancelledRound):
        why = check_settlement(placed, settled, result, table or PUBLISHED_PAY_TABLE)
        if why is not None:
            out.findings.append(
                Finding("settlement", "settlement_mismatch", f"{subject} ({settled_ref})", why)
            )
    if not payments:
        if due:
            out.findings.append(
                Finding(
                    "payment",
                    "not_paid",
                    f"{subject} ({settled_ref})",
                    f"settled {settled.returned} {settled.currency}, no BetPaid line",
                )
            )
        else:
            out.bets_in_progress += 1
        return
    out.bets_paid += 1
    paid, paid_ref = payments[0]
    amounts.paid += paid.amount
    told = (
        paid.amount,
        paid.outcome,
        paid.currency,
        paid.operator_id,
        paid.player_id,
        paid.round_id,
    )
    expected = (
        settled.returned,
        settled.outcome,
        settled.currency,
        settled.operator_id,
        settled.player_id,
        settled.round_id,
    )
    if told != expected:
        out.findings.append(
            Finding(
                "payment",
                "payment_mismatch",
                f"{subject} ({paid_ref})",
                "amount, outcome, currency, operator, player, round: BetsPaid says "
                f"{told}, BetsSettled says {expected}",
            )
        )


def _check_reversal(
    history: History, bet_id: UUID, round_: Round, settled_before: datetime, out: Outcome
) -> None:
    """A bet of a round voided after its result: its settlement reversed once, as settled,
    its stake refunded; and put right once by the wallet, as reversed. A bet of any other
    round is never reversed."""
    reversals = history.reversed.get(bet_id, [])
    subject = f"bet {bet_id}"
    voided = round_.voided_after
    if voided is None:
        if reversals:
            out.findings.append(
                Finding(
                    "settlement",
                    "reversed_without_void",
                    f"{subject} ({reversals[0][1]})",
                    f"BetsReversed for a bet of round {round_.round_id}, which no RoundVoided"
                    " voids",
                )
            )
        return
    settlements = history.settled.get(bet_id, [])
    due = round_.voided_after_at is not None and round_.voided_after_at <= settled_before
    if not settlements:
        return  # reported as not settled, or still in progress
    if not reversals:
        if due and not history.is_recent(settlements[0][1], settled_before):
            out.findings.append(
                Finding(
                    "settlement",
                    "not_reversed",
                    subject,
                    f"round {round_.round_id} was voided after its result; its settlement of"
                    " this bet is not reversed",
                )
            )
        return
    out.bets_reversed += 1
    reversed_line, ref = reversals[0]
    settled = settlements[0][0]
    amounts = out.amounts[settled.currency]
    amounts.refunded_after_void += reversed_line.refunded
    amounts.taken_back += reversed_line.returned
    if len(reversals) > 1:
        out.findings.append(
            Finding(
                "settlement",
                "reversed_twice",
                subject,
                "BetsReversed at " + ", ".join(r for _, r in reversals),
            )
        )
    told = (reversed_line.outcome, reversed_line.returned, reversed_line.stake)
    expected = (settled.outcome, settled.returned, settled.stake)
    if told != expected or reversed_line.refunded != settled.stake:
        out.findings.append(
            Finding(
                "settlement",
                "reversal_mismatch",
                f"{subject} ({ref})",
                f"outcome, returned, stake: BetsReversed says {told} refunding"
                f" {reversed_line.refunded}, BetsSettled says {expected}",
            )
        )
    corrections = history.corrected.get(bet_id, [])
    if not corrections:
        if due and not history.is_recent(ref, settled_before):
            out.findings.append(
                Finding(
                    "payment",
                    "not_corrected",
                    f"{subject} ({ref})",
                    "its settlement is reversed; the wallet has not put it right",
                )
            )
        return
    if len(corrections) > 1:
        out.findings.append(
            Finding(
                "payment",
                "corrected_twice",
                subject,
                "BetsCorrected at " + ", ".join(r for *_, r in corrections),
            )
        )
    refunded, taken_back, corrected_ref = corrections[0]
    if (refunded, taken_back) != (reversed_line.refunded, reversed_line.returned):
        out.findings.append(
            Finding(
                "payment",
                "correction_mismatch",
                f"{subject} ({corrected_ref})",
                f"BetsCorrected refunds {refunded} and takes back {taken_back}, BetsReversed"
                f" says {reversed_line.refunded} and {reversed_line.returned}",
            )
        )


def _check_book(
    history: History, round_id: str, bet_ids: list[UUID], due: bool, out: Outcome
) -> None:
    books = history.books.get(round_id, [])
    subject = f"round {round_id}"
    if not books:
        if due and bet_ids:
            out.findings.append(
                Finding(
                    "book", "book_not_closed", subject, f"{len(bet_ids)} bets, no BetBookClosed"
                )
            )
        return
    if len(books) > 1:
        out.findings.append(
            Finding("book", "book_closed_twice", subject, ", ".join(ref for _, ref in books))
        )
    book, ref = books[0]
    totals: dict[str, int] = defaultdict(int)
    for bet_id in bet_ids:
        placed = history.placed[bet_id][0][0]
        totals[placed.currency] += placed.stake
    mine = (len(bet_ids), dict(sorted(totals.items())), book_digest(bet_ids))
    theirs = (book.bet_count, dict(sorted(book.total_stake.items())), book.digest)
    if mine != theirs:
        out.findings.append(
            Finding(
                "book",
                "book_mismatch",
                f"{subject} ({ref})",
                f"bet_count, total_stake, digest: the BetsPlaced events give {mine}, "
                f"BetBookClosed says {theirs}",
            )
        )


def _check_round_totals(history: History, round_id: str, bet_ids: list[UUID], out: Outcome) -> None:
    entries = history.round_totals.get(round_id, [])
    if not entries:
        return
    subject = f"round {round_id}"
    if len(entries) > 1:
        out.findings.append(
            Finding("settlement", "round_settled_twice", subject, ", ".join(r for _, r in entries))
        )
    summary, ref = entries[0]
    settled = [
        item[0]
        for bet_id, items in history.settled.items()
        for item in items[:1]
        if item[0].round_id == round_id
    ]
    totals: dict[str, tuple[int, int, int]] = {}
    for bet in settled:
        stake, returned, _ = totals.get(bet.currency, (0, 0, 0))
        stake, returned = stake + bet.stake, returned + bet.returned
        totals[bet.currency] = (stake, returned, stake - returned)
    stored = {
        currency: (t.stake, t.returned, t.house_result) for currency, t in summary.totals.items()
    }
    if summary.bet_count != len(settled) or stored != totals:
        out.findings.append(
            Finding(
                "settlement",
                "round_totals_mismatch",
                f"{subject} ({ref})",
                f"RoundSettled says {summary.bet_count} bets {stored}, its BetsSettled events "
                f"give {len(settled)} bets {totals}",
            )
        )


# -------------------------------------------------------------------------- balances
@dataclass(frozen=True, slots=True)
class BalanceTables:
    """The wallet's projection: account balances and ledger sums, and the calls to seamless
    operators' wallets that no retry can complete."""

    accounts: Mapping[tuple[str, str, str], int]  # (operator, player, currency) -> balance
    player_ledger: Mapping[tuple[str, str, str], int]  # sum of player entries
    house_ledger: Mapping[tuple[str, str], int]  # (operator, currency) -> sum of house entries
    failed_calls: Sequence[FailedCall] = ()


@dataclass(frozen=True)
class FailedCall:
    """A bet, win or rollback a seamless operator refused for good (`operator_calls`)."""

    call_id: UUID
    kind: str
    operator_id: str
    player_id: str
    round_id: str
    why: str  # the operator's status, or the error of its answer


def check_balances(
    history: History, tables: BalanceTables, amounts: dict[str, Amounts]
) -> tuple[list[Finding], int]:
    """Replay every player stream: each `balance_after` must be the running balance, and the
    final balances must equal `wallet_accounts` and the ledger. Returns the findings and the
    number of accounts checked."""
    findings: list[Finding] = []
    balances: dict[tuple[str, str, str], int] = defaultdict(int)
    house: dict[tuple[str, str], int] = defaultdict(int)
    for events in history.wallet.values():
        for event, ref in events:
            match event:
                case FundsDeposited() | FundsWithdrawn():
                    key = (event.operator_id, event.player_id, event.currency)
                    sign = 1 if isinstance(event, FundsDeposited) else -1
                    balances[key] += sign * event.amount
                    totals = amounts.setdefault(event.currency, Amounts())
                    if sign > 0:
                        totals.deposited += event.amount
                    else:
                        totals.withdrawn += event.amount
                    _running(findings, ref, event.balance_after, balances[key])
                case PlacedLine() | PaidLine() | BetsCorrected() if event.wallet == "seamless":
                    pass  # the operator's wallet holds that money (reconciled with it)
                case BetsCorrected():
                    # a round voided after its result: what moved (the rest a shortfall)
                    key = (event.operator_id, event.player_id, event.currency)
                    balances[key] += event.applied
                    house[(event.operator_id, event.currency)] -= event.applied
                    _running(findings, ref, event.balance_after, balances[key])
                case PlacedLine():
                    key = (event.operator_id, event.player_id, event.currency)
                    balances[key] -= event.stake
                    house[(event.operator_id, event.currency)] += event.stake
                    if balances[key] < 0:
                        findings.append(
                            Finding(
                                "balance",
                                "negative_balance",
                                ref,
                                f"bet {event.bet_id} takes the balance to {balances[key]}",
                            )
                        )
                case PaidLine():
                    key = (event.operator_id, event.player_id, event.currency)
                    balances[key] += event.amount
                    house[(event.operator_id, event.currency)] -= event.amount
                    _running(findings, ref, event.balance_after, balances[key])
                case _:
                    pass
    for call in tables.failed_calls:
        # money owed to or by a player that only a person can settle now (docs/operators.md)
        findings.append(
            Finding(
                "balance",
                "failed_operator_call",
                f"call {call.call_id}",
                f"the {call.kind} of {call.operator_id}:{call.player_id} in round"
                f" {call.round_id} failed: {call.why}",
            )
        )
    for key in sorted(set(balances) | set(tables.accounts)):
        mine, theirs = balances.get(key, 0), tables.accounts.get(key, 0)
        subject = "account {}:{} {}".format(*key)
        if mine != theirs:
            findings.append(
                Finding(
                    "balance",
                    "balance_mismatch",
                    subject,
                    f"events give {mine}, wallet_accounts holds {theirs}",
                )
            )
        ledger = tables.player_ledger.get(key, 0)
        if ledger != mine:
            findings.append(
                Finding(
                    "balance",
                    "ledger_mismatch",
                    subject,
                    f"events give {mine}, the player's ledger entries sum to {ledger}",
                )
            )
    for house_key in sorted(set(house) | set(tables.house_ledger)):
        mine, theirs = house.get(house_key, 0), tables.house_ledger.get(house_key, 0)
        if mine != theirs:
            findings.append(
                Finding(
                    "balance",
                    "house_ledger_mismatch",
                    "house {}:{}".format(*house_key),
                    f"stakes - returns from the events: {mine}, house ledger entries: {theirs}",
                )
            )
    return findings, len(set(balances) | set(tables.accounts))


def _running(findings: list[Finding], ref: str, stated: int, running: int) -> None:
    if stated != running:
        findings.append(
            Finding(
                "balance",
                "balance_after_mismatch",
                ref,
                f"balance_after {stated}, the replayed balance is {running}",
            )
        )
