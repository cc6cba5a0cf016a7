"""The operator's side of the seamless wallet protocol (/work/shared/operator-wallet.md, the
Hub88 operator wallet API), on its own Postgres database.

Every money call runs in one transaction that first locks the player's row, so the calls of
one player apply one at a time: an idempotent repeat, a late bet and its rollback cannot
interleave. Amounts and balances are protocol units (the currency amount x 100,000).

The rules it answers by:
- a repeated `transaction_uuid` with the same data: `RS_OK` and the current balance, nothing
  moved; with other data: `RS_ERROR_DUPLICATE_TRANSACTION`;
- a win for a bet it never saw: `RS_ERROR_TRANSACTION_DOES_NOT_EXIST`; a rollback of one:
  `RS_OK`, nothing moved, a tombstone kept, and the bet arriving later is refused with
  `RS_ERROR_TRANSACTION_ROLLED_BACK`, as is a win for (or a repeat of) a rolled-back bet;
- wins and rollbacks are taken with an expired token (they are owed), bets and balance
  requests are not;
- a rollback of a bet a win already settled: `RS_ERROR_TRANSACTION_DOES_NOT_EXIST`, nothing
  moved (no open bet by that id; docs/decisions/0065-the-reference-operator.md);
- a win settles the bet it references and, with `round_closed`, every other bet of the
  player's round still open: one win may settle a player's round
  (docs/decisions/0079-one-win-per-player-and-round.md).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import asyncpg
from pydantic import BaseModel, ConfigDict, StrictBool, StrictInt, StrictStr, ValidationError

from teenpatti.migrations import MigrationSet
from teenpatti.seamless.signing import PublicKey, verify
from teenpatti_tools.operator.faults import Call

MIGRATIONS = MigrationSet.from_package("operator", "teenpatti_tools.operator.migrations")

OK = "RS_OK"
INVALID_TOKEN = "RS_ERROR_INVALID_TOKEN"
WRONG_CURRENCY = "RS_ERROR_WRONG_CURRENCY"
NOT_ENOUGH_MONEY = "RS_ERROR_NOT_ENOUGH_MONEY"
USER_DISABLED = "RS_ERROR_USER_DISABLED"
INVALID_SIGNATURE = "RS_ERROR_INVALID_SIGNATURE"
TOKEN_EXPIRED = "RS_ERROR_TOKEN_EXPIRED"
WRONG_SYNTAX = "RS_ERROR_WRONG_SYNTAX"
WRONG_TYPES = "RS_ERROR_WRONG_TYPES"
DUPLICATE_TRANSACTION = "RS_ERROR_DUPLICATE_TRANSACTION"
TRANSACTION_DOES_NOT_EXIST = "RS_ERROR_TRANSACTION_DOES_NOT_EXIST"
LIMIT_REACHED = "RS_ERROR_LIMIT_REACHED"
TRANSACTION_ROLLED_BACK = "RS_ERROR_TRANSACTION_ROLLED_BACK"


class _Request(BaseModel):
    # unknown fields are ignored (the protocol's rule); known ones are typed strictly
    model_config = ConfigDict(extra="ignore", frozen=True)

    user: StrictStr
    token: StrictStr
    game_code: StrictStr
    request_uuid: StrictStr


class BalanceRequest(_Request):
    pass


class BetRequest(_Request):
    transaction_uuid: StrictStr
    round: StrictStr
    round_closed: StrictBool = False
    amount: StrictInt
    currency: StrictStr
    bet: StrictStr | None = None
    meta: dict[str, Any] | None = None


class WinRequest(BetRequest):
    reference_transaction_uuid: StrictStr


class RollbackRequest(_Request):
    transaction_uuid: StrictStr
    reference_transaction_uuid: StrictStr
    round: StrictStr


REQUESTS: dict[Call, type[_Request]] = {
    "balance": BalanceRequest,
    "bet": BetRequest,
    "win": WinRequest,
    "rollback": RollbackRequest,
}


def request_hash(call: Call, request: _Request) -> str:
    """What makes two requests with one `transaction_uuid` "the same data": every field that
    moves money or places it, not the attempt's `request_uuid`, the token or `meta`."""
    fields = request.model_dump(exclude={"request_uuid", "token", "meta", "round_closed", "bet"})
    return hashlib.sha256(json.dumps([call, fields], sort_keys=True).encode()).hexdigest()


def answer(
    request_uuid: str, user: str, currency: str, balance: int, status: str
) -> dict[str, Any]:
    return {
        "user": user,
        "status": status,
        "request_uuid": request_uuid,
        "currency": currency,
        "balance": balance,
    }


def _echo(body: bytes, status: str) -> dict[str, Any]:
    """The answer to a request it could not take: what it can read of it echoed back."""
    try:
        data = json.loads(body)
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}

    def text(name: str) -> str:
        value = data.get(name)
        return value if isinstance(value, str) else ""

    return answer(text("request_uuid"), text("user"), text("currency"), 0, status)


class _Refuse(Protocol):
    async def __call__(self, status: str, in_currency: str = ...) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class _Player:
    currency: str
    expired: bool
    disabled: bool
    bet_limit: int | None


class OperatorWallet:
    """The wallet server's answers, over a pool of its database."""

    def __init__(self, pool: asyncpg.Pool, game_public_keys: Sequence[PublicKey]) -> None:
        self._pool = pool
        self._keys = list(game_public_keys)

    async def answer(
        self, call: Call, body: bytes, signature: str | None, *, refusal: str | None = None
    ) -> dict[str, Any]:
        """The answer to one call: the signature checked over the bytes as received before
        anything is parsed; `refusal` (a fault switch): that status, nothing applied."""
        result = await self._answer(call, body, signature, refusal)
        if not result["currency"]:
            # a refusal of a call that names no currency (a rollback, an unknown token) still
            # answers one: the token's, else the referenced transaction's
            result["currency"] = await self._currency_of(body)
        return result

    async def _currency_of(self, body: bytes) -> str:
        try:
            data = json.loads(body)
        except ValueError:
            return ""
        if not isinstance(data, dict):
            return ""
        token, reference = data.get("token"), data.get("reference_transaction_uuid")
        currency = await self._pool.fetchval(
            "SELECT coalesce("
            " (SELECT currency FROM tokens WHERE token = $1),"
            " (SELECT currency FROM transactions WHERE transaction_uuid = $2))",
            token if isinstance(token, str) else None,
            reference if isinstance(reference, str) else None,
        )
        return str(currency or "")

    async def _answer(
        self, call: Call, body: bytes, signature: str | None, refusal: str | None
    ) -> dict[str, Any]:
        if not verify(self._keys, body, signature):
            return _echo(body, INVALID_SIGNATURE)
        try:
            data = json.loads(body)
        except ValueError:
            return _echo(body, WRONG_SYNTAX)
        if not isinstance(data, dict):
            return _echo(body, WRONG_SYNTAX)
        try:
            request = REQUESTS[call].model_validate(data)
        except ValidationError as error:
            missing = any(problem["type"] == "missing" for problem in error.errors())
            return _echo(body, WRONG_SYNTAX if missing else WRONG_TYPES)
        if isinstance(request, BetRequest) and request.amount < 0:
            return _echo(body, WRONG_TYPES)
        try:
            async with self._pool.acquire() as connection, connection.transaction():
                return await self._apply(connection, call, request, refusal)
        except asyncpg.UniqueViolationError:
            # another player's call took this transaction_uuid meanwhile: answered as a repeat
            async with self._pool.acquire() as connection, connection.transaction():
                return await self._apply(connection, call, request, refusal)

    async def _apply(
        self,
        connection: asyncpg.Connection,
        call: Call,
        request: _Request,
        refusal: str | None,
    ) -> dict[str, Any]:
        player = await self._player(connection, request)
        if isinstance(player, str):
            currency = request.currency if isinstance(request, BetRequest) else ""
            return answer(request.request_uuid, request.user, currency, 0, player)
        currency = request.currency if isinstance(request, BetRequest) else player.currency

        async def refuse(status: str, in_currency: str = currency) -> dict[str, Any]:
            balance = await _balance(connection, request.user, in_currency)
            return answer(request.request_uuid, request.user, in_currency, balance, status)

        owed = call in ("win", "rollback")
        if player.expired and not owed:
            return await refuse(TOKEN_EXPIRED)
        if player.disabled and not owed:
            return await refuse(USER_DISABLED)
        if isinstance(request, BetRequest) and request.currency != player.currency:
            return await refuse(WRONG_CURRENCY)
        if refusal is not None:
            return await refuse(refusal)
        if isinstance(request, BalanceRequest):
            return await refuse(OK)
        assert isinstance(request, BetRequest | RollbackRequest)
        digest = request_hash(call, request)
        existing = await connection.fetchrow(
            "SELECT kind, request_hash, rolled_back_by, currency FROM transactions"
            " WHERE transaction_uuid = $1",
            request.transaction_uuid,
        )
        if existing is not None:
            if existing["request_hash"] != digest:
                return await refuse(DUPLICATE_TRANSACTION)
            if existing["rolled_back_by"] is not None:
                return await refuse(TRANSACTION_ROLLED_BACK)
            return await refuse(OK, existing["currency"])
        if isinstance(request, WinRequest):
            return await self._win(connection, request, digest, player, refuse)
        if isinstance(request, BetRequest):
            return await self._bet(connection, request, digest, player, refuse)
        assert isinstance(request, RollbackRequest)
        return await self._rollback(connection, request, digest, currency, refuse)

    async def _player(self, connection: asyncpg.Connection, request: _Request) -> _Player | str:
        """The token's player, its row locked for this call; or why there is none."""
        row = await connection.fetchrow(
            "SELECT t.user_id, t.currency, t.expires_at <= now() AS expired,"
            " u.disabled, u.bet_limit FROM tokens t JOIN users u USING (user_id)"
            " WHERE t.token = $1 FOR UPDATE OF u",
            request.token,
        )
        if row is None or row["user_id"] != request.user:
            return INVALID_TOKEN
        return _Player(row["currency"], row["expired"], row["disabled"], row["bet_limit"])

    async def _bet(
        self,
        connection: asyncpg.Connection,
        request: BetRequest,
        digest: str,
        player: _Player,
        refuse: _Refuse,
    ) -> dict[str, Any]:
        rolled_back = await connection.fetchval(
            "SELECT EXISTS (SELECT FROM transactions WHERE kind = 'rollback'"
            " AND reference_transaction_uuid = $1)",
            request.transaction_uuid,
        )
        if rolled_back:
            return await refuse(TRANSACTION_ROLLED_BACK)
        if player.bet_limit is not None and request.amount > player.bet_limit:
            return await refuse(LIMIT_REACHED)
        balance = await _move(connection, request.user, request.currency, -request.amount)
        if balance is None:
            return await refuse(NOT_ENOUGH_MONEY)
        return await _record(connection, "bet", request, digest, request.amount, balance)

    async def _win(
        self,
        connection: asyncpg.Connection,
        request: WinRequest,
        digest: str,
        player: _Player,
        refuse: _Refuse,
    ) -> dict[str, Any]:
        bet = await _bet_of(connection, request.reference_transaction_uuid, request.user)
        if bet is None:
            return await refuse(TRANSACTION_DOES_NOT_EXIST)
        if bet["rolled_back_by"] is not None:
            return await refuse(TRANSACTION_ROLLED_BACK)
        if bet["currency"] != request.currency:
            return await refuse(WRONG_CURRENCY)
        balance = await _move(connection, request.user, request.currency, request.amount)
        assert balance is not None
        return await _record(connection, "win", request, digest, request.amount, balance)

    async def _rollback(
        self,
        connection: asyncpg.Connection,
        request: RollbackRequest,
        digest: str,
        currency: str,
        refuse: _Refuse,
    ) -> dict[str, Any]:
        seen = await connection.fetchrow(
            "SELECT kind, user_id FROM transactions WHERE transaction_uuid = $1",
            request.reference_transaction_uuid,
        )
        if seen is None:
            current = await _balance(connection, request.user, currency)
            return await _record(
                connection, "rollback", request, digest, 0, current, currency, tombstone=True
            )
        bet = await _bet_of(connection, request.reference_transaction_uuid, request.user)
        if bet is None:
            return await refuse(TRANSACTION_DOES_NOT_EXIST)
        if bet["rolled_back_by"] is not None:
            return await refuse(TRANSACTION_ROLLED_BACK, bet["currency"])
        if bet["won"]:
            return await refuse(TRANSACTION_DOES_NOT_EXIST, bet["currency"])
        balance = await _move(connection, request.user, bet["currency"], bet["amount"])
        assert balance is not None
        await connection.execute(
            "UPDATE transactions SET rolled_back_by = $2 WHERE transaction_uuid = $1",
            request.reference_transaction_uuid,
            request.transaction_uuid,
        )
        return await _record(
            connection, "rollback", request, digest, bet["amount"], balance, bet["currency"]
        )


async def _bet_of(
    connection: asyncpg.Connection, transaction_uuid: str, user: str
) -> asyncpg.Record | None:
    """A bet of this player, with whether a win settled it: a win referencing it, or one
    closing its round."""
    return await connection.fetchrow(
        "SELECT b.amount, b.currency, b.rolled_back_by, EXISTS (SELECT FROM transactions w"
        "  WHERE w.kind = 'win' AND w.reference_transaction_uuid = b.transaction_uuid)"
        " OR EXISTS (SELECT FROM transactions w WHERE w.round = b.round AND w.kind = 'win'"
        "  AND w.round_closed AND w.user_id = b.user_id) AS won"
        " FROM transactions b WHERE b.transaction_uuid = $1 AND b.kind = 'bet'"
        " AND b.user_id = $2",
        transaction_uuid,
        user,
    )


async def _balance(connection: asyncpg.Connection, user: str, currency: str) -> int:
    balance = await connection.fetchval(
        "SELECT balance FROM balances WHERE user_id = $1 AND currency = $2", user, currency
    )
    return int(balance or 0)


async def _move(
    connection: asyncpg.Connection, user: str, currency: str, amount: int
) -> int | None:
    """Add `amount` (negative: a debit) to the balance; None when it would go below zero."""
    if amount < 0:
        balance = await connection.fetchval(
            "UPDATE balances SET balance = balance + $3"
            " WHERE user_id = $1 AND currency = $2 AND balance + $3 >= 0 RETURNING balance",
            user,
            currency,
            amount,
        )
    else:
        balance = await connection.fetchval(
            "INSERT INTO balances (user_id, currency, balance) VALUES ($1, $2, $3)"
            " ON CONFLICT (user_id, currency) DO UPDATE SET balance = balances.balance + $3"
            " RETURNING balance",
            user,
            currency,
            amount,
        )
    return None if balance is None else int(balance)


async def _record(
    connection: asyncpg.Connection,
    kind: str,
    request: BetRequest | RollbackRequest,
    digest: str,
    amount: int,
    balance: int,
    currency: str | None = None,
    *,
    tombstone: bool = False,
) -> dict[str, Any]:
    """The applied transaction, recorded with the answer it got."""
    currency = currency if currency is not None else getattr(request, "currency", "")
    assert currency is not None
    result = answer(request.request_uuid, request.user, currency, balance, OK)
    await connection.execute(
        "INSERT INTO transactions (transaction_uuid, kind, user_id, currency, amount, round,"
        " round_closed, reference_transaction_uuid, game_code, bet, tombstone, request_uuid,"
        " request_hash, balance_after, answer)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
        request.transaction_uuid,
        kind,
        request.user,
        currency,
        amount,
        request.round,
        getattr(request, "round_closed", False),
        getattr(request, "reference_transaction_uuid", None),
        request.game_code,
        getattr(request, "bet", None),
        tombstone,
        request.request_uuid,
        digest,
        balance,
        json.dumps(result),
    )
    return result


# ------------------------------------------------------------------------------- admin
class AdminError(Exception):
    """An admin request the operator cannot do (an unknown player, a bad amount)."""


async def put_user(
    pool: asyncpg.Pool,
    user: str,
    *,
    disabled: bool | None,
    bet_limit: int | None,
    clear_limit: bool,
) -> None:
    await pool.execute(
        "INSERT INTO users (user_id, disabled, bet_limit) VALUES ($1, coalesce($2, false), $3)"
        " ON CONFLICT (user_id) DO UPDATE SET disabled = coalesce($2, users.disabled),"
        " bet_limit = CASE WHEN $4 THEN NULL ELSE coalesce($3, users.bet_limit) END",
        user,
        disabled,
        bet_limit,
        clear_limit,
    )


async def deposit(pool: asyncpg.Pool, user: str, currency: str, amount: int) -> int:
    """Credit a deposit; the new balance."""
    async with pool.acquire() as connection, connection.transaction():
        if not await connection.fetchval(
            "SELECT EXISTS (SELECT FROM users WHERE user_id = $1 FOR UPDATE)", user
        ):
            raise AdminError(f"no player {user!r}: create it first")
        await connection.execute(
            "INSERT INTO deposits (user_id, currency, amount) VALUES ($1, $2, $3)",
            user,
            currency,
            amount,
        )
        balance = await _move(connection, user, currency, amount)
        assert balance is not None
        return balance


async def issue_token(
    pool: asyncpg.Pool, token: str, user: str, currency: str, ttl_seconds: float
) -> datetime:
    """A session token bound to one player and one currency; when it expires."""
    try:
        expires: datetime = await pool.fetchval(
            "INSERT INTO tokens (token, user_id, currency, expires_at)"
            " VALUES ($1, $2, $3, now() + make_interval(secs => $4)) RETURNING expires_at",
            token,
            user,
            currency,
            ttl_seconds,
        )
    except asyncpg.ForeignKeyViolationError:
        raise AdminError(f"no player {user!r}: create it first") from None
    except asyncpg.UniqueViolationError:
        raise AdminError("that token is already issued") from None
    return expires


async def user_view(pool: asyncpg.Pool, user: str) -> dict[str, Any] | None:
    row = await pool.fetchrow("SELECT disabled, bet_limit FROM users WHERE user_id = $1", user)
    if row is None:
        return None
    balances = await pool.fetch(
        "SELECT currency, balance FROM balances WHERE user_id = $1 ORDER BY currency", user
    )
    return {
        "user": user,
        "disabled": row["disabled"],
        "bet_limit": row["bet_limit"],
        "balances": {b["currency"]: b["balance"] for b in balances},
    }


TRANSACTION_COLUMNS = (
    "seq, transaction_uuid, kind, user_id, currency, amount, round, round_closed,"
    " reference_transaction_uuid, game_code, bet, tombstone, rolled_back_by, request_uuid,"
    " request_hash, balance_after, answer, created_at"
)


async def transactions(
    pool: asyncpg.Pool,
    *,
    since: datetime | None,
    until: datetime | None,
    round_id: str | None,
    user: str | None,
    after: int,
    limit: int,
) -> tuple[list[dict[str, Any]], int | None]:
    """Applied transactions in the order applied, from `since` (inclusive) to `until`
    (exclusive), of one round or player; a page after the cursor `after`, and the next."""
    rows = await pool.fetch(
        f"SELECT {TRANSACTION_COLUMNS} FROM transactions WHERE seq > $1"
        " AND ($2::timestamptz IS NULL OR created_at >= $2)"
        " AND ($3::timestamptz IS NULL OR created_at < $3)"
        " AND ($4::text IS NULL OR round = $4) AND ($5::text IS NULL OR user_id = $5)"
        " ORDER BY seq LIMIT $6",
        after,
        since,
        until,
        round_id,
        user,
        limit + 1,
    )
    page = [_transaction(row) for row in rows[:limit]]
    return page, (page[-1]["seq"] if len(rows) > limit else None)


def _transaction(row: asyncpg.Record) -> dict[str, Any]:
    item = dict(row)
    item["user"] = item.pop("user_id")
    item["answer"] = json.loads(item["answer"])
    item["created_at"] = item["created_at"].isoformat()
    return item


async def money_check(pool: asyncpg.Pool) -> list[dict[str, Any]]:
    """Each balance beside deposits - bets + wins + rollbacks of the same player and currency."""
    rows = await pool.fetch(
        "WITH moved AS ("
        "  SELECT user_id, currency, amount FROM deposits"
        "  UNION ALL SELECT user_id, currency,"
        "   CASE kind WHEN 'bet' THEN -amount ELSE amount END FROM transactions)"
        " SELECT b.user_id, b.currency, b.balance, coalesce(sum(m.amount), 0)::bigint AS expected,"
        "  (SELECT coalesce(sum(amount), 0) FROM deposits d"
        "    WHERE d.user_id = b.user_id AND d.currency = b.currency)::bigint AS deposits"
        " FROM balances b LEFT JOIN moved m USING (user_id, currency)"
        " GROUP BY b.user_id, b.currency, b.balance ORDER BY b.user_id, b.currency"
    )
    return [
        {
            "user": row["user_id"],
            "currency": row["currency"],
            "balance": row["balance"],
            "deposits": row["deposits"],
            "expected": row["expected"],
            "ok": row["balance"] == row["expected"],
        }
        for row in rows
    ]
