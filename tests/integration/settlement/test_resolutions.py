"""Resolving a held round from the API: what is refused, and a release that finds the inputs
still disagreeing (the round stays held, the problem open again). The resolutions that settle
a round, end to end with the wallet, are in tests/hostile/test_money.py."""

from __future__ import annotations

from uuid import uuid4

import httpx

from settlement_service.app import create_app
from settlement_service.config import SettlementSettings
from teenpatti.events.catalog import SETTLEMENT_EVENTS

from ..services import of_type, outbox_published, read_to_end, running
from .conftest import (
    OPERATOR_1,
    SUPERVISOR,
    SUPERVISOR_2,
    a_wins,
    book,
    connect,
    eventually,
    feed_table,
    feed_wallet,
    opened,
    placed,
    round_id,
    settlements,
    two_supervisors,
)


async def test_only_a_held_round_is_resolved_and_only_by_two_supervisors(
    settlement_settings: SettlementSettings,
) -> None:
    settings = two_supervisors(settlement_settings)
    good = [placed("T1", "player_a", 100)]
    held = [placed("T2", "player_a", 100), placed("T2", "tie", 10)]
    async with running(create_app(settings)) as client:
        for table, bets, sealed in (
            ("T1", good, book("T1", good)),
            # same count, another bet id: the digest disagrees
            ("T2", held, book("T2", [held[0], placed("T2", "tie", 10)])),
        ):
            await feed_table(settings, opened(table))
            for bet in bets:
                await feed_wallet(settings, bet)
            await feed_wallet(settings, sealed)
            await feed_table(settings, a_wins(table))
        await feed_table(settings, opened("T3"))  # open, nothing holds it
        await settlements(settings, 1)
        connection = await connect(settings)
        try:

            async def recorded() -> bool:
                kinds = await connection.fetch("SELECT kind FROM settlement_problems")
                return [row[0] for row in kinds] == ["digest_mismatch"]

            await eventually(recorded, what="the digest mismatch to be recorded")

            async def ask(
                round_: str, action: str = "release", headers: dict[str, str] = SUPERVISOR
            ) -> httpx.Response:
                return await client.post(
                    f"/rounds/{round_}/settlement/resolutions",
                    json={"action": action, "reason": "checked the book by hand"},
                    headers=headers,
                )

            for round_, status, code in (
                ("T9-000001", 404, "unknown_round"),
                (round_id("T1"), 409, "round_not_held"),  # settled
                (round_id("T3"), 409, "round_not_held"),  # nothing holds it
            ):
                refused = await ask(round_)
                assert (refused.status_code, refused.json()["code"]) == (status, code), round_
            assert (await ask(round_id("T2"), headers=OPERATOR_1)).status_code == 403
            bad = await client.post(
                f"/rounds/{round_id('T2')}/settlement/resolutions",
                json={"action": "pay_twice", "reason": "x"},
                headers=SUPERVISOR,
            )
            assert bad.status_code == 422

            # a void cannot settle a round whose book disagrees with its bets
            void = (await ask(round_id("T2"), "void")).json()
            confirm = f"/rounds/{round_id('T2')}/settlement/resolutions/{{}}/confirm"
            refused = await client.post(confirm.format(void["resolution_id"]), headers=SUPERVISOR_2)
            assert refused.status_code == 409, refused.text
            assert refused.json()["code"] == "cannot_void"
            assert "the sealed book says" in refused.json()["detail"]

            # a newer request supersedes the pending one
            release = (await ask(round_id("T2"))).json()
            stale = await client.post(confirm.format(void["resolution_id"]), headers=SUPERVISOR_2)
            assert stale.json()["code"] == "resolution_not_pending"
            unknown = await client.post(confirm.format(uuid4()), headers=SUPERVISOR_2)
            assert unknown.json()["code"] == "unknown_resolution"
            alone = await client.post(confirm.format(release["resolution_id"]), headers=SUPERVISOR)
            assert alone.json()["code"] == "same_supervisor"

            # released, the inputs still disagree: held again, the problem open again
            released = await client.post(
                confirm.format(release["resolution_id"]), headers=SUPERVISOR_2
            )
            assert released.status_code == 200, released.text
            assert (released.json()["outcome"], released.json()["problems"]) == (
                "held",
                ["digest_mismatch"],
            )
            assert await connection.fetchval(
                "SELECT resolved_at IS NULL FROM settlement_problems WHERE round_id = $1",
                round_id("T2"),
            )
            problems = (await client.get("/problems", headers=SUPERVISOR)).json()["items"]
            assert [(p["round_id"], p["kind"], p["actions"]) for p in problems] == [
                (
                    round_id("T2"),
                    "digest_mismatch",
                    [f"POST /rounds/{round_id('T2')}/settlement/resolutions"],
                )
            ]
            await eventually(lambda: outbox_published(connection), what="a quiet outbox")
        finally:
            await connection.close()
    # both requests and the one confirmation are the settlement's events, nothing else of T2
    published = await read_to_end(settings, SETTLEMENT_EVENTS)
    of_t2 = [e.event_type for e in published if e.table_id == "T2"]
    assert sorted(of_t2) == [
        "SettlementResolutionRequested",
        "SettlementResolutionRequested",
        "SettlementResolved",
    ]
    (resolved,) = of_type(published, "SettlementResolved")
    assert (resolved.requested_by, resolved.confirmed_by) == ("supervisor-1", "supervisor-2")  # type: ignore[attr-defined]
