"""The replay audit against real stores: a clean history passes; an altered payout, an
altered payment line, a removed event and two reordered events are each caught, with the
ids concerned."""

from __future__ import annotations

import asyncio
import io
from datetime import timedelta
from uuid import UUID

import pytest

from teenpatti import cli
from teenpatti.audit import Scope
from teenpatti.audit.runner import Report, read_topic
from teenpatti.events.catalog import TableClosed
from teenpatti.eventsourcing import (
    AsyncpgEventStore,
    KafkaOutboxRelay,
    ensure_topics,
    kafka_producer,
)

from .conftest import PLAYER_STREAM, STORES, History, alter_settled_line

pytestmark = pytest.mark.timeout(120)


def codes(report: Report) -> set[tuple[str, str]]:
    return {(f.check, f.code) for f in report.findings}


def subjects(report: Report, code: str) -> list[str]:
    return [f.subject for f in report.findings if f.code == code]


async def test_a_clean_history_passes(history: History) -> None:
    report = await history.audit()
    assert report.findings == []
    assert report.ok
    out = report.outcome
    assert (out.rounds, out.rounds_closed, out.rounds_cancelled) == (2, 1, 1)
    assert (out.bets, out.bets_settled, out.bets_paid, out.bets_in_progress) == (3, 3, 3, 0)
    inr = out.amounts["INR"]
    assert (inr.staked, inr.deposited, inr.withdrawn) == (1_800, 100_000, 0)
    assert inr.paid == inr.returned > 0
    assert report.balances_checked == 1
    by_store = {s.name: s.chain for s in report.stores}
    assert by_store["table"].events == 11
    # a deposit; each round's slip in one BetsPlaced, paid in one BetsPaid; two books
    assert by_store["wallet"].chained == by_store["wallet"].events == 7
    assert all(s.chain.chained == s.chain.events for s in report.stores)
    text = report.format()
    assert "rounds: 2 (1 closed, 1 cancelled, 0 in progress)" in text
    assert text.rstrip().endswith("result: OK")


async def test_an_altered_payout_is_caught_by_recomputation_and_by_the_chain(
    history: History,
) -> None:
    bet_id = history.bet_ids[0]
    async with history.pools["settlement"].acquire() as connection:
        version = await alter_settled_line(connection, bet_id, "returned", "999999")
    report = await history.audit()
    assert not report.ok
    assert ("settlement", "settlement_mismatch") in codes(report)
    assert any(str(bet_id) in s for s in subjects(report, "settlement_mismatch"))
    assert subjects(report, "hash_mismatch") == [f"settlement:settlement-T1-000001@{version}"]
    # the wallet paid what was really due: the payment disagrees with the altered settlement
    assert ("payment", "payment_mismatch") in codes(report)
    assert ("settlement", "round_totals_mismatch") in codes(report)


async def test_an_altered_line_of_a_payment_is_caught(history: History) -> None:
    bet_id = history.bet_ids[1]  # the second line of round 1's BetsPaid
    async with history.pools["wallet"].acquire() as connection:
        version = await connection.fetchval(
            "UPDATE events"
            " SET payload = jsonb_set(payload::jsonb, '{bets,1,amount}', '999999')::json"
            " WHERE event_type = 'BetsPaid' AND payload->'bets'->1->>'bet_id' = $1"
            " RETURNING stream_version",
            str(bet_id),
        )
    assert version is not None
    report = await history.audit()
    assert subjects(report, "hash_mismatch") == [f"wallet:{PLAYER_STREAM}@{version}"]
    assert any(str(bet_id) in s for s in subjects(report, "payment_mismatch"))
    assert ("balance", "balance_after_mismatch") in codes(report)


async def test_a_deleted_event_is_caught(history: History) -> None:
    async with history.pools["table"].acquire() as connection:
        await connection.execute(
            "DELETE FROM events WHERE stream_id = 'table-T1' AND stream_version = 6"
        )
    report = await history.audit()
    assert subjects(report, "version_gap") == ["table:table-T1@7"]
    assert subjects(report, "hash_mismatch") == ["table:table-T1@7"]
    assert ("result", "cards_missing") in codes(report)


async def test_a_deleted_last_event_and_a_deleted_payment_are_caught(history: History) -> None:
    bet_id = history.bet_ids[2]
    async with history.pools["wallet"].acquire() as connection:
        await connection.execute(
            "DELETE FROM events"
            " WHERE event_type = 'BetsPaid' AND payload->'bets'->0->>'bet_id' = $1",
            str(bet_id),
        )
    report = await history.audit()
    assert subjects(report, "stream_head_mismatch") == [f"wallet:{PLAYER_STREAM}"]
    assert any(str(bet_id) in s for s in subjects(report, "not_paid"))
    assert ("balance", "balance_mismatch") in codes(report)


async def test_two_reordered_events_are_caught(history: History) -> None:
    async with history.pools["table"].acquire() as connection, connection.transaction():
        for old, new in ((5, -5), (6, 5), (-5, 6)):
            await connection.execute(
                "UPDATE events SET stream_version = $2"
                " WHERE stream_id = 'table-T1' AND stream_version = $1",
                old,
                new,
            )
    report = await history.audit()
    # the two swapped events and the next one, which no longer follows its predecessor
    assert subjects(report, "hash_mismatch") == [f"table:table-T1@{v}" for v in (5, 6, 7)]
    assert subjects(report, "commit_order") == ["table:table-T1@6"]
    # each CardDealt names its position: the round itself still recomputes the same
    assert codes(report) == {("chain", "hash_mismatch"), ("chain", "commit_order")}


async def test_an_altered_result_is_caught(history: History) -> None:
    async with history.pools["table"].acquire() as connection:
        await connection.execute(
            "UPDATE events"
            " SET payload = jsonb_set(payload::jsonb, '{winner}', '\"player_b\"')::json"
            " WHERE event_type = 'RoundClosed'"
        )
    report = await history.audit()
    assert ("result", "result_mismatch") in codes(report)
    assert ("chain", "hash_mismatch") in codes(report)


async def test_an_event_whose_hash_was_removed_is_reported(history: History) -> None:
    async with history.pools["scanner"].acquire() as connection:
        await connection.execute("UPDATE events SET hash = NULL")
    report = await history.audit()
    assert ("chain", "hash_missing") in codes(report)
    scanner = next(s for s in report.stores if s.name == "scanner")
    assert scanner.chain.chained == 0


async def test_a_scoped_audit(history: History) -> None:
    report = await history.audit(Scope(table_id="T1"))
    assert report.ok, report.format()
    assert (report.outcome.rounds, report.outcome.bets) == (2, 3)
    assert report.balances_checked is None
    report = await history.audit(Scope(table_id="T9"))
    assert report.ok and report.outcome.rounds == 0
    # round 2 was opened 200 s after the start of the history
    report = await history.audit(Scope(since=history.start + timedelta(seconds=150)))
    assert report.ok, report.format()
    assert (report.outcome.rounds, report.outcome.bets) == (1, 1)


async def test_an_unsettled_recent_round_is_in_progress_and_an_old_one_a_mismatch(
    history: History,
) -> None:
    async with history.pools["settlement"].acquire() as connection:
        await connection.execute("DELETE FROM events WHERE stream_id = 'settlement-T1-000002'")
        await connection.execute("DELETE FROM streams WHERE stream_id = 'settlement-T1-000002'")
    report = await history.audit()
    assert any(str(history.bet_ids[2]) in s for s in subjects(report, "not_settled"))
    # an audit that treats the last two hours as still settling only counts it
    report = await history.audit(settle_grace=timedelta(hours=2))
    assert ("settlement", "not_settled") not in codes(report)
    assert report.outcome.bets_in_progress == 1


async def test_the_cli_reports_and_sets_the_exit_status(history: History) -> None:
    argv = ["audit", *(f"--{store}-db={history.dsns[store]}" for store in STORES)]
    status, out, err = await _cli(argv)
    assert status == 0, out + err
    assert "result: OK" in out
    status, out, _ = await _cli([*argv, "--json"])
    assert status == 0 and '"ok": true' in out
    async with history.pools["wallet"].acquire() as connection:
        await connection.execute("UPDATE wallet_accounts SET balance = balance + 1")
    status, out, _ = await _cli(argv)
    assert status == 1
    assert "[balance/balance_mismatch] account operator-1:p1 INR" in out


async def test_the_cli_refuses_an_unreachable_store_and_bad_arguments(history: History) -> None:
    argv = ["audit", *(f"--{store}-db={history.dsns[store]}" for store in STORES)]
    status, _, err = await _cli([*argv, "--wallet-db=test_no_such_database_here"])
    assert status == 2
    assert "cannot connect to the wallet store" in err and "Traceback" not in err
    status, _, _ = await _cli([*argv, "--since=yesterday"])  # argparse tells sys.stderr
    assert status == 2
    status, _, err = await _cli([*argv, "--since=2026-01-02", "--until=2026-01-01"])
    assert status == 2 and "--since must be before --until" in err


async def test_the_topics_agree_with_the_stores_and_a_removed_event_is_caught(
    history: History,
) -> None:
    settings = history.settings
    producer = kafka_producer(settings.kafka_options(), client_id="audit-test")
    await producer.start()
    try:
        for spec in history.specs():
            await ensure_topics(
                settings.kafka_options(), [spec.topic], partitions=settings.kafka_partitions
            )
            store = AsyncpgEventStore(history.pools[spec.name], producer=spec.name)
            relay = KafkaOutboxRelay(store, producer, spec.topic, name=spec.name)
            async with asyncio.timeout(60):
                while await relay.publish_pending():
                    pass
        # an event appended after the relay's checkpoint is pending, not a mismatch
        store = AsyncpgEventStore(history.pools["table"], producer="table")
        await store.append(
            "table-T1",
            11,
            [TableClosed(table_id="T1", actor="supervisor-1", reason="end of day")],
            table_id="T1",
        )
    finally:
        await producer.stop()
    report = await history.audit(kafka_servers=settings.kafka_options(), kafka_timeout=60)
    assert report.ok, report.format()
    table = next(s for s in report.stores if s.name == "table")
    assert (table.kafka_checked, table.kafka_pending) == (11, 1)
    on_topic = await read_topic(settings.kafka_options(), history.specs()[0].topic, 60)
    assert len(on_topic) == 11
    async with history.pools["table"].acquire() as connection:
        removed: UUID = await connection.fetchval(
            "DELETE FROM events WHERE stream_id = 'table-T1' AND stream_version = 3"
            " RETURNING event_id"
        )
    report = await history.audit(kafka_servers=settings.kafka_options(), kafka_timeout=60)
    assert subjects(report, "not_in_store") == ["table:table-T1@3"]
    assert any(str(removed) in f.detail for f in report.findings if f.code == "not_in_store")


async def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = await asyncio.to_thread(cli.main, argv, io.StringIO(), out, err)
    return status, out.getvalue(), err.getvalue()
