"""Two instances of every service; one of each killed with SIGKILL in the middle of a round."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime

from teenpatti.eventsourcing import partition_for
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.devrun import endpoints

from .conftest import running_system
from .driver import Studio
from .test_rounds import betting_round


def table_on_partition(partition: int, partitions: int) -> str:
    """A fresh table id that Kafka keys to `partition`."""
    while True:
        table_id = f"S{uuid.uuid4().hex[:6].upper()}"
        if partition_for(table_id, partitions) == partition:
            return table_id


async def test_killing_one_instance_of_each_service_loses_no_round_and_pays_once(
    infrastructure: InfrastructureSettings,
) -> None:
    partitions = infrastructure.kafka_partitions
    async with running_system(infrastructure, instances=2) as system:
        studio = Studio(endpoints(system.services))
        try:
            # The first and the last partition: whichever way the two table instances split
            # the partitions, each owns one of these tables, so the kill orphans a table.
            tables = [
                table_on_partition(0, partitions),
                table_on_partition(partitions - 1, partitions),
            ]
            players = {t: f"p-{uuid.uuid4().hex[:8]}" for t in tables}
            rounds: dict[str, str] = {}
            for table_id in tables:
                await studio.deposit("operator-1", players[table_id], 10_000)
                await studio.open_table(table_id, betting_seconds=4.0, result_pause_seconds=0.5)
                # the bet at once, in the first round: opening the other table first (its
                # scanner and its terms take two supervisors each, 0085 and 0086) can use up
                # this window, and a round skipped for want of time is never dealt, so no
                # next round would open
                rounds[table_id] = str((await betting_round(studio, table_id))["round_id"])
                placed = await studio.bet(
                    "operator-1", players[table_id], rounds[table_id], {"player_a": 1_000}
                )
                assert placed.status_code == 201, placed.text
            for table_id in tables:
                await studio.wait_for(table_id, "BettingClosed", round_id=rounds[table_id])
                await studio.deal(table_id, ["AS", "2D", "AH"])

            # SIGKILL the first instance of every service, mid-round.
            for service in system.services:
                if service.name.endswith("-1"):
                    system.kill(service.name)
                    studio.urls.forget(service.url)
            killed_at = datetime.now(UTC)
            started = time.monotonic()

            for table_id in tables:
                await studio.deal(table_id, ["3D", "AD", "4D"])
            fourth_cards = {}
            for table_id in tables:
                closed = await studio.wait_for(
                    table_id, "RoundClosed", round_id=rounds[table_id], timeout=90
                )
                assert closed["cards"] == ["AS", "2D", "AH", "3D", "AD", "4D"]
                dealt = [
                    e
                    for e in await studio.events(table_id)
                    if e["event_type"] == "CardDealt"
                    and e["payload"]["round_id"] == rounds[table_id]
                ]
                assert [e["payload"]["position"] for e in dealt] == [
                    "A1",
                    "B1",
                    "A2",
                    "B2",
                    "A3",
                    "B3",
                ]
                fourth_cards[table_id] = datetime.fromisoformat(dealt[3]["occurred_at"])

            for table_id in tables:
                (bet,) = await studio.paid_bets(
                    "operator-1", players[table_id], rounds[table_id], count=1, timeout=90
                )
                assert (bet["outcome"], bet["returned"]) == ("won", 1_950)
                assert await studio.balance("operator-1", players[table_id]) == 10_950
                events = await studio.events(table_id)
                closes = [
                    e
                    for e in events
                    if e["event_type"] == "RoundClosed"
                    and e["payload"]["round_id"] == rounds[table_id]
                ]
                assert len(closes) == 1, "closed once"

            # Both tables carry on: a next round opens and its betting window closes.
            lateness = {}
            for table_id in tables:
                number = int(rounds[table_id].rsplit("-", 1)[1])
                following = f"{table_id}-{number + 1:06d}"
                opened = await studio.wait_for(
                    table_id, "RoundOpened", round_id=following, timeout=60
                )
                closed_betting = await studio.wait_for(
                    table_id, "BettingClosed", round_id=following, timeout=60
                )
                deadline = datetime.fromisoformat(str(opened["betting_closes_at"]))
                lateness[table_id] = (
                    datetime.fromisoformat(str(closed_betting["closed_at"])) - deadline
                ).total_seconds()

            ownerless = {t: (fourth_cards[t] - killed_at).total_seconds() for t in tables}
            print(
                f"\nkill at +0.0 s; fourth card dealt after {ownerless} s;"
                f" next betting window closed late by {lateness} s;"
                f" whole recovery {time.monotonic() - started:.1f} s"
            )
            # the window is never closed early; how late is a figure (printed), not asserted:
            # a shared machine's load is not the system's fault
            assert all(late >= 0 for late in lateness.values()), lateness
        finally:
            await studio.close()
