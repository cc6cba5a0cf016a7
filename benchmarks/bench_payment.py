"""The wallet's payment of a settlement part, stage by stage (docs/decisions/0104).

    uv run python benchmarks/bench_payment.py [--smoke]

A round's parts of 1,000 `BetSettled` lines, 600 players' bets, paid as the wallet pays a
poll of five parts, in microseconds of CPU a line:
- the wallet's Python, each stage in turn: decoding the parts from their Kafka records
  (envelope, then payload), checking every line against the bet held and the engine's rule
  (`plan_payment`), building what the payment writes (`pay`: balances, ledger, `BetsPaid`)
  and encoding the `BetsPaid` as the store appends them. The process's CPU time, the best
  of REPEATS runs;
- Postgres, on a fresh database of the local stack, 40 parts: the bets marked paid row by
  row as the wallet does (`SELECT ... FOR UPDATE` in bet id order, then one `UPDATE ...
  FROM unnest`), and beside it the raw limit of the same run, each part recorded as one row
  of arrays (append-only): the Postgres backend's CPU from `/proc` and the client's
  (asyncpg encoding and decoding); and the seamless payment's look-up of each touched
  player's unpaid bets in the round, newest first (decision 0106) beside the same asked
  oldest first, Postgres's execution time, over bets of 600 players in random order.
Nothing is asserted: this prints figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from teenpatti import engine
from teenpatti.events import EventEnvelope, new_envelope
from teenpatti.events.catalog import SETTLEMENT_PART, BetSettled, BetsSettled, registry
from teenpatti.eventsourcing.store import payload_json
from teenpatti.settings import ADMIN, InfrastructureSettings
from teenpatti_tools.bench import tree_cpu_seconds
from teenpatti_tools.databases import drop_database
from wallet_service.domain.payment import (
    HeldBet,
    HeldRound,
    PaymentPlan,
    SettlementPart,
    pay,
    plan_payment,
)

REPEATS = 7
PLAYERS = 600
SEED = 2020
# a deal of no tie, so that the lines hold wins, losses and a push-free round
CARDS = ("AS", "2D", "KS", "3C", "QS", "4H")


@dataclass(frozen=True)
class Row:
    stage: str
    us_per_line: float
    baseline: str = "-"
    baseline_us: float = 0.0


@dataclass
class Round:
    """A round's bets as the wallet holds them, and its settlement parts as Kafka records."""

    held: dict[uuid.UUID, HeldBet]
    rounds: dict[str, HeldRound]
    records: list[bytes]
    lines: int


def settled_round(lines: int) -> Round:
    """`lines` bets of one round, each player's together, settled by the engine."""
    rng = random.Random(SEED)
    round_id, table_id = "T001-000001", "T001"
    result = engine.resolve_round(engine.parse_cards(CARDS))
    pay_table = engine.PUBLISHED_PAY_TABLE
    held: dict[uuid.UUID, HeldBet] = {}
    settled: list[BetSettled] = []
    per_player = max(1, lines // PLAYERS)
    for n in range(lines):
        bet_type = rng.choice(list(engine.BetType))
        stake = rng.choice((100, 200, 500, 1_000, 2_500))
        player = f"player-{n // per_player:04d}"
        bet_id = uuid.UUID(int=rng.getrandbits(128), version=4)
        held[bet_id] = HeldBet(
            bet_id, "op-1", player, round_id, table_id, bet_type.value, stake, "INR", "placed",
            uuid.UUID(int=n + 1),
        )  # fmt: skip
        settlement = engine.settle_bet(engine.Bet(bet_type, stake, "INR"), result, pay_table)
        settled.append(
            BetSettled(
                bet_id=bet_id,
                operator_id="op-1",
                player_id=player,
                bet_type=bet_type.value,
                stake=stake,
                currency="INR",
                outcome=settlement.outcome.value,
                returned=settlement.returned,
                fraction_kept=str(settlement.fraction_kept),
                odds=None if settlement.odds is None else str(settlement.odds),
            )
        )
    records = [
        new_envelope(
            part,
            stream_id=f"settlement-{round_id}",
            stream_version=index + 1,
            table_id=table_id,
            producer="bench",
        ).to_json_bytes()
        for index, part in enumerate(BetsSettled.parts(round_id, table_id, settled))
    ]
    paytable = engine.pay_table_to_mapping(pay_table)
    return Round(held, {round_id: HeldRound(round_id, "closed", CARDS, paytable)}, records, lines)


def best_cpu_us(action: Callable[[], Any], per: int, repeats: int) -> float:
    """The least process CPU time of `repeats` runs of `action`, in microseconds per `per`."""
    times = []
    for _ in range(repeats):
        started = time.process_time()
        action()
        times.append(time.process_time() - started)
    return min(times) / per * 1e6


def python_stages(round_: Round, repeats: int) -> list[Row]:
    """The wallet's Python per line, stage by stage, on the whole round's parts."""
    envelopes = [EventEnvelope.from_json_bytes(record) for record in round_.records]
    events = [registry.decode_envelope(envelope) for envelope in envelopes]
    parts = [
        SettlementPart(e.event_id, e.correlation_id, event.round_id, event.table_id, event.bets)
        for e, event in zip(envelopes, events, strict=True)
        if isinstance(event, BetsSettled)
    ]
    plan = plan_payment(round_.held, round_.rounds, parts)
    assert not plan.refused and len(plan.paying) == round_.lines
    payment = pay(plan, dict.fromkeys(plan.credits, 0))
    paid = [event for runs in payment.runs.values() for run in runs for event in run.events]

    def decode() -> None:
        for record in round_.records:
            registry.decode_envelope(EventEnvelope.from_json_bytes(record))

    def check() -> PaymentPlan:
        return plan_payment(round_.held, round_.rounds, parts)

    def build() -> None:
        pay(plan, dict.fromkeys(plan.credits, 0))

    def encode() -> None:
        for event in paid:
            payload_json(event)

    stages = {
        "decode the parts' Kafka records (envelope, then payload)": decode,
        "check each line (plan_payment)": check,
        "build the payment (pay: balances, ledger, BetsPaid)": build,
        f"encode its {len(paid):,} BetsPaid as the store appends them": encode,
    }
    return [Row(name, best_cpu_us(run, round_.lines, repeats)) for name, run in stages.items()]


_BETS = """
CREATE TABLE bets (
    seq bigserial, bet_id uuid PRIMARY KEY, operator_id text NOT NULL, player_id text NOT NULL,
    round_id text NOT NULL, table_id text NOT NULL, bet_type text NOT NULL,
    stake bigint NOT NULL, currency text NOT NULL, status text NOT NULL, slip_id uuid NOT NULL,
    outcome text, returned bigint, paid_at timestamptz
) WITH (fillfactor = 50);
CREATE INDEX ON bets (round_id, operator_id, player_id);
CREATE INDEX ON bets (slip_id);
-- a seamless round's bets as wallet migration 0017 indexes them: by round, player and order
CREATE TABLE seamless_bets (
    seq bigserial, bet_id uuid PRIMARY KEY, operator_id text NOT NULL, player_id text NOT NULL,
    round_id text NOT NULL, status text NOT NULL DEFAULT 'placed'
) WITH (fillfactor = 50);
CREATE INDEX ON seamless_bets (round_id, operator_id, player_id, seq);
CREATE TABLE parts (
    event_id uuid PRIMARY KEY, round_id text NOT NULL, bet_ids uuid[] NOT NULL,
    outcomes text[] NOT NULL, returned bigint[] NOT NULL, paid_at timestamptz NOT NULL
);
"""


async def postgres_stage(round_: Round, settings: InfrastructureSettings) -> list[Row]:
    """Postgres and asyncpg per line: the bets marked paid row by row, against each part
    recorded as one row of arrays, on a fresh database."""
    name = f"bench_payment_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(settings.postgres_dsn("postgres"))
    try:
        await admin.execute(f"CREATE DATABASE {name}")
        connection = await asyncpg.connect(settings.postgres_dsn(name))
        try:
            await connection.execute(_BETS)
            backend = await connection.fetchval("SELECT pg_backend_pid()")
            held = list(round_.held.values())
            ids = [bet.bet_id for bet in held]
            await connection.execute(
                "INSERT INTO bets (bet_id, operator_id, player_id, round_id, table_id, bet_type,"
                " stake, currency, status, slip_id) SELECT * FROM unnest($1::uuid[], $2::text[],"
                " $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[],"
                " $9::text[], $10::uuid[])",
                *(list(column) for column in zip(*held, strict=True)),
            )
            outcomes, returns = ["won"] * SETTLEMENT_PART, [1_950] * SETTLEMENT_PART

            async def rows(part: list[uuid.UUID]) -> None:
                await connection.fetch(
                    "SELECT bet_id, operator_id, player_id, round_id, table_id, bet_type, stake,"
                    " currency, status, slip_id FROM bets WHERE bet_id = ANY($1::uuid[])"
                    " ORDER BY bet_id FOR UPDATE",
                    part,
                )
                await connection.execute(
                    "UPDATE bets b SET status = 'paid', outcome = u.outcome,"
                    " returned = u.returned, paid_at = now() FROM unnest($1::uuid[], $2::text[],"
                    " $3::bigint[]) AS u(bet_id, outcome, returned) WHERE b.bet_id = u.bet_id",
                    part,
                    outcomes[: len(part)],
                    returns[: len(part)],
                )

            async def one_row(part: list[uuid.UUID]) -> None:
                await connection.execute(
                    "INSERT INTO parts VALUES ($1, 'T001-000001', $2::uuid[], $3::text[],"
                    " $4::bigint[], now())",
                    uuid.uuid4(),
                    part,
                    outcomes[: len(part)],
                    returns[: len(part)],
                )

            async def timed(way: Callable[[list[uuid.UUID]], Any]) -> tuple[float, float]:
                backend_started, started = tree_cpu_seconds(backend), time.process_time()
                for offset in range(0, len(ids), SETTLEMENT_PART):
                    async with connection.transaction():
                        await way(ids[offset : offset + SETTLEMENT_PART])
                lines = len(ids)
                return (
                    (tree_cpu_seconds(backend) - backend_started) / lines * 1e6,
                    (time.process_time() - started) / lines * 1e6,
                )

            postgres, client = await timed(rows)
            raw_postgres, raw_client = await timed(one_row)
            newest_first, oldest_first = await unpaid_lookups(connection, len(ids))
        finally:
            await connection.close()
        await drop_database(admin, name)
    finally:
        await admin.close()
    raw = "each part one row of arrays (append-only)"
    return [
        Row("Postgres: the bets marked paid row by row", postgres, raw, raw_postgres),
        Row("asyncpg: the bets marked paid row by row", client, raw, raw_client),
        Row(
            "Postgres: unpaid bets of a part's players, newest first",
            newest_first,
            "the same asked oldest first (NOT EXISTS)",
            oldest_first,
        ),
    ]


# whether each player a part touches still has an unpaid bet in the round, as the seamless
# payment asks it (adapters/seamless.py, decision 0106), and as it asked before
_NEWEST_FIRST = """
SELECT count(*) FROM unnest($1::text[]) AS t(player_id)
 WHERE (SELECT 1 FROM seamless_bets b WHERE b.round_id = 'S001-000001'
           AND b.operator_id = 'op-2' AND b.player_id = t.player_id AND b.status <> 'paid'
         ORDER BY b.seq DESC LIMIT 1) IS NULL
"""
_OLDEST_FIRST = """
SELECT count(*) FROM unnest($1::text[]) AS t(player_id)
 WHERE NOT EXISTS (SELECT 1 FROM seamless_bets b WHERE b.round_id = 'S001-000001'
           AND b.operator_id = 'op-2' AND b.player_id = t.player_id AND b.status <> 'paid')
"""


async def unpaid_lookups(connection: asyncpg.Connection, lines: int) -> tuple[float, float]:
    """Postgres's execution time per line (EXPLAIN ANALYZE, so no round trip), in µs, of
    looking for the unpaid bets of each player a part touches once the part is paid, newest
    first and oldest first, over a round of `lines` bets of PLAYERS players placed in random
    order and paid part by part in the order they were placed."""
    rng = random.Random(SEED)
    players = [f"player-{rng.randrange(PLAYERS):04d}" for _ in range(lines)]
    ids = [uuid.UUID(int=rng.getrandbits(128), version=4) for _ in range(lines)]
    await connection.execute(
        "INSERT INTO seamless_bets (bet_id, operator_id, player_id, round_id)"
        " SELECT b, 'op-2', p, 'S001-000001' FROM unnest($1::uuid[], $2::text[]) AS u(b, p)",
        ids,
        players,
    )
    await connection.execute("ANALYZE seamless_bets")
    spent = {_NEWEST_FIRST: 0.0, _OLDEST_FIRST: 0.0}
    for offset in range(0, lines, SETTLEMENT_PART):
        await connection.execute(
            "UPDATE seamless_bets SET status = 'paid' WHERE bet_id = ANY($1::uuid[])",
            ids[offset : offset + SETTLEMENT_PART],
        )
        touched = sorted(set(players[offset : offset + SETTLEMENT_PART]))
        answers = set()
        for query in spent:
            plan = await connection.fetchval(
                f"EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) {query}", touched
            )
            spent[query] += json.loads(plan)[0]["Execution Time"]
            answers.add(await connection.fetchval(query, touched))
        if len(answers) != 1:
            raise AssertionError(f"the two ways answer differently: {answers}")
    return spent[_NEWEST_FIRST] * 1e3 / lines, spent[_OLDEST_FIRST] * 1e3 / lines


async def measure(smoke: bool = False) -> list[Row]:
    rows = python_stages(
        settled_round((2 if smoke else 5) * SETTLEMENT_PART), 2 if smoke else REPEATS
    )
    rows.append(Row("the wallet's Python, all four stages", sum(row.us_per_line for row in rows)))
    # more parts for Postgres: /proc counts its CPU in hundredths of a second
    round_ = settled_round((2 if smoke else 40) * SETTLEMENT_PART)
    return rows + await postgres_stage(round_, InfrastructureSettings().as_principal(ADMIN))


def print_rows(rows: Sequence[Row]) -> None:
    print(f"| {'stage, per line':<62} | {'µs':>6} | {'beside it, same run':<42} | {'µs':>6} |")
    print(f"|{'-' * 64}|{'-' * 8}|{'-' * 44}|{'-' * 8}|")
    for row in rows:
        raw = f"{row.baseline_us:>6.2f}" if row.baseline != "-" else f"{'-':>6}"
        print(f"| {row.stage:<62} | {row.us_per_line:>6.2f} | {row.baseline:<42} | {raw} |")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="two parts, to show it works")
    args = parser.parse_args(argv)
    print_rows(asyncio.run(measure(args.smoke)))


if __name__ == "__main__":
    main()
