"""The sender of what is owed to seamless operators (docs/decisions/0066, 0078, 0081): every
win and rollback owed, sent until `RS_OK` by every wallet instance, each call claimed by one
at a time for a short lease; and the recovery of slips whose bet's outcome was lost with a
crashed instance. What a person must see of them: `GET /problems` and two gauges."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import asyncpg

from teenpatti.kernel.problems import HeldProblem
from teenpatti.seamless import CallOutcome, NoAnswer, OperatorConfig, RollbackCall, WinCall

from .adapters import postgres as db
from .adapters import seamless as calls
from .config import WalletSettings
from .domain.seamless import FAILED, PENDING, OperatorUnavailableError, judge_owed
from .errors import status_of, stored_refusal
from .operators import OperatorWallets

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]
_T = TypeVar("_T")

# an operator's call timeout when the sender has not read its configuration yet
_DEFAULT_TIMEOUT = float(OperatorConfig.model_fields["timeout_seconds"].default)


class OwedCallSender:
    """Sends the owed wins and rollbacks, and recovers abandoned slips: on every instance."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        settings: WalletSettings,
        operators: OperatorWallets,
        clock: Clock = lambda: datetime.now(UTC),
    ) -> None:
        self._pool = pool
        self._settings = settings
        self._operators = operators
        self._clock = clock
        # set when this instance has just owed calls: the sender claims them at once
        self._owed = asyncio.Event()

    def wake(self) -> None:
        """Calls were just owed (their transaction committed): claim them now rather than
        at the next look (`seamless_sender_interval_seconds`)."""
        self._owed.set()

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
                    await self._idle(stopping, settings.seamless_sender_interval_seconds)
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

    async def _idle(self, stopping: asyncio.Event, seconds: float) -> None:
        """Nothing in flight: wait for the next look, for calls owed here (`wake`), or for
        the end."""
        await _pause(stopping, seconds, self._owed)
        self._owed.clear()

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
                timeouts=self._operators.configs.timeouts(),
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
            config = await self._step(self._operators.configs.get(row["operator_id"]))
            outcome: CallOutcome
            if self._operators.client is None or not config.seamless:
                outcome = NoAnswer(
                    "connection",
                    "no signing key"
                    if self._operators.client is None
                    else "the operator is not seamless",
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
        answer = calls.answer_columns(outcome, self._clock())
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
        client = self._operators.client
        assert client is not None
        if row["kind"] == "win":
            return await client.win(
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
        return await client.rollback(
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
                    status_of(refusal),
                    stored_refusal(refusal),
                )
        for row in abandoned:
            log.warning("seamless slip %s abandoned: refused and rolled back", row["call_id"])
        return len(abandoned)

    # ------------------------------------------------------------------------- problems
    async def owed_call_problems(self, pool: asyncpg.Pool, limit: int) -> list[HeldProblem]:
        """Every owed win or rollback a person should see: `failed_operator_call` (retrying
        cannot deliver it: `teenpatti operators resend` once the cause is fixed) and
        `overdue_operator_call` (still retried, not RS_OK past its time)."""
        async with pool.acquire() as connection:
            rows = await calls.unsettled_calls(connection, limit)
        return [_call_problem(row) for row in rows]


def _call_problem(row: asyncpg.Record) -> HeldProblem:
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
    return HeldProblem(
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
    """`teenpatti_operator_owed_calls{operator, state}`: pending, overdue, failed."""
    async with pool.acquire() as connection:
        rows = await calls.owed_call_counts(connection)
    return {
        (row["operator_id"], state): float(row[state])
        for row in rows
        for state in ("pending", "overdue", "failed")
    }


async def owed_call_age_gauges(pool: asyncpg.Pool) -> dict[tuple[str, ...], float]:
    """`teenpatti_operator_owed_call_oldest_age_seconds{operator, state}`: the oldest pending
    and the oldest failed; no series for a state with none."""
    async with pool.acquire() as connection:
        rows = await calls.owed_call_counts(connection)
    return {
        (row["operator_id"], state): float(row[f"oldest_{state}_seconds"])
        for row in rows
        for state in ("pending", "failed")
        if row[f"oldest_{state}_seconds"] is not None
    }


async def _pause(stopping: asyncio.Event, seconds: float, *also: asyncio.Event) -> None:
    """`seconds`, or less once `stopping` or any event of `also` is set."""
    waits = [asyncio.ensure_future(event.wait()) for event in (stopping, *also)]
    try:
        await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()
