"""The audit's device checks, pure (docs/decisions/0085-a-scanner-needs-two-supervisors.md):
which device credential read each card a round dealt, and whether that credential was
approved by a second supervisor and stayed the same from the round's betting closed to its
result.

A card dealt (`CardDealt`, the table's store) names its scan; the scan (`CardScanned`, the
gateway's store) names its device and when it was read; the device's stream holds each
credential it was given (`DeviceRegistered`, `DeviceCredentialRotated`) with its proposer and
approver. The credential a scan was read with is the device's last one given before the
read (both times are the gateway database's clock, and a read and a change of one device
take turns on its row)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol
from uuid import UUID

from teenpatti.audit.chain import Finding, Row
from teenpatti.events import Event
from teenpatti.events.catalog import (
    BettingClosed,
    CardDealt,
    CardScanned,
    DeviceCredentialRotated,
    DeviceRegistered,
)


class AuditedRound(Protocol):
    round_id: str
    table_id: str
    ended_at: datetime | None


@dataclass(frozen=True, slots=True)
class Credential:
    """A credential a device was given, and by whom."""

    device_id: str
    table_id: str
    given_at: datetime
    ref: str
    kind: str  # registered, rotated
    actor: str
    approved_by: str | None

    @property
    def approved(self) -> bool:
        return self.approved_by is not None and self.approved_by != self.actor


@dataclass(slots=True)
class DeviceHistory:
    """The device facts of the gateway's and the table's stores, indexed."""

    # device -> its credentials, in the order they were given
    credentials: dict[str, list[Credential]] = field(default_factory=dict)
    # table -> the credentials given for it
    given_at_table: dict[str, list[Credential]] = field(default_factory=dict)
    scans: dict[UUID, tuple[str, datetime]] = field(default_factory=dict)  # device, read at
    dealt: dict[str, list[tuple[UUID, str]]] = field(default_factory=dict)  # round -> scans
    betting_closed: dict[str, datetime] = field(default_factory=dict)  # round -> when

    def add(self, event: Event, row: Row) -> None:
        match event:
            case DeviceRegistered() | DeviceCredentialRotated():
                kind = "registered" if isinstance(event, DeviceRegistered) else "rotated"
                given = Credential(
                    event.device_id,
                    event.table_id,
                    row.occurred_at,
                    row.ref,
                    kind,
                    event.actor,
                    event.approved_by,
                )
                self.credentials.setdefault(event.device_id, []).append(given)
                self.given_at_table.setdefault(event.table_id, []).append(given)
            case CardScanned():
                self.scans[event.scan_id] = (event.device_id, event.scanned_at)
            case CardDealt():
                self.dealt.setdefault(event.round_id, []).append((event.scan_id, row.ref))
            case BettingClosed():
                self.betting_closed[event.round_id] = row.occurred_at

    def credential_of(self, scan_id: UUID) -> Credential | None:
        """The credential the scan was read with; None when the gateway's store read holds
        no such scan or no credential of its device before it (a scoped audit)."""
        scanned = self.scans.get(scan_id)
        if scanned is None:
            return None
        device_id, read_at = scanned
        given = [c for c in self.credentials.get(device_id, []) if c.given_at <= read_at]
        return given[-1] if given else None


def check_devices(round_: AuditedRound, devices: DeviceHistory) -> list[Finding]:
    """A round's cards read with credentials a second supervisor approved
    (`device_not_approved`), all with one credential, none given to its table between its
    betting closed and its result (`device_changed_mid_round`)."""
    findings: list[Finding] = []
    used: dict[Credential, str] = {}  # credential -> the first card it dealt (its ref)
    for scan_id, ref in devices.dealt.get(round_.round_id, []):
        credential = devices.credential_of(scan_id)
        if credential is not None:
            used.setdefault(credential, ref)
    for credential, ref in used.items():
        if not credential.approved:
            by = (
                f"{credential.actor} alone"
                if credential.approved_by is None
                else f"{credential.actor}, approved by themselves"
            )
            findings.append(
                Finding(
                    "device",
                    "device_not_approved",
                    f"round {round_.round_id} ({ref})",
                    f"dealt by device {credential.device_id}, whose credential was"
                    f" {credential.kind} by {by} ({credential.ref})",
                )
            )
    subject = f"round {round_.round_id}"
    if len(used) > 1:
        names = ", ".join(f"{c.device_id} ({c.ref})" for c in used)
        findings.append(
            Finding(
                "device",
                "device_changed_mid_round",
                subject,
                f"its cards were read with {len(used)} credentials: {names}",
            )
        )
        return findings
    closed_at = devices.betting_closed.get(round_.round_id)
    if closed_at is None:
        return findings
    for given in devices.given_at_table.get(round_.table_id, []):
        ended = round_.ended_at is None or given.given_at < round_.ended_at
        if closed_at < given.given_at and ended:
            findings.append(
                Finding(
                    "device",
                    "device_changed_mid_round",
                    subject,
                    f"device {given.device_id} was {given.kind} ({given.ref}) after betting"
                    " closed, before the round's result",
                )
            )
            break
    return findings
