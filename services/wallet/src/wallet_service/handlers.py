"""The wallet's use cases. Each command is one Postgres transaction: projection rows, ledger
entries and events (appended with `connection=`) commit together or not at all."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import asyncpg

from teenpatti.events.catalog import BetsPlaced, FundsDeposited, FundsWithdrawn
from teenpatti.eventsourcing import AsyncpgEventStore, CommitOrderError

from .adapters import postgres as db
from .config import WalletSettings
from .domain.betting import (
    AboveMaximumError,
    BalanceLimitError,
    BelowMinimumError,
    BettingClosedError,
    CurrencyNotAcceptedError,
    ExposureLimitError,
    IdempotencyKeyReusedError,
    InsufficientFundsError,
    InvalidBetError,
    LedgerEntry,
    SlipLine,
    TransferIdReusedError,
    UnknownBetError,
    UnknownRoundError,
    WalletError,
    check_exposure,
    check_funds,
    check_slip_shape,
    fingerprint,
    validate_slip,
)
from .domain.seamless import SEAMLESS_REFUSAL_STATUS, SeamlessOperatorError
from .domain.sessions import SessionMismatchError
from .games import GameRecall
from .seamless import SeamlessSlip, SeamlessWallet
from .sessions import PlayerSessions, UnknownSessionError

Clock = Callable[[], datetime]


class InvalidCursorError(WalletError):
    code = "invalid_cursor"


# The HTTP status of each refusal (docs/services.md, wallet)
REFUSAL_STATUS: dict[str, int] = {
    UnknownRoundError.code: 404,
    UnknownBetError.code: 404,
    BettingClosedError.code: 409,
    InsufficientFundsError.code: 409,
    CurrencyNotAcceptedError.code: 422,
    BelowMinimumError.code: 422,
    AboveMaximumError.code: 422,
    ExposureLimitError.code: 422,
    InvalidBetError.code: 422,
    IdempotencyKeyReusedError.code: 422,
    TransferIdReusedError.code: 422,
    BalanceLimitError.code: 422,
    InvalidCursorError.code: 422,
    UnknownSessionError.code: 404,
    SessionMismatchError.code: 422,
}

# a seamless operator's refusals (domain/seamless.py)
REFUSAL_STATUS.update(SEAMLESS_REFUSAL_STATUS)

_REFUSALS: dict[str, type[WalletError]] = {
    cls.code: cls
    for cls in (
        BettingClosedError,
        InsufficientFundsError,
        CurrencyNotAcceptedError,
        BelowMinimumError,
        AboveMaximumError,
        ExposureLimitError,
        InvalidBetError,
    )
}


@dataclass(frozen=True, slots=True)
class Slip:
    player_id: str
    round_id: str
    currency: str
    lines: tuple[SlipLine, ...]
    # a seamless operator's session token of the player; not part of the slip's identity
    token: str | None = None

    def fingerprint(self) -> str:
        return fingerprint(
            {
                "player_id": self.player_id,
                "round_id": self.round_id,
                "currency": self.currency,
                "bets": [{"bet_type": b.bet_type, "stake": b.stake} for b in self.lines],
            }
        )


class Wallet:
    """The wallet's commands and queries, every one scoped by the operator asking."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        store: AsyncpgEventStore,
        settings: WalletSettings,
        clock: Clock = lambda: datetime.now(UTC),
    ) -> None:
        self._pool = pool
        self._store = store
        self._grace = timedelta(milliseconds=settings.betting_grace_ms)
        self._max_bets = settings.max_bets_per_slip
        self._clock = clock
        # the player sessions (sessions.py): the player's routes resolve through them
        self.sessions = PlayerSessions(pool, settings, clock)
        # a seamless operator's slips, and the wins and rollbacks owed to it (seamless.py)
        self.seamless = SeamlessWallet(pool, store, settings, clock)
        # a player's last games and a round's stakes (games.py)
        self.games = GameRecall(pool)

    # ---------------------------------------------------------------- deposits/withdrawals
    async def deposit(
        self, operator_id: str, player_id: str, transfer_id: str, currency: str, amount: int
    ) -> dict[str, Any]:
        if (await self.seamless.configs.get(operator_id)).seamless:
            # withdrawals stay open: balances from its transfer days can still be paid out
            raise SeamlessOperatorError(
                f"operator {operator_id} is seamless: its players' money stays with it"
            )
        return await _in_commit_order(
            lambda: self._transfer("deposit", operator_id, player_id, transfer_id, currency, amount)
        )

    async def withdraw(
        self, operator_id: str, player_id: str, transfer_id: str, currency: str, amount: int
    ) -> dict[str, Any]:
        return await _in_commit_order(
            lambda: self._transfer(
                "withdrawal", operator_id, player_id, transfer_id, currency, amount
            )
        )

    async def _transfer(
        self,
        kind: str,
        operator_id: str,
        player_id: str,
        transfer_id: str,
        currency: str,
        amount: int,
    ) -> dict[str, Any]:
        asked = db.Transfer(kind, player_id, currency, amount, 0)
        async with self._pool.acquire() as connection, connection.transaction():
            first = await db.claim_transfer(connection, operator_id, transfer_id, asked)
            if first is not None:
                if (first.kind, first.player_id, first.currency, first.amount) != (
                    kind,
                    player_id,
                    currency,
                    amount,
                ):
                    raise TransferIdReusedError(
                        f"transfer {transfer_id} was a {first.kind} of {first.amount}"
                        f" {first.currency} for player {first.player_id}"
                    )
                return _transfer_answer(transfer_id, first.currency, first.balance_after)
            account = await db.lock_account(connection, operator_id, player_id, currency)
            if kind == "withdrawal":
                check_funds(account.balance, amount, currency)
            try:
                balance_after = await db.add_to_balance(
                    connection,
                    operator_id,
                    player_id,
                    currency,
                    amount if kind == "deposit" else -amount,
                )
            except asyncpg.NumericValueOutOfRangeError:
                raise BalanceLimitError(
                    "the balance would exceed what an account can hold"
                ) from None
            await db.set_transfer_balance(connection, operator_id, transfer_id, balance_after)
            await db.record_ledger(
                connection,
                [
                    LedgerEntry(
                        "player",
                        operator_id,
                        player_id,
                        currency,
                        amount if kind == "deposit" else -amount,
                        kind,
                        f"transfer:{transfer_id}",
                    )
                ],
            )
            event_class = FundsDeposited if kind == "deposit" else FundsWithdrawn
            stream = db.player_stream(operator_id, player_id)
            await self._store.append(
                stream,
                account.version,
                [
                    event_class(
                        transfer_id=transfer_id,
                        operator_id=operator_id,
                        player_id=player_id,
                        currency=currency,
                        amount=amount,
                        balance_after=balance_after,
                    )
                ],
                # not about a table: keyed by the player's stream, so its transfers stay in order
                table_id=stream,
                connection=connection,
            )
        return _transfer_answer(transfer_id, currency, balance_after)

    async def balances(self, operator_id: str, player_id: str) -> dict[str, int]:
        async with self._pool.acquire() as connection:
            return await db.balances(connection, operator_id, player_id)

    # ------------------------------------------------------------------------------ bets
    async def place_slip(
        self, operator_id: str, idempotency_key: str, slip: Slip
    ) -> dict[str, Any]:
        """The whole slip or nothing. The answer (acceptance or refusal) is stored under the
        key, except `unknown_round`: the wallet may not have heard of a new round yet."""
        config = await self.seamless.configs.get(operator_id)
        if config.seamless:
            seamless = SeamlessSlip(
                slip.player_id, slip.round_id, slip.currency, slip.lines, slip.token
            )
            return await self.seamless.place_slip(
                config, idempotency_key, seamless, slip.fingerprint()
            )
        return await _in_commit_order(
            lambda: self._place_slip_once(operator_id, idempotency_key, slip)
        )

    async def _place_slip_once(
        self, operator_id: str, idempotency_key: str, slip: Slip
    ) -> dict[str, Any]:
        request_hash = slip.fingerprint()
        refusal: WalletError | None = None
        async with self._pool.acquire() as connection, connection.transaction():
            stored = await db.claim_idempotency_key(
                connection, operator_id, idempotency_key, request_hash
            )
            if stored is not None:
                return _replay(idempotency_key, request_hash, stored)
            try:
                return await self._place(connection, operator_id, idempotency_key, slip)
            except UnknownRoundError:
                raise
            except WalletError as error:  # raised before anything of the slip is written
                refusal = error
                await db.store_answer(
                    connection,
                    operator_id,
                    idempotency_key,
                    REFUSAL_STATUS[error.code],
                    {"code": error.code, "detail": error.detail, "extra": error.extra},
                )
        assert refusal is not None
        raise refusal

    async def _place(
        self, connection: asyncpg.Connection, operator_id: str, idempotency_key: str, slip: Slip
    ) -> dict[str, Any]:
        """Check the slip, then write it whole with its stored answer (the accepted slip's
        answer is stored by the same statement that debits it)."""
        check_slip_shape(slip.lines, max_bets=self._max_bets)
        round_ = await db.round_for_betting(connection, slip.round_id)
        if round_ is None:
            raise UnknownRoundError(f"round {slip.round_id} is not known")
        placed_at = self._clock()  # read after the round lock: the seal cannot be in between
        total = validate_slip(
            round_,
            slip.currency,
            slip.lines,
            placed_at,
            grace=self._grace,
            max_bets=self._max_bets,
        )
        account = await db.lock_account(connection, operator_id, slip.player_id, slip.currency)
        # read under the player's lock: two slips of the player cannot both pass
        check_exposure(
            round_,
            slip.currency,
            slip.lines,
            await db.player_round_stakes(
                connection, operator_id, slip.player_id, round_.round_id, slip.currency
            ),
        )
        check_funds(account.balance, total, slip.currency)
        slip_id = uuid4()
        bets = [db.NewBet(uuid4(), line.bet_type, line.stake) for line in slip.lines]
        answer = {
            "slip_id": str(slip_id),
            "round_id": round_.round_id,
            "table_id": round_.table_id,
            "player_id": slip.player_id,
            "currency": slip.currency,
            "placed_at": placed_at.isoformat(),
            "bets": [
                {"bet_id": str(bet.bet_id), "bet_type": bet.bet_type, "stake": bet.stake}
                for bet in bets
            ],
            "balance": account.balance - total,  # the balance cannot move under the lock
        }
        balance_after = await db.record_slip(
            connection,
            db.SlipRecord(
                slip_id=slip_id,
                operator_id=operator_id,
                player_id=slip.player_id,
                round_id=round_.round_id,
                table_id=round_.table_id,
                currency=slip.currency,
                placed_at=placed_at,
                bets=bets,
                ledger=_stake_entries(operator_id, slip.player_id, slip.currency, slip_id, total),
                idempotency_key=idempotency_key,
                answer=answer,
            ),
        )
        if balance_after != answer["balance"]:
            raise RuntimeError(f"balance {balance_after} after the debit, not {answer['balance']}")
        await self._store.append(
            db.player_stream(operator_id, slip.player_id),
            account.version,
            [
                BetsPlaced.model_validate(
                    {
                        "slip_id": slip_id,
                        "round_id": round_.round_id,
                        "table_id": round_.table_id,
                        "operator_id": operator_id,
                        "player_id": slip.player_id,
                        "currency": slip.currency,
                        "placed_at": placed_at,
                        "bets": [
                            {"bet_id": bet.bet_id, "bet_type": bet.bet_type, "stake": bet.stake}
                            for bet in bets
                        ],
                    }
                )
            ],
            table_id=round_.table_id,
            connection=connection,
        )
        return answer

    async def player_bets(
        self, operator_id: str, player_id: str, *, limit: int, cursor: str | None
    ) -> dict[str, Any]:
        """Newest first; `next_cursor` continues after the last item, null at the end."""
        before = _decode_cursor(cursor)
        async with self._pool.acquire() as connection:
            rows = await db.player_bets(
                connection, operator_id, player_id, before_seq=before, limit=limit + 1
            )
        more = len(rows) > limit
        rows = rows[:limit]
        return {
            "items": [_bet_view(row) for row in rows],
            "next_cursor": str(rows[-1]["seq"]) if more and rows else None,
        }

    async def bet(self, operator_id: str, bet_id: UUID) -> dict[str, Any]:
        async with self._pool.acquire() as connection:
            row = await db.operator_bet(connection, operator_id, bet_id)
        if row is None:  # another operator's bet is as unknown as one that does not exist
            raise UnknownBetError(f"bet {bet_id} is not known")
        return _bet_view(row)

    async def round_book(self, operator_id: str, round_id: str) -> dict[str, Any]:
        """The round as the wallet knows it and this operator's bets in it (only its own)."""
        async with self._pool.acquire() as connection:
            round_ = await db.round_row(connection, round_id)
            if round_ is None:
                raise UnknownRoundError(f"round {round_id} is not known")
            rows = await db.operator_round_bets(connection, operator_id, round_id)
        totals: dict[str, int] = {}
        for row in rows:
            totals[row["currency"]] = totals.get(row["currency"], 0) + int(row["stake"])
        return {
            "round_id": round_["round_id"],
            "table_id": round_["table_id"],
            "status": round_["status"],
            "paused": round_["paused"],
            "opened_at": _iso(round_["opened_at"]),
            "betting_closes_at": _iso(round_["betting_closes_at"]),
            "sealed_at": _iso(round_["sealed_at"]),
            **_round_result(round_),
            "bet_count": len(rows),
            "total_stake": dict(sorted(totals.items())),
            "bets": [_bet_view(row) for row in rows],
        }


COMMIT_ORDER_ATTEMPTS = 5


async def _in_commit_order(once: Callable[[], Awaitable[dict[str, Any]]]) -> dict[str, Any]:
    """Run a transaction that appends to a player's stream, again if the store refused the
    append for commit order (`CommitOrderError`: another writer of the stream went first
    with a newer transaction). It is rolled back whole, so running it again is safe; the
    next transaction is newer than that writer's."""
    for _ in range(COMMIT_ORDER_ATTEMPTS - 1):
        try:
            return await once()
        except CommitOrderError:
            continue
    return await once()


def _stake_entries(
    operator_id: str, player_id: str, currency: str, slip_id: UUID, total: int
) -> list[LedgerEntry]:
    """The slip's stakes move from the player's account to the house's: one entry a side,
    reference `slip:<slip_id>` (its bets are in the slip's `BetsPlaced`)."""
    reference = f"slip:{slip_id}"
    return [
        LedgerEntry("player", operator_id, player_id, currency, -total, "stake", reference),
        LedgerEntry("house", operator_id, None, currency, total, "stake", reference),
    ]


def _replay(key: str, request_hash: str, stored: db.StoredAnswer) -> dict[str, Any]:
    if stored.request_hash != request_hash:
        raise IdempotencyKeyReusedError(f"the Idempotency-Key {key!r} was used for another request")
    if stored.status_code >= 400:
        refusal = _REFUSALS[stored.response["code"]]
        raise refusal(stored.response["detail"], **stored.response.get("extra", {}))
    return stored.response


def _transfer_answer(transfer_id: str, currency: str, balance: int) -> dict[str, Any]:
    return {"transfer_id": transfer_id, "currency": currency, "balance": balance}


def _decode_cursor(cursor: str | None) -> int | None:
    if cursor is None or cursor == "":
        return None
    if not (cursor.isascii() and cursor.isdigit()) or len(cursor) > 18:
        raise InvalidCursorError("the cursor is not one this service gave out")
    return int(cursor)


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(UTC).isoformat()


def _round_result(row: asyncpg.Record) -> dict[str, Any]:
    cards = row["cards"]
    return {
        "cards": None if cards is None else json.loads(cards),
        "winner": row["winner"],
        "player_a_hand": row["player_a_hand"],
        "player_b_hand": row["player_b_hand"],
        "six_card_bonus_hand": row["six_card_bonus_hand"],
    }


def _bet_view(row: asyncpg.Record) -> dict[str, Any]:
    return {
        "bet_id": str(row["bet_id"]),
        "slip_id": str(row["slip_id"]),
        "player_id": row["player_id"],
        "round_id": row["round_id"],
        "table_id": row["table_id"],
        "bet_type": row["bet_type"],
        "stake": int(row["stake"]),
        "currency": row["currency"],
        "placed_at": _iso(row["placed_at"]),
        "status": row["status"],
        "outcome": row["outcome"],
        "returned": None if row["returned"] is None else int(row["returned"]),
        "paid_at": _iso(row["paid_at"]),
        "round": {"status": row["round_status"], **_round_result(row)},
    }
