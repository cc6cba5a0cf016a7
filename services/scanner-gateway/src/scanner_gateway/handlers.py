"""The gateway's use cases: propose, approve or reject a device change, revoke a device,
judge a read, tell a device a verdict.

Each command is one Postgres transaction: the device's row lock, the event and the
projection rows commit together. Waiting for the table's verdict happens after the commit,
never inside a transaction.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, replace
from datetime import datetime
from uuid import UUID, uuid4

import asyncpg

from scanner_gateway.adapters import postgres as db
from scanner_gateway.adapters.verdicts import VerdictBroker, within
from scanner_gateway.domain import (
    Absorb,
    Decision,
    Device,
    DeviceChange,
    DeviceConflictError,
    ParsedRead,
    PassOn,
    ReadAttempt,
    Refuse,
    Rescan,
    ScanAnswer,
    TableRead,
    UnknownChangeError,
    UnknownDeviceError,
    authenticate,
    check_approval,
    credential_matches,
    decide_read,
    evolve,
    is_valid_id,
    propose,
    proposed_again,
    register,
    reject,
    rescan_answer,
    revoke,
    rotate,
    shown,
    stream_of_device,
    stream_of_reads,
    stream_of_unknown_device,
    table_read,
)
from teenpatti.events.catalog import (
    DeviceChangeProposed,
    DeviceChangeRejected,
    DeviceCredentialRotated,
    DeviceRegistered,
    DeviceRevoked,
)
from teenpatti.eventsourcing import AsyncpgEventStore
from teenpatti.http import ProblemError
from teenpatti.observability.metrics import SCAN_TO_VERDICT, VERDICTS_PENDING

_FINAL = frozenset({"registered", "refused"})
DeviceEvent = (
    DeviceChangeProposed
    | DeviceChangeRejected
    | DeviceRegistered
    | DeviceCredentialRotated
    | DeviceRevoked
)


@dataclass(frozen=True)
class TableScans:
    table_id: str
    devices: list[db.TableDevice]
    scans: list[TableRead]


@dataclass(frozen=True)
class Answer:
    """An answer to a read: HTTP 200 with a verdict, or 202 while the table has not spoken."""

    http_status: int
    body: ScanAnswer


class Gateway:
    def __init__(
        self,
        *,
        pool: asyncpg.Pool,
        store: AsyncpgEventStore,
        broker: VerdictBroker,
        duplicate_window_seconds: float,
        verdict_timeout_seconds: float,
    ) -> None:
        self._pool = pool
        self._store = store
        self._broker = broker
        self._window = duplicate_window_seconds
        self._timeout = verdict_timeout_seconds

    # ---------------------------------------------------------------------------- devices
    async def propose_change(
        self, device_id: str, table_id: str | None, credential_hash: str, actor: str
    ) -> db.ChangeRow:
        """A registration to `table_id` (or, without one, a rotation) of the device with the
        credential it made, of which only the hash is given: recorded, nothing active until
        another supervisor approves it (decision 0085). The same proposal sent again by its
        proposer while it waits is answered with it."""
        async with self._pool.acquire() as connection, connection.transaction():
            version = await self._store.lock_stream(
                stream_of_device(device_id), connection=connection
            )
            device = await db.load_device(connection, device_id, lock=False)
            pending = await db.pending_change_of(connection, device_id)
            if pending is not None and proposed_again(pending, table_id, credential_hash, actor):
                waiting = await db.find_change(connection, pending.change_id)
                assert waiting is not None
                return waiting
            event, change = propose(
                uuid4(),
                device,
                None if pending is None else pending.change_id,
                device_id,
                table_id,
                credential_hash,
                actor,
            )
            now = await db.clock(connection)
            await self._append(connection, stream_of_device(device_id), version, event, now)
            await db.insert_change(connection, change, now)
            found = await db.find_change(connection, change.change_id)
        assert found is not None
        return found

    async def approve_change(
        self, change_id: UUID, approver: str, fingerprint: str
    ) -> db.ChangeRow:
        """The proposed device or credential from now on, approved by a supervisor other than
        its proposer with the fingerprint read off the device, while no round of its table
        is being dealt. A registration makes the device its table's one active device (the
        one the table had is retired, the device's binding elsewhere revoked); a rotation
        ends the old credential at once."""
        change = await self.change(change_id)
        async with self._pool.acquire() as connection, connection.transaction():
            # changes at one table queue here (one active device per table); then, as in
            # every device command, the change's row, the device's, and its stream last
            await self._store.lock_stream(f"devices-of-{change.table_id}", connection=connection)
            pending = await _lock_pending(connection, change_id)
            existing = await db.load_device(connection, pending.device_id)
            tables = {pending.table_id} | ({existing.table_id} if existing is not None else set())
            dealing = await db.round_dealing(connection, sorted(tables))
            check_approval(pending, approver, fingerprint, dealing)
            now = await db.clock(connection)
            if pending.kind == "rotate":
                if existing is None:
                    raise UnknownDeviceError(pending.device_id)
                event, rotated = rotate(existing, pending, approver)
                await self._append_device_event(connection, pending.device_id, event, now)
                await db.save_registration(
                    connection, rotated, actor=pending.proposed_by, approved_by=approver, at=now
                )
            else:
                active = await db.lock_active_device(connection, pending.table_id)
                registered = register(existing, active, pending, approver)
                for owner, one in registered.events:
                    await self._append_device_event(connection, owner, one, now)
                new, *retired = registered.devices
                for device in retired:
                    await db.save_retirement(
                        connection, device.device_id, reason="replaced", at=now
                    )
                await db.save_registration(
                    connection, new, actor=pending.proposed_by, approved_by=approver, at=now
                )
            return await db.decide_change(connection, change_id, "approved", approver, now)

    async def reject_change(self, change_id: UUID, actor: str, reason: str) -> db.ChangeRow:
        """The proposed change will not apply (any supervisor, its proposer included)."""
        change = await self.change(change_id)
        async with self._pool.acquire() as connection, connection.transaction():
            pending = await _lock_pending(connection, change_id)
            now = await db.clock(connection)
            await self._append_device_event(
                connection, change.device_id, reject(pending, actor, reason), now
            )
            return await db.decide_change(connection, change_id, "rejected", actor, now)

    async def change(self, change_id: UUID) -> db.ChangeRow:
        found = await db.find_change(self._pool, change_id)
        if found is None:
            raise UnknownChangeError(change_id)
        return found

    async def pending_changes(self) -> list[db.ChangeRow]:
        return await db.pending_changes(self._pool)

    async def revoke_device(self, device_id: str, actor: str, reason: str) -> Device:
        """The device may no longer scan (its credential and any open stream stop at once)."""
        async with self._pool.acquire() as connection, connection.transaction():
            device = await self._device_to_change(connection, device_id)
            event, revoked = revoke(device, actor, reason)
            now = await db.clock(connection)
            await self._append_device_event(connection, device_id, event, now)
            await db.save_retirement(connection, device_id, reason="revoked", at=now)
        return revoked

    async def _device_to_change(self, connection: asyncpg.Connection, device_id: str) -> Device:
        device = await self._find_device(connection, device_id, lock=True)
        if device is None:
            raise UnknownDeviceError(device_id)
        return device

    async def _append_device_event(
        self,
        connection: asyncpg.Connection,
        device_id: str,
        event: DeviceEvent,
        now: datetime,
    ) -> None:
        stream_id = stream_of_device(device_id)
        version = await self._store.lock_stream(stream_id, connection=connection)
        await self._append(connection, stream_id, version, event, now)

    async def _append(
        self,
        connection: asyncpg.Connection,
        stream_id: str,
        version: int,
        event: DeviceEvent,
        now: datetime,
    ) -> None:
        await self._store.append(
            stream_id,
            version,
            [event],
            table_id=event.table_id,
            occurred_at=now,
            connection=connection,
        )

    async def devices(self) -> list[db.DeviceRow]:
        """Every device, its last card sealed until the table's verdict showed it."""
        return [
            replace(row, last_card=shown(row.last_card, row.last_card_revealed))
            for row in await db.list_devices(self._pool)
        ]

    async def table_scans(self, table_id: str, limit: int) -> TableScans:
        """The table's devices and its last `limit` reads, newest first (the studio
        console's scanner pane); a table the gateway never heard of is a 404 problem."""
        devices = [
            replace(device, last_card=shown(device.last_card, device.last_card_revealed))
            for device in await db.table_devices(self._pool, table_id)
        ]
        scans = await db.table_scans(self._pool, table_id, limit)
        if not devices and not scans and not await db.table_known(self._pool, table_id):
            raise ProblemError(
                404,
                "unknown_table",
                f"the gateway has no device, read or round of table {table_id!r}",
            )
        return TableScans(table_id, devices, [table_read(dict(row)) for row in scans])

    # ------------------------------------------------------------------------------ reads
    async def handle_read(
        self, device_id: str, credential: str | None, parsed: ParsedRead
    ) -> Answer:
        """Record the read and answer it; a read that is not the device's to send is
        recorded, then refused with a ProblemError. A read passed on to the table is timed
        until its verdict is heard (`teenpatti_gateway_scan_to_verdict_seconds`)."""
        received = time.perf_counter()
        scan_id = uuid4()
        # its verdict is listened for before it commits: none can come sooner
        with self._broker.expecting(scan_id) as verdict:
            async with self._pool.acquire() as connection, connection.transaction():
                lock = await self._lock_device(connection, device_id)
                attempt = ReadAttempt(
                    scan_id, device_id, credential, parsed, lock.read_at, lock.round_id
                )
                decision = decide_read(lock.device, attempt, self._window)
                await self._record(connection, lock, decision)
            answer = await self._answer(decision, verdict)
        if isinstance(decision, PassOn):
            if answer.body.status == "pending":
                VERDICTS_PENDING.inc()
            else:
                SCAN_TO_VERDICT.labels(answer.body.status).observe(time.perf_counter() - received)
        return answer

    async def open_stream(self, device_id: str, credential: str | None) -> None:
        """Check a stream's device and credential when it connects; a refusal is recorded
        (as a read of nothing) and raised as a ProblemError."""
        async with self._pool.acquire() as connection, connection.transaction():
            lock = await self._lock_device(connection, device_id)
            attempt = ReadAttempt(
                uuid4(), device_id, credential, ParsedRead(None, None, ""), lock.read_at
            )
            refused = authenticate(lock.device, attempt)
            if refused is not None:
                await self._record(connection, lock, refused)
        if refused is not None:
            raise _problem(refused)

    async def scan(self, device_id: str, credential: str | None, scan_id: UUID) -> Answer:
        """A device asks again about one of its reads (after a `pending` answer)."""
        async with self._pool.acquire() as connection:
            device = await self._find_device(connection, device_id)
            if (
                device is None
                or not device.active
                or not credential_matches(credential, device.credential_hash)
            ):
                raise ProblemError(401, "unauthorized", "unknown device or bad credential")
            row = await db.load_scan(connection, scan_id)
            if row is None or row.device_id != device.device_id:
                raise ProblemError(404, "unknown_scan", f"no read {scan_id} from this device")
            duplicate = row.duplicate_of is not None
            if duplicate:
                assert row.duplicate_of is not None
                original = await db.load_scan(connection, row.duplicate_of)
                if original is None:  # the original is written in the same transaction
                    raise ProblemError(404, "unknown_scan", f"no read {scan_id}")
                row = original
        answer = _answer_of_row(row, duplicate=duplicate)
        if answer.status == "pending":
            found = await self._broker.lookup(row.scan_id)
            if found is not None:
                answer = found.model_copy(update={"duplicate": duplicate})
        return Answer(202 if answer.status == "pending" else 200, answer)

    # -------------------------------------------------------------------------- internals
    async def _lock_device(self, connection: asyncpg.Connection, device_id: str) -> db.DeviceLock:
        # an id that could never be registered is not looked up (nor stored in an index)
        return await db.lock_device(connection, device_id if is_valid_id(device_id) else None)

    async def _find_device(
        self, connection: asyncpg.Connection, device_id: str, *, lock: bool = False
    ) -> Device | None:
        if not is_valid_id(device_id):
            return None
        return await db.load_device(connection, device_id, lock=lock)

    async def _record(
        self, connection: asyncpg.Connection, lock: db.DeviceLock, decision: Decision
    ) -> None:
        event, device = decision.event, lock.device
        if device is None:
            stream_id = stream_of_unknown_device(event.device_id)
            version = await self._store.lock_stream(stream_id, connection=connection)
        else:  # its reads stream is locked with its row
            stream_id, version = stream_of_reads(device.device_id), lock.reads_version
        await self._store.append(
            stream_id,
            version,
            [event],
            table_id=event.table_id,
            occurred_at=event.scanned_at,
            connection=connection,
        )
        if device is None or (
            isinstance(decision, Refuse) and decision.code in ("bad_credential", "revoked_device")
        ):
            return  # only an authenticated device's reads are its own to look up
        after = evolve(device, event)
        await db.insert_scan(
            connection, _row_of(decision), last_read=after if after != device else None
        )

    async def _answer(self, decision: Decision, verdict: asyncio.Future[ScanAnswer]) -> Answer:
        match decision:
            case Refuse():
                raise _problem(decision)
            case Rescan():
                return Answer(200, rescan_answer(decision.event))
            case PassOn():
                heard = await within(verdict, self._timeout)
                return await self._verdict(decision.event.scan_id, heard, duplicate=False)
            case Absorb():
                original = decision.original_scan_id
                heard = await self._broker.wait(original, self._timeout)
                return await self._verdict(original, heard, duplicate=True)

    async def _verdict(
        self, scan_id: UUID, answer: ScanAnswer | None, *, duplicate: bool
    ) -> Answer:
        """The table's verdict on `scan_id` as heard within the verdict timeout, else as
        recorded."""
        if answer is None:
            row = await db.load_scan(self._pool, scan_id)
            if row is not None and row.status in _FINAL:
                answer = _answer_of_row(row, duplicate=False)
        if answer is None:
            answer = ScanAnswer(scan_id=scan_id, status="pending")
        answer = answer.model_copy(update={"duplicate": duplicate})
        return Answer(202 if answer.status == "pending" else 200, answer)


async def _lock_pending(connection: asyncpg.Connection, change_id: UUID) -> DeviceChange:
    pending = await db.lock_pending_change(connection, change_id)
    if pending is None:
        detail = f"device change {change_id} is approved or rejected already"
        raise DeviceConflictError("change_decided", detail)
    return pending


def _problem(refused: Refuse) -> ProblemError:
    return ProblemError(
        refused.status, refused.code, refused.detail, scan_id=str(refused.event.scan_id)
    )


def _row_of(decision: Decision) -> db.ScanRow:
    event = decision.event
    card: str | None = None
    duplicate_of: UUID | None = None
    if isinstance(decision, PassOn):
        status, reason, detail, card = "pending", None, None, decision.event.card
    else:
        reason, detail = decision.event.reason, decision.event.detail
        if isinstance(decision, Rescan):
            status = "rescan"
        elif isinstance(decision, Absorb):
            status, duplicate_of = "duplicate", decision.original_scan_id
        else:
            status = "rejected"
    return db.ScanRow(
        scan_id=event.scan_id,
        device_id=event.device_id,
        table_id=event.table_id,
        card=card,
        status=status,
        reason=reason,
        detail=detail,
        position=None,
        duplicate_of=duplicate_of,
        received_at=event.scanned_at,
        sequence=event.sequence,
        raw=event.raw,
    )


def _answer_of_row(row: db.ScanRow, *, duplicate: bool) -> ScanAnswer:
    match row.status:
        case "registered":
            return ScanAnswer(
                scan_id=row.scan_id,
                status="registered",
                position=row.position,
                card=row.card,
                duplicate=duplicate,
            )
        case "refused":
            return ScanAnswer(
                scan_id=row.scan_id,
                status="refused",
                reason=row.reason,
                detail=row.detail,
                card=row.card,
                duplicate=duplicate,
            )
        case "rescan":
            return ScanAnswer(scan_id=row.scan_id, status="rescan", reason=row.detail)
        case "pending":
            return ScanAnswer(
                scan_id=row.scan_id, status="pending", card=row.card, duplicate=duplicate
            )
        case _:
            raise ProblemError(
                404, "unknown_scan", f"read {row.scan_id} was not passed on: {row.reason}"
            )
