"""The per-stream hash chain of the event store, recomputed in Python.

Postgres computes `events.hash` as each event is stored (`append`, or the `events_chain`
trigger for a row stored without one; the store's migration
`teenpatti/eventsourcing/migrations/0001_event_store.sql`):

    hash(v) = sha256(hash(v - 1) || canonical(v))        hash(0) = 32 zero bytes

`canonical(v)` is UTF-8 text made of self-delimiting fields, in this order; the text
fields are netstrings (`<length in bytes>:<text>,`), the others end with a comma:

    netstring(stream_id) stream_version "," event_id "," netstring(event_type)
    schema_version "," netstring(table_id) occurred_at "," correlation_id ","
    causation_id "," netstring(producer) payload

Integers are in decimal, `occurred_at` as integer microseconds since
1970-01-01T00:00:00Z, UUIDs in lower-case hyphenated form, an absent `causation_id` as
nothing, and `payload` (last, so it needs no delimiter) as stored (`payload::text`: the
`json` as the producer wrote it). For example a first event:
`5:table-T1,1,0b0e…-…,11:RoundOpened,1,2:T1,1764417600000000,6a1f…-…,,5:table,{"round_id": …}`.
Every event has its hash: one without is reported (`hash_missing`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from uuid import UUID

ZERO_HASH = bytes(32)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


@dataclass(frozen=True, slots=True)
class Row:
    """One stored event as the audit reads it, hash included."""

    store: str
    stream_id: str
    stream_version: int
    event_id: UUID
    event_type: str
    schema_version: int
    table_id: str
    occurred_at: datetime
    correlation_id: UUID
    causation_id: UUID | None
    producer: str
    payload_text: str
    hash: bytes | None
    transaction_id: int = 0
    position: int = 0

    @property
    def ref(self) -> str:
        """Where the event is: `<store>:<stream_id>@<version>`."""
        return f"{self.store}:{self.stream_id}@{self.stream_version}"


@dataclass(frozen=True, slots=True)
class Finding:
    """One mismatch: which check found it, a stable code, the ids concerned, and why."""

    check: str
    code: str
    subject: str
    detail: str


@dataclass(slots=True)
class ChainSummary:
    streams: int = 0
    events: int = 0
    chained: int = 0
    findings: list[Finding] = field(default_factory=list)


def epoch_microseconds(moment: datetime) -> int:
    if moment.tzinfo is None:
        raise ValueError("occurred_at must be an aware datetime")
    return (moment - _EPOCH) // _MICROSECOND


def _netstring(text: str) -> str:
    return f"{len(text.encode('utf-8'))}:{text},"


def canonical_bytes(row: Row) -> bytes:
    causation = "" if row.causation_id is None else str(row.causation_id)
    return (
        f"{_netstring(row.stream_id)}{row.stream_version},{row.event_id},"
        f"{_netstring(row.event_type)}{row.schema_version},{_netstring(row.table_id)}"
        f"{epoch_microseconds(row.occurred_at)},{row.correlation_id},{causation},"
        f"{_netstring(row.producer)}{row.payload_text}"
    ).encode()


def chain_hash(previous: bytes, row: Row) -> bytes:
    return hashlib.sha256(previous + canonical_bytes(row)).digest()


def verify_stream(rows: Sequence[Row], head_version: int | None) -> tuple[list[Finding], int]:
    """Check one stream's events (sorted by stream_version): versions 1..n without gaps, the
    hash chain (every event has its hash), commit order agreeing with version order, and the
    stream's recorded version. Returns the findings and how many events were chained."""
    findings: list[Finding] = []
    chained = 0
    previous = ZERO_HASH
    expected = 1
    last_order: tuple[int, int] | None = None
    for row in rows:
        if row.stream_version != expected:
            what = (
                f"versions {expected}..{row.stream_version - 1} are missing"
                if row.stream_version > expected
                else f"version {row.stream_version} comes again after {expected - 1}"
            )
            findings.append(
                Finding("chain", "version_gap", row.ref, f"expected version {expected}: {what}")
            )
        order = (row.transaction_id, row.position)
        if last_order is not None and order < last_order:
            findings.append(
                Finding(
                    "chain",
                    "commit_order",
                    row.ref,
                    "stored before the previous version of its stream (commit order "
                    f"{order[0]}:{order[1]} < {last_order[0]}:{last_order[1]}): reordered",
                )
            )
        last_order = order
        if row.hash is None:
            findings.append(
                Finding(
                    "chain",
                    "hash_missing",
                    row.ref,
                    "the event has no hash: stored around the store, or its hash removed",
                )
            )
            previous = chain_hash(previous, row)  # go on checking the links after it
        else:
            chained += 1
            computed = chain_hash(previous, row)
            if computed != row.hash:
                findings.append(
                    Finding(
                        "chain",
                        "hash_mismatch",
                        row.ref,
                        f"event {row.event_id} ({row.event_type}): stored hash "
                        f"{row.hash.hex()[:16]}…, recomputed {computed.hex()[:16]}…: the event "
                        "or its predecessor was altered, inserted, removed or reordered",
                    )
                )
            previous = row.hash  # go on from the stored hash: each break is reported once
        expected = row.stream_version + 1
    if rows:
        last = rows[-1]
        subject = f"{last.store}:{last.stream_id}"
        if head_version is None:
            findings.append(
                Finding("chain", "stream_head_missing", subject, "the store records no version")
            )
        elif head_version != last.stream_version:
            findings.append(
                Finding(
                    "chain",
                    "stream_head_mismatch",
                    subject,
                    f"the store records version {head_version}, the last stored event is "
                    f"version {last.stream_version}",
                )
            )
    return findings, chained
