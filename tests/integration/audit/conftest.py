"""Four fresh event stores (table, scanner, wallet, settlement) holding a small, consistent
history written with the real `AsyncpgEventStore`, plus the wallet's projection tables."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import asyncpg
import pytest

from teenpatti.audit import Scope, StoreSpec, run_audit
from teenpatti.audit.runner import STORE_TOPICS, Report
from teenpatti.engine import (
    PUBLISHED_PAY_TABLE,
    Bet,
    BetType,
    CancelledRound,
    parse_cards,
    pay_table_to_mapping,
    resolve_round,
    settle_bet,
)
from teenpatti.events.catalog import (
    DEALING_ORDER,
    BetBookClosed,
    BetPaid,
    BetSettled,
    BetsPaid,
    BetsPlaced,
    BetsSettled,
    BettingClosed,
    CardDealt,
    CurrencyTotals,
    DeviceRegistered,
    FundsDeposited,
    PlacedLine,
    RoundCancelled,
    RoundClosed,
    RoundOpened,
    RoundSettled,
    SlipBet,
    StakeLimit,
    book_digest,
)
from teenpatti.eventsourcing import MIGRATIONS as STORE_MIGRATIONS
from teenpatti.eventsourcing import AsyncpgEventStore
from teenpatti.settings import InfrastructureSettings
from teenpatti_tools.databases import drop_database
from tests.conftest import migrated
from wallet_service.adapters import postgres as wallet_db
from wallet_service.app import SERVICE as WALLET

STORES = ("table", "scanner", "wallet", "settlement")
OPERATOR, PLAYER = "operator-1", "p1"
PLAYER_STREAM = f"player-{OPERATOR}:{PLAYER}"
CARDS = ["AS", "2D", "KS", "3C", "QS", "4H"]  # A: A-K-Q of spades; B: 4-3-2 straight
LIMITS = {"INR": {bt.value: StakeLimit(min=10, max=100_000) for bt in BetType}}


@dataclass
class History:
    """The databases and the ids a test tampers with."""

    dsns: dict[str, str]
    pools: dict[str, asyncpg.Pool]
    settings: InfrastructureSettings
    # round 1 (a slip, settled in one BetsSettled, paid in one BetsPaid): player_a,
    # pair_plus_a; round 2 (cancelled, likewise): tie
    bet_ids: list[UUID]
    start: datetime

    def specs(self) -> list[StoreSpec]:
        return [
            StoreSpec(name, self.dsns[name], self.settings.topic(STORE_TOPICS[name]))
            for name in STORES
        ]

    async def audit(self, scope: Scope | None = None, **options: Any) -> Report:
        return await run_audit(self.specs(), scope or Scope(), **options)


@pytest.fixture
async def history(settings: InfrastructureSettings, database_name: str) -> AsyncIterator[History]:
    admin = await asyncpg.connect(settings.postgres_dsn("postgres"))
    names = {name: f"{database_name}_{name}" for name in STORES}
    pools: dict[str, asyncpg.Pool] = {}
    try:
        for name in names.values():
            await admin.execute(f"CREATE DATABASE {name}")
        dsns = {store: settings.postgres_dsn(name) for store, name in names.items()}
        for store, dsn in dsns.items():
            pools[store] = await asyncpg.create_pool(dsn, min_size=1, max_size=4)
        built = History(dsns, pools, settings, [], datetime.now(UTC) - timedelta(hours=1))
        await _write_history(built)
        yield built
    finally:
        for pool in pools.values():
            await pool.close()
        for name in names.values():
            await drop_database(admin, name)
        await admin.close()


async def _write_history(history: History) -> None:
    stores = {}
    for store, pool in history.pools.items():
        stores[store] = AsyncpgEventStore(pool, producer=store)
        await migrated(pool, STORE_MIGRATIONS)
    await migrated(history.pools["wallet"], WALLET.migrations)
    table, scanner, wallet, settlement = (stores[name] for name in STORES)
    t0 = history.start
    paytable = pay_table_to_mapping(PUBLISHED_PAY_TABLE)

    def at(seconds: float) -> datetime:
        return t0 + timedelta(seconds=seconds)

    await scanner.append(
        "device-D1",
        0,
        [DeviceRegistered(device_id="D1", table_id="T1", actor="supervisor-1")],
        table_id="T1",
        occurred_at=at(0),
    )
    # ---- table: round 1 closed, round 2 cancelled
    stream, version = "table-T1", 0

    async def table_append(events: list[Any], seconds: float) -> None:
        nonlocal version
        await table.append(stream, version, events, table_id="T1", occurred_at=at(seconds))
        version += len(events)

    for number in (1, 2):
        await table_append(
            [
                RoundOpened(
                    round_id=f"T1-00000{number}",
                    table_id="T1",
                    number=number,
                    opened_at=at(100 * number),
                    betting_closes_at=at(100 * number + 20),
                    limits=LIMITS,
                    paytable=paytable,
                )
            ],
            100 * number,
        )
    # (rounds overlap here only to keep the history short; the audit does not mind)
    await table_append([BettingClosed(round_id="T1-000001", table_id="T1", closed_at=at(120))], 120)
    for position, card in zip(DEALING_ORDER, CARDS, strict=True):
        await table_append(
            [
                CardDealt(
                    round_id="T1-000001",
                    table_id="T1",
                    position=position,
                    card=card,
                    scan_id=uuid4(),
                )
            ],
            130,
        )
    result = resolve_round(parse_cards(CARDS))
    bonus = result.six_card_bonus
    await table_append(
        [
            RoundClosed(
                round_id="T1-000001",
                table_id="T1",
                cards=CARDS,
                player_a_hand=result.player_a.category.value,
                player_b_hand=result.player_b.category.value,
                winner=result.winner.value,
                six_card_bonus_hand=None if bonus is None else bonus.category.value,
            )
        ],
        140,
    )
    await table_append(
        [
            RoundCancelled(
                round_id="T1-000002",
                table_id="T1",
                actor="supervisor-1",
                reason="shoe",
                cards_dealt=0,
            )
        ],
        215,
    )
    # ---- wallet: a deposit, three bets, the books
    balance = 100_000
    await wallet.append(
        PLAYER_STREAM,
        0,
        [
            FundsDeposited(
                transfer_id="tr-1",
                operator_id=OPERATOR,
                player_id=PLAYER,
                currency="INR",
                amount=balance,
                balance_after=balance,
            )
        ],
        table_id=PLAYER_STREAM,
        occurred_at=at(50),
    )
    bets = [
        ("T1-000001", "player_a", 1_000),
        ("T1-000001", "pair_plus_a", 500),
        ("T1-000002", "tie", 300),
    ]
    # a slip per round: round 1's two bets, round 2's one
    slips = [
        BetsPlaced(
            slip_id=uuid4(),
            round_id=round_id,
            table_id="T1",
            operator_id=OPERATOR,
            player_id=PLAYER,
            currency="INR",
            placed_at=at(110),
            bets=[
                SlipBet(bet_id=uuid4(), bet_type=bet_type, stake=stake)
                for slip_round, bet_type, stake in bets
                if slip_round == round_id
            ],
        )
        for round_id in ("T1-000001", "T1-000002")
    ]
    placed: list[PlacedLine] = [bet for slip in slips for bet in slip.each()]
    history.bet_ids.extend(bet.bet_id for bet in placed)
    await wallet.append(PLAYER_STREAM, 1, slips, table_id="T1", occurred_at=at(110))
    for round_id, seconds in (("T1-000001", 120), ("T1-000002", 215)):
        ids = [bet.bet_id for bet in placed if bet.round_id == round_id]
        stakes = sum(bet.stake for bet in placed if bet.round_id == round_id)
        await wallet.append(
            f"book-{round_id}",
            0,
            [
                BetBookClosed(
                    round_id=round_id,
                    table_id="T1",
                    bet_count=len(ids),
                    total_stake={"INR": stakes},
                    digest=book_digest(ids),
                )
            ],
            table_id="T1",
            occurred_at=at(seconds),
        )
    # ---- settlement, then payment
    wallet_version = 1 + len(slips)
    balance -= sum(bet.stake for bet in placed)
    ledger: list[wallet_db.LedgerEntry] = [
        wallet_db.LedgerEntry(
            "player", OPERATOR, PLAYER, "INR", 100_000, "deposit", "transfer:tr-1"
        )
    ]
    for bet in placed:
        ref = f"bet:{bet.bet_id}"
        ledger.append(
            wallet_db.LedgerEntry("player", OPERATOR, PLAYER, "INR", -bet.stake, "stake", ref)
        )
        ledger.append(
            wallet_db.LedgerEntry("house", OPERATOR, None, "INR", bet.stake, "stake", ref)
        )
    for round_id, outcome, seconds in (
        ("T1-000001", result, 150),
        ("T1-000002", CancelledRound("shoe"), 220),
    ):
        settled: list[BetSettled] = []
        for bet in placed:
            if bet.round_id != round_id:
                continue
            s = settle_bet(Bet(BetType(bet.bet_type), bet.stake, bet.currency), outcome)
            settled.append(
                BetSettled(
                    bet_id=bet.bet_id,
                    operator_id=OPERATOR,
                    player_id=PLAYER,
                    bet_type=bet.bet_type,
                    stake=bet.stake,
                    currency="INR",
                    outcome=s.outcome.value,
                    returned=s.returned,
                    fraction_kept=_fraction(s.fraction_kept),
                    odds=None if s.odds is None else _fraction(s.odds),
                )
            )
        stake = sum(b.stake for b in settled)
        returned = sum(b.returned for b in settled)
        await settlement.append(
            f"settlement-{round_id}",
            0,
            [
                *BetsSettled.parts(round_id, "T1", settled),
                RoundSettled(
                    round_id=round_id,
                    table_id="T1",
                    cancelled=isinstance(outcome, CancelledRound),
                    bet_count=len(settled),
                    totals={
                        "INR": CurrencyTotals(
                            stake=stake, returned=returned, house_result=stake - returned
                        )
                    },
                    settled_at=at(seconds),
                ),
            ],
            table_id="T1",
            occurred_at=at(seconds),
        )
        # paid as the wallet pays: one BetsPaid for the player's lines of the part, one
        # ledger entry a side for the part
        lines = []
        for done in settled:
            balance += done.returned
            lines.append(
                BetPaid(
                    bet_id=done.bet_id,
                    currency="INR",
                    amount=done.returned,
                    outcome=done.outcome,
                    balance_after=balance,
                )
            )
        await wallet.append(
            PLAYER_STREAM,
            wallet_version,
            [
                BetsPaid(
                    round_id=round_id,
                    table_id="T1",
                    operator_id=OPERATOR,
                    player_id=PLAYER,
                    bets=lines,
                )
            ],
            table_id="T1",
            occurred_at=at(seconds + 1),
        )
        wallet_version += 1
        ref = f"settlement:{round_id}-part-1"
        ledger.append(
            wallet_db.LedgerEntry("house", OPERATOR, None, "INR", -returned, "return", ref)
        )
        ledger.append(
            wallet_db.LedgerEntry("player", OPERATOR, PLAYER, "INR", returned, "return", ref)
        )
    async with history.pools["wallet"].acquire() as connection:
        await connection.execute(
            "INSERT INTO wallet_accounts (operator_id, player_id, currency, balance)"
            " VALUES ($1, $2, 'INR', $3)",
            OPERATOR,
            PLAYER,
            balance,
        )
        await wallet_db.record_ledger(connection, ledger)


def _fraction(value: Any) -> str:
    return "0" if value == 0 else f"{value.numerator}/{value.denominator}"


async def alter_settled_line(
    connection: asyncpg.Connection, bet_id: UUID | str, field: str, value: str
) -> int:
    """Set `field` (to the JSON `value`) of the bet's line in its stored `BetsSettled`, as
    someone changing the settlement store would; the event's stream version."""
    version = await connection.fetchval(
        "UPDATE events SET payload = jsonb_set(payload::jsonb, ARRAY['bets', ("
        "   SELECT (line.number - 1)::text"
        "   FROM json_array_elements(payload->'bets') WITH ORDINALITY AS line(bet, number)"
        "   WHERE line.bet->>'bet_id' = $1), $2], $3::jsonb)::json"
        " WHERE event_type = 'BetsSettled'"
        "   AND payload::jsonb->'bets' @> jsonb_build_array(jsonb_build_object('bet_id', $1::text))"
        " RETURNING stream_version",
        str(bet_id),
        field,
        value,
    )
    assert version is not None, f"no BetsSettled holds bet {bet_id}"
    return int(version)
