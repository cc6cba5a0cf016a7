"""A slip, for both wallet modes: its Idempotency-Key claimed, every check of the round, the
limits and the player's exposure made once, then written whole (transfer) or sent to the
operator's wallet as one `bet` (seamless); its answer or refusal stored under the key.

A transfer slip is one transaction: the stakes debited with the slip, its `BetsPlaced` and
its answer. Once the wallet knows the round's limits it is one statement too
(`wallet_place_slip`, one round trip, and with the slips that arrive meanwhile one commit:
`slip_batches.py`): the checks that need no database here, those that do
under the round's and the player's locks in Postgres; a slip that fails one of them, or whose
key was used, is placed the long way, which refuses it with its code and text
(docs/decisions/0101-a-slip-in-one-round-trip.md).

A seamless slip is two short transactions around its bet call, never one held across it
(docs/decisions/0066-seamless-slips-and-owed-calls.md): the first claims the key and records
the bet as pending, after every check but funds (the operator's); the second records the
answer, and takes the slip only on `RS_OK` while its round is still open for betting."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import asyncpg

from teenpatti.events.catalog import BetsPlaced
from teenpatti.eventsourcing import AsyncpgEventStore
from teenpatti.observability.metrics import SLIPS_REFUSED
from teenpatti.seamless import Answered, BetCall, CallOutcome, OperatorConfig

from .adapters import postgres as db
from .adapters import seamless as calls
from .config import WalletSettings
from .domain.betting import (
    IdempotencyKeyReusedError,
    LedgerEntry,
    RoundBetting,
    SlipLine,
    UnknownRoundError,
    WalletError,
    check_betting_open,
    check_exposure,
    check_funds,
    check_slip_shape,
    check_stakes,
    fingerprint,
    validate_slip,
)
from .domain.seamless import SlipPendingError, TokenExpiredError, judge_bet
from .errors import refusal_from, status_of, stored_refusal
from .operators import OperatorWallets
from .slip_batches import SlipBatches

log = logging.getLogger(__name__)

# how many rounds' limits a wallet keeps for slips placed in one statement
_ROUNDS_REMEMBERED = 10_000

Clock = Callable[[], datetime]


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


@dataclass(frozen=True, slots=True)
class CheckedSlip:
    """A slip that passed every check, with what the checks read under the player's lock."""

    round: RoundBetting
    placed_at: datetime
    total: int
    account: db.LockedAccount


class Slips:
    """Places slips for both wallet modes, each whole or not at all."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        store: AsyncpgEventStore,
        settings: WalletSettings,
        operators: OperatorWallets,
        clock: Clock = lambda: datetime.now(UTC),
    ) -> None:
        self._pool = pool
        self._store = store
        self._operators = operators
        self._grace = timedelta(milliseconds=settings.betting_grace_ms)
        self._max_bets = settings.max_bets_per_slip
        self._clock = clock
        self._in_one_statement = settings.slip_in_one_statement
        self._batches = SlipBatches(
            pool,
            grace=self._grace,
            batch_size=settings.slip_batch_size,
            in_flight=settings.slip_batches_in_flight,
        )
        # rounds read the long way, for their table and limits, which never change
        self._rounds: dict[str, RoundBetting] = {}

    async def place(self, operator_id: str, idempotency_key: str, slip: Slip) -> dict[str, Any]:
        """The whole slip or nothing. The answer (acceptance or refusal) is stored under the
        key, except `unknown_round`: the wallet may not have heard of a new round yet. Every
        refusal, of either mode, is counted here (`teenpatti_wallet_slips_refused_total`)."""
        try:
            config = await self._operators.configs.get(operator_id)
            if config.seamless:
                return await self._place_seamless(config, idempotency_key, slip)
            return await db.in_commit_order(
                lambda: self._place_transfer(operator_id, idempotency_key, slip)
            )
        except WalletError as refusal:
            SLIPS_REFUSED.labels(operator_id, refusal.code).inc()
            raise

    # -------------------------------------------------------------------- both modes
    async def _open(
        self,
        connection: asyncpg.Connection,
        operator_id: str,
        key: str,
        slip: Slip,
        *,
        seamless: bool,
    ) -> CheckedSlip | dict[str, Any] | WalletError:
        """Claim the key and check the slip: the checked slip; or the answer stored under
        the key (a refusal stored there is raised again); or the refusal, now stored."""
        request_hash = slip.fingerprint()
        claimed = await db.claim_key(connection, operator_id, key, request_hash)
        if not claimed.first:
            if claimed.request_hash != request_hash:
                raise IdempotencyKeyReusedError(
                    f"the Idempotency-Key {key!r} was used for another request"
                )
            if claimed.status_code is None or claimed.response is None:
                raise SlipPendingError(
                    "the slip under this Idempotency-Key waits for the operator's answer; ask again"
                )
            return _stored(claimed.status_code, claimed.response)
        try:
            return await self._check(connection, operator_id, slip, seamless=seamless)
        except UnknownRoundError:
            raise  # not stored: the round may reach the wallet in a moment
        except WalletError as error:  # raised before anything of the slip is written
            await db.store_answer(
                connection, operator_id, key, status_of(error), stored_refusal(error)
            )
            return error

    async def _check(
        self, connection: asyncpg.Connection, operator_id: str, slip: Slip, *, seamless: bool
    ) -> CheckedSlip:
        """Every check of a slip: its shape, the round open for betting, the limits, the
        player's exposure on the round read under its lock (so two slips of the player
        cannot both pass), and, for a transfer player, its funds. A seamless player's slips
        still waiting for their operator's answer count in its exposure as if taken; its
        funds are the operator's to check."""
        check_slip_shape(slip.lines, max_bets=self._max_bets)
        round_ = await db.round_for_betting(connection, slip.round_id)
        if round_ is None:
            raise UnknownRoundError(f"round {slip.round_id} is not known")
        self._remember(round_)
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
        staked = await db.player_round_stakes(
            connection, operator_id, slip.player_id, round_.round_id, slip.currency
        )
        if seamless:
            pending = await calls.pending_round_stakes(
                connection, operator_id, slip.player_id, round_.round_id, slip.currency
            )
            for bet_type, stake in pending.items():
                staked[bet_type] = staked.get(bet_type, 0) + stake
        check_exposure(round_, slip.currency, slip.lines, staked)
        if not seamless:
            check_funds(account.balance, total, slip.currency)
        return CheckedSlip(round_, placed_at, total, account)

    async def _append_placed(
        self,
        connection: asyncpg.Connection,
        operator_id: str,
        slip_id: UUID,
        answer: dict[str, Any],
        version: int,
        *,
        seamless: bool,
    ) -> None:
        """The slip's `BetsPlaced`, the same for both modes but for `wallet`: settlement sees
        the same bets; the audit looks for a seamless slip's stake at its operator."""
        await self._store.append(
            db.player_stream(operator_id, answer["player_id"]),
            version,
            [_bets_placed(operator_id, slip_id, answer, seamless=seamless)],
            table_id=answer["table_id"],
            connection=connection,
        )

    def _remember(self, round_: RoundBetting) -> None:
        if len(self._rounds) >= _ROUNDS_REMEMBERED:
            self._rounds.clear()  # rounds end within minutes: the live ones come back at once
        self._rounds[round_.round_id] = round_

    # ----------------------------------------------------------------------- transfer
    async def _place_transfer(
        self, operator_id: str, idempotency_key: str, slip: Slip
    ) -> dict[str, Any]:
        if self._in_one_statement:
            taken = await self._place_in_one_statement(operator_id, idempotency_key, slip)
            if taken is not None:
                return taken
        async with self._pool.acquire() as connection, connection.transaction():
            opened = await self._open(
                connection, operator_id, idempotency_key, slip, seamless=False
            )
            if isinstance(opened, CheckedSlip):
                return await self._debit(connection, operator_id, idempotency_key, slip, opened)
        if isinstance(opened, WalletError):
            raise opened  # its refusal committed under the key
        return opened

    async def _place_in_one_statement(
        self, operator_id: str, idempotency_key: str, slip: Slip
    ) -> dict[str, Any] | None:
        """The slip taken in one statement, or None: its round not known here yet, a check
        failed or its key used before, nothing written; the long way then answers."""
        round_ = self._rounds.get(slip.round_id)
        if round_ is None:
            return None
        try:
            check_slip_shape(slip.lines, max_bets=self._max_bets)
            check_stakes(round_, slip.currency, slip.lines)
        except WalletError:
            return None
        limits = round_.limits[slip.currency]
        # before the round's lock, unlike the long way: a seal or a pause is still seen
        # under it, and the seal's clock is read once every slip holding the lock committed
        placed_at = self._clock()
        slip_id = uuid4()
        bets = [db.NewBet(uuid4(), line.bet_type, line.stake) for line in slip.lines]
        answer = _answer(slip_id, slip, round_, placed_at, bets)
        event = _bets_placed(operator_id, slip_id, answer, seamless=False)
        record = db.SlipRecord(
            slip_id=slip_id,
            operator_id=operator_id,
            player_id=slip.player_id,
            round_id=round_.round_id,
            table_id=round_.table_id,
            currency=slip.currency,
            placed_at=placed_at,
            bets=bets,
            ledger=_stake_entries(
                operator_id,
                slip.player_id,
                slip.currency,
                slip_id,
                sum(line.stake for line in slip.lines),
            ),
            idempotency_key=idempotency_key,
            answer=answer,
        )
        balance = await self._batches.place(
            db.SlipToPlace(
                record,
                request_hash=slip.fingerprint(),
                maxima=[limits[line.bet_type].max for line in slip.lines],
                event=self._store.event_append_arguments(event),
            )
        )
        if balance is None:
            return None
        answer["balance"] = balance
        return answer

    async def _debit(
        self,
        connection: asyncpg.Connection,
        operator_id: str,
        idempotency_key: str,
        slip: Slip,
        checked: CheckedSlip,
    ) -> dict[str, Any]:
        """Write the slip whole with its stored answer (the accepted slip's answer is stored
        by the same statement that debits it)."""
        slip_id = uuid4()
        bets = [db.NewBet(uuid4(), line.bet_type, line.stake) for line in slip.lines]
        answer = _answer(slip_id, slip, checked.round, checked.placed_at, bets)
        # the balance cannot move under the lock
        answer["balance"] = checked.account.balance - checked.total
        balance_after = await db.record_slip(
            connection,
            db.SlipRecord(
                slip_id=slip_id,
                operator_id=operator_id,
                player_id=slip.player_id,
                round_id=checked.round.round_id,
                table_id=checked.round.table_id,
                currency=slip.currency,
                placed_at=checked.placed_at,
                bets=bets,
                ledger=_stake_entries(
                    operator_id, slip.player_id, slip.currency, slip_id, checked.total
                ),
                idempotency_key=idempotency_key,
                answer=answer,
            ),
        )
        if balance_after != answer["balance"]:
            raise RuntimeError(f"balance {balance_after} after the debit, not {answer['balance']}")
        await self._append_placed(
            connection, operator_id, slip_id, answer, checked.account.version, seamless=False
        )
        return answer

    # ----------------------------------------------------------------------- seamless
    async def _place_seamless(
        self, config: OperatorConfig, idempotency_key: str, slip: Slip
    ) -> dict[str, Any]:
        """The slip taken on the operator's RS_OK while its round is open, else refused with
        the operator's reason (`domain.seamless.judge_bet`)."""
        if not slip.token:
            raise TokenExpiredError(
                "a seamless operator's slip needs the player's session token (`token`)"
            )
        client = self._operators.client_for(config)
        # transaction 1: the key claimed and the bet recorded pending
        async with self._pool.acquire() as connection, connection.transaction():
            opened = await self._open(
                connection, config.operator_id, idempotency_key, slip, seamless=True
            )
            if isinstance(opened, CheckedSlip):
                pending = _pending_bet(config, idempotency_key, slip, opened)
                await calls.record_pending_bet(connection, pending)
        if isinstance(opened, WalletError):
            raise opened
        if not isinstance(opened, CheckedSlip):
            return opened
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
        return await db.in_commit_order(lambda: self._record_answer(pending, outcome))

    async def _record_answer(
        self, pending: calls.PendingBet, outcome: CallOutcome
    ) -> dict[str, Any]:
        """Transaction 2: the bet's answer recorded, the slip taken or refused; if the
        recovery loop ended the slip first, its refusal stands (a late RS_OK is rolled back
        by the rollback it owed)."""
        async with self._pool.acquire() as connection, connection.transaction():
            operator_id, key = pending.operator_id, pending.idempotency_key
            if not await calls.lock_pending_bet(connection, pending.slip_id):
                stored = await db.stored_answer(connection, operator_id, key)
                assert stored is not None, "a bet ended without its slip's answer"
                return _stored(*stored)
            round_ = await db.round_for_betting(connection, pending.round_id)
            round_open = False
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
                **calls.answer_columns(outcome, self._clock()),
                error=None if verdict.refusal is None else verdict.refusal.detail,
            )
            if verdict.refusal is None:
                assert isinstance(outcome, Answered)
                return await self._take(connection, pending, outcome)
            refusal = verdict.refusal
            if verdict.roll_back:
                await calls.owe_rollback_of_bet(connection, pending.slip_id)
            await db.store_answer(
                connection, operator_id, key, status_of(refusal), stored_refusal(refusal)
            )
        log.info("seamless slip %s refused: %s", pending.slip_id, refusal.detail)
        raise refusal

    async def _take(
        self, connection: asyncpg.Connection, pending: calls.PendingBet, answered: Answered
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
            "placed_at": pending.slip["placed_at"],
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
            placed_at=datetime.fromisoformat(pending.slip["placed_at"]),
            bets=bets,
            idempotency_key=pending.idempotency_key,
            answer=answer,
        )
        await self._append_placed(
            connection, pending.operator_id, pending.slip_id, answer, account.version, seamless=True
        )
        return answer


def _bets_placed(
    operator_id: str, slip_id: UUID, answer: dict[str, Any], *, seamless: bool
) -> BetsPlaced:
    return BetsPlaced.model_validate(
        {
            "slip_id": slip_id,
            "round_id": answer["round_id"],
            "table_id": answer["table_id"],
            "operator_id": operator_id,
            "player_id": answer["player_id"],
            "currency": answer["currency"],
            "placed_at": answer["placed_at"],
            **({"wallet": "seamless"} if seamless else {}),
            "bets": answer["bets"],
        }
    )


def _stored(status_code: int, response: dict[str, Any]) -> dict[str, Any]:
    """The answer stored under a slip's key: the slip, or its refusal raised again."""
    if status_code < 400:
        return response
    raise refusal_from(response)


def _answer(
    slip_id: UUID, slip: Slip, round_: RoundBetting, placed_at: datetime, bets: list[db.NewBet]
) -> dict[str, Any]:
    return {
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
    }


def _pending_bet(
    config: OperatorConfig, idempotency_key: str, slip: Slip, checked: CheckedSlip
) -> calls.PendingBet:
    slip_id = uuid4()
    return calls.PendingBet(
        slip_id=slip_id,
        operator_id=config.operator_id,
        player_id=slip.player_id,
        round_id=checked.round.round_id,
        table_id=checked.round.table_id,
        currency=slip.currency,
        amount=checked.total,
        token=slip.token or "",
        idempotency_key=idempotency_key,
        slip={
            "placed_at": checked.placed_at.isoformat(),
            "bets": [
                {"bet_id": str(uuid4()), "bet_type": line.bet_type, "stake": line.stake}
                for line in slip.lines
            ],
        },
        win_per=config.win_per.value,
    )


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
