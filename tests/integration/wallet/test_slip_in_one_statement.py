"""Transfer slips in one statement (`wallet_place_slips`): what a slip writes when every
guard holds, nothing when one fails, several slips each whole or not at all in one commit,
and one event chain with the long way's."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from uuid import UUID, uuid4

import asyncpg

from teenpatti.audit.chain import Row, verify_stream
from teenpatti.events.catalog import BetsPlaced
from teenpatti.eventsourcing import AsyncpgEventStore
from wallet_service.adapters import postgres as db
from wallet_service.config import WalletSettings
from wallet_service.domain.betting import LedgerEntry
from wallet_service.slip_batches import SlipBatches

from .helpers import balances, database, deposit, open_round, place, wallet

OPERATOR = "operator-1"
ROUND = "T1-000001"


def _slip(key: str, bets: list[tuple[str, int]], *, round_id: str = ROUND) -> db.SlipRecord:
    slip_id = uuid4()
    total = sum(stake for _, stake in bets)
    lines = [db.NewBet(uuid4(), bet_type, stake) for bet_type, stake in bets]
    reference = f"slip:{slip_id}"
    return db.SlipRecord(
        slip_id=slip_id,
        operator_id=OPERATOR,
        player_id="p1",
        round_id=round_id,
        table_id="T1",
        currency="INR",
        placed_at=datetime.now(UTC),
        bets=lines,
        ledger=[
            LedgerEntry("player", OPERATOR, "p1", "INR", -total, "stake", reference),
            LedgerEntry("house", OPERATOR, None, "INR", total, "stake", reference),
        ],
        idempotency_key=key,
        answer={
            "slip_id": str(slip_id),
            "round_id": round_id,
            "bets": [
                {"bet_id": str(b.bet_id), "bet_type": b.bet_type, "stake": b.stake} for b in lines
            ],
        },
    )


def _to_place(store: AsyncpgEventStore, slip: db.SlipRecord) -> db.SlipToPlace:
    event = BetsPlaced(
        slip_id=slip.slip_id,
        round_id=slip.round_id,
        table_id=slip.table_id,
        operator_id=OPERATOR,
        player_id=slip.player_id,
        currency=slip.currency,
        placed_at=slip.placed_at,
        bets=[{"bet_id": b.bet_id, "bet_type": b.bet_type, "stake": b.stake} for b in slip.bets],
    )
    return db.SlipToPlace(
        slip,
        request_hash=f"hash-{slip.idempotency_key}",
        maxima=[10_000] * len(slip.bets),  # open_round's limits
        event=store.event_append_arguments(event),
    )


async def _place(
    connection: asyncpg.Connection, store: AsyncpgEventStore, *slips: db.SlipRecord
) -> list[int | None]:
    return await db.place_slips(
        connection, [_to_place(store, slip) for slip in slips], timedelta(0)
    )


async def _chain(connection: asyncpg.Connection, stream_id: str) -> list[Row]:
    rows = await connection.fetch(
        "SELECT stream_id, stream_version, event_id, event_type, schema_version, table_id,"
        " occurred_at, correlation_id, causation_id, producer, payload::text, hash,"
        " transaction_id, position FROM events WHERE stream_id = $1 ORDER BY stream_version",
        stream_id,
    )
    return [Row("wallet", *row[:11], bytes(row[11]), row[12], row[13]) for row in rows]


async def test_a_slip_in_one_statement_writes_it_whole_or_nothing(
    wallet_settings: WalletSettings,
) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, ROUND)
        await open_round(wallet_settings, client, "T1-000002", closes_in=-1)
        await deposit(client, "p1", 5_000)
        async with database(wallet_settings) as connection:
            store = AsyncpgEventStore(connection, "wallet")  # only for its arguments
            taken = _slip("k1", [("player_a", 1_000), ("tie", 200)])
            assert await _place(connection, store, taken) == [3_800]

            stored = await connection.fetchrow(
                "SELECT request_hash, status_code, response::text FROM wallet_idempotency"
                " WHERE operator_id = $1 AND key = 'k1'",
                OPERATOR,
            )
            # the answer as `json.dumps` writes it, balance last
            assert tuple(stored) == ("hash-k1", 201, json.dumps({**taken.answer, "balance": 3_800}))
            bets = await connection.fetch(
                "SELECT bet_id, slip_id, bet_type, stake, placed_at FROM wallet_bets ORDER BY seq"
            )
            assert [tuple(b) for b in bets] == [
                (b.bet_id, taken.slip_id, b.bet_type, b.stake, taken.placed_at) for b in taken.bets
            ]
            ledger = await connection.fetch(
                "SELECT account, amount FROM wallet_ledger WHERE reference = $1 ORDER BY account",
                f"slip:{taken.slip_id}",
            )
            assert [tuple(e) for e in ledger] == [("house", 1_200), ("player", -1_200)]
            assert (
                await connection.fetchval(
                    "SELECT balance_before FROM wallet_round_balances WHERE round_id = $1", ROUND
                )
                == 5_000
            )

            async def written() -> tuple[int, int, int]:
                counts = await connection.fetchrow(
                    "SELECT (SELECT count(*) FROM wallet_bets), (SELECT count(*) FROM"
                    " wallet_idempotency), (SELECT count(*) FROM events"
                    "  WHERE event_type = 'BetsPlaced')"
                )
                return (int(counts[0]), int(counts[1]), int(counts[2]))

            before = await written()
            assert before == (2, 1, 1)
            # every guard that fails, and a key used before: nothing written, the long way next
            refused = [
                _slip("k1", [("player_b", 100)]),  # the key used before
                _slip("k2", [("player_a", 9_001)]),  # the type's maximum, with the 1,000 staked
                _slip("k3", [("player_b", 3_801)]),  # more than the balance
                _slip("k4", [("tie", 100)], round_id="T1-000002"),  # betting closed
                _slip("k5", [("tie", 100)], round_id="T1-999999"),  # a round not known
            ]
            for slip in refused:
                assert await _place(connection, store, slip) == [None], slip.idempotency_key
            assert await written() == before
            # in one statement and one commit: each slip whole or not at all, in order; the
            # second sees the first's stakes and balance
            in_one = [
                _slip("b1", [("player_b", 3_000)]),
                _slip("b2", [("player_b", 7_001)]),  # over player_b's maximum with b1
                _slip("b3", [("pair_plus_a", 900)]),  # more than the 800 left after b1
                _slip("b4", [("pair_plus_a", 800)]),
            ]
            assert await _place(connection, store, *in_one) == [800, None, None, 0]
            assert await written() == (before[0] + 2, before[1] + 2, before[2] + 2)
            assert await balances(client, "p1") == {"INR": 0}

        # the same player through the API: the long way's and this way's events in one chain
        await deposit(client, "p1", 10_000)
        again = await place(client, "p1", ROUND, [("player_a", 9_000)], key="k2")
        assert again.status_code == 201, again.text
        assert (await place(client, "p1", ROUND, [("player_a", 9_000)], key="k2")).json() == (
            again.json()
        )
        # the round is known to this wallet now: this one goes in one statement
        quick = await place(client, "p1", ROUND, [("tie", 100)], key="k6")
        assert quick.status_code == 201, quick.text
        assert quick.json()["balance"] == 10_000 - 9_000 - 100
        assert (await place(client, "p1", ROUND, [("tie", 100)], key="k6")).json() == quick.json()
        over = await place(client, "p1", ROUND, [("player_a", 100)])
        assert over.status_code == 422
        assert over.json()["code"] == "exposure_limit"
        async with database(wallet_settings) as connection:
            rows = await _chain(connection, db.player_stream(OPERATOR, "p1"))
            head = await connection.fetchval(
                "SELECT version FROM streams WHERE stream_id = $1",
                db.player_stream(OPERATOR, "p1"),
            )
        findings, chained = verify_stream(rows, head)
        assert findings == []
        assert [row.event_type for row in rows].count("BetsPlaced") == 5
        assert chained == len(rows) == head
        placed = [json.loads(row.payload_text) for row in rows if row.event_type == "BetsPlaced"]
        assert [p["slip_id"] for p in placed] == [
            str(taken.slip_id),
            str(in_one[0].slip_id),
            str(in_one[3].slip_id),
            again.json()["slip_id"],
            quick.json()["slip_id"],
        ]
        assert UUID(placed[3]["bets"][0]["bet_id"]) == UUID(again.json()["bets"][0]["bet_id"])


async def test_a_slip_that_fails_a_batch_fails_alone(wallet_settings: WalletSettings) -> None:
    async with wallet(wallet_settings) as client:
        await open_round(wallet_settings, client, ROUND)
        await deposit(client, "p1", 5_000)
        pool = await asyncpg.create_pool(
            wallet_settings.postgres_dsn(wallet_settings.wallet_database), min_size=1, max_size=2
        )
        try:
            store = AsyncpgEventStore(pool, "wallet")
            batches = SlipBatches(pool, grace=timedelta(0), batch_size=8, in_flight=1)
            first = _slip("f1", [("player_a", 1_000)])
            # the first's bet id again: its insert fails, in the batch and alone
            clash = _slip("f2", [("player_b", 1_000)])
            clash = replace(clash, bets=[replace(clash.bets[0], bet_id=first.bets[0].bet_id)])
            last = _slip("f3", [("tie", 1_000)])
            # placed together: the three wait for the one batch slot, in this order
            outcomes = await asyncio.gather(
                *(batches.place(_to_place(store, slip)) for slip in (first, clash, last)),
                return_exceptions=True,
            )
        finally:
            await pool.close()
        assert outcomes[0] == 4_000
        assert isinstance(outcomes[1], asyncpg.UniqueViolationError)
        assert outcomes[2] == 3_000
        assert await balances(client, "p1") == {"INR": 3_000}
        async with database(wallet_settings) as connection:
            keys = await connection.fetch("SELECT key FROM wallet_idempotency ORDER BY key")
        assert [row[0] for row in keys] == ["f1", "f3"]
