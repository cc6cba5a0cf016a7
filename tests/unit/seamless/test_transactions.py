"""The pure parts of the transactions area: reconciliation's comparison, the CSV format, and
the transactions API's times and cursors (issue 22, item 6)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from teenpatti.http import ProblemError
from teenpatti.reconcile import (
    OurCall,
    ReconcileUsageError,
    TheirTransaction,
    compare,
    parse_when,
    read_csv,
)
from wallet_service.transactions import decode_cursor, encode_cursor, time_range

T0 = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
SINCE, UNTIL = T0 - timedelta(hours=1), T0 + timedelta(hours=1)


def ours(
    uuid: str, kind: str = "bet", amount: int | None = 1_000_000, **changes: object
) -> OurCall:
    call = OurCall(uuid, kind, "p1", "T1-1", amount, "INR", "ok", None, T0)
    return replace(call, **changes)  # type: ignore[arg-type]


def theirs(
    uuid: str, kind: str = "bet", amount: int = 1_000_000, **changes: object
) -> TheirTransaction:
    transaction = TheirTransaction(uuid, kind, "p1", "T1-1", amount, "INR", None, T0)
    return replace(transaction, **changes)  # type: ignore[arg-type]


def problems(
    result_ours: list[OurCall], result_theirs: list[TheirTransaction]
) -> list[tuple[str, str]]:
    found = compare(result_ours, result_theirs, SINCE, UNTIL).differences
    return [(d.problem, d.transaction_uuid) for d in found]


def test_matching_sides_have_no_difference() -> None:
    calls = [
        ours("s1"),
        ours("w1", "win", 2_000_000, reference_transaction_uuid="s1"),
        ours("s2"),
        ours("r2", "rollback", 1_000_000, reference_transaction_uuid="s2"),
    ]
    applied = [
        theirs("s1"),
        theirs("w1", "win", 2_000_000, reference_transaction_uuid="s1"),
        theirs("s2"),
        theirs("r2", "rollback", 1_000_000, reference_transaction_uuid="s2"),
    ]
    assert problems(calls, applied) == []


def test_each_kind_of_difference_is_named() -> None:
    calls = [
        ours("only-ours"),
        ours("amount", amount=1_000),
        ours("kind", "win", 0),
        ours("user", user="p2"),
        ours("pending", status="pending"),
        ours("failed", "win", 5, status="failed"),
        ours("refused", status="refused"),
    ]
    applied = [
        theirs("only-theirs"),
        theirs("amount", amount=2_000),
        theirs("kind"),
        theirs("user"),
        theirs("refused"),
    ]
    assert sorted(problems(calls, applied)) == sorted(
        [
            ("missing_at_operator", "only-ours"),
            ("amount_mismatch", "amount"),
            ("kind_mismatch", "kind"),
            ("user_mismatch", "user"),
            ("pending_here", "pending"),
            ("failed_here", "failed"),
            ("refused_here_applied_there", "refused"),
            ("missing_here", "only-theirs"),
            # the operator's list on its own: bets it holds that nothing ended
            ("bet_not_ended", "only-theirs"),
            ("bet_not_ended", "amount"),
            ("bet_not_ended", "kind"),
            ("bet_not_ended", "user"),
            ("bet_not_ended", "refused"),
        ]
    )


def test_a_uuid_applied_twice_another_bet_named_and_round_closed_differing_are_named() -> None:
    calls = [
        ours("s1"),
        ours("s2"),
        ours("w1", "win", 2_000_000, reference_transaction_uuid="s2", round_closed=True),
        ours("r1", "rollback", 1_000_000, reference_transaction_uuid="s1"),
    ]
    later = T0 + timedelta(seconds=1)
    applied = [
        theirs("s1"),
        theirs("s2"),
        # the win applied against the other bet, without closing the round
        theirs("w1", "win", 2_000_000, reference_transaction_uuid="s1", created_at=later),
        theirs("w1", "win", 2_000_000, reference_transaction_uuid="s1", created_at=later),
        theirs("r1", "rollback", 1_000_000, reference_transaction_uuid="s1", created_at=later),
    ]
    applied[2:4] = [replace(t, round_closed=False) for t in applied[2:4]]
    assert sorted(problems(calls, applied)) == sorted(
        [
            ("reference_mismatch", "w1"),
            ("applied_twice", "w1"),
            ("bet_ended_twice", "s1"),
            ("bet_not_ended", "s2"),
        ]
    )


def test_a_closing_win_ends_the_open_bets_of_its_round_and_only_those() -> None:
    later, last = T0 + timedelta(seconds=1), T0 + timedelta(seconds=2)
    calls = [
        ours("s1"),
        ours("s2"),
        ours("w", "win", 0, reference_transaction_uuid="s2", round_closed=True),
        ours("r1", "rollback", 1_000_000, reference_transaction_uuid="s1"),
    ]
    closing = theirs("w", "win", 0, reference_transaction_uuid="s2", round_closed=True)
    # the round's closing win ends s1 too: a rollback of s1 after it ends s1 a second time
    applied = [
        theirs("s1"),
        theirs("s2"),
        replace(closing, created_at=later),
        theirs("r1", "rollback", 1_000_000, reference_transaction_uuid="s1", created_at=last),
    ]
    assert problems(calls, applied) == [("bet_ended_twice", "s1")]
    # the rollback first, then the closing win: each bet ended once
    applied[2:] = [replace(applied[3], created_at=later), replace(closing, created_at=last)]
    assert problems(calls, applied) == []
    # a bet of ours still in play may be open at the operator
    assert problems([ours("s3", in_play=True)], [theirs("s3")]) == []
    assert problems([ours("s3")], [theirs("s3")]) == [("bet_not_ended", "s3")]


def test_a_bet_undone_by_its_rollback_may_be_on_either_side_and_a_tombstone_matches() -> None:
    # a timed-out bet never applied: the operator's rollback is a tombstone of amount 0
    calls = [
        ours("lost", status="failed", undone=True),
        ours("rb", "rollback", 1_000_000, reference_transaction_uuid="lost"),
    ]
    assert problems(calls, [theirs("rb", "rollback", 0, tombstone=True)]) == []
    # applied late, then rolled back for its own amount
    applied = [
        theirs("lost"),
        theirs("rb", "rollback", 1_000_000, reference_transaction_uuid="lost"),
    ]
    assert problems(calls, applied) == []


def test_only_records_in_the_range_count_though_the_margin_matches_the_edges() -> None:
    early = T0 - timedelta(hours=2)
    # ours just inside the range, theirs a moment before it: matched, no difference
    calls = [ours("edge", created_at=SINCE + timedelta(milliseconds=5))]
    applied = [theirs("edge", created_at=SINCE - timedelta(milliseconds=5))]
    assert problems(calls, applied) == []
    # a call of theirs outside the range, with nothing of ours: not this range's difference
    assert problems([], [theirs("old", created_at=early)]) == []


def test_the_csv_format_is_read_and_bad_files_are_named(tmp_path: Path) -> None:
    good = tmp_path / "operator.csv"
    good.write_text(
        "transaction_uuid,kind,user,round,amount,currency,created_at,reference_transaction_uuid,tombstone\n"
        "s1,bet,p1,T1-1,1000000,INR,2026-12-02T09:00:00Z,,false\n"
        "r1,rollback,p1,T1-1,0,INR,2026-12-02T09:00:01+00:00,s0,true\n"
    )
    first, second = read_csv(good)
    assert first == theirs("s1")
    assert second.tombstone and second.reference_transaction_uuid == "s0"

    no_column = tmp_path / "no-column.csv"
    no_column.write_text("transaction_uuid,kind,user,round,currency,created_at\n")
    with pytest.raises(ReconcileUsageError, match="no column amount"):
        read_csv(no_column)
    bad_row = tmp_path / "bad-row.csv"
    bad_row.write_text(
        "transaction_uuid,kind,user,round,amount,currency,created_at\n"
        "s1,bet,p1,T1-1,10.5,INR,2026-12-02T09:00:00Z\n"
    )
    with pytest.raises(ReconcileUsageError, match=r"bad-row.csv:2"):
        read_csv(bad_row)
    naive = tmp_path / "naive.csv"
    naive.write_text(
        "transaction_uuid,kind,user,round,amount,currency,created_at\n"
        "s1,deposit,p1,T1-1,10,INR,2026-12-02T09:00:00Z\n"
    )
    with pytest.raises(ReconcileUsageError, match="kind 'deposit'"):
        read_csv(naive)
    closing = tmp_path / "closing.csv"
    closing.write_text(
        "transaction_uuid,kind,user,round,amount,currency,created_at,round_closed\n"
        "w1,win,p1,T1-1,0,INR,2026-12-02T09:00:00Z,true\n"
        "w2,win,p1,T1-1,0,INR,2026-12-02T09:00:00Z,\n"
        "w3,win,p1,T1-1,0,INR,2026-12-02T09:00:00Z,yes\n"
    )
    with pytest.raises(ReconcileUsageError, match=r"closing.csv:4: round_closed 'yes'"):
        read_csv(closing)
    closing.write_text("\n".join(closing.read_text().splitlines()[:3]) + "\n")
    assert [t.round_closed for t in read_csv(closing)] == [True, None]


def test_reconcile_times_are_dates_or_times_with_an_offset() -> None:
    assert parse_when("--from", "2026-12-02") == datetime(2026, 12, 2, tzinfo=UTC)
    assert parse_when("--to", "2026-12-02", end=True) == datetime(2026, 12, 3, tzinfo=UTC)
    assert parse_when("--from", "2026-12-02T10:00:00+01:00") == T0
    for bad in ("yesterday", "2026-12-02T09:00:00"):
        with pytest.raises(ReconcileUsageError):
            parse_when("--from", bad)


def test_the_api_refuses_bad_times_ranges_and_cursors_with_problems() -> None:
    assert time_range("2026-12-02T09:00:00Z", None)[0] == T0
    cases = [
        (("nope", None), "invalid_time"),
        (("2026-12-02T09:00:00", None), "invalid_time"),
        (("2026-12-02T10:00:00Z", "2026-12-02T09:00:00Z"), "invalid_range"),
    ]
    for (since, until), code in cases:
        with pytest.raises(ProblemError) as refused:
            time_range(since, until)
        assert (refused.value.status, refused.value.code) == (400, code)
    key = (T0 + timedelta(microseconds=7), "call:0b6e")
    assert decode_cursor(encode_cursor(*key)) == key
    for bad in ("!!", "bm90LWEtY3Vyc29y", encode_cursor(T0, "x")[:-3]):
        with pytest.raises(ProblemError) as refused:
            decode_cursor(bad)
        assert refused.value.code == "invalid_cursor"
