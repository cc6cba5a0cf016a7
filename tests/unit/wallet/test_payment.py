"""The wallet's payment of settled bets, pure: which lines it pays, passes over or refuses,
and what paying them writes (no servers)."""

from __future__ import annotations

from uuid import UUID

import pytest

from teenpatti import engine
from teenpatti.engine import PUBLISHED_PAY_TABLE, pay_table_to_mapping
from teenpatti.events.catalog import BetPaid, BetSettled, BetsPaid
from wallet_service.domain.betting import LedgerEntry, UnknownBetError
from wallet_service.domain.payment import (
    BetMismatchError,
    HeldBet,
    HeldRound,
    PaidBet,
    PaidRun,
    Payment,
    PaymentPlan,
    PayoutMismatchError,
    RefusedLine,
    RoundNotSettledError,
    SettlementPart,
    pay,
    plan_payment,
)

OP_1, OP_2 = "operator-1", "operator-2"
ROUND, OTHER_ROUND = "T1-000001", "T2-000001"
SETTLING = UUID(int=0xC0)  # the correlation of the round's settlement
SETTLING_OTHER = UUID(int=0xC1)
PAYTABLE = pay_table_to_mapping(PUBLISHED_PAY_TABLE)
# A1 B1 A2 B2 A3 B3: Player A's pair of aces beats Player B's high card; no 6 card bonus
A_WINS = ("AS", "2D", "AH", "3C", "KD", "9S")
B_WINS = ("2D", "AS", "3C", "AH", "9S", "KD")
# K-9-7 against K-9-7 in other suits: a tie (two pair over six cards: no bonus)
TIED = ("KS", "KH", "9S", "9H", "7D", "7C")


def closed(round_id: str = ROUND, cards: tuple[str, ...] = A_WINS) -> HeldRound:
    return HeldRound(round_id, "closed", cards, PAYTABLE)


# the rounds as most tests hold them: Player A won ROUND, OTHER_ROUND tied
ROUNDS = {ROUND: closed(), OTHER_ROUND: closed(OTHER_ROUND, TIED)}


def bet(
    n: int,
    player_id: str,
    bet_type: str = "player_a",
    stake: int = 1_000,
    *,
    currency: str = "INR",
    operator_id: str = OP_1,
    round_id: str = ROUND,
    status: str = "placed",
) -> HeldBet:
    table_id = "T1" if round_id == ROUND else "T2"
    return HeldBet(
        UUID(int=n),
        operator_id,
        player_id,
        round_id,
        table_id,
        bet_type,
        stake,
        currency,
        status,
        UUID(int=n),
    )


def line(held: HeldBet, outcome: str, returned: int, **told: object) -> BetSettled:
    """The line settling `held`, as told (`told` overrides what it says of the bet)."""
    fields: dict[str, object] = {
        "bet_id": held.bet_id,
        "operator_id": held.operator_id,
        "player_id": held.player_id,
        "bet_type": held.bet_type,
        "stake": held.stake,
        "currency": held.currency,
        "outcome": outcome,
        "returned": returned,
        "fraction_kept": "0",
        "odds": None,
    }
    return BetSettled.model_validate({**fields, **told})


def part(
    n: int, *lines: BetSettled, round_id: str = ROUND, correlation_id: UUID = SETTLING
) -> SettlementPart:
    table_id = "T1" if round_id == ROUND else "T2"
    return SettlementPart(UUID(int=0xE0 + n), correlation_id, round_id, table_id, lines)


def event_id(n: int) -> UUID:
    return UUID(int=0xE0 + n)


def held_bets(*bets: HeldBet) -> dict[UUID, HeldBet]:
    return {b.bet_id: b for b in bets}


def paid(
    player_id: str,
    *lines: tuple[HeldBet, str, int, int],
    operator_id: str = OP_1,
    round_id: str = ROUND,
) -> BetsPaid:
    """A player's `BetsPaid`: (bet, outcome, amount, balance after) per line."""
    return BetsPaid(
        round_id=round_id,
        table_id="T1" if round_id == ROUND else "T2",
        operator_id=operator_id,
        player_id=player_id,
        bets=[
            BetPaid(
                bet_id=b.bet_id,
                currency=b.currency,
                amount=amount,
                outcome=outcome,
                balance_after=after,
            )
            for b, outcome, amount, after in lines
        ],
    )


def returned(
    account: str,
    operator_id: str,
    player_id: str | None,
    amount: int,
    n: int,
    currency: str = "INR",
) -> LedgerEntry:
    """A ledger entry of part `n`'s returns."""
    return LedgerEntry(
        account, operator_id, player_id, currency, amount, "return", f"settlement:{event_id(n)}"
    )


def test_a_batch_pays_each_player_a_bets_paid_per_part_with_the_balances_running() -> None:
    a = bet(1, "p1", "player_a", 1_000)
    tie = bet(2, "p1", "tie", 200)
    eur = bet(3, "p1", "player_b", 300, currency="EUR")
    b = bet(4, "p2", "player_b", 500)
    other = bet(5, "p1", "player_a", 700, operator_id=OP_2)  # operator-2's own p1
    second = bet(6, "p1", "pair_plus_a", 100)
    later = bet(7, "p1", "player_a", 400, round_id=OTHER_ROUND)
    parts = [
        part(1, line(a, "won", 1_950), line(tie, "lost", 0), line(eur, "lost", 0)),
        part(2, line(b, "lost", 0), line(other, "won", 1_365), line(second, "won", 200)),
        part(3, line(later, "push", 400), round_id=OTHER_ROUND, correlation_id=SETTLING_OTHER),
    ]

    plan = plan_payment(held_bets(a, tie, eur, b, other, second, later), ROUNDS, parts)

    assert plan == PaymentPlan(
        parts=parts,
        paying=(
            (0, parts[0].lines[0]),
            (0, parts[0].lines[1]),
            (0, parts[0].lines[2]),
            (1, parts[1].lines[0]),
            (1, parts[1].lines[1]),
            (1, parts[1].lines[2]),
            (2, parts[2].lines[0]),
        ),
        credits={
            (OP_1, "p1", "INR"): 1_950 + 0 + 200 + 400,
            (OP_1, "p1", "EUR"): 0,
            (OP_1, "p2", "INR"): 0,
            (OP_2, "p1", "INR"): 1_365,
        },
        refused=(),
        already_paid=(),
    )
    assert plan.players == [
        (OP_1, "p1"),
        (OP_1, "p1"),
        (OP_1, "p1"),
        (OP_1, "p2"),
        (OP_2, "p1"),
        (OP_1, "p1"),
        (OP_1, "p1"),
    ]
    before = {
        (OP_1, "p1", "INR"): 3_000,
        (OP_1, "p1", "EUR"): 0,
        (OP_1, "p2", "INR"): 4_500,
        (OP_2, "p1", "INR"): 9_300,
    }
    # the credit statement answers with the balances after it
    after = {account: before[account] + credit for account, credit in plan.credits.items()}
    assert plan.balances_before(after) == before

    payment = pay(plan, before)

    assert payment == Payment(
        ledger=(
            returned("house", OP_1, None, -1_950, 1),
            returned("house", OP_1, None, -200, 2),
            returned("house", OP_2, None, -1_365, 2),
            returned("house", OP_1, None, -400, 3),
            returned("player", OP_1, "p1", 1_950, 1),
            returned("player", OP_2, "p1", 1_365, 2),
            returned("player", OP_1, "p1", 200, 2),
            returned("player", OP_1, "p1", 400, 3),
        ),
        paid=(
            PaidBet(a.bet_id, "won", 1_950),
            PaidBet(tie.bet_id, "lost", 0),
            PaidBet(eur.bet_id, "lost", 0),
            PaidBet(b.bet_id, "lost", 0),
            PaidBet(other.bet_id, "won", 1_365),
            PaidBet(second.bet_id, "won", 200),
            PaidBet(later.bet_id, "push", 400),
        ),
        runs={
            # one append for the round's two parts, another for the other table's round
            (OP_1, "p1"): (
                PaidRun(
                    table_id="T1",
                    correlation_id=SETTLING,
                    events=(
                        paid(
                            "p1",
                            (a, "won", 1_950, 4_950),
                            (tie, "lost", 0, 4_950),
                            (eur, "lost", 0, 0),
                        ),
                        paid("p1", (second, "won", 200, 5_150)),
                    ),
                    causation_ids=(event_id(1), event_id(2)),
                ),
                PaidRun(
                    table_id="T2",
                    correlation_id=SETTLING_OTHER,
                    events=(paid("p1", (later, "push", 400, 5_550), round_id=OTHER_ROUND),),
                    causation_ids=(event_id(3),),
                ),
            ),
            (OP_1, "p2"): (
                PaidRun(
                    table_id="T1",
                    correlation_id=SETTLING,
                    events=(paid("p2", (b, "lost", 0, 4_500)),),
                    causation_ids=(event_id(2),),
                ),
            ),
            (OP_2, "p1"): (
                PaidRun(
                    table_id="T1",
                    correlation_id=SETTLING,
                    events=(paid("p1", (other, "won", 1_365, 10_665), operator_id=OP_2),),
                    causation_ids=(event_id(2),),
                ),
            ),
        },
    )
    # the players' appends go in the order the batch first pays each
    assert list(payment.runs) == [(OP_1, "p1"), (OP_1, "p2"), (OP_2, "p1")]


def test_the_bets_paid_built_from_checked_values_are_those_values_validated() -> None:
    # pay() builds its BetsPaid without validating again (compiled.checked): each must be
    # what validating the same values gives, seamless and transfer, field for field
    bets = [bet(n, f"p{n % 3}", bet_type, 100 * n) for n, bet_type in enumerate(
        ["player_a", "player_b", "tie", "pair_plus_a", "pair_plus_b", "six_card_bonus"] * 2, 1
    )]  # fmt: skip
    dealt = engine.resolve_round(engine.parse_cards(A_WINS))
    settled = [
        engine.settle_bet(engine.Bet(engine.BetType(b.bet_type), b.stake, "INR"), dealt)
        for b in bets
    ]
    lines = [line(b, s.outcome.value, s.returned) for b, s in zip(bets, settled, strict=True)]
    plan = plan_payment(held_bets(*bets), ROUNDS, [part(1, *lines[:6]), part(2, *lines[6:])])
    assert not plan.refused and len(plan.paying) == len(bets)
    for unheld in (frozenset(), frozenset({(OP_1, "p1", "INR")})):
        payment = pay(plan, dict.fromkeys(plan.credits, 10**12), unheld)
        built = [event for runs in payment.runs.values() for run in runs for event in run.events]
        assert len(built) == 6
        for event in built:
            validated = BetsPaid.model_validate(event.model_dump())
            assert event == validated
            assert event.model_fields_set == validated.model_fields_set
            assert event.model_dump_json() == validated.model_dump_json()
            assert [line.model_fields_set for line in event.bets] == [
                line.model_fields_set for line in validated.bets
            ]
        assert {event.wallet for event in built} == (
            {"transfer", "seamless"} if unheld else {"transfer"}
        )


def test_a_bet_paid_before_or_earlier_in_the_batch_is_passed_over() -> None:
    done = bet(1, "p1", status="paid")
    fresh = bet(2, "p1", "pair_plus_a", 200)
    settled_fresh = line(fresh, "won", 400)
    # the part republished under a new event id in the same batch, and a bet paid before
    parts = [part(1, line(done, "won", 1_950), settled_fresh), part(2, settled_fresh)]

    plan = plan_payment(held_bets(done, fresh), ROUNDS, parts)

    assert plan == PaymentPlan(
        parts=parts,
        paying=((0, settled_fresh),),
        credits={(OP_1, "p1", "INR"): 400},
        refused=(),
        already_paid=((0, done.bet_id),),
    )
    assert pay(plan, {(OP_1, "p1", "INR"): 0}) == Payment(
        ledger=(
            returned("house", OP_1, None, -400, 1),
            returned("player", OP_1, "p1", 400, 1),
        ),
        paid=(PaidBet(fresh.bet_id, "won", 400),),
        runs={
            (OP_1, "p1"): (
                PaidRun(
                    table_id="T1",
                    correlation_id=SETTLING,
                    events=(paid("p1", (fresh, "won", 400, 400)),),
                    causation_ids=(event_id(1),),
                ),
            )
        },
    )

    # a batch of lines all paid before pays nothing
    again = plan_payment(held_bets(done), ROUNDS, [part(3, line(done, "won", 1_950))])
    assert (again.paying, again.credits, again.refused) == ((), {}, ())
    assert again.already_paid == ((0, done.bet_id),)


def test_a_line_for_an_unknown_bet_or_not_describing_its_bet_is_refused() -> None:
    held = bet(1, "p1", "player_a", 1_000)
    paid_before = bet(2, "p2", "tie", 200, status="paid")
    good = line(held, "won", 1_950)
    forged = line(held, "won", 9_000, stake=5_000)
    forged_paid = line(paid_before, "won", 9_000, player_id="p3")
    unknown = line(bet(3, "p1"), "won", 1_950)
    wrong_round = line(held, "won", 1_950)
    parts = [
        part(1, good, forged),
        part(2, forged_paid, unknown),
        part(3, wrong_round, round_id=OTHER_ROUND, correlation_id=SETTLING_OTHER),
    ]

    plan = plan_payment(held_bets(held, paid_before), ROUNDS, parts)

    said = f"BetsSettled for bet {held.bet_id} says"
    assert plan.refused == (
        RefusedLine(
            0,
            held.bet_id,
            BetMismatchError,
            f"{said} ('operator-1', 'p1', 'T1-000001', 'player_a', 'INR', 5000), the bet is"
            " ('operator-1', 'p1', 'T1-000001', 'player_a', 'INR', 1000)",
        ),
        RefusedLine(
            1,
            paid_before.bet_id,
            BetMismatchError,
            f"BetsSettled for bet {paid_before.bet_id} says"
            " ('operator-1', 'p3', 'T1-000001', 'tie', 'INR', 200), the bet is"
            " ('operator-1', 'p2', 'T1-000001', 'tie', 'INR', 200)",
        ),
        RefusedLine(
            1,
            UUID(int=3),
            UnknownBetError,
            f"BetsSettled for bet {UUID(int=3)}, which the wallet never took",
        ),
        RefusedLine(
            2,
            held.bet_id,
            BetMismatchError,
            f"{said} ('operator-1', 'p1', 'T2-000001', 'player_a', 'INR', 1000), the bet is"
            " ('operator-1', 'p1', 'T1-000001', 'player_a', 'INR', 1000)",
        ),
    )
    assert plan.paying == ((0, good),)  # what the batch would pay, were it not refused
    assert plan.already_paid == ()
    first = plan.refused[0].error()
    assert isinstance(first, BetMismatchError)
    with pytest.raises(UnknownBetError, match="never took"):
        raise plan.refused[2].error()


def test_zero_returns_are_paid_and_marked_but_move_no_money() -> None:
    a = bet(1, "p1", "player_a", 1_000)
    tie = bet(2, "p1", "tie", 200)
    b = bet(3, "p2", "pair_plus_a", 500)
    parts = [part(1, line(a, "lost", 0), line(tie, "lost", 0), line(b, "lost", 0))]

    plan = plan_payment(held_bets(a, tie, b), {ROUND: closed(cards=B_WINS)}, parts)

    # zero credits still name the accounts: the credit statement opens any that are missing
    assert plan.credits == {(OP_1, "p1", "INR"): 0, (OP_1, "p2", "INR"): 0}
    assert pay(plan, {(OP_1, "p1", "INR"): 3_800, (OP_1, "p2", "INR"): 0}) == Payment(
        ledger=(),
        paid=(
            PaidBet(a.bet_id, "lost", 0),
            PaidBet(tie.bet_id, "lost", 0),
            PaidBet(b.bet_id, "lost", 0),
        ),
        runs={
            (OP_1, "p1"): (
                PaidRun(
                    table_id="T1",
                    correlation_id=SETTLING,
                    events=(paid("p1", (a, "lost", 0, 3_800), (tie, "lost", 0, 3_800)),),
                    causation_ids=(event_id(1),),
                ),
            ),
            (OP_1, "p2"): (
                PaidRun(
                    table_id="T1",
                    correlation_id=SETTLING,
                    events=(paid("p2", (b, "lost", 0, 0)),),
                    causation_ids=(event_id(1),),
                ),
            ),
        },
    )


def mismatch(place: int, held: HeldBet, says: str, computes: str) -> RefusedLine:
    return RefusedLine(
        place,
        held.bet_id,
        PayoutMismatchError,
        f"BetsSettled for bet {held.bet_id} ({held.bet_type}, stake {held.stake}"
        f" {held.currency}, round {held.round_id}) says {says}, the wallet computes {computes}",
    )


def test_a_line_is_paid_only_what_the_engine_settles_its_bet_to() -> None:
    a = bet(1, "p1", "player_a", 1_000)
    tie = bet(2, "p1", "tie", 200)
    b = bet(3, "p2", "player_b", 333)
    pair = bet(4, "p2", "pair_plus_a", 100)
    twice = line(a, "won", 2_000)  # 1:1 where the round pays 0.95:1
    kept = line(tie, "lost", 200)  # a lost bet that returns its stake
    turned = line(b, "won", 649)  # Player B lost
    parts = [
        part(1, twice, line(tie, "lost", 0)),
        part(2, line(a, "won", 1_950), kept),
        part(3, turned, line(pair, "won", 200)),
    ]

    plan = plan_payment(held_bets(a, tie, b, pair), ROUNDS, parts)

    assert plan.refused == (
        mismatch(0, a, "won returning 2000", "won returning 1950"),
        mismatch(1, tie, "lost returning 200", "lost returning 0"),
        mismatch(2, b, "won returning 649", "lost returning 0"),
    )
    assert isinstance(plan.refused[0].error(), BetMismatchError)  # parked like any forgery
    # what the batch would pay, were it not refused: only lines that agree
    assert plan.paying == (
        (0, parts[0].lines[1]),
        (1, parts[1].lines[0]),
        (2, parts[2].lines[1]),
    )

    # a correct part alone is paid: 0.95:1 on 333 is 316.35, rounded down
    good = [part(4, line(b, "lost", 0), line(pair, "won", 200))]
    assert plan_payment(held_bets(b, pair), ROUNDS, good).refused == ()
    b_wins = {ROUND: closed(cards=B_WINS)}
    assert plan_payment(held_bets(b), b_wins, [part(5, line(b, "won", 649))]).paying == (
        (0, line(b, "won", 649)),
    )


def test_the_rounds_own_pay_table_decides() -> None:
    a = bet(1, "p1", "player_a", 1_000)
    even_money = {**PAYTABLE, "name": "even", "player_a": "1"}
    rounds = {ROUND: HeldRound(ROUND, "closed", A_WINS, even_money)}

    assert plan_payment(held_bets(a), rounds, [part(1, line(a, "won", 2_000))]).refused == ()
    (refused,) = plan_payment(held_bets(a), rounds, [part(1, line(a, "won", 1_950))]).refused
    assert refused == mismatch(0, a, "won returning 1950", "won returning 2000")


def test_a_forged_amount_for_a_bet_already_paid_is_refused_not_passed_over() -> None:
    done = bet(1, "p1", status="paid")

    plan = plan_payment(held_bets(done), ROUNDS, [part(1, line(done, "won", 5_000))])

    assert plan.refused == (mismatch(0, done, "won returning 5000", "won returning 1950"),)
    assert plan.already_paid == ()


def test_a_line_for_a_round_without_its_result_is_not_paid_yet() -> None:
    a = bet(1, "p1", "player_a", 1_000)
    good = [part(1, line(a, "won", 1_950))]
    waiting = RefusedLine(
        0,
        a.bet_id,
        RoundNotSettledError,
        f"BetsSettled for bet {a.bet_id} of round {ROUND}, whose result or cancellation"
        " the wallet does not hold",
    )

    for status in ("open", "sealed"):
        rounds = {ROUND: HeldRound(ROUND, status, None, PAYTABLE)}
        plan = plan_payment(held_bets(a), rounds, good)
        assert (plan.refused, plan.paying, plan.credits) == ((waiting,), (), {})
    assert plan_payment(held_bets(a), {}, good).refused == (waiting,)
    with pytest.raises(RoundNotSettledError, match="does not hold"):
        raise waiting.error()


def test_a_round_whose_cards_or_pay_table_cannot_be_read_pays_nothing() -> None:
    a = bet(1, "p1", "player_a", 1_000)
    good = [part(1, line(a, "won", 1_950))]
    unreadable = {
        "no pay table": HeldRound(ROUND, "closed", A_WINS, None),
        "a card twice": HeldRound(ROUND, "closed", ("AS", "AS", *A_WINS[2:]), PAYTABLE),
        "a pay table the engine refuses": HeldRound(
            ROUND, "closed", A_WINS, {**PAYTABLE, "player_a": "-1"}
        ),
    }
    for what, held_round in unreadable.items():
        (refused,) = plan_payment(held_bets(a), {ROUND: held_round}, good).refused
        assert refused.reason is PayoutMismatchError, what
        assert refused.detail.startswith(f"BetsSettled for bet {a.bet_id}: "), what


def test_a_cancelled_round_pays_each_bet_its_stake_back_and_nothing_else() -> None:
    a = bet(1, "p1", "player_a", 1_000)
    tie = bet(2, "p1", "tie", 200)
    # cancelled, with or without cards (a RoundClosed after the cancellation changes nothing)
    for cards in (None, A_WINS):
        rounds = {ROUND: HeldRound(ROUND, "cancelled", cards, PAYTABLE)}
        refund = [part(1, line(a, "refunded", 1_000), line(tie, "refunded", 200))]

        plan = plan_payment(held_bets(a, tie), rounds, refund)

        assert plan.refused == ()
        assert plan.credits == {(OP_1, "p1", "INR"): 1_200}
        for told in (
            line(a, "won", 1_950),
            line(a, "refunded", 1_950),
            line(a, "refunded", 999),
            line(a, "push", 1_000),
            line(a, "lost", 0),
        ):
            (refused,) = plan_payment(held_bets(a), rounds, [part(2, told)]).refused
            assert refused == mismatch(
                0, a, f"{told.outcome} returning {told.returned}", "refunded returning 1000"
            )
