"""Settlements that reach the wallet together are paid as a batch: one transaction for a
poll's worth, each bet once, balances running in order, and a bad one parked alone."""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from aiokafka import AIOKafkaProducer

from teenpatti.events import EventEnvelope, new_envelope
from teenpatti.events.catalog import SETTLEMENT_EVENTS
from wallet_service.config import WalletSettings

from .helpers import (
    LIMITS,
    OPERATOR_1,
    balances,
    close_betting,
    close_round,
    database,
    deposit,
    engine_settles,
    eventually,
    open_round,
    place,
    wait_for_round,
    wallet,
)
from .test_payments import CARDS, settled

ROUND = "T1-000001"
PLAYERS = ("p1", "p2", "p3")
DEPOSIT = 100_000


async def place_bets(settings: WalletSettings) -> list[dict[str, Any]]:
    """20 one-bet slips for each player, on Player A and Player B in turn (Player A wins),
    betting then closed and the round closed; the wallet is stopped after. A bet type's
    maximum is above a player's 20 slips together (the exposure limit)."""
    bets: list[dict[str, Any]] = []
    limits = {"INR": {t: {"min": 100, "max": 100_000} for t in LIMITS["INR"]}}
    async with wallet(settings) as client:
        await open_round(settings, client, ROUND, limits=limits)
        for player in PLAYERS:
            await deposit(client, player, DEPOSIT)
        for n in range(20):
            for player in PLAYERS:
                bet_type = ("player_a", "player_b")[len(bets) % 2]
                response = await place(client, player, ROUND, [(bet_type, 1_000 + n)])
                assert response.status_code == 201, response.text
                (bet,) = response.json()["bets"]
                bets.append(
                    {
                        **bet,
                        "player_id": player,
                        "round_id": ROUND,
                        "table_id": "T1",
                        "currency": "INR",
                    }
                )
        await close_betting(settings, ROUND)
        await wait_for_round(client, ROUND, "sealed")
        await close_round(settings, client, ROUND, CARDS)
    return bets


def settle(bet: dict[str, Any]) -> tuple[str, int]:
    """The bet's outcome and return, as the wallet computes them."""
    return engine_settles(bet["bet_type"], bet["stake"], CARDS)


async def publish_all(settings: WalletSettings, envelopes: list[EventEnvelope]) -> None:
    kafka = AIOKafkaProducer(**settings.kafka_options(), acks="all")
    await kafka.start()
    try:
        for envelope in envelopes:
            await kafka.send(settings.topic(SETTLEMENT_EVENTS), envelope.to_json_bytes(), key=b"T1")
        await kafka.flush()
    finally:
        await kafka.stop()


def envelope_of(bet: dict[str, Any], outcome: str, returned: int) -> EventEnvelope:
    return new_envelope(
        settled(bet, "operator-1", outcome, returned),
        stream_id=f"settlement-{ROUND}",
        stream_version=1,
        table_id="T1",
        producer="tests",
    )


async def test_settlements_arriving_together_are_paid_once_in_a_few_transactions(
    wallet_settings: WalletSettings,
) -> None:
    bets = await place_bets(wallet_settings)
    returns = {bet["bet_id"]: settle(bet)[1] for bet in bets}
    assert {settle(bet)[0] for bet in bets} == {"won", "lost"}
    envelopes = [envelope_of(bet, *settle(bet)) for bet in bets]
    # a record delivered twice, and a settlement republished under a new event id
    repeated = [*envelopes, envelopes[3], envelope_of(bets[5], *settle(bets[5]))]
    # the wallet is down: all of them wait on the topic and come in one poll
    await publish_all(wallet_settings, repeated)

    async with wallet(wallet_settings) as client:

        async def all_paid() -> bool:
            async with database(wallet_settings) as connection:
                unpaid = await connection.fetchval(
                    "SELECT count(*) FROM wallet_bets WHERE status <> 'paid'"
                )
            return bool(unpaid == 0)

        await eventually(all_paid, what="every bet to be paid", timeout=60)
        for player in PLAYERS:
            mine = [bet for bet in bets if bet["player_id"] == player]
            expected = (
                DEPOSIT - sum(b["stake"] for b in mine) + sum(returns[b["bet_id"]] for b in mine)
            )
            assert await balances(client, player, OPERATOR_1) == {"INR": expected}

    async with database(wallet_settings) as connection:
        paid = await connection.fetch(
            "SELECT transaction_id, stream_id, stream_version, causation_id, payload::text"
            " FROM events WHERE event_type = 'BetsPaid' ORDER BY stream_id, stream_version"
        )
        parked = await connection.fetchval("SELECT count(*) FROM parked_events")
        ledger_mismatches = await connection.fetch(
            "SELECT a.player_id FROM wallet_accounts a JOIN wallet_ledger l"
            " ON l.account = 'player' AND l.operator_id = a.operator_id"
            " AND l.player_id = a.player_id AND l.currency = a.currency"
            " GROUP BY a.operator_id, a.player_id, a.currency, a.balance"
            " HAVING sum(l.amount) <> a.balance"
        )
    assert parked == 0
    assert ledger_mismatches == []
    # each settlement here is one bet's, so each BetsPaid holds one line
    lines = [(row, json.loads(row["payload"])) for row in paid]
    assert [len(payload["bets"]) for _, payload in lines] == [1] * len(lines)
    paid_ids = [payload["bets"][0]["bet_id"] for _, payload in lines]
    assert sorted(paid_ids) == sorted(b["bet_id"] for b in bets), "once each"
    assert len({row["transaction_id"] for row in paid}) <= 3, "paid in batches, not one by one"
    # each BetsPaid names the BetsSettled it pays, and balances run in the stream's order
    caused_by = {UUID(payload["bets"][0]["bet_id"]): row["causation_id"] for row, payload in lines}
    first_ids = {UUID(bet["bet_id"]): e.event_id for bet, e in zip(bets, envelopes, strict=True)}
    assert caused_by[UUID(bets[0]["bet_id"])] == first_ids[UUID(bets[0]["bet_id"])]
    assert set(caused_by.values()) <= {e.event_id for e in repeated}
    for player in PLAYERS:
        mine = [payload["bets"][0] for _, payload in lines if payload["player_id"] == player]
        running = DEPOSIT - sum(b["stake"] for b in bets if b["player_id"] == player)
        for payment in mine:
            running += payment["amount"]
            assert payment["balance_after"] == running


async def test_one_bad_settlement_in_a_batch_is_parked_and_the_rest_are_paid(
    wallet_settings: WalletSettings,
) -> None:
    bets = await place_bets(wallet_settings)
    envelopes = [envelope_of(bet, *settle(bet)) for bet in bets]
    forged = new_envelope(
        settled({**bets[7], "stake": 50_000}, "operator-1", "won", 100_000),
        stream_id=f"settlement-{ROUND}",
        stream_version=1,
        table_id="T1",
        producer="tests",
    )
    await publish_all(wallet_settings, [*envelopes[:30], forged, *envelopes[30:]])

    async with wallet(wallet_settings):

        async def settled_or_parked() -> bool:
            async with database(wallet_settings) as connection:
                paid = await connection.fetchval(
                    "SELECT count(*) FROM wallet_bets WHERE status = 'paid'"
                )
                parked = await connection.fetchval("SELECT count(*) FROM parked_events")
            return bool(paid == len(bets) and parked == 1)

        await eventually(settled_or_parked, what="all paid and the forgery parked", timeout=60)

    async with database(wallet_settings) as connection:
        error = await connection.fetchval("SELECT error FROM parked_events")
        paid_events = await connection.fetchval(
            "SELECT sum(jsonb_array_length(payload::jsonb -> 'bets')) FROM events"
            " WHERE event_type = 'BetsPaid'"
        )
    assert "BetMismatchError" in error
    assert paid_events == len(bets)
