"""The audit of a history the four running services produced: one real round, betting to
paid, passes; a payout changed in the settlement store afterwards is caught three ways (the
engine's recomputation, the hash chain and the copy on Kafka)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest

from teenpatti.audit import Scope, StoreSpec, run_audit
from teenpatti.audit.runner import STORE_TOPICS
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.devrun import endpoints
from tests.e2e.conftest import running_system
from tests.e2e.driver import Studio

from .conftest import alter_settled_line

pytestmark = pytest.mark.timeout(180)

STORES = ("table", "scanner", "wallet", "settlement")


async def test_a_real_round_passes_and_a_changed_payout_is_caught(
    infrastructure: InfrastructureSettings,
) -> None:
    async with running_system(infrastructure) as system:
        studio = Studio(endpoints(system.services))
        table_id, player = f"A{uuid.uuid4().hex[:6].upper()}", f"p-{uuid.uuid4().hex[:8]}"
        try:
            await studio.open_table(table_id, betting_seconds=2.5)
            await studio.deposit("operator-1", player, 100_000)
            after = 0
            while True:  # a round whose betting has at least a second left
                opened = await studio.next_round(table_id, after=after)
                closes = datetime.fromisoformat(str(opened["betting_closes_at"]))
                if (closes - datetime.now(UTC)).total_seconds() > 1.0:
                    break
                after = int(str(opened["_position"]))
            round_id = str(opened["round_id"])
            placed = await studio.bet(
                "operator-1", player, round_id, {"player_a": 1_000, "pair_plus_a": 500}
            )
            assert placed.status_code == 201, placed.text
            await studio.wait_for(table_id, "BettingClosed", round_id=round_id)
            await studio.deal(table_id, ["AS", "2D", "KS", "3C", "QS", "4H"])
            paid = await studio.paid_bets("operator-1", player, round_id, 2)
        finally:
            await studio.close()
        env = system._env  # the databases and topic prefix the system was started with
        specs = [
            StoreSpec(
                store,
                infrastructure.postgres_dsn(env[f"TP_{store.upper()}_DATABASE"]),
                infrastructure.model_copy(update={"topic_prefix": env["TP_TOPIC_PREFIX"]}).topic(
                    STORE_TOPICS[store]
                ),
            )
            for store in STORES
        ]
        kafka = infrastructure.kafka_options()

        report = await run_audit(specs, Scope(), settle_grace=timedelta(0), kafka_servers=kafka)
        assert report.ok, report.format()
        assert report.outcome.rounds_closed >= 1
        assert (report.outcome.bets, report.outcome.bets_paid) == (2, 2)
        assert all(s.chain.chained == s.chain.events > 0 for s in report.stores)
        assert sum(s.kafka_checked for s in report.stores) > 0
        assert report.balances_checked == 1

        bet_id = next(b["bet_id"] for b in paid if b["bet_type"] == "player_a")
        settlement = next(s for s in specs if s.name == "settlement")
        connection = await asyncpg.connect(settlement.dsn)
        try:
            await alter_settled_line(connection, bet_id, "returned", "100000")
        finally:
            await connection.close()
        report = await run_audit(
            specs, Scope(table_id=table_id), settle_grace=timedelta(0), kafka_servers=kafka
        )
        found = {(f.code, f.subject.split(" (")[0]) for f in report.findings}
        assert ("settlement_mismatch", f"bet {bet_id}") in found
        assert any(code == "hash_mismatch" for code, _ in found)
        assert any(code == "topic_mismatch" for code, _ in found)
