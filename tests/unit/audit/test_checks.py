"""The audit's pure checks: the hash chain recomputed in Python, and the replayed rounds,
bets and balances, on hand-made histories (no servers)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

from teenpatti.audit.chain import ZERO_HASH, Row, canonical_bytes, chain_hash, verify_stream
from teenpatti.audit.checks import (
    BalanceTables,
    FailedCall,
    History,
    Scope,
    check_balances,
    check_history,
)
from teenpatti.engine import (
    PUBLISHED_PAY_TABLE,
    Bet,
    BetType,
    parse_cards,
    pay_table_to_mapping,
    resolve_round,
    settle_bet,
)
from teenpatti.events import Event
from teenpatti.events.catalog import (
    DEALING_ORDER,
    BetBookClosed,
    BetPaid,
    BetSettled,
    BetsPaid,
    BetsPlaced,
    BetsSettled,
    CardDealt,
    FundsDeposited,
    PaidLine,
    RoundClosed,
    RoundOpened,
    SlipBet,
    StakeLimit,
    TableClosed,
)

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
CARDS = ["AS", "2D", "KS", "3C", "QS", "4H"]


def rows_of(store: str, stream_id: str, events: Sequence[Event], start: int = 1) -> list[Row]:
    """Rows chained as the store's trigger chains them."""
    rows: list[Row] = []
    previous = ZERO_HASH
    for offset, event in enumerate(events):
        row = Row(
            store=store,
            stream_id=stream_id,
            stream_version=start + offset,
            event_id=uuid4(),
            event_type=event.event_type,
            schema_version=event.schema_version,
            table_id="T1",
            occurred_at=T0 + timedelta(seconds=offset),
            correlation_id=uuid4(),
            causation_id=None,
            producer=store,
            payload_text=event.model_dump_json(),
            hash=None,
            transaction_id=100 + offset,
            position=offset + 1,
        )
        row = replace(row, hash=chain_hash(previous, row))
        previous = row.hash or ZERO_HASH
        rows.append(row)
    return rows


def closed_events() -> list[TableClosed]:
    return [TableClosed(table_id="T1", actor="a", reason=f"r{i}") for i in range(4)]


# ------------------------------------------------------------------------------ chain
def test_canonical_bytes_are_self_delimiting_fields() -> None:
    row = rows_of("table", "s-é", [TableClosed(table_id="T1", actor="a", reason="r")])[0]
    micros = (row.occurred_at - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)
    expected = (
        f"4:s-é,1,{row.event_id},11:TableClosed,1,2:T1,{micros},{row.correlation_id},,"
        f"5:table,{row.payload_text}"
    )
    assert canonical_bytes(row) == expected.encode()
    assert chain_hash(ZERO_HASH, row) == hashlib.sha256(ZERO_HASH + expected.encode()).digest()
    caused = replace(row, causation_id=UUID(int=1))
    assert f",{UUID(int=1)},5:table,".encode() in canonical_bytes(caused)


def test_an_intact_stream_has_no_finding() -> None:
    rows = rows_of("table", "s", closed_events())
    assert verify_stream(rows, head_version=4) == ([], 4)


def test_an_altered_payload_is_found_at_its_version() -> None:
    rows = rows_of("table", "s", closed_events())
    rows[1] = replace(rows[1], payload_text=rows[1].payload_text.replace("r1", "rX"))
    findings, _ = verify_stream(rows, 4)
    assert [(f.code, f.subject) for f in findings] == [("hash_mismatch", "table:s@2")]


def test_altered_metadata_is_found() -> None:
    rows = rows_of("table", "s", closed_events())
    rows[2] = replace(rows[2], occurred_at=rows[2].occurred_at + timedelta(microseconds=1))
    findings, _ = verify_stream(rows, 4)
    assert [(f.code, f.subject) for f in findings] == [("hash_mismatch", "table:s@3")]


def test_a_removed_event_is_a_gap_and_a_break() -> None:
    rows = rows_of("table", "s", closed_events())
    del rows[1]
    findings, _ = verify_stream(rows, 4)
    assert sorted((f.code, f.subject) for f in findings) == [
        ("hash_mismatch", "table:s@3"),
        ("version_gap", "table:s@3"),
    ]


def test_a_removed_last_event_disagrees_with_the_stream_head() -> None:
    rows = rows_of("table", "s", closed_events())[:3]
    findings, _ = verify_stream(rows, 4)
    assert [(f.code, f.subject) for f in findings] == [("stream_head_mismatch", "table:s")]


def test_an_inserted_event_is_found() -> None:
    rows = rows_of("table", "s", closed_events())
    forged = rows_of("table", "s", [TableClosed(table_id="T1", actor="x", reason="y")], start=3)
    shifted = [replace(r, stream_version=r.stream_version + 1) for r in rows[2:]]
    findings, _ = verify_stream([*rows[:2], *forged, *shifted], 5)
    assert {f.subject for f in findings if f.code == "hash_mismatch"} >= {"table:s@3"}


def test_two_swapped_events_are_found() -> None:
    rows = rows_of("table", "s", closed_events())
    swapped = [
        rows[0],
        replace(rows[2], stream_version=2),
        replace(rows[1], stream_version=3),
        rows[3],
    ]
    findings, _ = verify_stream(swapped, 4)
    codes = sorted((f.code, f.subject) for f in findings)
    assert ("hash_mismatch", "table:s@2") in codes
    assert ("hash_mismatch", "table:s@3") in codes
    assert ("commit_order", "table:s@3") in codes


def test_an_event_without_its_hash_is_reported() -> None:
    rows = rows_of("table", "s", closed_events())
    rows[0] = replace(rows[0], hash=None)
    rows[3] = replace(rows[3], hash=None)
    findings, chained = verify_stream(rows, 4)
    assert [(f.code, f.subject) for f in findings] == [
        ("hash_missing", "table:s@1"),
        ("hash_missing", "table:s@4"),
    ]
    assert chained == 2


# ---------------------------------------------------------------------------- history
def round_history(
    *, returned_delta: int = 0, paid_delta: int = 0, winner: str | None = None
) -> tuple[History, UUID]:
    result = resolve_round(parse_cards(CARDS))
    bonus = result.six_card_bonus
    limits = {"INR": {bt.value: StakeLimit(min=1, max=10_000) for bt in BetType}}
    table_events: list[Event] = [
        RoundOpened(
            round_id="T1-000001",
            table_id="T1",
            number=1,
            opened_at=T0,
            betting_closes_at=T0,
            limits=limits,
            paytable=pay_table_to_mapping(PUBLISHED_PAY_TABLE),
        ),
        *(
            CardDealt(round_id="T1-000001", table_id="T1", position=p, card=c, scan_id=uuid4())
            for p, c in zip(DEALING_ORDER, CARDS, strict=True)
        ),
        RoundClosed(
            round_id="T1-000001",
            table_id="T1",
            cards=CARDS,
            player_a_hand=result.player_a.category.value,
            player_b_hand=result.player_b.category.value,
            winner=winner or result.winner.value,
            six_card_bonus_hand=None if bonus is None else bonus.category.value,
        ),
    ]
    bet_id = uuid4()
    of_round: dict[str, Any] = {"round_id": "T1-000001", "table_id": "T1"}
    of_player: dict[str, Any] = {**of_round, "operator_id": "op", "player_id": "p"}
    placed = BetsPlaced(
        **of_player,
        slip_id=uuid4(),
        currency="INR",
        placed_at=T0,
        bets=[SlipBet(bet_id=bet_id, bet_type="player_a", stake=1_000)],
    )
    engine = settle_bet(Bet(BetType.PLAYER_A, 1_000, "INR"), result)
    settled = BetsSettled(
        **of_round,
        bets=[
            BetSettled(
                bet_id=bet_id,
                operator_id="op",
                player_id="p",
                bet_type="player_a",
                stake=1_000,
                currency="INR",
                outcome=engine.outcome.value,
                returned=engine.returned + returned_delta,
                fraction_kept="0",
                odds="19/20",
            )
        ],
    )
    paid = BetsPaid(
        **of_player,
        bets=[
            BetPaid(
                bet_id=bet_id,
                currency="INR",
                amount=engine.returned + returned_delta + paid_delta,
                outcome=engine.outcome.value,
                balance_after=0,
            )
        ],
    )
    history = History()
    for row in rows_of("table", "table-T1", table_events):
        history.add(row)
    for row in rows_of("wallet", "player-op:p", [placed, paid]):
        history.add(row)
    book = BetBookClosed(
        round_id="T1-000001",
        table_id="T1",
        bet_count=1,
        total_stake={"INR": 1_000},
        digest=hashlib.sha256(str(bet_id).encode()).hexdigest(),
    )
    for row in rows_of("wallet", "book-T1-000001", [book]):
        history.add(row)
    for row in rows_of("settlement", "settlement-T1-000001", [settled]):
        history.add(row)
    return history, bet_id


LATER = T0 + timedelta(hours=1)


def test_a_consistent_round_has_no_finding() -> None:
    history, _ = round_history()
    out = check_history(history, Scope(), settled_before=LATER)
    assert out.findings == []
    assert (out.rounds, out.rounds_closed, out.bets, out.bets_settled, out.bets_paid) == (
        1,
        1,
        1,
        1,
        1,
    )
    assert out.amounts["INR"].staked == 1_000
    assert out.amounts["INR"].returned == out.amounts["INR"].paid == 1_950


def test_a_wrong_payout_is_recomputed() -> None:
    history, bet_id = round_history(returned_delta=1)
    out = check_history(history, Scope(), settled_before=LATER)
    assert [f.code for f in out.findings] == ["settlement_mismatch"]
    assert str(bet_id) in out.findings[0].subject
    assert "1950" in out.findings[0].detail and "1951" in out.findings[0].detail


def test_a_payment_that_differs_from_the_settlement() -> None:
    history, _ = round_history(paid_delta=-100)
    out = check_history(history, Scope(), settled_before=LATER)
    assert [f.code for f in out.findings] == ["payment_mismatch"]


def test_a_round_voided_by_two_supervisors_is_audited_as_refunded() -> None:
    from teenpatti.events.catalog import SettlementResolved

    history, bet_id = round_history()  # settled and paid by its result
    void = SettlementResolved(
        resolution_id=uuid4(),
        round_id="T1-000001",
        table_id="T1",
        action="void",
        reason="both a result and a cancellation",
        problems=["conflicting_outcome"],
        requested_by="alice",
        confirmed_by="bob",
    )
    for row in rows_of("settlement", "resolution-T1-000001", [void]):
        history.add(row)
    out = check_history(history, Scope(), settled_before=LATER)
    # the void decides what the bet is owed: its stake back, not the win it was paid
    assert [f.code for f in out.findings] == ["settlement_mismatch"]
    assert str(bet_id) in out.findings[0].subject
    assert "'refunded', 1000" in out.findings[0].detail
    assert out.rounds_cancelled == 1


def test_a_winner_the_cards_do_not_give() -> None:
    history, _ = round_history(winner="player_b")
    out = check_history(history, Scope(), settled_before=LATER)
    assert [f.code for f in out.findings] == ["result_mismatch"]


def test_missing_settlement_is_a_mismatch_only_once_the_round_is_due() -> None:
    history, bet_id = round_history()
    del history.settled[bet_id]
    del history.paid[bet_id]
    due = check_history(history, Scope(), settled_before=LATER)
    assert [f.code for f in due.findings] == ["not_settled"]
    fresh = check_history(history, Scope(), settled_before=T0 - timedelta(seconds=1))
    assert fresh.findings == [] and fresh.bets_in_progress == 1


def test_a_double_settlement_and_a_payment_without_a_bet() -> None:
    history, bet_id = round_history()
    history.settled[bet_id].append(history.settled[bet_id][0])
    stray = uuid4()
    history.paid[stray] = [(history.paid[bet_id][0][0].model_copy(update={"bet_id": stray}), "x")]
    codes = {f.code for f in check_history(history, Scope(), settled_before=LATER).findings}
    assert codes == {"settled_twice", "paid_without_bet"}


def test_a_book_that_does_not_list_the_bets() -> None:
    history, _ = round_history()
    book, ref = history.books["T1-000001"][0]
    history.books["T1-000001"] = [(book.model_copy(update={"bet_count": 2}), ref)]
    out = check_history(history, Scope(), settled_before=LATER)
    assert [f.code for f in out.findings] == ["book_mismatch"]


def test_scope_by_table_and_time() -> None:
    history, _ = round_history()
    assert check_history(history, Scope(table_id="T2"), LATER).rounds == 0
    assert check_history(history, Scope(since=T0 + timedelta(seconds=1)), LATER).rounds == 0
    assert check_history(history, Scope(since=T0, until=T0 + timedelta(1)), LATER).rounds == 1


# --------------------------------------------------------------------------- balances
def test_balances_are_replayed_from_the_player_stream() -> None:
    history, _ = round_history()
    deposit = FundsDeposited(
        transfer_id="t",
        operator_id="op",
        player_id="p",
        currency="INR",
        amount=5_000,
        balance_after=5_000,
    )
    stream = history.wallet["player-op:p"]
    placed_event, paid_event = stream[0][0], stream[1][0]
    assert isinstance(paid_event, PaidLine)
    history.wallet["player-op:p"] = [
        (deposit, "w@1"),
        (placed_event, "w@2"),
        (paid_event.model_copy(update={"balance_after": 5_950}), "w@3"),
    ]
    key = ("op", "p", "INR")
    good = BalanceTables({key: 5_950}, {key: 5_950}, {("op", "INR"): -950})
    findings, accounts = check_balances(history, good, {})
    assert findings == [] and accounts == 1
    bad = BalanceTables({key: 5_951}, {key: 5_950}, {("op", "INR"): 0})
    codes = sorted(f.code for f in check_balances(history, bad, {})[0])
    assert codes == ["balance_mismatch", "house_ledger_mismatch"]


def test_a_seamless_players_bets_and_payments_are_not_looked_for_in_an_account() -> None:
    history, _ = round_history()
    stream = history.wallet["player-op:p"]
    placed_event, paid_event = stream[0][0], stream[1][0]
    history.wallet["player-op:p"] = [
        (placed_event.model_copy(update={"wallet": "seamless"}), "w@1"),
        (paid_event.model_copy(update={"wallet": "seamless", "balance_after": 0}), "w@2"),
    ]
    findings, accounts = check_balances(history, BalanceTables({}, {}, {}), {})
    assert (findings, accounts) == ([], 0)
    # the same lines of a transfer wallet: a stake taken from an account that holds nothing
    history.wallet["player-op:p"] = [(placed_event, "w@1"), (paid_event, "w@2")]
    codes = {f.code for f in check_balances(history, BalanceTables({}, {}, {}), {})[0]}
    assert "negative_balance" in codes


def test_a_call_a_seamless_operator_refused_for_good_is_a_finding() -> None:
    history, _ = round_history()
    history.wallet = {}
    failed = FailedCall(
        UUID(int=7), "win", "op", "p", "T1-000001", "RS_ERROR_TRANSACTION_DOES_NOT_EXIST"
    )
    findings, _ = check_balances(history, BalanceTables({}, {}, {}, [failed]), {})
    assert [(f.code, f.subject) for f in findings] == [
        ("failed_operator_call", f"call {UUID(int=7)}")
    ]
    assert "RS_ERROR_TRANSACTION_DOES_NOT_EXIST" in findings[0].detail
    assert check_balances(history, BalanceTables({}, {}, {}), {})[0] == []


# ----------------------------------------------------------- voided after the result
def voided_round(
    *, returned_delta: int = 0, corrected_delta: int = 0, correct: bool = True
) -> tuple[History, UUID]:
    """The consistent round above, voided after its result by two supervisors: its
    settlement reversed and its bet put right by the wallet."""
    from teenpatti.events.catalog import BetReversed, BetsCorrected, BetsReversed, RoundVoided

    history, bet_id = round_history()
    closed = history.rounds["T1-000001"].closed
    assert closed is not None
    void = RoundVoided(
        round_id="T1-000001",
        table_id="T1",
        requested_by="alice",
        actor="bob",
        reason="B2 was on A2's spot",
        closed_at=T0,
        cards=closed.cards,
        player_a_hand=closed.player_a_hand,
        player_b_hand=closed.player_b_hand,
        winner=closed.winner,
        six_card_bonus_hand=closed.six_card_bonus_hand,
    )
    for row in rows_of("table", "table-T1", [void], start=9):
        history.add(row)
    settled = history.settled[bet_id][0][0]
    reversal = BetsReversed(
        round_id="T1-000001",
        table_id="T1",
        bets=[
            BetReversed(
                bet_id=bet_id,
                operator_id="op",
                player_id="p",
                bet_type="player_a",
                stake=1_000,
                currency="INR",
                outcome=settled.outcome,
                returned=settled.returned + returned_delta,
                refunded=1_000,
            )
        ],
    )
    for row in rows_of("settlement", "settlement-T1-000001", [reversal], start=2):
        history.add(row)
    if correct:
        net = 1_000 - settled.returned - corrected_delta
        corrected = BetsCorrected(
            round_id="T1-000001",
            table_id="T1",
            operator_id="op",
            player_id="p",
            currency="INR",
            net=net,
            applied=net,
            shortfall=0,
            balance_after=0,
            bets=[
                {
                    "bet_id": bet_id,
                    "refunded": 1_000,
                    "reversed": settled.returned + corrected_delta,
                }
            ],
        )
        for row in rows_of("wallet", "player-op:p", [corrected], start=3):
            history.add(row)
    return history, bet_id


def test_a_round_voided_after_its_result_is_reversed_and_put_right_once() -> None:
    history, _ = voided_round()
    out = check_history(history, Scope(), settled_before=LATER)
    assert out.findings == []
    assert (out.rounds_voided_after_result, out.bets_reversed) == (1, 1)
    assert (out.amounts["INR"].refunded_after_void, out.amounts["INR"].taken_back) == (
        1_000,
        1_950,
    )


def test_a_reversal_or_correction_that_is_not_what_was_settled_is_found() -> None:
    history, _ = voided_round(returned_delta=50)
    codes = [f.code for f in check_history(history, Scope(), settled_before=LATER).findings]
    assert codes == ["reversal_mismatch", "correction_mismatch"]
    history, _ = voided_round(corrected_delta=-50)
    codes = [f.code for f in check_history(history, Scope(), settled_before=LATER).findings]
    assert codes == ["correction_mismatch"]


def test_a_void_after_the_result_not_reversed_or_not_put_right_is_found_once_due() -> None:
    history, bet_id = voided_round(correct=False)
    codes = [f.code for f in check_history(history, Scope(), settled_before=LATER).findings]
    assert codes == ["not_corrected"]
    del history.reversed[bet_id]
    codes = [f.code for f in check_history(history, Scope(), settled_before=LATER).findings]
    assert codes == ["not_reversed"]
    early = check_history(history, Scope(), settled_before=T0 - timedelta(seconds=1))
    assert early.findings == []


def test_a_reversal_without_a_void_is_found() -> None:
    history, _ = voided_round()
    history.rounds["T1-000001"].voided_after = None
    codes = [f.code for f in check_history(history, Scope(), settled_before=LATER).findings]
    assert codes == ["reversed_without_void"]


def test_a_correction_moves_the_balance_it_says() -> None:
    history, _ = voided_round()
    stream = history.wallet["player-op:p"]
    deposit = FundsDeposited(
        transfer_id="t",
        operator_id="op",
        player_id="p",
        currency="INR",
        amount=5_000,
        balance_after=5_000,
    )
    placed_event, paid_event, corrected_event = (item[0] for item in stream)
    assert isinstance(paid_event, PaidLine)
    history.wallet["player-op:p"] = [
        (deposit, "w@1"),
        (placed_event, "w@2"),
        (paid_event.model_copy(update={"balance_after": 5_950}), "w@3"),
        (corrected_event.model_copy(update={"balance_after": 5_000}), "w@4"),
    ]
    key = ("op", "p", "INR")
    tables = BalanceTables({key: 5_000}, {key: 5_000}, {("op", "INR"): 0})
    assert check_balances(history, tables, {})[0] == []
    history.wallet["player-op:p"][3] = (
        corrected_event.model_copy(update={"balance_after": 4}),
        "w",
    )
    codes = [f.code for f in check_balances(history, tables, {})[0]]
    assert codes == ["balance_after_mismatch"]
