"""`teenpatti rebuild wallet`: the wallet's money projections rebuilt from its own event
stream into fresh tables (a schema of their own), then compared row for row with the live
ones (docs/audit.md, "Rebuilding a service's projections").

Each projection is compared on what the events carry: the live table's surrogate ids
(`seq`, `entry_id`) and the times its rows were written (`created_at`, `updated_at`,
`paid_at`) are not facts of the stream. Rows of accounts that hold nothing are left out on
both sides (a slip refused for its limits still locks, so creates, its player's row)."""

from __future__ import annotations

import json
from typing import Any

import asyncpg

from teenpatti.rebuild import Projection, RebuildReport, rebuild_into_fresh_tables, stored_events

from .domain.rebuild import WalletProjections, fold

PROJECTIONS = (
    Projection(
        "wallet_accounts",
        "operator_id text, player_id text, currency text, balance bigint",
        "SELECT operator_id, player_id, currency, balance FROM public.wallet_accounts"
        " WHERE balance <> 0",
    ),
    Projection(
        "wallet_transfers",
        "operator_id text, transfer_id text, kind text, player_id text, currency text,"
        " amount bigint, balance_after bigint",
        "SELECT operator_id, transfer_id, kind, player_id, currency, amount, balance_after"
        " FROM public.wallet_transfers",
    ),
    Projection(
        "wallet_bets",
        "bet_id uuid, slip_id uuid, operator_id text, player_id text, round_id text,"
        " table_id text, bet_type text, stake bigint, currency text, placed_at timestamptz,"
        " status text, outcome text, returned bigint, corrected boolean",
        "SELECT bet_id, slip_id, operator_id, player_id, round_id, table_id, bet_type, stake,"
        " currency, placed_at, status, outcome, returned, corrected FROM public.wallet_bets",
    ),
    Projection(
        "wallet_ledger",
        "account text, operator_id text, player_id text, currency text, amount bigint,"
        " kind text, reference text",
        "SELECT account, operator_id, player_id, currency, amount, kind, reference"
        " FROM public.wallet_ledger",
    ),
    Projection(
        "wallet_round_seals",
        "round_id text, table_id text, bet_count integer, total_stake jsonb, digest text",
        "SELECT round_id, table_id, bet_count, total_stake, digest FROM public.wallet_rounds"
        " WHERE sealed_at IS NOT NULL",
    ),
    Projection(
        "wallet_corrections",
        "reference uuid, operator_id text, player_id text, currency text, round_id text,"
        " table_id text, wallet text, bet_count integer, refunded bigint, reversed bigint,"
        " net bigint, applied bigint, shortfall bigint, balance_after bigint",
        "SELECT reference, operator_id, player_id, currency, round_id, table_id, wallet,"
        " bet_count, refunded, reversed, net, applied, shortfall, balance_after"
        " FROM public.wallet_corrections",
    ),
)


async def rebuild(connection: asyncpg.Connection, *, keep: bool = False) -> RebuildReport:
    """Fold the wallet's stream, write the projections into a new schema, compare each with
    the live table; the schema is dropped unless `keep`."""
    folded = fold([item async for item in stored_events(connection)])
    return await rebuild_into_fresh_tables(
        connection,
        "wallet",
        list(zip(PROJECTIONS, _rows(folded), strict=True)),
        events=folded.events,
        disagreements=folded.disagreements,
        keep=keep,
    )


def _rows(p: WalletProjections) -> list[list[tuple[Any, ...]]]:
    return [
        [(*key, balance) for key, balance in p.accounts.items() if balance != 0],
        [(*key, *transfer) for key, transfer in p.transfers.items()],
        [(bet_id, *bet) for bet_id, bet in p.bets.items()],
        [row for row, times in p.ledger.items() for _ in range(times)],
        [
            (round_id, table_id, count, json.dumps(total), digest)
            for round_id, (table_id, count, total, digest) in p.seals.items()
        ],
        [(*key, *correction) for key, correction in p.corrections.items()],
    ]
