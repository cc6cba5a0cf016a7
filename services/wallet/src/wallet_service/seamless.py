"""The seamless wallet's use cases (docs/decisions/0066-seamless-slips-and-owed-calls.md):
a seamless operator's slips, sent to its wallet server as one signed `bet` each; the wins and
rollbacks owed to it, sent by a sender task until `RS_OK`; and the recovery of slips whose
bet's outcome was lost with a crashed instance.

A slip is placed in two short transactions around its bet call, never one held across it:
the first claims its Idempotency-Key and records the bet as pending, after every check the
round and limits make; the second records the answer, and takes the slip only on `RS_OK`
while its round is still open for betting."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar
from uuid import UUID, uuid4

import asyncpg

from teenpatti.events.catalog import BetsPlaced
from teenpatti.eventsourcing import AsyncpgEventStore
from teenpatti.kernel.problems import Problem
from teenpatti.seamless import (
    Answered,
    BadAnswer,
    BalanceCall,
    BetCall,
    CallOutcome,
    NoAnswer,
    OperatorConfig,
    OperatorWalletClient,
    RollbackCall,
    WinCall,
    load_private_key,
)

from .adapters import postgres as db
from .adapters import seamless as calls
from .config import WalletSettings
from .domain.betting import (
    IdempotencyKeyReusedError,
    SlipLine,
    UnknownRoundError,
    WalletError,
    check_betting_open,
    check_exposure,
    check_slip_shape,
    validate_slip,
)
from .domain.seamless import (
    FAILED,
    PENDING,
    REFUSED,
    SEAMLESS_REFUSAL_STATUS,
    SEAMLESS_REFUSALS,
    BetVerdict,
    OperatorUnavailableError,
    SlipPendingError,
    TokenExpiredError,
    judge_bet,
    judge_owed,
)

log = logging.getLogger(__name__)

# an operator's call timeout when the sender has not read its configuration yet
_DEFAULT_TIMEOUT = float(OperatorConfig.model_fields["timeout_seconds"].default)

Clock = Callable[[], datetime]
_T = TypeVar("_T")


class OperatorConfigs:
    """Each operator's wallet configuration, read from the `operators` table and kept for a
    few seconds, so that a change takes effect without a restart; no row: transfer."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        ttl_seconds: float,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._pool = pool
        self._ttl = ttl_seconds
        self._monotonic = monotonic
        self._cache: dict[str, tuple[float, OperatorConfig]] = {}

    async def get(self, operator_id: str) -> OperatorConfig:
        now = self._monotonic()
        cached = self._cache.get(operator_id)
        if cached is not None and now - cached[0] < self._ttl:
            return cached[1]
        async with self._pool.acquire() as connection:
            raw = await calls.operator_config(connection, operator_id)
        config = (
            OperatorConfig.transfer(operator_id)
            if raw is None
            else OperatorConfig.model_validate({**raw, "operator_id": operator_id})
        )
        self._cache[operator_id] = (now, config)
        return config

    def timeouts(self) -> dict[str, float]:
        """The call timeout of each operator read so far (however long ago: for an owed
        call's lease, where a stale value costs at most a second attempt in flight)."""
        return {
            operator_id: config.timeout_seconds for operator_id, (_, config) in self._cache.items()
        }


@dataclass(frozen=True, slots=True)
class SeamlessSlip:
    player_id: str
    round_id: str
    currency: str
    lines: tuple[SlipLine, ...]
    token: str | None  # the operator's session token of the player


class SeamlessWallet:
    def __init__(
        self,
        pool: asyncpg.Pool,
        store: AsyncpgEventStore,
        settings: WalletSettings,
        clock: Clock = lambda: datetime.now(UTC),
    ) -> None:
        self._pool = pool
        self._store = store
        self._settings = settings
        self._grace = timedelta(milliseconds=settings.betting_grace_ms)
        self._max_bets = settings.max_bets_per_slip
        self._clock = clock
        self.configs = OperatorConfigs(pool, settings.seamless_config_cache_seconds)
        key_file = settings.seamless_signing_key_file
        # no I/O in a constructor but the key file's read: the HTTP client connects lazily
        self._client: OperatorWalletClient | None = (
            None
            if not key_file
            else OperatorWalletClient(load_private_key(Path(key_file).read_bytes()))
        )

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()

    def _client_for(self, config: OperatorConfig) -> OperatorWalletClient:
        if self._client is None:
            raise OperatorUnavailableError(
                f"operator {config.operator_id} is seamless but the wallet has no signing key"
                " (TP_SEAMLESS_SIGNING_KEY_FILE)"
            )
        return self._client

    async def balance(self, config: OperatorConfig, call: BalanceCall) -> CallOutcome:
        """One `/user/balance` call, for a player's `GET /me/balance` (session_entrypoints.py):
        it moves nothing, so nothing of it is recorded."""
        return await self._client_for(config).balance(config, call)

    # ------------------------------------------------------------------------- slips
    async def place_slip(
        self,
        config: OperatorConfig,
        idempotency_key: str,
        slip: SeamlessSlip,
        request_hash: str,
    ) -> dict[str, Any]:
        """The slip taken on the operator's RS_OK while its round is open, else refused with
        the operator's reason (`domain.seamless.judge_bet`)."""
        if not slip.token:
            raise TokenExpiredError(
                "a seamless operator's slip needs the player's session token (`token`)"
            )
        client = self._client_for(config)
        pending = await self._record_pending(config, idempotency_key, slip, request_hash)
        if isinstance(pending, dict):
            return pending
        outcome = await client.bet(
            config,
            BetCall(
                user=slip.player_id,
                token=slip.token,
                transaction_uuid=str(pending.slip_id),
                round=slip.round_id,
                amount=pending.amount,
                currency=slip.currency,
                round_closed=False,
                bet=",".join(line.bet_type for line in slip.lines),
                meta={"table_id": pending.table_id, "bets": pending.slip["bets"]},
            ),
        )
        return await db_retrying(lambda: self._record_answer(pending, outcome))

    async def _record_pending(
        self,
        config: OperatorConfig,
        idempotency_key: str,
        slip: SeamlessSlip,
        request_hash: str,
    ) -> calls.PendingBet | dict[str, Any]:
        """Transaction 1: the key claimed and the bet recorded pending, after every check
        but funds (the operator's); or the answer stored under the key."""
        refusal: WalletError | None = None
        async with self._pool.acquire() as connection, connection.transaction():
            claimed = await calls.claim_key(
                connection, config.operator_id, idempotency_key, request_hash
            )
            if not claimed.first:
                if claimed.request_hash != request_hash:
                    raise IdempotencyKeyReusedError(
                        f"the Idempotency-Key {idempotency_key!r} was used for another request"
                    )
                if claimed.status_code is None or claimed.response is None:
                    raise SlipPendingError(
                        "the slip under this Idempotency-Key waits for the operator's answer;"
                        " ask again"
                    )
                return _replay(claimed.status_code, claimed.response)
            try:
                check_slip_shape(slip.lines, max_bets=self._max_bets)
                round_ = await db.round_for_betting(connection, slip.round_id)
                if round_ is None:
                    raise UnknownRoundError(f"round {slip.round_id} is not known")
                placed_at = self._clock()
                total = validate_slip(
                    round_,
                    slip.currency,
                    slip.lines,
                    placed_at,
                    grace=self._grace,
                    max_bets=self._max_bets,
                )
                # the player's lock serializes its slips: the exposure read cannot race
                await db.lock_account(connection, config.operator_id, slip.player_id, slip.currency)
                staked = await db.player_round_stakes(
                    connection, config.operator_id, slip.player_id, round_.round_id, slip.currency
                )
                for bet_type, stake in (
                    await calls.pending_round_stakes(
                        connection,
                        config.operator_id,
                        slip.player_id,
                        round_.round_id,
                        slip.currency,
                    )
                ).items():
                    staked[bet_type] = staked.get(bet_type, 0) + stake
                check_exposure(round_, slip.currency, slip.lines, staked)
            except WalletError as error:
                if isinstance(error, UnknownRoundError):
                    raise
                refusal = error
                await db.store_answer(
                    connection,
                    config.operator_id,
                    idempotency_key,
                    _status_of(error),
                    _refusal_body(error),
                )
            else:
                slip_id = uuid4()
                pending = calls.PendingBet(
                    slip_id=slip_id,
                    operator_id=config.operator_id,
                    player_id=slip.player_id,
                    round_id=round_.round_id,
                    table_id=round_.table_id,
                    currency=slip.currency,
                    amount=total,
                    token=slip.token or "",
                    idempotency_key=idempotency_key,
                    slip={
                        "placed_at": placed_at.isoformat(),
                        "bets": [
                            {"bet_id": str(uuid4()), "bet_type": line.bet_type, "stake": line.stake}
                            for line in slip.lines
                        ],
                    },
                    win_per=config.win_per.value,
                )
                await calls.record_pending_bet(connection, pending)
                return pending
        assert refusal is not None
        raise refusal

    async def _record_answer(
        self,
        pending: calls.PendingBet,
        outcome: CallOutcome,
    ) -> dict[str, Any]:
        """Transaction 2: the bet's answer recorded, the slip taken or refused; if the
        recovery loop ended the slip first, its refusal stands (a late RS_OK is rolled back
        by the rollback it owed)."""
        refusal: WalletError | None = None
        async with self._pool.acquire() as connection, connection.transaction():
            operator_id, key = pending.operator_id, pending.idempotency_key
            if not await calls.lock_pending_bet(connection, pending.slip_id):
                stored = await calls.stored_answer(connection, operator_id, key)
                assert stored is not None, "a bet ended without its slip's answer"
                return _replay(*stored)
            round_open = False
            round_ = await db.round_for_betting(connection, pending.round_id)
            placed_at = datetime.fromisoformat(pending.slip["placed_at"])
            if round_ is not None:
                try:
                    check_betting_open(round_, self._clock(), grace=self._grace)
                    round_open = True
                except WalletError:
                    round_open = False
            verdict = judge_bet(outcome, round_open=round_open, round_id=pending.round_id)
            await calls.finish_call(
                connection,
                pending.slip_id,
                verdict.call_status,
                **_answer_columns(outcome, self._clock()),
                error=None if verdict.refusal is None else verdict.refusal.detail,
            )
            if verdict.refusal is None:
                assert isinstance(outcome, Answered)
                return await self._take(connection, pending, placed_at, outcome)
            refusal = verdict.refusal
            if verdict.roll_back:
                await calls.owe_rollback_of_bet(connection, pending.slip_id)
            await db.store_answer(
                connection, operator_id, key, _status_of(refusal), _refusal_body(refusal)
            )
        log.info("seamless slip %s refused: %s", pending.slip_id, refusal.detail)
        raise refusal

    async def _take(
        self,
        connection: asyncpg.Connection,
        pending: calls.PendingBet,
        placed_at: datetime,
        answered: Answered,
    ) -> dict[str, Any]:
        account = await db.lock_account(
            connection, pending.operator_id, pending.player_id, pending.currency
        )
        bets = [
            (UUID(bet["bet_id"]), str(bet["bet_type"]), int(bet["stake"]))
            for bet in pending.slip["bets"]
        ]
        answer = {
            "slip_id": str(pending.slip_id),
            "round_id": pending.round_id,
            "table_id": pending.table_id,
            "player_id": pending.player_id,
            "currency": pending.currency,
            "placed_at": placed_at.isoformat(),
            "bets": [
                {"bet_id": str(bet_id), "bet_type": bet_type, "stake": stake}
                for bet_id, bet_type, stake in bets
            ],
            "balance": answered.balance,  # the operator's, after its debit
        }
        await calls.record_seamless_slip(
            connection,
            slip_id=pending.slip_id,
            operator_id=pending.operator_id,
            player_id=pending.player_id,
            round_id=pending.round_id,
            table_id=pending.table_id,
            currency=pending.currency,
            placed_at=placed_at,
            bets=bets,
            idempotency_key=pending.idempotency_key,
            answer=answer,
        )
        # the same event as a transfer wallet's slip, marked seamless: settlement sees the
        # same bets, the audit does not look for the stake in an account here
        await self._store.append(
            db.player_stream(pending.operator_id, pending.player_id),
            account.version,
            [
                BetsPlaced.model_validate(
                    {
                        "slip_id": pending.slip_id,
                        "round_id": pending.round_id,
                        "table_id": pending.table_id,
                        "operator_id": pending.operator_id,
                        "player_id": pending.player_id,
                        "currency": pending.currency,
                        "placed_at": placed_at,
                        "wallet": "seamless",
                        "bets": [
                            {"bet_id": bet_id, "bet_type": bet_type, "stake": stake}
                            for bet_id, bet_type, stake in bets
                        ],
                    }
                )
            ],
            table_id=pending.table_id,
            connection=connection,
        )
        return answer

    # ----------------------------------------------------------- sender and recovery
    async def run(self, stopping: asyncio.Event) -> None:
        """The sender of owed wins and rollbacks, and the recovery of abandoned slips: on
        every instance; rows are claimed with SKIP LOCKED and leased, so each is sent by
        one at a time, and again after a crash. The two loops are apart: neither's failure
        holds the other back."""
        await asyncio.gather(self._send_loop(stopping), self._recover_loop(stopping))

    async def _recover_loop(self, stopping: asyncio.Event) -> None:
        interval = self._settings.seamless_sender_interval_seconds
        while not stopping.is_set():
            try:
                await self._step(self.recover_once())
            except Exception:  # the loop outlives any one failure: it tries again
                log.exception("seamless recovery: a pass failed; trying again")
            await _pause(stopping, interval)

    async def _send_loop(self, stopping: asyncio.Event) -> None:
        """Keep up to `seamless_sender_concurrency` owed calls in flight: claim due ones as
        room frees, and record the attempts that ended, a batch per statement
        (docs/decisions/0078-seamless-sender-pipeline.md). Each claimed call is leased, so a
        step given up or a crash leaves it due again once its lease runs out."""
        settings = self._settings
        most = settings.seamless_sender_concurrency
        # claim when a quarter of the room is free: a few larger claims, not one per answer
        claim_at = max(1, most // 4)
        in_flight: set[asyncio.Task[calls.Attempt]] = set()
        ended: list[calls.Attempt] = []
        try:
            while not stopping.is_set():
                room = most - len(in_flight)
                if room >= claim_at or not in_flight:
                    try:
                        due = await self._step(
                            self._claim(min(room, settings.seamless_sender_batch))
                        )
                    except Exception:
                        log.exception("seamless sender: claiming due calls failed; trying again")
                        due = []
                    in_flight.update(asyncio.create_task(self._attempt(row)) for row in due)
                if not in_flight:
                    await _pause(stopping, settings.seamless_sender_interval_seconds)
                    continue
                done, in_flight = await asyncio.wait(
                    in_flight,
                    timeout=settings.seamless_sender_interval_seconds,
                    return_when=asyncio.FIRST_COMPLETED,
                )
                ended += (task.result() for task in done)
                ended = await self._record(ended)
        finally:
            # stopping: the calls in flight end within their operators' timeouts
            if in_flight:
                done, _ = await asyncio.wait(in_flight)
                ended += (task.result() for task in done)
            if ended:
                await self._record(ended)

    async def _step(self, step: Awaitable[_T]) -> _T:
        """A database step of the sender or the recovery, given up past its time limit."""
        async with asyncio.timeout(self._settings.seamless_sender_step_seconds):
            return await step

    def _connection(self) -> Any:
        """A pooled connection, waited for no longer than a step may take."""
        return self._pool.acquire(timeout=self._settings.seamless_sender_step_seconds)

    async def _claim(self, limit: int) -> list[asyncpg.Record]:
        async with self._connection() as connection, connection.transaction():
            return await calls.claim_due(
                connection,
                limit,
                timeouts=self.configs.timeouts(),
                default_timeout=_DEFAULT_TIMEOUT,
                lease_margin_seconds=self._settings.seamless_lease_margin_seconds,
            )

    async def _record(self, ended: list[calls.Attempt]) -> list[calls.Attempt]:
        """Record the attempts that ended, in one statement; those not recorded (the step
        failed) are kept to be tried with the next batch, while their lease lasts."""
        if not ended:
            return ended
        # a call claimed again once its lease ran out: its latest attempt stands
        ended = list({attempt.call_id: attempt for attempt in ended}.values())
        try:
            await self._step(self._record_now(ended))
        except Exception:
            log.exception("seamless sender: recording %d attempts failed; trying again", len(ended))
            return ended
        return []

    async def _record_now(self, ended: list[calls.Attempt]) -> None:
        async with self._connection() as connection:
            await calls.record_attempts(connection, ended)

    async def _attempt(self, row: asyncpg.Record) -> calls.Attempt:
        """One attempt of an owed call, judged: never raises, so that one call's trouble is
        that call's only (an error becomes a failed attempt, retried after a backoff)."""
        try:
            config = await self._step(self.configs.get(row["operator_id"]))
            outcome: CallOutcome
            if self._client is None or not config.seamless:
                outcome = NoAnswer(
                    "connection",
                    "no signing key" if self._client is None else "the operator is not seamless",
                )
            else:
                # the client ends the attempt within the operator's timeout; this bounds the
                # rest (signing, reading) too, well inside the call's lease
                async with asyncio.timeout(config.timeout_seconds + 0.5):
                    outcome = await self._call(config, row)
            verdict = judge_owed(
                outcome,
                bad_answers_before=int(row["bad_answers"]),
                bad_answer_limit=self._settings.seamless_bad_answer_limit,
            )
            backoff = config.backoff_seconds(int(row["attempts"]), random.random())
        except Exception as error:  # e.g. the configuration could not be read in time
            outcome = NoAnswer("connection", f"no outcome: {type(error).__name__}: {error}")
            verdict = judge_owed(outcome, bad_answers_before=0, bad_answer_limit=1)
            backoff = OperatorConfig.transfer(row["operator_id"]).backoff_seconds(
                int(row["attempts"]), random.random()
            )
        if verdict.status == FAILED:
            log.error(
                "owed %s %s to operator %s failed: %s",
                row["kind"],
                row["transaction_uuid"],
                row["operator_id"],
                verdict.error,
            )
        answer = _answer_columns(outcome, self._clock())
        return calls.Attempt(
            call_id=row["call_id"],
            status=verdict.status,
            next_attempt_at=(
                self._clock() + timedelta(seconds=backoff) if verdict.status == PENDING else None
            ),
            bad_answer=verdict.bad_answer,
            answer_status=answer["answer_status"],
            answer_raw=answer["answer_raw"],
            error=verdict.error,
        )

    async def _call(self, config: OperatorConfig, row: asyncpg.Record) -> CallOutcome:
        assert self._client is not None
        if row["kind"] == "win":
            return await self._client.win(
                config,
                WinCall(
                    user=row["player_id"],
                    token=row["token"],
                    transaction_uuid=row["transaction_uuid"],
                    reference_transaction_uuid=row["reference_transaction_uuid"],
                    round=row["round_id"],
                    amount=int(row["amount"]),
                    currency=row["currency"],
                    round_closed=bool(row["round_closed"]),
                ),
            )
        return await self._client.rollback(
            config,
            RollbackCall(
                user=row["player_id"],
                token=row["token"],
                transaction_uuid=row["transaction_uuid"],
                reference_transaction_uuid=row["reference_transaction_uuid"],
                round=row["round_id"],
                currency=row["currency"],
            ),
        )

    async def recover_once(self) -> int:
        """Refuse the slips whose bet's outcome was lost (pending past their operator's
        timeout plus the margin) and owe their rollbacks; how many."""
        refusal = OperatorUnavailableError(
            "the operator's answer to the bet was lost; the bet is rolled back",
            reason="recovered",
        )
        async with self._connection() as connection, connection.transaction():
            abandoned = await calls.abandoned_bets(
                connection,
                self._settings.seamless_recovery_margin_seconds,
                self._settings.seamless_sender_batch,
            )
            for row in abandoned:
                await calls.finish_call(
                    connection,
                    row["call_id"],
                    FAILED,
                    answer_status=None,
                    answer_raw=None,
                    error="no outcome known: rolled back by the recovery loop",
                    answered_at=None,
                )
                await calls.owe_rollback_of_bet(connection, row["call_id"])
                await db.store_answer(
                    connection,
                    row["operator_id"],
                    row["idempotency_key"],
                    _status_of(refusal),
                    _refusal_body(refusal),
                )
        for row in abandoned:
            log.warning("seamless slip %s abandoned: refused and rolled back", row["call_id"])
        return len(abandoned)

    # ------------------------------------------------------------------------- problems
    async def owed_call_problems(self, pool: asyncpg.Pool, limit: int) -> list[Problem]:
        """Every owed win or rollback a person should see: `failed_operator_call` (retrying
        cannot deliver it: `teenpatti operators resend` once the cause is fixed) and
        `overdue_operator_call` (still retried, not RS_OK past its time)."""
        async with pool.acquire() as connection:
            rows = await calls.unsettled_calls(connection, limit)
        return [_call_problem(row) for row in rows]


def _call_problem(row: asyncpg.Record) -> Problem:
    failed = row["status"] == FAILED
    age = float(row["age_seconds"])
    what = (
        f"the {row['kind']} {row['transaction_uuid']} owed to operator {row['operator_id']}"
        f" (player {row['player_id']}, slip {row['slip_id']})"
    )
    detail = (
        f"{what} will not be retried: {row['error']}; once the cause is fixed:"
        f" teenpatti operators resend {row['call_id']} --reason ... --by ..."
        if failed
        else f"{what} is not RS_OK after {age:.0f} s and {row['attempts']} attempt(s): "
        + (row["error"] or "waiting for the player's other calls of the round")
    )
    return Problem(
        kind="failed_operator_call" if failed else "overdue_operator_call",
        detail=detail,
        since=row["finished_at"] if failed else row["created_at"],
        table_id=row["table_id"],
        round_id=row["round_id"],
        facts={
            "call_id": str(row["call_id"]),
            "kind": row["kind"],
            "status": row["status"],
            "operator_id": row["operator_id"],
            "player_id": row["player_id"],
            "slip_id": str(row["slip_id"]),
            "transaction_uuid": row["transaction_uuid"],
            "amount": None if row["amount"] is None else int(row["amount"]),
            "currency": row["currency"],
            "round_closed": bool(row["round_closed"]),
            "attempts": int(row["attempts"]),
            "age_seconds": int(age),
            "answer_status": row["answer_status"],
            "next_attempt_at": (
                None if row["next_attempt_at"] is None else row["next_attempt_at"].isoformat()
            ),
        },
    )


async def owed_call_gauges(pool: asyncpg.Pool) -> dict[tuple[str, ...], float]:
    """`teenpatti_seamless_owed_calls{operator, state}`: pending, overdue, failed."""
    async with pool.acquire() as connection:
        rows = await calls.owed_call_counts(connection)
    return {
        (row["operator_id"], state): float(row[state])
        for row in rows
        for state in ("pending", "overdue", "failed")
    }


async def owed_call_age_gauges(pool: asyncpg.Pool) -> dict[tuple[str, ...], float]:
    """`teenpatti_seamless_owed_call_age_seconds{operator}`: the oldest not yet RS_OK."""
    async with pool.acquire() as connection:
        rows = await calls.owed_call_counts(connection)
    return {(row["operator_id"],): float(row["oldest_seconds"]) for row in rows}


async def _pause(stopping: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stopping.wait(), seconds)


async def db_retrying(
    once: Callable[[], Any],
) -> dict[str, Any]:
    from .handlers import _in_commit_order

    result: dict[str, Any] = await _in_commit_order(once)
    return result


def _replay(status_code: int, response: dict[str, Any]) -> dict[str, Any]:
    """The answer stored under a slip's key: the slip, or its refusal raised again."""
    if status_code < 400:
        return response
    from .handlers import _REFUSALS

    refusals = {**_REFUSALS, **{cls.code: cls for cls in SEAMLESS_REFUSALS}}
    raise refusals[response["code"]](response["detail"], **response.get("extra", {}))


def _status_of(error: WalletError) -> int:
    from .handlers import REFUSAL_STATUS

    return SEAMLESS_REFUSAL_STATUS.get(error.code) or REFUSAL_STATUS.get(error.code, 422)


def _refusal_body(error: WalletError) -> dict[str, Any]:
    return {"code": error.code, "detail": error.detail, "extra": error.extra}


def _answer_columns(outcome: CallOutcome, now: datetime) -> dict[str, Any]:
    """What `operator_calls` keeps of an answer: its status and its body as received."""
    match outcome:
        case Answered(status=status, raw=raw):
            return {
                "answer_status": status.value,
                "answer_raw": json.dumps(raw),
                "answered_at": now,
            }
        case BadAnswer(reason=reason, raw=raw):
            return {
                "answer_status": f"bad_answer:{reason}",
                "answer_raw": raw.decode("utf-8", errors="replace"),
                "answered_at": now,
            }
        case NoAnswer(reason=reason):
            return {"answer_status": f"no_answer:{reason}", "answer_raw": None, "answered_at": None}
    raise AssertionError(f"not an outcome: {outcome!r}")


__all__ = ["REFUSED", "BetVerdict", "OperatorConfigs", "SeamlessSlip", "SeamlessWallet"]
