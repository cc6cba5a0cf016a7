"""The settlement projection in Postgres: rounds, bets and the problems that hold a round
(the tables of `migrations/`).

Every consumer transaction first locks its round's row (`lock_round`), so the events of one
round are applied one transaction at a time whichever consumer or instance handles them, and
the readiness check always sees every bet committed before it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg

from teenpatti.events.catalog import (
    BetSettled,
    BetsPlaced,
    RoundClosed,
    RoundReversed,
    RoundSettled,
)
from teenpatti.kernel.problems import HeldProblem

from ..domain import PlacedBet, RoundFacts, SealedBook


@dataclass(frozen=True)
class Resolution:
    """A request to resolve a held round, and its confirmation once given."""

    resolution_id: UUID
    round_id: str
    action: str  # release | void
    reason: str
    problems: tuple[str, ...]  # the kinds open when it was asked for
    requested_by: str
    requested_at: datetime
    status: str = "pending"  # pending | confirmed | superseded
    confirmed_by: str | None = None
    confirmed_at: datetime | None = None
    outcome: str | None = None  # settled | waiting | held


_RESOLUTION_COLUMNS = (
    "resolution_id, round_id, action, reason, problems, requested_by, requested_at, status,"
    " confirmed_by, confirmed_at, outcome"
)


def _resolution(row: asyncpg.Record) -> Resolution:
    return Resolution(**{**dict(row), "problems": tuple(row["problems"])})


@dataclass(frozen=True)
class RoundRow:
    round_id: str
    table_id: str
    paytable: dict[str, Any] | None
    result: dict[str, Any] | None
    cancelled: bool
    cancel_reason: str | None
    book: SealedBook | None
    settled: bool
    settled_at: datetime | None
    paytable_source: str | None
    decided_at: datetime | None
    void_reason: str | None  # voided after its result (RoundVoided): why, and by whom
    reversed_at: datetime | None  # its settlement reversed (RoundReversed)

    @property
    def voided(self) -> bool:
        return self.void_reason is not None

    @property
    def decided(self) -> bool:
        """Its settlement is decided: being appended, or all appended (`settled`)."""
        return self.settled or self.decided_at is not None

    def facts(self) -> RoundFacts:
        return RoundFacts(
            round_id=self.round_id,
            table_id=self.table_id,
            # decided on the published table: a RoundOpened that came after changes nothing
            paytable=None if self.paytable_source == "published_fallback" else self.paytable,
            result=None if self.result is None else RoundClosed.model_validate(self.result),
            cancel_reason=(self.cancel_reason or "cancelled") if self.cancelled else None,
            book=self.book,
        )


_ROUND_COLUMNS = (
    "round_id, table_id, paytable::text, result::text, cancelled, cancel_reason, book_closed,"
    " book_bet_count, book_digest, book_total_stake::text, settled, settled_at, paytable_source,"
    " decided_at, void_reason, reversed_at"
)


def _json(value: str | None) -> Any:
    return None if value is None else json.loads(value)


def _round(row: asyncpg.Record) -> RoundRow:
    book = None
    if row["book_closed"]:
        book = SealedBook(
            bet_count=row["book_bet_count"],
            digest=row["book_digest"],
            total_stake=_json(row["book_total_stake"]) or {},
        )
    return RoundRow(
        round_id=row["round_id"],
        table_id=row["table_id"],
        paytable=_json(row["paytable"]),
        result=_json(row["result"]),
        cancelled=row["cancelled"],
        cancel_reason=row["cancel_reason"],
        book=book,
        settled=row["settled"],
        settled_at=row["settled_at"],
        paytable_source=row["paytable_source"],
        decided_at=row["decided_at"],
        void_reason=row["void_reason"],
        reversed_at=row["reversed_at"],
    )


# the columns of PlacedBet's fields, in its order: a row is its arguments
_PLACED_BET_COLUMNS = ", ".join(field.name for field in fields(PlacedBet))


def _placed_bet(row: asyncpg.Record) -> PlacedBet:
    return PlacedBet(
        bet_id=row["bet_id"],
        round_id=row["round_id"],
        table_id=row["table_id"],
        operator_id=row["operator_id"],
        player_id=row["player_id"],
        bet_type=row["bet_type"],
        stake=row["stake"],
        currency=row["currency"],
        placed_at=row["placed_at"],
    )


class SettlementProjection:
    """The projection's writes, on the caller's connection (inside its transaction)."""

    def __init__(self, connection: asyncpg.Connection) -> None:
        self._connection = connection

    @property
    def connection(self) -> asyncpg.Connection:
        return self._connection

    async def lock_round(self, round_id: str, table_id: str) -> RoundRow:
        """The round's row, created if new, locked until the transaction ends."""
        return (await self.lock_rounds({round_id: table_id}))[round_id]

    async def lock_rounds(self, rounds: Mapping[str, str]) -> dict[str, RoundRow]:
        """The rows of these rounds (round id -> table id), created if new, locked until the
        transaction ends, in one order (no deadlock between two such transactions)."""
        ordered = sorted(rounds)
        await self._connection.execute(
            "INSERT INTO rounds (round_id, table_id)"
            " SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT (round_id) DO NOTHING",
            ordered,
            [rounds[round_id] for round_id in ordered],
        )
        rows = await self._connection.fetch(
            f"SELECT {_ROUND_COLUMNS} FROM rounds WHERE round_id = ANY($1::text[])"
            " ORDER BY round_id FOR UPDATE",
            ordered,
        )
        return {row["round_id"]: _round(row) for row in rows}

    async def set_paytable(
        self, round_id: str, paytable: Mapping[str, Any], opened_at: datetime
    ) -> None:
        await self._connection.execute(
            "UPDATE rounds SET paytable = $2::jsonb, opened_at = $3, updated_at = now()"
            " WHERE round_id = $1",
            round_id,
            json.dumps(paytable),
            opened_at,
        )

    async def set_result(self, round_id: str, result: Mapping[str, Any]) -> None:
        await self._connection.execute(
            "UPDATE rounds SET result = $2::jsonb, updated_at = now() WHERE round_id = $1",
            round_id,
            json.dumps(result),
        )

    async def set_cancelled(self, round_id: str, reason: str) -> None:
        await self._connection.execute(
            "UPDATE rounds SET cancelled = true, cancel_reason = $2, updated_at = now()"
            " WHERE round_id = $1",
            round_id,
            reason,
        )

    async def set_voided(self, round_id: str, reason: str, voided_at: datetime) -> None:
        """The round is voided after its result: its settlement is to be reversed."""
        await self._connection.execute(
            "UPDATE rounds SET voided_at = $2, void_reason = $3, updated_at = now()"
            " WHERE round_id = $1",
            round_id,
            voided_at,
            reason,
        )

    async def set_book(self, round_id: str, book: SealedBook) -> None:
        await self._connection.execute(
            "UPDATE rounds SET book_closed = true, book_bet_count = $2, book_digest = $3,"
            " book_total_stake = $4::jsonb, updated_at = now() WHERE round_id = $1",
            round_id,
            book.bet_count,
            book.digest,
            json.dumps(dict(book.total_stake)),
        )

    async def add_bet(
        self, bet: PlacedBet, slip_id: UUID, *, late: bool = False
    ) -> PlacedBet | None:
        """Insert the bet; None if new, else the row already held under its id. A `late` bet
        (its round's settlement decided) is stored apart from the round's book."""
        if bet.bet_id in await self.add_bets([(bet, slip_id)], late=late):
            return None
        row = await self._connection.fetchrow("SELECT * FROM bets WHERE bet_id = $1", bet.bet_id)
        return _placed_bet(row)

    async def add_bets(
        self, bets: Sequence[tuple[PlacedBet, UUID]], *, late: bool = False
    ) -> set[UUID]:
        """Insert these (bet, slip id) in one statement; the ids of those that were new (the
        others are held already under their id)."""
        columns: tuple[list[Any], ...] = ([], [], [], [], [], [], [], [], [], [])
        for bet, slip_id in bets:
            values = (
                bet.bet_id,
                bet.round_id,
                bet.table_id,
                slip_id,
                bet.operator_id,
                bet.player_id,
                bet.bet_type,
                bet.stake,
                bet.currency,
                bet.placed_at,
            )
            for column, value in zip(columns, values, strict=True):
                column.append(value)
        rows = await self._connection.fetch(
            "INSERT INTO bets (bet_id, round_id, table_id, slip_id, operator_id, player_id,"
            " bet_type, stake, currency, placed_at, late)"
            " SELECT *, $11 FROM unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[],"
            " $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[], $10::timestamptz[])"
            " ON CONFLICT (bet_id) DO NOTHING RETURNING bet_id",
            *columns,
            late,
        )
        return {row[0] for row in rows}

    async def add_slips(self, slips: Sequence[BetsPlaced]) -> set[UUID]:
        """Insert the bets of these slips in one statement, in their order; the ids of those
        that were new (the others are held already under their id). A slip's fields go once,
        not once per bet."""
        bet_ids: list[UUID] = []
        bet_types: list[str] = []
        stakes: list[int] = []
        of_slip: list[int] = []
        for number, slip in enumerate(slips, start=1):
            for bet in slip.bets:
                bet_ids.append(bet.bet_id)
                bet_types.append(bet.bet_type)
                stakes.append(bet.stake)
                of_slip.append(number)
        rows = await self._connection.fetch(
            "INSERT INTO bets (bet_id, round_id, table_id, slip_id, operator_id, player_id,"
            " bet_type, stake, currency, placed_at)"
            " SELECT b.bet_id, s.round_id, s.table_id, s.slip_id, s.operator_id, s.player_id,"
            " b.bet_type, b.stake, s.currency, s.placed_at"
            " FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::int[])"
            "   WITH ORDINALITY AS b(bet_id, bet_type, stake, slip, n)"
            " JOIN unnest($5::uuid[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],"
            "   $11::timestamptz[]) WITH ORDINALITY"
            "   AS s(slip_id, round_id, table_id, operator_id, player_id, currency, placed_at, n)"
            "   ON s.n = b.slip"
            # in the slips' order: of two copies of a bet in one run, the first is recorded
            " ORDER BY b.n ON CONFLICT (bet_id) DO NOTHING RETURNING bet_id",
            bet_ids,
            bet_types,
            stakes,
            of_slip,
            [slip.slip_id for slip in slips],
            [slip.round_id for slip in slips],
            [slip.table_id for slip in slips],
            [slip.operator_id for slip in slips],
            [slip.player_id for slip in slips],
            [slip.currency for slip in slips],
            [slip.placed_at for slip in slips],
        )
        return {row[0] for row in rows}

    async def count_bets(self, round_id: str) -> int:
        count = await self._connection.fetchval(
            "SELECT count(*) FROM bets WHERE round_id = $1 AND NOT late", round_id
        )
        return int(count)

    async def bets_of_round(self, round_id: str) -> list[PlacedBet]:
        """The round's bets, those its book names (not the late ones)."""
        rows = await self._connection.fetch(
            f"SELECT {_PLACED_BET_COLUMNS} FROM bets WHERE round_id = $1 AND NOT late"
            " ORDER BY placed_at, bet_id",
            round_id,
        )
        return [PlacedBet(*row) for row in rows]

    async def transaction_id(self) -> int:
        """This transaction's id (it is given one if it has none yet)."""
        return int(await self._connection.fetchval("SELECT pg_current_xact_id()::text::bigint"))

    async def committed_or_current(self, transaction: int) -> bool:
        """Whether that transaction committed, or is this one."""
        return bool(
            await self._connection.fetchval(
                "SELECT pg_xact_status(x) = 'committed' OR x = pg_current_xact_id()"
                " FROM (SELECT $1::bigint::text::xid8 AS x) AS t",
                transaction,
            )
        )

    async def record_problem(self, round_id: str, kind: str, detail: str) -> None:
        """Record (or see again) a problem of the round: open until a resolution closes it;
        one resolved and seen again is open again."""
        await self._connection.execute(
            "INSERT INTO settlement_problems (round_id, kind, detail) VALUES ($1, $2, $3)"
            " ON CONFLICT (round_id, kind)"
            " DO UPDATE SET detail = EXCLUDED.detail, last_seen_at = now(),"
            " resolved_at = NULL, resolved_by = NULL",
            round_id,
            kind,
            detail,
        )

    async def open_problems(self, round_id: str) -> list[str]:
        """The kinds of the round's problems no resolution has closed."""
        rows = await self._connection.fetch(
            "SELECT kind FROM settlement_problems WHERE round_id = $1 AND resolved_at IS NULL"
            " ORDER BY kind",
            round_id,
        )
        return [row[0] for row in rows]

    async def resolve_problems(self, round_id: str, resolved_by: str) -> None:
        """Close the round's open problems (a confirmed resolution)."""
        await self._connection.execute(
            "UPDATE settlement_problems SET resolved_at = now(), resolved_by = $2"
            " WHERE round_id = $1 AND resolved_at IS NULL",
            round_id,
            resolved_by,
        )

    async def find_round_for_update(self, round_id: str) -> RoundRow | None:
        """The round's row locked until the transaction ends, None if unknown (not created)."""
        row = await self._connection.fetchrow(
            f"SELECT {_ROUND_COLUMNS} FROM rounds WHERE round_id = $1 FOR UPDATE", round_id
        )
        return None if row is None else _round(row)

    async def add_resolution(self, resolution: Resolution) -> None:
        """Record a pending request; a pending one of the round before it is superseded."""
        await self._connection.execute(
            "UPDATE settlement_resolutions SET status = 'superseded'"
            " WHERE round_id = $1 AND status = 'pending'",
            resolution.round_id,
        )
        await self._connection.execute(
            "INSERT INTO settlement_resolutions (resolution_id, round_id, action, reason,"
            " problems, requested_by, requested_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
            resolution.resolution_id,
            resolution.round_id,
            resolution.action,
            resolution.reason,
            list(resolution.problems),
            resolution.requested_by,
            resolution.requested_at,
        )

    async def resolution_for_update(self, resolution_id: UUID) -> Resolution | None:
        row = await self._connection.fetchrow(
            f"SELECT {_RESOLUTION_COLUMNS} FROM settlement_resolutions"
            " WHERE resolution_id = $1 FOR UPDATE",
            resolution_id,
        )
        return None if row is None else _resolution(row)

    async def confirm_resolution(
        self, resolution_id: UUID, confirmed_by: str, confirmed_at: datetime, outcome: str
    ) -> None:
        await self._connection.execute(
            "UPDATE settlement_resolutions SET status = 'confirmed', confirmed_by = $2,"
            " confirmed_at = $3, outcome = $4 WHERE resolution_id = $1",
            resolution_id,
            confirmed_by,
            confirmed_at,
            outcome,
        )

    async def mark_decided(self, round_id: str, settled_at: datetime, paytable_source: str) -> None:
        """The round's settlement is decided, as of `settled_at` (RoundSettled's), with the
        pay table from `paytable_source`; its events are being appended."""
        await self._connection.execute(
            "UPDATE rounds SET decided_at = $2, paytable_source = $3, updated_at = now()"
            " WHERE round_id = $1",
            round_id,
            settled_at,
            paytable_source,
        )

    async def mark_settled(
        self,
        summary: RoundSettled,
        bets: Sequence[BetSettled],
        paytable_source: str | None,
    ) -> None:
        """Fill every bet's outcome and mark the round settled, from the settlement events."""
        await self.mark_bets(bets, summary.settled_at)
        await self.mark_round_settled(summary, paytable_source)

    async def mark_bets(self, bets: Sequence[BetSettled], settled_at: datetime) -> None:
        """Fill these bets' outcomes, from their settlement lines: each bet's id and the
        number of its kind of result, each kind once (a round's bets share a few)."""
        kinds: dict[tuple[str, int, str, str | None], int] = {}
        of_kind: list[int] = []
        for bet in bets:
            kind = (bet.outcome, bet.returned, bet.fraction_kept, bet.odds)
            number = kinds.get(kind)
            if number is None:
                number = kinds[kind] = len(kinds) + 1
            of_kind.append(number)
        await self._connection.execute(
            "UPDATE bets SET outcome = ($3::text[])[s.kind], returned = ($4::bigint[])[s.kind],"
            " fraction_kept = ($5::text[])[s.kind], odds = ($6::text[])[s.kind], settled_at = $7"
            " FROM unnest($1::uuid[], $2::int[]) AS s(bet_id, kind)"
            " WHERE bets.bet_id = s.bet_id",
            [bet.bet_id for bet in bets],
            of_kind,
            [kind[0] for kind in kinds],
            [kind[1] for kind in kinds],
            [kind[2] for kind in kinds],
            [kind[3] for kind in kinds],
            settled_at,
        )

    async def mark_round_settled(self, summary: RoundSettled, paytable_source: str | None) -> None:
        """Every event of the round's settlement is appended: the round is settled."""
        await self._connection.execute(
            "UPDATE rounds SET settled = true, settled_at = $2, totals = $3::jsonb,"
            " decided_at = COALESCE(decided_at, $2),"
            " paytable_source = COALESCE($4, paytable_source), updated_at = now()"
            " WHERE round_id = $1",
            summary.round_id,
            summary.settled_at,
            json.dumps({c: t.model_dump() for c, t in summary.totals.items()}),
            paytable_source,
        )

    async def mark_reversed(self, summary: RoundReversed, bet_ids: Sequence[UUID]) -> None:
        """The round's settlement is reversed (its `RoundReversed`), and these bets of it."""
        await self._connection.execute(
            "UPDATE bets SET reversed_at = $2 WHERE bet_id = ANY($1::uuid[])",
            list(bet_ids),
            summary.reversed_at,
        )
        await self._connection.execute(
            "UPDATE rounds SET reversed_at = $2, reversal_totals = $3::jsonb, updated_at = now()"
            " WHERE round_id = $1",
            summary.round_id,
            summary.reversed_at,
            json.dumps({c: t.model_dump() for c, t in summary.totals.items()}),
        )

    async def lock_unsettled(self, round_id: str) -> RoundRow | None:
        """The round's row locked until the transaction ends, if it is decided and not yet
        settled (a settlement to go on with); else None. The lock is taken whatever the row
        says, so that a decision being committed is waited for and seen."""
        row = await self._connection.fetchrow(
            f"SELECT {_ROUND_COLUMNS} FROM rounds WHERE round_id = $1 FOR UPDATE", round_id
        )
        if row is None:
            return None
        round_ = _round(row)
        return round_ if round_.decided and not round_.settled else None

    async def touch(self, round_id: str) -> None:
        """The round's settlement moved on (see `stalled_settlements`)."""
        await self._connection.execute(
            "UPDATE rounds SET updated_at = now() WHERE round_id = $1", round_id
        )

    async def conflicts(self, round_id: str) -> list[str]:
        """The kinds of conflicting input recorded for the round and not resolved (they hold
        it until two supervisors resolve them)."""
        rows = await self._connection.fetch(
            "SELECT kind FROM settlement_problems WHERE round_id = $1"
            " AND kind LIKE 'conflicting%' AND resolved_at IS NULL ORDER BY kind",
            round_id,
        )
        return [row[0] for row in rows]


async def stalled_settlements(pool: asyncpg.Pool, quiet_seconds: float) -> list[str]:
    """Rounds decided but not settled whose row has not moved for `quiet_seconds`: their
    settler stopped (an instance that died), so another goes on with them."""
    rows = await pool.fetch(
        "SELECT round_id FROM rounds WHERE decided_at IS NOT NULL AND NOT settled"
        " AND updated_at < now() - make_interval(secs => $1) ORDER BY decided_at",
        quiet_seconds,
    )
    return [row[0] for row in rows]


# ------------------------------------------------------------------ reads (HTTP API)
@dataclass(frozen=True)
class BetView:
    bet_id: UUID
    round_id: str
    table_id: str
    slip_id: UUID
    operator_id: str
    player_id: str
    bet_type: str
    stake: int
    currency: str
    placed_at: datetime
    outcome: str | None
    returned: int | None
    fraction_kept: str | None
    odds: str | None
    settled_at: datetime | None
    reversed_at: datetime | None  # its round voided after its result, its settlement reversed


def _bet_view(row: asyncpg.Record) -> BetView:
    return BetView(**{name: row[name] for name in BetView.__dataclass_fields__})


async def find_round(pool: asyncpg.Pool, round_id: str) -> RoundRow | None:
    row = await pool.fetchrow(f"SELECT {_ROUND_COLUMNS} FROM rounds WHERE round_id = $1", round_id)
    return None if row is None else _round(row)


async def operator_bets_of_round(
    pool: asyncpg.Pool, round_id: str, operator_id: str
) -> list[BetView]:
    rows = await pool.fetch(
        "SELECT * FROM bets WHERE round_id = $1 AND operator_id = $2 ORDER BY placed_at, bet_id",
        round_id,
        operator_id,
    )
    return [_bet_view(row) for row in rows]


@dataclass(frozen=True)
class ProblemView:
    round_id: str
    table_id: str | None
    kind: str
    detail: str
    first_seen_at: datetime
    last_seen_at: datetime
    settled: bool  # its settlement is decided (being appended, or all appended)
    resolution_id: UUID | None  # a request waiting for a second supervisor
    resolution_action: str | None
    requested_by: str | None


async def list_problems(pool: asyncpg.Pool, limit: int) -> list[ProblemView]:
    """Open problems (no resolution closed them), newest first, with the round's pending
    resolution if any; `settled` false means the round is held."""
    rows = await pool.fetch(
        "SELECT p.round_id, r.table_id, p.kind, p.detail, p.first_seen_at, p.last_seen_at,"
        " COALESCE(r.settled OR r.decided_at IS NOT NULL, false) AS settled,"
        " q.resolution_id, q.action AS resolution_action, q.requested_by"
        " FROM settlement_problems p LEFT JOIN rounds r USING (round_id)"
        " LEFT JOIN settlement_resolutions q"
        "   ON q.round_id = p.round_id AND q.status = 'pending'"
        " WHERE p.resolved_at IS NULL"
        " ORDER BY p.last_seen_at DESC, p.round_id, p.kind LIMIT $1",
        limit,
    )
    return [ProblemView(**dict(row)) for row in rows]


def _actions(view: ProblemView) -> list[str]:
    """The calls that resolve a held round: a request, then another supervisor's confirm."""
    if view.settled:
        return []  # paid already: for a person to compare, nothing to release
    resolutions = f"POST /rounds/{view.round_id}/settlement/resolutions"
    if view.resolution_id is None:
        return [resolutions]
    return [f"{resolutions}/{view.resolution_id}/confirm", resolutions]


async def held_settlement_problems(pool: asyncpg.Pool, limit: int) -> list[HeldProblem]:
    """`GET /problems`: what holds a round (or arrived after it was settled), newest first,
    and the calls that resolve it."""
    return [
        HeldProblem(
            kind=view.kind,
            detail=view.detail,
            since=view.first_seen_at,
            table_id=view.table_id,
            round_id=view.round_id,
            facts={
                "last_seen_at": view.last_seen_at.isoformat(),
                # false: the round is held until a person resolves this
                "round_settled": view.settled,
                "pending_resolution": (
                    None if view.resolution_id is None else str(view.resolution_id)
                ),
                "pending_action": view.resolution_action,
                "requested_by": view.requested_by,
            },
            actions=_actions(view),
        )
        for view in await list_problems(pool, limit)
    ]


async def held_rounds(pool: asyncpg.Pool) -> dict[tuple[str, ...], float]:
    """Rounds not settled that an open problem holds, by kind of problem (for
    `teenpatti_settlement_held_rounds`)."""
    rows = await pool.fetch(
        "SELECT p.kind, count(DISTINCT p.round_id)"
        " FROM settlement_problems p LEFT JOIN rounds r USING (round_id)"
        " WHERE NOT COALESCE(r.settled, false) AND p.resolved_at IS NULL GROUP BY p.kind"
    )
    return {(row[0],): float(row[1]) for row in rows}


async def find_bet(pool: asyncpg.Pool, bet_id: UUID) -> BetView | None:
    row = await pool.fetchrow("SELECT * FROM bets WHERE bet_id = $1", bet_id)
    return None if row is None else _bet_view(row)
