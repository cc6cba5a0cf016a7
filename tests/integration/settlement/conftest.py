"""Builders and fixtures for the settlement service's integration tests.

Input events are built here as the table and the wallet would emit them; the book's digest is
computed here independently (sha256 of the sorted bet ids joined by ",").
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import itertools
import json
import os
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar
from uuid import uuid4

import asyncpg
import pytest
from aiokafka import AIOKafkaProducer
from pydantic import SecretStr

from settlement_service.config import SettlementSettings
from teenpatti import cli, engine
from teenpatti.events import Event, EventEnvelope, new_envelope
from teenpatti.events.catalog import (
    ALL_TOPICS,
    SETTLEMENT_EVENTS,
    TABLE_EVENTS,
    WALLET_EVENTS,
    BetBookClosed,
    BetsPlaced,
    BetsReversed,
    BetsSettled,
    PlacedLine,
    ReversedLine,
    RoundCancelled,
    RoundClosed,
    RoundOpened,
    RoundReversed,
    RoundSettled,
    RoundVoided,
    SettledLine,
    SlipBet,
)
from teenpatti.eventsourcing import TopicConfigurationError, ensure_topics
from teenpatti.kernel import Received
from teenpatti.settings import DEVELOPMENT_API_KEYS, InfrastructureSettings
from tests.integration.services import (
    collect,
    count_of,
    of_type,
    outbox_published,
    publish,
    read_to_end,
)

OPERATOR_1 = {"X-Api-Key": "dev-operator-1-key"}
OPERATOR_2 = {"X-Api-Key": "dev-operator-2-key"}
SUPERVISOR = {"X-Api-Key": "dev-supervisor-key"}
SUPERVISOR_2 = {"X-Api-Key": "test-supervisor-2-key"}  # with `two_supervisors`

PUBLISHED = engine.pay_table_to_mapping(engine.PUBLISHED_PAY_TABLE)
_TICKS = itertools.count()
E = TypeVar("E", bound=Event)


@pytest.fixture
async def settlement_settings(
    settings: InfrastructureSettings, database_name: str
) -> SettlementSettings:
    configured = SettlementSettings(**settings.model_dump(), settlement_database=database_name)
    await _topics_created(configured)
    return configured


def two_supervisors(settings: SettlementSettings) -> SettlementSettings:
    """The settings with a second supervisor's key (`SUPERVISOR_2`, holder `supervisor-2`)."""
    keys = f"{DEVELOPMENT_API_KEYS},supervisor-2:supervisor:test-supervisor-2-key"
    return settings.model_copy(update={"api_keys": SecretStr(keys)})


async def _topics_created(settings: InfrastructureSettings) -> None:
    """Create the test's topics before the app does: right after creating a topic, Kafka
    sometimes describes it with 0 partitions and `ensure_topics` refuses to start; asked
    again a moment later it answers right."""
    names = [settings.topic(topic) for topic in ALL_TOPICS]
    async with asyncio.timeout(30):
        while True:
            try:
                await ensure_topics(
                    settings.kafka_options(), names, partitions=settings.kafka_partitions
                )
                return
            except TopicConfigurationError:
                await asyncio.sleep(0.2)


def round_id(table_id: str, number: int = 1) -> str:
    return f"{table_id}-{number:06d}"


def opened(
    table_id: str, number: int = 1, paytable: dict[str, object] | None = None
) -> RoundOpened:
    now = datetime.now(UTC)
    return RoundOpened(
        round_id=round_id(table_id, number),
        table_id=table_id,
        number=number,
        opened_at=now,
        betting_closes_at=now + timedelta(seconds=15),
        limits={},
        paytable=dict(paytable or PUBLISHED),
    )


def closed(
    table_id: str,
    cards: list[str],
    *,
    winner: str,
    a: str,
    b: str,
    bonus: str | None,
    number: int = 1,
) -> RoundClosed:
    return RoundClosed.model_validate(
        {
            "round_id": round_id(table_id, number),
            "table_id": table_id,
            "cards": cards,
            "player_a_hand": a,
            "player_b_hand": b,
            "winner": winner,
            "six_card_bonus_hand": bonus,
        }
    )


def a_wins(table_id: str, number: int = 1) -> RoundClosed:
    """Player A wins with a pair; the six cards make a straight (the 6 Card Bonus)."""
    return closed(
        table_id,
        ["9S", "10C", "9H", "7D", "8C", "6S"],
        winner="player_a",
        a="pair",
        b="high_card",
        bonus="straight",
        number=number,
    )


def voided(
    closed: RoundClosed, reason: str = "A1 was the 9 of clubs, read as the 9 of spades"
) -> RoundVoided:
    """Two supervisors void the round of `closed` after its result, as the table says it."""
    return RoundVoided(
        round_id=closed.round_id,
        table_id=closed.table_id,
        requested_by="supervisor-1",
        actor="supervisor-2",
        reason=reason,
        closed_at=datetime.now(UTC),
        cards=closed.cards,
        player_a_hand=closed.player_a_hand,
        player_b_hand=closed.player_b_hand,
        winner=closed.winner,
        six_card_bonus_hand=closed.six_card_bonus_hand,
    )


def enveloped(event: Event) -> EventEnvelope:
    """The event in an envelope, for a use case called directly (not through Kafka)."""
    return new_envelope(event, stream_id="tests", stream_version=1, table_id="T", producer="t")


def received(*events: E) -> list[Received[E]]:
    """The events as a subscription handler receives them (not through Kafka), in order."""
    return [Received(event, enveloped(event)) for event in events]


def alone(bets: Sequence[PlacedLine]) -> list[Received[BetsPlaced]]:
    """Each bet in a slip of its own, as a subscription handler receives them."""
    return received(*(slip([bet]) for bet in bets))


def cancelled(table_id: str, number: int = 1) -> RoundCancelled:
    return RoundCancelled(
        round_id=round_id(table_id, number),
        table_id=table_id,
        actor="supervisor-1",
        reason="scanner broken before the first card",
        cards_dealt=0,
    )


def placed(
    table_id: str,
    bet_type: str,
    stake: int,
    *,
    number: int = 1,
    currency: str = "INR",
    operator: str = "operator-1",
    player: str = "p-1",
) -> PlacedLine:
    """A bet as its slip (`BetsPlaced`) places it, each in a slip of its own."""
    return PlacedLine.model_validate(
        {
            "bet_id": uuid4(),
            "slip_id": uuid4(),
            "round_id": round_id(table_id, number),
            "table_id": table_id,
            "operator_id": operator,
            "player_id": player,
            "bet_type": bet_type,
            "stake": stake,
            "currency": currency,
            # strictly increasing, so BetSettled lines come in the order the bets were built
            "placed_at": datetime.now(UTC) + timedelta(microseconds=next(_TICKS)),
        }
    )


def slip(bets: Sequence[PlacedLine]) -> BetsPlaced:
    """The bets (one player's, one currency, each type once) as the one slip the wallet
    sends: the slip's id and time are the first bet's."""
    first = bets[0]
    return BetsPlaced(
        slip_id=first.slip_id,
        round_id=first.round_id,
        table_id=first.table_id,
        operator_id=first.operator_id,
        player_id=first.player_id,
        currency=first.currency,
        placed_at=first.placed_at,
        bets=[SlipBet(bet_id=b.bet_id, bet_type=b.bet_type, stake=b.stake) for b in bets],
    )


def book(table_id: str, bets: Sequence[PlacedLine], *, number: int = 1) -> BetBookClosed:
    totals: dict[str, int] = {}
    for bet in bets:
        totals[bet.currency] = totals.get(bet.currency, 0) + bet.stake
    joined = ",".join(sorted(str(bet.bet_id) for bet in bets))
    return BetBookClosed(
        round_id=round_id(table_id, number),
        table_id=table_id,
        bet_count=len(bets),
        total_stake=totals,
        digest=hashlib.sha256(joined.encode()).hexdigest(),
    )


async def feed_table(
    settings: InfrastructureSettings,
    event: RoundOpened | RoundClosed | RoundCancelled | RoundVoided,
) -> EventEnvelope:
    return await publish(
        settings, TABLE_EVENTS, event, table_id=event.table_id, stream_id=f"table-{event.table_id}"
    )


async def feed_wallet(
    settings: InfrastructureSettings, event: BetsPlaced | PlacedLine | BetBookClosed
) -> EventEnvelope:
    """The event on wallet.events as the wallet publishes it; a bet alone as its slip."""
    if isinstance(event, PlacedLine):
        event = slip([event])
    return await publish(
        settings, WALLET_EVENTS, event, table_id=event.table_id, stream_id=f"round-{event.round_id}"
    )


async def republish(settings: InfrastructureSettings, topic: str, envelope: EventEnvelope) -> None:
    """The very same envelope again, as a relay does after a crash."""
    kafka = AIOKafkaProducer(**settings.kafka_options(), acks="all")
    await kafka.start()
    try:
        await kafka.send_and_wait(
            settings.topic(topic), envelope.to_json_bytes(), key=envelope.table_id.encode()
        )
    finally:
        await kafka.stop()


async def settlements(
    settings: SettlementSettings, rounds: int
) -> tuple[list[SettledLine], list[RoundSettled]]:
    """Every bet settled (each line of every `BetsSettled` emitted) and every RoundSettled,
    once `rounds` RoundSettled have been seen and the service is quiet (its outbox all
    published): the topic read to its end, so that a count proves each was emitted once."""
    await collect(settings, SETTLEMENT_EVENTS, count_of("RoundSettled", rounds), timeout=60)
    connection = await connect(settings)
    try:
        await eventually(lambda: outbox_published(connection), what="a quiet outbox")
    finally:
        await connection.close()
    seen = await read_to_end(settings, SETTLEMENT_EVENTS)
    parts = [e for e in of_type(seen, "BetsSettled") if isinstance(e, BetsSettled)]
    bets = [bet for part in parts for bet in part.each()]
    summaries = [e for e in of_type(seen, "RoundSettled") if isinstance(e, RoundSettled)]
    return bets, summaries


async def reversals(
    settings: SettlementSettings, rounds: int
) -> tuple[list[ReversedLine], list[RoundReversed]]:
    """Every bet reversed (each line of every `BetsReversed` emitted) and every
    RoundReversed, once `rounds` RoundReversed have been seen and the service is quiet: the
    topic read to its end, so that a count proves each was emitted once."""
    await collect(settings, SETTLEMENT_EVENTS, count_of("RoundReversed", rounds), timeout=60)
    connection = await connect(settings)
    try:
        await eventually(lambda: outbox_published(connection), what="a quiet outbox")
    finally:
        await connection.close()
    seen = await read_to_end(settings, SETTLEMENT_EVENTS)
    parts = [e for e in of_type(seen, "BetsReversed") if isinstance(e, BetsReversed)]
    lines = [line for part in parts for line in part.each()]
    summaries = [e for e in of_type(seen, "RoundReversed") if isinstance(e, RoundReversed)]
    return lines, summaries


async def rebuild_settlement(
    monkeypatch: pytest.MonkeyPatch, settings: SettlementSettings
) -> tuple[int, dict[str, Any]]:
    """`teenpatti rebuild settlement --json` on the test's settlement database."""
    monkeypatch.setenv("TP_SETTLEMENT_DATABASE", settings.settlement_database)
    monkeypatch.setenv("TP_ENV", os.environ.get("TP_ENV", "dev"))
    out, err = io.StringIO(), io.StringIO()
    status = await asyncio.to_thread(cli.main, ["rebuild", "settlement", "--json"], None, out, err)
    assert status in (0, 1), err.getvalue()
    return status, json.loads(out.getvalue())


async def eventually(
    condition: Callable[[], Awaitable[bool]], timeout: float = 30, what: str = "condition"
) -> None:
    try:
        async with asyncio.timeout(timeout):
            while not await condition():
                await asyncio.sleep(0.05)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None


async def connect(settings: SettlementSettings) -> asyncpg.Connection:
    return await asyncio.wait_for(
        asyncpg.connect(settings.postgres_dsn(settings.settlement_database)), timeout=10
    )
